"""Yahtzee (current Hasbro rules) and Kniffel, its German block: the rules tables of GAMES.md
`yahtzee` and `kniffel`.

Decisions where the rules are silent or players differ:
- The yahtzee bonus (100 for each further five of a face once the yahtzee box holds 50) is
  earned whichever box the dice go in, a scratched one included.
- Five of a face is a joker once the yahtzee box is filled (with 50 or 0) and so is the
  matching upper box; the joker scores full house 25, small straight 30, large straight 40.
  `joker=forced` (the default, the printed rules): the matching upper box first, else any
  open lower box, else an upper box crossed out. `joker=free`: any open box (the rule of
  Verhoeff's 254.5896 figure); with the matching upper box open the dice are no joker.
- Kniffel has neither the 100 bonus nor the joker unless its options say so; with both on
  it plays exactly as yahtzee. Its boxes keep their German names in both languages, as on
  the printed block.
"""

from __future__ import annotations

from typing import Mapping

from engine import dice as d
from engine.rules import (
    Category, DiceTotal, ExtraBonus, FixedPoints, GameDef, Joker, OptionDef, Rules, ThresholdBonus, face_categories,
)

FACE_NAMES = {
    1: ("ones", "Ones", "Unos"),
    2: ("twos", "Twos", "Doses"),
    3: ("threes", "Threes", "Treses"),
    4: ("fours", "Fours", "Cuatros"),
    5: ("fives", "Fives", "Cincos"),
    6: ("sixes", "Sixes", "Seises"),
}
UPPER = tuple(names[0] for names in FACE_NAMES.values())

FIVE_OF_A_KIND = d.of_a_kind(5)
SMALL_STRAIGHT = d.run_of(4)
LARGE_STRAIGHT = d.one_of((1, 2, 3, 4, 5), (2, 3, 4, 5, 6))

# The joker's points for the lower boxes that five of a face does not make by itself.
JOKER_POINTS = (("full_house", 25), ("small_straight", 30), ("large_straight", 40))

# id, qualifies, points; names per language are given by each game.
LOWER = (
    ("three_of_a_kind", d.of_a_kind(3), DiceTotal()),
    ("four_of_a_kind", d.of_a_kind(4), DiceTotal()),
    ("full_house", d.full_house, FixedPoints(25)),
    ("small_straight", SMALL_STRAIGHT, FixedPoints(30)),
    ("large_straight", LARGE_STRAIGHT, FixedPoints(40)),
    ("yahtzee", FIVE_OF_A_KIND, FixedPoints(50)),
    ("chance", d.always, DiceTotal()),
)

YAHTZEE_NAMES = {
    "three_of_a_kind": ("Three of a kind", "Trío"),
    "four_of_a_kind": ("Four of a kind", "Póker"),
    "full_house": ("Full house", "Full"),
    "small_straight": ("Small straight", "Escalera menor"),
    "large_straight": ("Large straight", "Escalera mayor"),
    "yahtzee": ("Yahtzee", "Yahtzee"),
    "chance": ("Chance", "Libre"),
}

KNIFFEL_FACE_NAMES = {
    1: ("ones", "Einser", "Einser"),
    2: ("twos", "Zweier", "Zweier"),
    3: ("threes", "Dreier", "Dreier"),
    4: ("fours", "Vierer", "Vierer"),
    5: ("fives", "Fünfer", "Fünfer"),
    6: ("sixes", "Sechser", "Sechser"),
}
KNIFFEL_NAMES = {
    "three_of_a_kind": ("Dreierpasch",) * 2,
    "four_of_a_kind": ("Viererpasch",) * 2,
    "full_house": ("Full House",) * 2,
    "small_straight": ("Kleine Straße",) * 2,
    "large_straight": ("Große Straße",) * 2,
    "yahtzee": ("Kniffel",) * 2,
    "chance": ("Chance",) * 2,
}


def sheet(face_names: Mapping[int, tuple[str, str, str]], names: Mapping[str, tuple[str, str]]) -> tuple[Category, ...]:
    lower = tuple(Category(box, *names[box], qualifies, points) for box, qualifies, points in LOWER)
    return (*face_categories(face_names), *lower)


def upper_bonus(name_en: str, name_es: str) -> ThresholdBonus:
    return ThresholdBonus("upper_bonus", name_en, name_es, UPPER, threshold=63, bonus=35)


def yahtzee_bonus(name_en: str, name_es: str) -> ExtraBonus:
    return ExtraBonus("yahtzee_bonus", name_en, name_es, box="yahtzee", dice=FIVE_OF_A_KIND, bonus=100)


def joker(forced: bool) -> Joker:
    return Joker(box="yahtzee", dice=FIVE_OF_A_KIND, points=JOKER_POINTS, forced=forced)


def yahtzee_rules(options: dict) -> Rules:
    return Rules(
        dice=5,
        throws=3,
        served="never",
        categories=sheet(FACE_NAMES, YAHTZEE_NAMES),
        bonuses=(upper_bonus("Upper bonus", "Bono superior"), yahtzee_bonus("Yahtzee bonus", "Bono Yahtzee")),
        joker=joker(forced=options["joker"] == "forced"),
    )


YAHTZEE = GameDef(
    id="yahtzee",
    name_en="Yahtzee",
    name_es="Yahtzee",
    options=(
        OptionDef("joker", "forced", ("forced", "free"),
                  "five of a face with the yahtzee box filled: forced = its upper box first, "
                  "else a lower box (as a joker); free = any open box"),
    ),
    build=yahtzee_rules,
)


def kniffel_rules(options: dict) -> Rules:
    bonuses = (upper_bonus("Bonus", "Bonus"),)
    if options["extra_bonus"]:
        bonuses += (yahtzee_bonus("Kniffel-Bonus", "Kniffel-Bonus"),)
    return Rules(
        dice=5,
        throws=3,
        served="never",
        categories=sheet(KNIFFEL_FACE_NAMES, KNIFFEL_NAMES),
        bonuses=bonuses,
        joker=joker(forced=True) if options["joker"] else None,
    )


KNIFFEL = GameDef(
    id="kniffel",
    name_en="Kniffel",
    name_es="Kniffel",
    options=(
        OptionDef("extra_bonus", False, (False, True), "100 for each further Kniffel once the Kniffel box holds 50"),
        OptionDef("joker", False, (False, True),
                  "a further Kniffel fills its upper box first, else a lower box at joker points "
                  "(full house 25, straights 30 and 40)"),
    ),
    build=kniffel_rules,
)
