"""Cacho Alalay, Bolivian tournament rules (seed 004)."""

from __future__ import annotations

from engine import dice as d
from engine.rules import Category, FixedPoints, GameDef, OptionDef, Rules, SheetWin, ThrowWin, TurnOver, face_categories
from engine.sheet import Sheet

FACE_NAMES = {
    1: ("ones", "Ones", "Balas"),
    2: ("twos", "Twos", "Tontos"),
    3: ("threes", "Threes", "Trenes"),
    4: ("fours", "Fours", "Cuadras"),
    5: ("fives", "Fives", "Quinas"),
    6: ("sixes", "Sixes", "Senas"),
}

STRAIGHTS = d.one_of((1, 2, 3, 4, 5), (2, 3, 4, 5, 6), (1, 3, 4, 5, 6))
FOUR_OF_A_KIND = d.of_a_kind(4)
GRANDE = d.of_a_kind(5)


def needs_no_turn(dice: d.Dice) -> bool:
    """A throw of all five showing a straight, full house, four or five of a kind."""
    return STRAIGHTS(dice) or d.full_house(dice) or FOUR_OF_A_KIND(dice)


def a_grande_of_50(sheet: Sheet) -> bool:
    return sheet.points("grande_1") == 50 or sheet.points("grande_2") == 50


def panza_de_oro(sheet: Sheet) -> bool:
    """Straight 25, full house 35 and four of a kind 45 (all de mano) and a grande of 50."""
    return (sheet.points("straight") == 25 and sheet.points("full_house") == 35
            and sheet.points("four_of_a_kind") == 45 and a_grande_of_50(sheet))


def four_of_every_face(sheet: Sheet) -> bool:
    """Every face box holds at least four of its face, and a grande of 50."""
    return all((sheet.points(FACE_NAMES[face][0]) or 0) >= 4 * face for face in d.FACES) and a_grande_of_50(sheet)


def rules(options: dict) -> Rules:
    return Rules(
        dice=5,
        throws=options["throws"],
        served="all_dice",
        de_mano=True,
        categories=(
            *face_categories(FACE_NAMES),
            Category("straight", "Straight", "Escalera", STRAIGHTS, FixedPoints(20, served_points=25)),
            Category("full_house", "Full house", "Full", d.full_house, FixedPoints(30, served_points=35)),
            Category("four_of_a_kind", "Four of a kind", "Póquer", FOUR_OF_A_KIND, FixedPoints(40, served_points=45)),
            # A grande fills the first open grande box.
            Category("grande_1", "Grande", "Grande", GRANDE, FixedPoints(50)),
            Category("grande_2", "Second grande", "Segunda grande", GRANDE, FixedPoints(50), opens_after="grande_1"),
        ),
        instant_wins=(
            ThrowWin("dormida", "Dormida (five of a face in one throw)", "Dormida", GRANDE,
                     boxes=("grande_1", "grande_2")),
            SheetWin("panza_de_oro", "Panza de oro", "Panza de oro", panza_de_oro),
            SheetWin("four_of_every_face", "Four of every face and a grande", "Cuatro de cada número y grande",
                     four_of_every_face),
        ),
        # With three throws turning over is optional.
        turn_over=TurnOver(required=options["throws"] == 2, exempt=needs_no_turn,
                           breaks_served=options["turn_breaks_de_mano"]),
        cross_out_only_when_nothing_scores=True,
    )


CACHO = GameDef(
    id="cacho",
    name_en="Cacho Alalay",
    name_es="Cacho Alalay",
    options=(
        OptionDef("throws", 2, (2, 3), "throws per turn; with 3, turning a die over is optional"),
        OptionDef("turn_breaks_de_mano", True, (True, False),
                  "a combination that needs a turned die counts de huevo"),
    ),
    build=rules,
)
