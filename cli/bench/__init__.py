"""`cubilete bench ...`: benchmark commands that print measured figures.

Each benchmark is a module of its own, `cli.bench.<name>`, exposing `register(bench_subparsers)`;
the benches drive the device with the lab's scenes, sessions and evaluation helpers. They are
not in the device's wheel (pyproject.toml excludes `cli.bench`): a clone runs them.
"""

from __future__ import annotations

import argparse
import importlib

BENCHES = ("vision", "tracker", "appliance", "fuzz", "advisor", "fairness", "web")


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("bench", help="measure speed, accuracy and memory; prints figures")
    benches = parser.add_subparsers(dest="bench", metavar="BENCH", required=True)
    for name in BENCHES:
        importlib.import_module(f"cli.bench.{name}").register(benches)
