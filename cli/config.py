"""`cubilete config check FILE` validates a config file; `cubilete config defaults` prints
the built-in defaults as a commented file to start from."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from firmware.config import load_config


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("config", help="check a config file or print the defaults")
    actions = parser.add_subparsers(dest="action", metavar="ACTION", required=True)
    check = actions.add_parser("check", help="validate FILE: each problem with its key, the bad "
                                             "value and the allowed values; exit 0 when valid, 1 when not")
    check.add_argument("file", metavar="FILE", help="the TOML file, e.g. /etc/cubilete/config.toml")
    check.set_defaults(handler=run_check)
    defaults = actions.add_parser("defaults", help="print the default config file with comments")
    defaults.set_defaults(handler=run_defaults)


def run_check(args: argparse.Namespace) -> int:
    _, problems = load_config(args.file)
    for problem in problems:
        # Problems with the whole file already name it.
        print(problem.message if not problem.key else f"{args.file}: {problem.message}")
    if problems:
        print(f"{args.file}: {len(problems)} problem{'s' if len(problems) > 1 else ''}", file=sys.stderr)
        return 1
    print(f"{args.file}: valid")
    return 0


def run_defaults(args: argparse.Namespace) -> int:
    sys.stdout.write((Path(__file__).resolve().parent.parent / "default_config.toml").read_text("utf-8"))
    return 0
