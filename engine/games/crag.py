"""Crag (Scarne, seed 000): three dice, two throws, thirteen categories."""

from __future__ import annotations

from engine import dice as d
from engine.rules import Category, FixedPoints, GameDef, Rules, face_categories

FACE_NAMES = {
    1: ("aces", "Aces", "Ases"),
    2: ("twos", "Twos", "Doses"),
    3: ("threes", "Threes", "Treses"),
    4: ("fours", "Fours", "Cuatros"),
    5: ("fives", "Fives", "Cincos"),
    6: ("sixes", "Sixes", "Seises"),
}


def rules(options: dict) -> Rules:
    return Rules(
        dice=3,
        throws=2,
        served="never",
        categories=(
            # A pair plus a third die, all three totalling 13.
            Category("crag", "Crag", "Crag", d.one_of((1, 6, 6), (3, 5, 5), (4, 4, 5)), FixedPoints(50)),
            Category("thirteen", "Thirteen", "Trece", d.totalling(13), FixedPoints(26)),
            Category("three_of_a_kind", "Three of a kind", "Trío", d.of_a_kind(3), FixedPoints(25)),
            Category("high_straight", "High straight", "Escalera alta", d.one_of((4, 5, 6)), FixedPoints(20)),
            Category("low_straight", "Low straight", "Escalera baja", d.one_of((1, 2, 3)), FixedPoints(20)),
            Category("even_straight", "Even straight", "Escalera par", d.one_of((2, 4, 6)), FixedPoints(20)),
            Category("odd_straight", "Odd straight", "Escalera impar", d.one_of((1, 3, 5)), FixedPoints(20)),
            *face_categories(FACE_NAMES, order=(6, 5, 4, 3, 2, 1)),
        ),
    )


CRAG = GameDef(id="crag", name_en="Crag", name_es="Crag", options=(), build=rules)
