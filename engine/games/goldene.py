"""Goldene Fünfzig (seed 002): a reconstruction, since no public source gives the full rules."""

from __future__ import annotations

from engine import dice as d
from engine.games.general import FACE_NAMES, STRAIGHTS_ACE_FOR_2_OR_6
from engine.rules import Category, FixedPoints, GameDef, Rules, face_categories

NOTE = ("reconstructed: the sources give only the outline (five of a kind scores the golden 50, "
        "spare throws are banked); categories and points follow Generala without served values")


def rules(options: dict) -> Rules:
    return Rules(
        dice=5,
        throws=3,
        served="never",
        categories=(
            *face_categories(FACE_NAMES),
            Category("straight", "Straight", "Straße", STRAIGHTS_ACE_FOR_2_OR_6, FixedPoints(20)),
            Category("full_house", "Full house", "Full House", d.full_house, FixedPoints(30)),
            Category("four_of_a_kind", "Four of a kind", "Póker", d.of_a_kind(4), FixedPoints(40)),
            Category("fifty", "Golden fifty", "Cincuenta de oro", d.of_a_kind(5), FixedPoints(50)),
        ),
        # Throws a player does not use in a turn are banked for extra throws in later turns.
        spare_throw_bank=True,
    )


GOLDENE_FUENFZIG = GameDef(
    id="goldene-fuenfzig",
    name_en="Goldene Fünfzig (Golden Fifty, reconstructed)",
    name_es="Goldene Fünfzig (Cincuenta de oro, reconstruido)",
    options=(),
    build=rules,
    note=NOTE,
)
