"""The practice opponent's policy: the advisor's best choice with a table, the greedy policy
without one; either way every move is one the rules accept, all game long."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import engine
from advisor.advise import Choice, best_choice
from advisor.opponent import MADE_HAND, device_move, greedy_choice
from advisor.tables import find
from engine import events as ev
from tests.advisor.reference import one_player

SHEET_GAMES = sorted(g for g, d in engine.GAMES.items() if d.default_rules.match is None)


def after(game: str, *events: dict, **options: object) -> engine.GameState:
    return engine.replay([engine.new_game(game, ["Cubilete"], options), *events])


def test_with_a_table_the_move_is_the_advisors_best_choice() -> None:
    table = find("generala")
    state = after("generala", ev.throw(0, [6, 6, 6, 2, 3]))
    move = device_move(state, table)
    assert move.optimal and move.choice == best_choice(state, table)
    assert move.choice.action == "keep" and move.choice.keep == (6, 6, 6) and move.choice.rethrow == (3, 4)


def test_without_a_table_the_greedy_policy_keeps_the_face_it_has_most_of() -> None:
    move = device_move(after("generala", ev.throw(0, [2, 5, 2, 1, 5])), None)
    assert not move.optimal
    assert (move.choice.action, move.choice.keep, move.choice.rethrow) == ("keep", (5, 5), (0, 2, 3))  # tie: fives
    start = greedy_choice(after("yahtzee"))
    assert start.action == "throw" and start.rethrow == (0, 1, 2, 3, 4)


def test_the_greedy_policy_stands_on_a_made_hand_and_fills_the_best_box_after_the_last_throw() -> None:
    full = greedy_choice(after("yahtzee", ev.throw(0, [3, 3, 3, 5, 5])))
    assert (full.action, full.category, full.points) == ("fill", "full_house", 25) and full.points >= MADE_HAND
    last = greedy_choice(after("yahtzee", ev.throw(0, [1, 2, 2, 4, 6]), ev.throw(0, [1, 2, 2, 4, 6], [0]),
                               ev.throw(0, [1, 2, 2, 4, 6], [0])))
    assert (last.action, last.category, last.points) == ("fill", "chance", 15)


def test_the_greedy_policy_keeps_what_the_rules_keep_aside() -> None:
    # Generala's reglamento: the two sixes set aside on the second throw stay aside.
    state = after("generala", ev.throw(0, [6, 6, 1, 2, 3]), ev.throw(0, [6, 6, 4, 4, 5], [2, 3, 4]))
    choice = greedy_choice(state)
    assert choice.action == "keep" and not set(choice.rethrow) & state.turn.locked
    assert choice.keep == (6, 6) and choice.rethrow == (2, 3, 4)


def test_the_greedy_policy_crosses_out_the_first_open_box_when_nothing_scores() -> None:
    marks = {"ones": 2, "twos": 4, "threes": 6, "fours": 8, "fives": 10, "sixes": 12}
    state = dataclasses.replace(after("generala"), sheets=one_player("generala", marks).sheets)
    state = engine.apply(engine.apply(engine.apply(state, ev.throw(0, [1, 1, 2, 3, 5])),
                                      ev.throw(0, [1, 1, 2, 3, 5], [4])), ev.throw(0, [1, 1, 2, 3, 6], [4]))
    choice = greedy_choice(state)
    assert (choice.action, choice.points) == ("fill", 0) and choice.category == state.rules.category_ids[6]


def test_the_greedy_policy_turns_a_die_when_cacho_requires_it() -> None:
    state = after("cacho", ev.throw(0, [2, 3, 1, 1, 1]), ev.throw(0, [2, 3, 4, 5, 6], [2, 3, 4]))
    assert engine.turn_actions(state).must_turn
    choice = greedy_choice(state)
    assert choice.action == "fill" and len(choice.turn) == 1
    turned = engine.apply(state, ev.die_turned(0, choice.turn[0], 7 - state.turn.dice[choice.turn[0]]))
    assert engine.apply(turned, ev.category_scored(0, choice.category, choice.points))


def play(state: engine.GameState, choice: Choice, rng: np.random.Generator) -> engine.GameState:
    """The move as the events the device records (its dice thrown by a person)."""
    player = state.current_player
    if choice.action in ("throw", "keep"):
        values = list(state.turn.dice) if state.turn.throws else [1] * state.rules.dice
        for i in choice.rethrow:
            values[i] = int(rng.integers(1, 7))
        return engine.apply(state, ev.throw(player, values, choice.rethrow))
    for die in choice.turn:
        state = engine.apply(state, ev.die_turned(player, die, 7 - state.turn.dice[die]))
    if choice.points == 0:
        return engine.apply(state, ev.category_scratched(player, choice.category))
    return engine.apply(state, ev.category_scored(player, choice.category, choice.points))


@settings(max_examples=25, deadline=None)
@given(game=st.sampled_from(SHEET_GAMES), seed=st.integers(0, 2**32 - 1))
def test_a_whole_game_of_greedy_moves_is_legal_in_every_sheet_game(game: str, seed: int) -> None:
    rng = np.random.default_rng(seed)
    state = after(game)
    for _ in range(400):
        if state.finished:
            break
        state = play(state, greedy_choice(state), rng)
    assert state.finished


@pytest.mark.parametrize("game", ["cacho", "crag", "goldene-fuenfzig", "escalero"])
def test_a_whole_game_of_optimal_moves_is_legal(game: str) -> None:
    table = find(game)
    assert table is not None  # shipped
    rng = np.random.default_rng(11)
    state = after(game)
    while not state.finished:
        move = device_move(state, table)
        assert move.optimal
        state = play(state, move.choice, rng)
    assert state.finished
