"""Generala: the Argentine reglamento (seed 003, `generala`) and the summaries of seeds 001
and 002 (`generala-classic`) with their house-rule options."""

from __future__ import annotations

from engine import dice as d
from engine.games.general import FACE_NAMES, FIVE_OF_A_KIND, STRAIGHTS_ACE_FOR_2_OR_6
from engine.rules import Category, FixedPoints, GameDef, OptionDef, Rules, ThrowWin, face_categories
from engine.sheet import Sheet

# wrap_straights: 3-4-5-6-1, 4-5-6-1-2, 5-6-1-2-3, 6-1-2-3-4 also count, so any five
# different faces, and the ace still stands in for a 2 (1-1-3-4-5).
WRAPPED_STRAIGHTS = d.one_of(
    (1, 2, 3, 4, 5), (2, 3, 4, 5, 6), (1, 3, 4, 5, 6), (1, 2, 4, 5, 6), (1, 2, 3, 5, 6), (1, 2, 3, 4, 6),
    (1, 1, 3, 4, 5),
)

HELD_DICE_LOCKED = "held_dice_locked"


def reglamento(options: dict) -> Rules:
    return Rules(
        dice=5,
        throws=3,
        served="first_throw",
        categories=(
            *face_categories(FACE_NAMES),
            Category("straight", "Straight", "Escalera", STRAIGHTS_ACE_FOR_2_OR_6, FixedPoints(20, served_points=25)),
            Category("full_house", "Full house", "Full", d.full_house, FixedPoints(30, served_points=35)),
            Category("four_of_a_kind", "Four of a kind", "Póker", d.of_a_kind(4), FixedPoints(40, served_points=45)),
            Category("generala", "Generala", "Generala", FIVE_OF_A_KIND, FixedPoints(60)),
        ),
        # Generala servida wins even when the number or the generala box is already filled.
        instant_wins=(ThrowWin("generala_servida", "Generala on the first throw", "Generala servida",
                               FIVE_OF_A_KIND, boxes=("generala",)),),
        held_dice_locked=options[HELD_DICE_LOCKED],
    )


GENERALA = GameDef(
    id="generala",
    name_en="Generala (Argentine reglamento)",
    name_es="Generala (reglamento argentino)",
    options=(
        OptionDef(HELD_DICE_LOCKED, True, (True, False),
                  "a die set aside stays set aside for the rest of the turn"),
    ),
    build=reglamento,
)


def classic(options: dict) -> Rules:
    bonus = options["first_throw_bonus"]
    generala_points = options["generala_points"]
    double = options["double_generala"]
    straights = WRAPPED_STRAIGHTS if options["wrap_straights"] else STRAIGHTS_ACE_FOR_2_OR_6

    def cancels_generala_servida(sheet: Sheet) -> bool:
        mark = sheet["generala"]
        scratched = mark is not None and mark.points == 0
        # With double generala, five of a face with generala already scored is the double.
        return scratched or (double and mark is not None and mark.points > 0)

    categories = (
        *face_categories(FACE_NAMES),
        Category("straight", "Straight", "Escalera", straights, FixedPoints(20, served_points=20 + bonus)),
        Category("full_house", "Full house", "Full", d.full_house, FixedPoints(30, served_points=30 + bonus)),
        Category("four_of_a_kind", "Four of a kind", "Póker", d.of_a_kind(4), FixedPoints(40, served_points=40 + bonus)),
        Category("generala", "Generala", "Generala", FIVE_OF_A_KIND, FixedPoints(generala_points)),
    )
    if double:
        categories += (
            Category("double_generala", "Double generala", "Doble generala", FIVE_OF_A_KIND,
                     FixedPoints(2 * generala_points), needs_positive="generala"),
        )
    return Rules(
        dice=5,
        throws=3,
        served="first_throw",
        categories=categories,
        instant_wins=(ThrowWin("generala_servida", "Generala on the first throw", "Generala servida",
                               FIVE_OF_A_KIND, unless=cancels_generala_servida, boxes=("generala",)),),
        held_dice_locked=options[HELD_DICE_LOCKED],
    )


GENERALA_CLASSIC = GameDef(
    id="generala-classic",
    name_en="Generala (common variants)",
    name_es="Generala (variantes comunes)",
    options=(
        OptionDef(HELD_DICE_LOCKED, False, (False, True),
                  "a die set aside stays set aside for the rest of the turn"),
        OptionDef("generala_points", 60, (60, 50), "points for a generala"),
        OptionDef("first_throw_bonus", 10, (10, 5, 0),
                  "bonus for a straight, full house or four of a kind on the first throw"),
        OptionDef("double_generala", False, (False, True),
                  "an 11th box: a second generala scores twice the generala points"),
        OptionDef("wrap_straights", False, (False, True),
                  "straights may wrap round from 6 to 1: any five different faces"),
    ),
    build=classic,
)
