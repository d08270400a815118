"""`cubilete read`: not built yet."""

from __future__ import annotations

import argparse
import sys


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("read", help="(not built yet)")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    print("cubilete read: not built yet", file=sys.stderr)
    return 2
