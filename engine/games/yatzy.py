"""Yatzy (Scandinavian): the rules table of GAMES.md `yatzy`.

Five of a face counts as one pair, three and four of a kind (the highest such group), but
not as two pairs nor as a full house. A full house counts as two pairs. No joker, no extra
yatzy bonus; the upper bonus is 50 at 63.

Option `single_pair_in_two_pairs` (default false): a lone pair also fills two pairs,
scoring its two dice. No table of rules we found says so, but it is the scoring under
which optimal play averages the published 248.63 (KTH 2012); these rules give 248.44.
"""

from __future__ import annotations

from engine import dice as d
from engine.rules import (
    Category, DiceTotal, FixedPoints, GameDef, HighestKindTotal, OptionDef, Rules, ThresholdBonus, TwoPairsTotal,
    face_categories,
)
from engine.games.yahtzee import FACE_NAMES, UPPER


def rules(options: dict) -> Rules:
    single_pair = options["single_pair_in_two_pairs"]
    return Rules(
        dice=5,
        throws=3,
        served="never",
        categories=(
            *face_categories(FACE_NAMES),
            Category("one_pair", "One pair", "Un par", d.of_a_kind(2), HighestKindTotal(2)),
            Category("two_pairs", "Two pairs", "Dos pares", d.of_a_kind(2) if single_pair else d.two_pairs,
                     TwoPairsTotal(single_pair)),
            Category("three_of_a_kind", "Three of a kind", "Trío", d.of_a_kind(3), HighestKindTotal(3)),
            Category("four_of_a_kind", "Four of a kind", "Póker", d.of_a_kind(4), HighestKindTotal(4)),
            Category("small_straight", "Small straight", "Escalera menor", d.one_of((1, 2, 3, 4, 5)), FixedPoints(15)),
            Category("large_straight", "Large straight", "Escalera mayor", d.one_of((2, 3, 4, 5, 6)), FixedPoints(20)),
            Category("full_house", "Full house", "Full", d.full_house, DiceTotal()),
            Category("chance", "Chance", "Libre", d.always, DiceTotal()),
            Category("yatzy", "Yatzy", "Yatzy", d.of_a_kind(5), FixedPoints(50)),
        ),
        bonuses=(ThresholdBonus("upper_bonus", "Bonus", "Bono superior", UPPER, threshold=63, bonus=50),),
    )


YATZY = GameDef(
    id="yatzy",
    name_en="Yatzy",
    name_es="Yatzy",
    options=(
        OptionDef("single_pair_in_two_pairs", False, (False, True),
                  "a lone pair also fills two pairs, scoring its two dice (the published 248.63's scoring)"),
    ),
    build=rules,
)
