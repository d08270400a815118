"""The `cubilete` command line, on top of the device and the lab: one module per command.

Each module exposes `register(subparsers)`, which adds its parser and sets `handler` (a
function taking the parsed arguments and returning the exit code), and imports what it needs
at its top: `cli.main` imports only the module of the command asked for. `cli/bench/` holds
the bench commands (not in the device's wheel).
"""
