"""The public API of the engine as the appliance and the exporter use it."""

from __future__ import annotations

import pytest

import engine
from engine import events as ev


def test_every_game_of_the_rules_is_listed() -> None:
    assert set(engine.GAMES) == {"general", "generala", "generala-classic", "yacht", "crag", "cacho",
                                 "goldene-fuenfzig", "yahtzee", "kniffel", "yatzy", "escalero", "poker-dice"}
    assert set(engine.PRESETS) == {"yacht-1938"}


def test_a_turn_from_start_to_score() -> None:
    state = engine.replay([engine.new_game("generala", ["Ana", "Bea"])])
    state = engine.apply(state, ev.throw(0, [2, 3, 4, 5, 1]))
    best = engine.score_options(state)[0]
    assert (best.category, best.points, best.reasons) == ("straight", 25, ("served",))
    state = engine.apply(state, ev.category_scored(0, "straight", 25))
    assert state.current_player == 1
    assert state.totals == (25, 0)


def test_a_preset_refuses_an_option_that_would_undo_it() -> None:
    game, options = engine.resolve_game("yacht-1938", {"rules": "1938"})
    assert game.id == "yacht" and options["rules"] == "1938"
    with pytest.raises(engine.BadOptionValue, match="yacht-1938 is yacht with rules=1938"):
        engine.resolve_game("yacht-1938", {"rules": "scarne"})
