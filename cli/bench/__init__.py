"""`cubilete bench ...`: benchmark commands that print measured figures.

Each benchmark lives in the lab, in its own module `lab.benches.<name>` exposing
`register(bench_subparsers)`.
"""

from __future__ import annotations

import argparse
import importlib

BENCHES = ("vision", "tracker", "appliance", "fuzz", "advisor", "fairness")


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("bench", help="measure speed, accuracy and memory; prints figures")
    benches = parser.add_subparsers(dest="bench", metavar="BENCH", required=True)
    for name in BENCHES:
        importlib.import_module(f"lab.benches.{name}").register(benches)
