"""Yacht (Scarne, seed 000) and the 1938 rules most modern references use (`rules=1938`)."""

from __future__ import annotations

from engine import dice as d
from engine.rules import Category, DiceTotal, FixedPoints, GameDef, KindTotal, OptionDef, Preset, Rules, face_categories

FACE_NAMES = {
    1: ("aces", "Aces", "Ases"),
    2: ("deuces", "Deuces", "Doses"),
    3: ("threes", "Threes", "Treses"),
    4: ("fours", "Fours", "Cuatros"),
    5: ("fives", "Fives", "Cincos"),
    6: ("sixes", "Sixes", "Seises"),
}


def rules(options: dict) -> Rules:
    if options["rules"] == "1938":
        # Four of a kind: five of a face qualifies and scores the four matching dice.
        four_of_a_kind = Category("four_of_a_kind", "Four of a kind", "Póker", d.of_a_kind(4), KindTotal(4))
    else:
        # Scarne's sheet gives a maximum of 29: exactly four of a face, total of all five.
        four_of_a_kind = Category("four_of_a_kind", "Four of a kind", "Póker", d.exactly_of_a_kind(4), DiceTotal())
    return Rules(
        dice=5,
        throws=3,
        served="never",
        categories=(
            Category("yacht", "Yacht", "Yacht", d.of_a_kind(5), FixedPoints(50)),
            Category("big_straight", "Big straight", "Escalera mayor", d.one_of((2, 3, 4, 5, 6)), FixedPoints(30)),
            Category("little_straight", "Little straight", "Escalera menor", d.one_of((1, 2, 3, 4, 5)), FixedPoints(30)),
            four_of_a_kind,
            Category("full_house", "Full house", "Full", d.full_house, DiceTotal()),
            Category("choice", "Choice", "Libre", d.always, DiceTotal()),
            *face_categories(FACE_NAMES, order=(6, 5, 4, 3, 2, 1)),
        ),
    )


YACHT = GameDef(
    id="yacht",
    name_en="Yacht",
    name_es="Yacht",
    options=(
        OptionDef("rules", "scarne", ("scarne", "1938"),
                  "scarne: four of a kind is exactly four, scoring all five dice; "
                  "1938: five of a face counts, scoring the four matching dice"),
    ),
    build=rules,
)

YACHT_1938 = Preset("yacht-1938", "yacht", {"rules": "1938"}, "Yacht (1938 rules)", "Yacht (reglas de 1938)")
