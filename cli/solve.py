"""`cubilete solve GAME`: solve a sheet game for optimal solitaire play, print the optimal
expected total and write the table the advisor uses.

    cubilete solve yahtzee [--option joker=free] [--out FILE] [--state-dir DIR]
    cubilete solve --all [--state-dir DIR]

The table goes to FILE, or to the state directory's advisor/ folder (where `cubilete
advise` and the device look for tables that are not shipped in the package). Progress per
level of open boxes goes to stderr unless --quiet.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from advisor.model import NotASheetGame
from advisor.tables import build, cache_path, save
from engine import GAMES, RuleError, resolve_game
from firmware.config import load_config

PROG = "cubilete solve"


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "solve", help="solve a sheet game for optimal play and write the advisor's table",
        description=__doc__.split("\n\n", 1)[1], formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("game", nargs="?", help="game id or preset (see `cubilete games`)")
    parser.add_argument("--all", action="store_true", help="every game with a score sheet, default options")
    parser.add_argument("--option", action="append", default=[], metavar="KEY=VALUE",
                        help="a house-rule option of the game; repeat for several")
    parser.add_argument("--out", metavar="FILE", help="write the table here (default: STATE_DIR/advisor/GAME.npz)")
    parser.add_argument("--state-dir", metavar="DIR", help="the device state (default: device.state_dir of the config)")
    parser.add_argument("--config", metavar="FILE", help="config file (default /etc/cubilete/config.toml)")
    parser.add_argument("--chunk", type=int, default=128, metavar="ROWS",
                        help="positions solved at once (default 128: fastest here, and little memory)")
    parser.add_argument("--quiet", action="store_true", help="no progress on stderr")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    if bool(args.game) == bool(args.all):
        print(f"{PROG}: error: name one game, or --all", file=sys.stderr)
        return 2
    if args.all and (args.option or args.out):
        print(f"{PROG}: error: --option and --out are for one game", file=sys.stderr)
        return 2
    try:
        jobs = [(game.id, {}) for game in GAMES.values() if game.default_rules.match is None] if args.all \
            else [(args.game, parse_options(args.game, args.option))]
    except (RuleError, ValueError) as error:
        print(f"{PROG}: error: {error}", file=sys.stderr)
        return 2
    state_dir = None if args.out else state_directory(args.state_dir, args.config)
    for game_id, options in jobs:
        code = solve_one(game_id, options, Path(args.out) if args.out else None, state_dir, args.chunk, args.quiet)
        if code:
            return code
    return 0


def solve_one(game_id: str, options: dict, out: Path | None, state_dir: str | None, chunk: int, quiet: bool) -> int:
    def report(level: int, positions: int, seconds: float) -> None:
        if not quiet:
            print(f"{PROG}: {game_id}: {level} open boxes, {positions} positions, {seconds:.1f} s", file=sys.stderr)

    try:
        table = build(game_id, options, report=report, chunk=chunk)
    except NotASheetGame as error:
        print(f"{PROG}: error: {game_id}: {error}", file=sys.stderr)
        return 2
    path = out or cache_path(state_dir, game_id, options)
    try:
        size = save(table, path)
    except OSError as error:
        print(f"{PROG}: error: cannot write {path}: {error.strerror or error}; use --out or --state-dir",
              file=sys.stderr)
        return 1
    defaults = resolve_game(table.game)[1]
    given = "".join(f" {k}={_word(v)}" for k, v in table.options.items() if v != defaults[k])
    shown = f"{size / 1e6:.2f} MB" if size >= 1e6 else f"{size / 1e3:.0f} kB"
    print(f"{table.game}{given}: optimal expected total {table.expected:.4f}; solved in {table.seconds:.1f} s, "
          f"{int(table.model.reachable.sum())} positions, table {shown} at {path}")
    return 0


def parse_options(game_name: str, words: list[str]) -> dict:
    """KEY=VALUE words as the game's option values (raises RuleError or ValueError)."""
    game, _ = resolve_game(game_name)
    options = {}
    for word in words:
        key, equals, value = word.partition("=")
        if not equals or not key:
            raise ValueError(f"--option wants KEY=VALUE, not {word!r}")
        options[key] = game.option(key).parse(value)
    return options


def state_directory(given: str | None, config_file: str | None) -> str:
    if given:
        return given

    config, _ = load_config(config_file)
    return config.device.state_dir


def _word(value: object) -> str:
    return ("true" if value else "false") if isinstance(value, bool) else str(value)
