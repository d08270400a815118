"""Escalero (Austrian bar game): the rules table of GAMES.md `escalero`.

Pip dice are read as poker dice: 1 = 9, 2 = 10, 3 = J, 4 = Q, 5 = K, 6 = A, and a face box
scores the count times the pip value (three kings: 15).

Decisions: served (serviert) means made by one throw of all five dice, on any throw of the
turn (option `served_first_throw_only` for the first throw only); a served grande scores
80 and does not end the game; one column per player (the printed pad has three per
player, and how they are scored against each other could not be confirmed from a source).
"""

from __future__ import annotations

from engine import dice as d
from engine.rules import Category, FixedPoints, GameDef, OptionDef, Rules, face_categories

FACE_NAMES = {
    1: ("nines", "Nines", "Nueves"),
    2: ("tens", "Tens", "Dieces"),
    3: ("jacks", "Jacks", "Jotas"),
    4: ("queens", "Queens", "Damas"),
    5: ("kings", "Kings", "Reyes"),
    6: ("aces", "Aces", "Ases"),
}

NOTE = ("one column per player: the printed pad's three columns per player are not played, as "
        "no readable source says how they are scored against each other")


def rules(options: dict) -> Rules:
    return Rules(
        dice=5,
        throws=3,
        served="first_throw" if options["served_first_throw_only"] else "all_dice",
        categories=(
            *face_categories(FACE_NAMES),
            # 9-10-J-Q-K or 10-J-Q-K-A.
            Category("straight", "Straight", "Escalera", d.one_of((1, 2, 3, 4, 5), (2, 3, 4, 5, 6)),
                     FixedPoints(20, served_points=25)),
            Category("full_house", "Full house", "Full", d.full_house, FixedPoints(30, served_points=35)),
            Category("poker", "Poker", "Póker", d.of_a_kind(4), FixedPoints(40, served_points=45)),
            Category("grande", "Grande", "Grande", d.of_a_kind(5), FixedPoints(50, served_points=80)),
        ),
    )


ESCALERO = GameDef(
    id="escalero",
    name_en="Escalero",
    name_es="Escalero",
    options=(
        OptionDef("served_first_throw_only", False, (False, True),
                  "served values only on the first throw (otherwise any throw of all five dice)"),
    ),
    build=rules,
    note=NOTE,
)
