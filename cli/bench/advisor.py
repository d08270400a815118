"""`cubilete bench advisor`: how long one piece of advice takes, on one thread, and how big
the tables are.

For each sheet game it loads the table (load s), prepares the advisor for the game
(`advisor.advise.prepare`, prepare s: once per game on the device), then plays seeded games
with the advisor's own choices (random dice), asks for advice at every decision (after each
throw and before each turn) and prints the median, 95th percentile and worst milliseconds,
with the table's positions and file size.
Tables not shipped nor cached are solved first with --build (minutes for yahtzee, kniffel
and yatzy), else the game is skipped.
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import sys
import time

import numpy as np

import engine
from advisor.advise import advise, prepare
from advisor.tables import PACKAGE_TABLES, cache_path, find, get_table
from cli.solve import state_directory
from engine import GAMES, events as ev


def register(benches: argparse._SubParsersAction) -> None:
    parser = benches.add_parser("advisor", help="advice ms per decision and table sizes, per game",
                                description=__doc__.split("\n\n", 1)[1],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", default="", metavar="ID,ID", help="only these games (default: every sheet game)")
    parser.add_argument("--decisions", type=int, default=300, metavar="N", help="decisions per game (default 300)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--build", action="store_true", help="solve tables that are missing (and cache them)")
    parser.add_argument("--state-dir", metavar="DIR", help="where tables are cached (default: device.state_dir)")
    parser.add_argument("--config", metavar="FILE", help="config file (default /etc/cubilete/config.toml)")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    for name in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ[name] = "1"  # one thread, as on the Pi (read when numpy loads)
    state_dir = state_directory(args.state_dir, args.config)
    wanted = [g for g in args.games.split(",") if g] or [g.id for g in GAMES.values()
                                                           if g.default_rules.match is None]
    print(f"{'game':<18} {'expected':>9} {'positions':>9} {'table MB':>8} {'where':<8} {'load s':>6} "
          f"{'prepare s':>9} {'advice ms p50':>13} {'p95':>6} {'max':>6} {'decisions':>9}")
    total_bytes = 0
    for game_id in wanted:
        row = bench_game(game_id, state_dir, args.decisions, args.seed, args.build)
        if row is None:
            print(f"{game_id:<18} no table (shipped or in {state_dir}/advisor); --build solves it")
            continue
        total_bytes += row["bytes"]
        print(f"{game_id:<18} {row['expected']:>9.4f} {row['positions']:>9} {row['bytes'] / 1e6:>8.2f} "
              f"{row['where']:<8} {row['load']:>6.2f} {row['prepare']:>9.2f} {row['p50']:>13.2f} {row['p95']:>6.2f} "
              f"{row['max']:>6.2f} {row['decisions']:>9}")
    print(f"tables in all: {total_bytes / 1e6:.2f} MB")
    return 0


def bench_game(game_id: str, state_dir: str, decisions: int, seed: int, build: bool) -> dict | None:
    started = time.perf_counter()
    table = find(game_id, state_dir=state_dir)
    load = time.perf_counter() - started
    if table is None:
        if not build:
            return None
        print(f"solving {game_id} ...", file=sys.stderr, flush=True)
        table = get_table(game_id, state_dir=state_dir)
    path = table.path if table.path is not None else cache_path(state_dir, game_id)
    size = path.stat().st_size if path.is_file() else 0
    where = "package" if path.parent == PACKAGE_TABLES else ("cache" if size else "memory")
    started = time.perf_counter()
    prepare(table)
    prepared = time.perf_counter() - started
    rng = np.random.default_rng(seed)
    times: list[float] = []
    state = engine.replay([engine.new_game(game_id, ["Bot"])])
    while len(times) < decisions:
        if state.finished:
            state = engine.replay([engine.new_game(game_id, ["Bot"])])
        started = time.perf_counter()
        choice = advise(state, table).best
        times.append((time.perf_counter() - started) * 1000)
        state = play(state, choice, rng, ev)
    ms = np.array(times)
    return {"expected": table.expected, "positions": int(table.model.reachable.sum()), "bytes": size,
            "where": where, "load": load, "prepare": prepared, "p50": float(np.median(ms)),
            "p95": float(np.percentile(ms, 95)), "max": float(ms.max()), "decisions": len(times)}


def play(state, choice, rng, ev):
    """The state after the choice, with random dice for any throw."""
    player = state.turn.player
    if choice.action == "fill":
        for die in choice.turn:
            state = engine.apply(state, ev.die_turned(player, die, 7 - state.turn.dice[die]))
        state = engine.apply(state, ev.category_scored(player, choice.category, choice.points))
        return dataclasses.replace(state, instant_win=None)  # the advisor plays instant wins as boxes
    values = list(state.turn.dice) if state.turn.throws else [1] * state.rules.dice
    for i in choice.rethrow:
        values[i] = int(rng.integers(1, 7))
    return dataclasses.replace(engine.apply(state, ev.throw(player, values, choice.rethrow)), instant_win=None)
