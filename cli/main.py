"""The `cubilete` command line: a thin dispatcher over the command modules of `cli`.

Each command is one module (`cli.<name>`, `register(subparsers)` adding its parser and
`handler`). Only the module of the command asked for is imported: `cubilete score` then
starts in 0.09 s instead of the 0.59 s that importing every command's dependencies
(OpenCV, numpy, the service, the advisor) takes. That `importlib.import_module` is the
command line's one deferred import.

`demo` and `bench` drive the lab (`lab.demo`; `cli.bench`, which the device's wheel leaves
out); on a device installed without the lab they say so and exit 2.
"""

from __future__ import annotations

import argparse
import importlib
import importlib.metadata
import sys
from typing import NoReturn, Sequence

# name: one line of help (the module's own parser says the rest)
COMMANDS = {
    "games": "list every game with its categories and options",
    "score": "score a roll in every category of a game",
    "solve": "solve a game's optimal play and write its table",
    "advise": "the best choices for a throw, with expected final totals",
    "read": "read the dice in photos",
    "tray": "find the empty tray's outline for the config",
    "watch": "follow the throws in a recorded camera session",
    "bench": "measure speed, accuracy and memory; prints figures (the lab)",
    "run": "run the scorer: camera, buttons, display, event log",
    "demo": "play a recorded Generala game through the whole device (the lab)",
    "config": "check a config file or print the defaults",
    "export": "export the game logs to a folder or a USB stick",
    "web": "serve the live scoreboard page (read-only)",
}
LAB_COMMANDS = ("bench", "demo")


class OneLineErrorParser(argparse.ArgumentParser):
    """An argument parser whose usage errors are one line on stderr and exit code 2."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message}\n")


def chosen_command(argv: Sequence[str]) -> str | None:
    """The command named on the line (the first word that is one), if any."""
    return next((word for word in argv if word in COMMANDS), None)


def installed_version() -> str:
    """The installed package's version ("unknown" when run from a tree that is not installed)."""
    try:
        return importlib.metadata.version("cubilete")
    except importlib.metadata.PackageNotFoundError:
        return "unknown (not installed)"


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The parser with `command` fully registered and the others by name and help only;
    with no command, every command is registered (tests, `--help` of each)."""
    parser = OneLineErrorParser(prog="cubilete", description="The Cubilete dice-game scorer.")
    parser.add_argument("--version", action="version", version=f"cubilete {installed_version()}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for name, help_line in COMMANDS.items():
        if command is None or name == command:
            importlib.import_module(f"cli.{name}").register(subparsers)
        else:
            subparsers.add_parser(name, help=help_line)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    words = list(sys.argv[1:] if argv is None else argv)
    command = chosen_command(words)
    try:
        parser = build_parser(command) if command is not None else build_parser("games")
    except ModuleNotFoundError as error:
        if command in LAB_COMMANDS and (error.name or "").startswith(("lab", "cli.bench")):
            print(f"cubilete {command}: needs the lab, which this installation lacks "
                  "(in a clone: make demo, or pip install -e ./lab)", file=sys.stderr)
            return 2
        raise
    args = parser.parse_args(words)
    try:
        return int(args.handler(args) or 0)
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 0


if __name__ == "__main__":
    sys.exit(main())
