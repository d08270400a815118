"""The live scoreboard: a small web service for the bar's TV and the players' phones.

It runs apart from the game service (its own systemd unit and user; the game service keeps
`PrivateNetwork=yes`), reads the event log read-only (`web.logreader`: SQLite `mode=ro`
beside the WAL writer), folds the games through the engine (`web.board`) and pushes the
board to every open page with server-sent events (`web.live`). `web.app` is the Starlette
application, `web.serve` runs it under uvicorn; the page itself (`web/static/`) is plain
HTML, CSS and JavaScript served from memory: nothing from the internet, no build step.

Stands above `engine` and the read-only pieces of `firmware` (config, eventlog); nothing
in the device imports it but the command line.
"""
