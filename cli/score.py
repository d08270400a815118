"""`cubilete score GAME D1 .. Dn`: what a roll scores in every category of a game.

Prints one JSON object: {"game", "dice", "throw", "served", "instant_win", "options":
[{"category", "points"}, ...]} with every category as if all were open (0 where the dice do
not qualify, and 0 for a box that needs another box to hold points first, such as
double_generala). `--held K` says K dice were kept from earlier throws this turn: then the
throw was not of all the dice, so nothing is served or de mano. With K = 0 on a later throw
(all dice thrown again), cacho counts the throw de mano; General and Generala do not, since
their served values are for the first throw only.
"""

from __future__ import annotations

import argparse
import json
import sys

from engine import RuleError, resolve_game, score_roll


class UsageError(Exception):
    """A bad argument: printed as one line on stderr, exit code 2."""


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "score", help="score a roll in every category of a game",
        description=__doc__.split("\n\n", 1)[1], formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("game", help="game id or preset (see `cubilete games`)")
    parser.add_argument("dice", nargs="+", metavar="D", help="the face value of each die, 1 to 6")
    parser.add_argument("--throw", type=int, default=1, metavar="N", help="throw number within the turn (default 1)")
    parser.add_argument("--held", type=int, default=0, metavar="K",
                        help="dice kept from earlier throws this turn (default 0)")
    parser.add_argument("--option", action="append", default=[], metavar="KEY=VALUE",
                        help="a house-rule option of the game; repeat for several")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    try:
        result = score(args.game, args.dice, args.throw, args.held, args.option)
    except UsageError as error:
        print(f"cubilete score: error: {error}", file=sys.stderr)
        return 2
    print(json.dumps(result))
    return 0


def score(game_name: str, dice_words: list[str], throw: int, held: int, option_words: list[str]) -> dict:
    try:
        game, _ = resolve_game(game_name)
        given = {}
        for word in option_words:
            key, equals, value = word.partition("=")
            if not equals or not key:
                raise UsageError(f"--option wants KEY=VALUE, not {word!r}")
            given[key] = game.option(key).parse(value)
        _, options = resolve_game(game_name, given)
        rules = game.rules(options)
    except RuleError as error:
        raise UsageError(str(error)) from None
    dice = _dice(dice_words, rules.dice, game.id)
    if throw < 1 or (throw > rules.throws and not rules.spare_throw_bank):
        raise UsageError(f"--throw must be 1 to {rules.throws} in {game.id}, not {throw}")
    if not 0 <= held < rules.dice:
        raise UsageError(f"--held must be 0 to {rules.dice - 1} (dice kept, at least one die is thrown), not {held}")
    if held and throw == 1:
        raise UsageError("--held needs --throw 2 or later: the first throw is of all the dice")
    result = score_roll(rules, dice, throw, held)
    return {
        "game": game_name, "dice": list(dice), "throw": throw, "served": result.served,
        "instant_win": result.instant_win,
        "options": [{"category": category, "points": points} for category, points in result.points],
    }


def _dice(words: list[str], count: int, game: str) -> tuple[int, ...]:
    if len(words) != count:
        raise UsageError(f"{game} is played with {count} dice, got {len(words)}")
    values = []
    for word in words:
        try:
            value = int(word)
        except ValueError:
            raise UsageError(f"a die is a number 1 to 6, not {word!r}") from None
        if not 1 <= value <= 6:
            raise UsageError(f"a die shows 1 to 6, not {value}")
        values.append(value)
    return tuple(values)
