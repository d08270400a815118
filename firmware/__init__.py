"""The appliance: wires the engine, the reader and the hardware into the device on the bar.

`service` (the daemon's loop: camera, tracker, buttons, display, control socket), `appliance/`
(the state machine of modes), `ui/` (screens, the font, drawing), `eventlog` (the SQLite log
of events), `config`, `export/` (game logs to a folder or a USB stick), `retention`,
`sdnotify`. Never imports the lab or the command line.
"""
