"""`cubilete bench fairness`: how the dice fairness warning behaves on simulated dice.

Seeded runs of first throws (five dice each): dice loaded 20% toward six (a six 0.2, every
other face 0.16) and fair dice. For each it prints how many runs warn (p < 0.001 with 600
throws or more) when tested once at 600, 800 and 1000 throws, and how many warn at some
throw between 600 and 1000 when the test is redone after every throw (as a device showing
the figure all the time would), with the median throw of the first warning.
"""

from __future__ import annotations

import argparse

import numpy as np

from engine.fairness import WARN_FROM_THROWS, chi_square_p_value, chi_square_statistic

LOADED = (0.16, 0.16, 0.16, 0.16, 0.16, 0.20)
FAIR = (1 / 6,) * 6
CHECKPOINTS = (600, 800, 1000)


def register(benches: argparse._SubParsersAction) -> None:
    parser = benches.add_parser("fairness", help="the fairness warning on simulated loaded and fair dice",
                                description=__doc__.split("\n\n", 1)[1],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=1000, metavar="N", help="runs per kind of dice (default 1000)")
    parser.add_argument("--throws", type=int, default=1000, metavar="N", help="throws per run (default 1000)")
    parser.add_argument("--dice", type=int, default=5, metavar="N", help="dice per throw (default 5)")
    parser.add_argument("--seed", type=int, default=1)
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    print(f"{args.runs} runs of {args.throws} throws of {args.dice} dice; warning at p < 0.001 with >= 600 throws")
    for label, weights in (("loaded 20% toward 6", LOADED), ("fair", FAIR)):
        summary = simulate(weights, args.runs, args.throws, args.dice, args.seed)
        once = ", ".join(f"{n} throws {summary['at'][n]}/{args.runs}" for n in CHECKPOINTS if n <= args.throws)
        first = summary["first"]
        median = sorted(first)[len(first) // 2] if first else "-"
        print(f"{label}: warns when tested once at {once}; when retested after every throw, "
              f"{len(first)}/{args.runs} runs warn by {args.throws} throws (median first warning at throw {median})")
    return 0


def simulate(weights, runs: int, throws: int, dice: int, seed: int) -> dict:
    rng = np.random.default_rng(seed)
    at = {n: 0 for n in CHECKPOINTS}
    first: list[int] = []
    for _ in range(runs):
        faces = rng.choice(6, size=(throws, dice), p=np.array(weights) / sum(weights))
        per_throw = np.stack([(faces == f).sum(axis=1) for f in range(6)], axis=1)
        running = np.cumsum(per_throw, axis=0)
        warned = None
        for n in range(WARN_FROM_THROWS, throws + 1):
            p = chi_square_p_value(chi_square_statistic(running[n - 1].tolist()), 5)
            if p < 0.001:
                if warned is None:
                    warned = n
                if n in at:
                    at[n] += 1
        if warned is not None:
            first.append(warned)
    return {"at": at, "first": first}
