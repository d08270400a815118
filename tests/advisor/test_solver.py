"""The solver against a brute-force expectimax that plays through the engine itself
(tests/advisor/reference.py), on real games from positions with a few boxes open; and the
expected totals of whole games that solve in a moment."""

from __future__ import annotations

import numpy as np
import pytest

from advisor.model import NotASheetGame
from advisor.solver import solve
from advisor.tables import game_model
from tests.advisor.reference import Reference, one_player

UPPER_51 = {"ones": 3, "twos": 6, "threes": 9, "fives": 15, "sixes": 18}  # fours needs 12 for the bonus


def solver_value(state) -> float:
    model = game_model(state.game.id, dict(state.options))
    position = model.position(state.sheets[0], state.banks[0])
    values = solve(model, within=position.open_boxes)
    return float(values[position.open_boxes, position.flags, position.progress, position.bank])


SCENARIOS = {
    # the forced joker (5 x 4 to the open fours; other faces as jokers), the 100 bonus, the upper bonus
    "yahtzee": ("yahtzee", {**UPPER_51, "three_of_a_kind": 20, "four_of_a_kind": 0, "small_straight": 30,
                            "large_straight": 0, "yahtzee": 50, "chance": 22}, {}),
    # held dice locked, served values on the first throw
    "generala": ("generala", {"ones": 2, "twos": 4, "threes": 6, "fours": 8, "fives": 10, "sixes": 18,
                              "full_house": 30, "four_of_a_kind": 40, "generala": 0}, {}),
    # turning dice over (one die, or a second that raises the best points), crossing out only
    # when nothing scores, the second grande only after the first
    "cacho grandes": ("cacho", {"ones": 2, "twos": 4, "threes": 6, "fours": 8, "fives": 10, "sixes": 12,
                                "straight": 20, "full_house": 30, "four_of_a_kind": 40}, {}),
    # served on any throw of all five
    "escalero": ("escalero", {"nines": 2, "tens": 4, "jacks": 6, "queens": 8, "kings": 10, "aces": 12,
                              "full_house": 30, "poker": 40}, {}),
    # Yatzy's pairs and its upper bonus of 50
    "yatzy": ("yatzy", {"ones": 3, "twos": 6, "threes": 9, "fours": 12, "fives": 15, "sixes": 12,
                        "three_of_a_kind": 9, "four_of_a_kind": 0, "small_straight": 15, "large_straight": 0,
                        "full_house": 0, "chance": 20, "yatzy": 0}, {}),
    # General's small general on later throws only
    "general": ("general", {"ones": 2, "twos": 4, "threes": 6, "fours": 8, "fives": 10, "sixes": 12,
                            "straight": 20, "full_house": 30}, {}),
}


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_the_solver_agrees_with_brute_force_through_the_engine(name: str) -> None:
    game, marks, options = SCENARIOS[name]
    state = one_player(game, marks, **options)
    assert solver_value(state) == pytest.approx(Reference().value(state), abs=1e-9)


def test_spare_throws_banked_count_in_goldene_fuenfzig() -> None:
    """Two boxes open and no bank: a first fill before the third throw banks throws for the
    second turn."""
    marks = {"ones": 2, "twos": 4, "threes": 6, "fours": 8, "fives": 10, "straight": 20, "full_house": 30,
             "four_of_a_kind": 40}
    state = one_player("goldene-fuenfzig", marks)
    assert solver_value(state) == pytest.approx(Reference().value(state), abs=1e-9)


@pytest.mark.parametrize("game, options, expected", [
    ("generala", {}, 155.2996), ("generala", {"held_dice_locked": False}, 156.1885), ("escalero", {}, 149.3563),
])
def test_whole_games_give_the_published_optimal_totals(game: str, options: dict, expected: float) -> None:
    model = game_model(game, options)
    values = solve(model)
    assert values[model.open_sets - 1, 0, 0, 0] == pytest.approx(expected, abs=5e-5)


def test_unreachable_positions_are_left_at_zero_and_reachable_ones_filled() -> None:
    model = game_model("crag")
    values = solve(model)
    assert np.all(values[~model.reachable] == 0)
    assert np.all(values[model.reachable][1:] > 0)  # all but the full sheet


def test_poker_dice_has_no_sheet_to_solve() -> None:
    with pytest.raises(NotASheetGame):
        game_model("poker-dice")
