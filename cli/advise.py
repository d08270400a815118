"""`cubilete advise GAME`: what an optimal solitaire player does with these dice and this
sheet, and the expected final total of the best few choices.

    cubilete advise yahtzee --dice 6 6 6 2 3 --throw 1
    cubilete advise generala --dice 6 6 6 2 3 --throw 2 --held 2 --sheet sixes=24,generala=0
    cubilete advise yahtzee --sheet ones=3 --sheet yahtzee=50      (before the first throw)

--throw N is the throw of the turn that left the dice (default 1); --held K says the first
K dice were kept from earlier throws (locked, where the game locks held dice). --sheet
BOX=POINTS fills boxes (x or 0 for crossed out); the other boxes are open. --bank N gives
goldene-fuenfzig's spare throws. Without --dice, the advice is for the start of the turn.
The table comes from the package or the state directory's advisor/ folder; a missing one
is solved first (minutes for yahtzee, kniffel and yatzy) and kept there when it can be.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
import time

import engine
from advisor.advise import advise, table_for
from advisor.model import NotASheetGame
from advisor.tables import find
from cli.solve import parse_options, state_directory
from engine import RuleError
from engine.scoring import hypothetical_turn
from engine.sheet import Mark
from engine.state import Turn

PROG = "cubilete advise"


class UsageError(Exception):
    """A bad argument: one line on stderr, exit code 2."""


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "advise", help="the optimal choice for a roll and a sheet, with expected totals",
        description=__doc__.split("\n\n", 1)[1], formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("game", help="game id or preset (see `cubilete games`)")
    parser.add_argument("--dice", nargs="+", metavar="D", help="the face value of each die, 1 to 6")
    parser.add_argument("--throw", type=int, default=1, metavar="N", help="throw number within the turn (default 1)")
    parser.add_argument("--held", type=int, default=0, metavar="K",
                        help="the first K dice were kept from earlier throws (default 0)")
    parser.add_argument("--sheet", action="append", default=[], metavar="BOX=POINTS[,BOX=POINTS...]",
                        help="filled boxes (x for crossed out); repeat or separate with commas")
    parser.add_argument("--bank", type=int, default=0, metavar="N", help="spare throws banked (goldene-fuenfzig)")
    parser.add_argument("--option", action="append", default=[], metavar="KEY=VALUE",
                        help="a house-rule option of the game; repeat for several")
    parser.add_argument("--top", type=int, default=5, metavar="N", help="how many choices to print (default 5)")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--state-dir", metavar="DIR", help="where tables are cached (default: device.state_dir)")
    parser.add_argument("--config", metavar="FILE", help="config file (default /etc/cubilete/config.toml)")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    try:
        options = parse_options(args.game, args.option)
        state = what_if(args.game, options, args.dice, args.throw, args.held, args.sheet, args.bank)
        state_dir = state_directory(args.state_dir, args.config)
        if find(state.game.id, dict(state.options), state_dir) is None:
            print(f"{PROG}: solving {state.game.id} first (no table shipped or in {state_dir}/advisor; "
                  f"a minute or so here)", file=sys.stderr, flush=True)
        table = table_for(state, state_dir)
    except (UsageError, RuleError, ValueError, NotASheetGame) as error:
        print(f"{PROG}: error: {error}", file=sys.stderr)
        return 2
    started = time.perf_counter()
    advice = advise(state, table, top=args.top)
    ms = (time.perf_counter() - started) * 1000
    if args.json:
        print(json.dumps(advice_json(state, advice, ms)))
    else:
        print(advice_text(state, advice, ms))
    return 0


def what_if(game_name: str, options: dict, dice_words: list[str] | None, throw: int, held: int,
            sheet_words: list[str], bank: int):
    """A one-player game state with this sheet and these dice, as the fold would have it."""
    state = engine.replay([engine.new_game(game_name, ["you"], options)])
    rules = state.rules
    if rules.match is not None:
        raise UsageError(f"{state.game.id} has no score sheet: there is nothing to advise")
    sheet = rules.empty_sheet()
    for word in (w for words in sheet_words for w in words.split(",") if w):
        box, equals, value = word.partition("=")
        if not equals or box not in sheet:
            raise UsageError(f"--sheet wants BOX=POINTS with a box of {state.game.id} "
                             f"({', '.join(rules.category_ids)}), not {word!r}")
        points = 0 if value.strip().lower() == "x" else _number(value, "--sheet points")
        if points < 0:
            raise UsageError(f"--sheet {box}: points are 0 or more, not {points}")
        sheet = sheet.with_mark(box, Mark(points=points, scratched=points == 0))
    if sheet.is_full:
        raise UsageError("every box is filled: the game is over")
    if not 0 <= bank or (bank and not rules.spare_throw_bank):
        raise UsageError(f"--bank is for games with spare throws (goldene-fuenfzig), 0 or more, not {bank}")
    if dice_words is None:
        turn = Turn(0)
    else:
        dice = tuple(_number(word, "a die") for word in dice_words)
        if len(dice) != rules.dice or not all(1 <= d <= 6 for d in dice):
            raise UsageError(f"{state.game.id} is played with {rules.dice} dice showing 1 to 6, not {list(dice)}")
        if not 1 <= throw <= rules.throws + bank:
            raise UsageError(f"--throw must be 1 to {rules.throws + bank} in {state.game.id}, not {throw}")
        if not 0 <= held < rules.dice or (held and throw == 1):
            raise UsageError(f"--held must be 0 to {rules.dice - 1}, and 0 on the first throw, not {held}")
        turn = hypothetical_turn(dice, throw, held)
    return dataclasses.replace(state, sheets=(sheet,), turn=turn, banks=(bank,))


def _number(word: str, what: str) -> int:
    try:
        return int(word)
    except ValueError:
        raise UsageError(f"{what} is a whole number, not {word!r}") from None


def advice_text(state, advice, ms: float) -> str:
    sheet = state.sheets[0]
    where = f"after throw {advice.throw} of {state.max_throws}: {' '.join(map(str, advice.dice))}" \
        if advice.throw else "before the first throw"
    lines = [f"{state.game.id}, {where}; sheet total {advice.total}, "
             f"{len(sheet.open_categories)} of {len(sheet.categories)} boxes open"]
    width = max(len(c.text(advice.dice)) for c in advice.choices)
    for choice in advice.choices:
        lines.append(f"  {choice.text(advice.dice):<{width}}  expected total {choice.expected:.2f}")
    lines.append(f"({ms:.1f} ms)")
    return "\n".join(lines)


def advice_json(state, advice, ms: float) -> dict:
    return {
        "game": state.game.id, "throw": advice.throw, "dice": list(advice.dice), "total": advice.total,
        "expected": round(advice.best.expected, 4), "ms": round(ms, 2),
        "choices": [{"action": c.action, "keep": list(c.keep), "rethrow": list(c.rethrow), "turn": list(c.turn),
                     "category": c.category, "points": c.points, "bonus": c.bonus,
                     "expected": round(c.expected, 4), "text": c.text(advice.dice)} for c in advice.choices],
    }
