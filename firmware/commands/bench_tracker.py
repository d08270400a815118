"""`cubilete bench tracker`: not built yet."""

from __future__ import annotations

import argparse
import sys


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("tracker", help="(not built yet)")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    print("cubilete bench tracker: not built yet", file=sys.stderr)
    return 2
