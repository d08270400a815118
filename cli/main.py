"""The `cubilete` command line: a thin dispatcher over `cli`."""

from __future__ import annotations

import argparse
import importlib
import sys
from typing import NoReturn, Sequence

COMMANDS = ("games", "score", "solve", "advise", "read", "tray", "watch", "bench", "run", "demo", "config",
            "export")


class OneLineErrorParser(argparse.ArgumentParser):
    """An argument parser whose usage errors are one line on stderr and exit code 2."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message}\n")


def build_parser() -> argparse.ArgumentParser:
    parser = OneLineErrorParser(prog="cubilete", description="The Cubilete dice-game scorer.")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for name in COMMANDS:
        importlib.import_module(f"cli.{name}").register(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return int(args.handler(args) or 0)
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 0


if __name__ == "__main__":
    sys.exit(main())
