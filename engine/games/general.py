"""General (Puerto Rico), Scarne (seed 000): the rules table of GAMES.md `general`."""

from __future__ import annotations

from engine import dice as d
from engine.rules import Category, FixedPoints, GameDef, Rules, ThrowWin, face_categories

FACE_NAMES = {
    1: ("ones", "Ones", "Unos"),
    2: ("twos", "Twos", "Doses"),
    3: ("threes", "Threes", "Treses"),
    4: ("fours", "Fours", "Cuatros"),
    5: ("fives", "Fives", "Cincos"),
    6: ("sixes", "Sixes", "Seises"),
}

# An ace may stand in for a 2 or a 6, never a 3, 4 or 5.
STRAIGHTS_ACE_FOR_2_OR_6 = d.one_of((1, 2, 3, 4, 5), (2, 3, 4, 5, 6), (1, 3, 4, 5, 6), (1, 1, 3, 4, 5))
FIVE_OF_A_KIND = d.of_a_kind(5)


def rules(options: dict) -> Rules:
    return Rules(
        dice=5,
        throws=3,
        served="first_throw",
        categories=(
            *face_categories(FACE_NAMES),
            Category("straight", "Straight", "Escalera", STRAIGHTS_ACE_FOR_2_OR_6, FixedPoints(20, served_points=25)),
            Category("full_house", "Full house", "Full", d.full_house, FixedPoints(30, served_points=35)),
            Category("four_of_a_kind", "Four of a kind", "Póker", d.of_a_kind(4), FixedPoints(40, served_points=45)),
            Category("small_general", "Small general", "Generala", FIVE_OF_A_KIND, FixedPoints(60),
                     later_throws_only=True),
        ),
        # Five of a face on the first throw wins "regardless of the score", open box or not.
        instant_wins=(ThrowWin("big_general", "Big general", "General servida", FIVE_OF_A_KIND),),
        roll_off="hand_rank",
        partnerships=True,
    )


GENERAL = GameDef(
    id="general",
    name_en="General (Puerto Rico)",
    name_es="General (Puerto Rico)",
    options=(),
    build=rules,
)
