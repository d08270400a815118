"""A win made by a throw (generala servida, dormida, big general) is confirmed by writing it
in its box: the sheet then shows it, the throw can no longer be corrected, and the
settlement is the instant win's (GAMES.md, common rules)."""

from __future__ import annotations

from decimal import Decimal

import engine
from engine import events as ev


def play(name: str, *log: dict, players=("Ana", "Bea"), stake: str | None = None, **options) -> engine.GameState:
    return engine.replay([engine.new_game(name, list(players), options, stake=stake), *log])


def test_a_generala_servida_is_written_in_the_generala_box() -> None:
    state = play("generala", ev.throw(0, [4, 4, 4, 4, 4]), stake="0.5")
    assert state.finished and state.instant_win.open
    option = engine.win_option(state)
    assert (option.category, option.points, option.reasons) == ("generala", 60, ("instant_win",))
    assert engine.turn_actions(state).may_correct  # not confirmed: the reading may still be wrong

    confirmed = engine.apply(state, ev.category_scored(0, "generala", 60))
    assert confirmed.finished and confirmed.winners == (0,)
    assert confirmed.instant_win.box == "generala" and not confirmed.instant_win.open
    assert confirmed.sheets[0]["generala"].points == 60 and confirmed.totals == (60, 0)
    assert engine.win_option(confirmed) is None
    actions = engine.turn_actions(confirmed)
    assert not actions.may_correct and not actions.may_undo_throw and actions.may_undo
    # Settled as an instant win: instant_win_points (50) x the stake, whatever the totals.
    [payment] = engine.settlement(confirmed)
    assert (payment.payers, payment.payees, payment.points, payment.amount) == ((1,), (0,), 50, Decimal("25.00"))
    # turn_undone takes the confirmation back: the win is open again.
    assert engine.apply(confirmed, ev.turn_undone()) == state


def test_a_dormida_goes_in_the_first_open_grande() -> None:
    first = play("cacho", ev.throw(0, [2, 2, 2, 2, 2]))
    assert engine.win_option(first).category == "grande_1"
    later = play("cacho", ev.throw(0, [2, 2, 2, 2, 3]), ev.throw(0, [2, 2, 2, 2, 2], [4]),
                 ev.category_scored(0, "grande_1"), ev.throw(1, [1, 2, 3, 5, 5]), ev.category_scored(1, "fives"),
                 ev.throw(0, [6, 6, 6, 6, 6]), throws=3)
    option = engine.win_option(later)
    assert (option.category, option.points, option.reasons) == ("grande_2", 50, ("instant_win",))


def test_a_win_without_a_box_has_nothing_to_write() -> None:
    big_general = play("general", ev.throw(0, [3, 3, 3, 3, 3]))
    assert big_general.instant_win.rule == "big_general" and engine.win_option(big_general) is None
    generala_filled = play("generala", ev.throw(0, [1, 1, 1, 1, 2]), ev.category_scratched(0, "generala"),
                           ev.throw(1, [1, 2, 3, 5, 5]), ev.category_scored(1, "fives"),
                           ev.throw(0, [5, 5, 5, 5, 5]))
    assert generala_filled.finished and engine.win_option(generala_filled) is None
    assert engine.turn_actions(generala_filled).may_correct


def test_no_win_no_box() -> None:
    state = play("generala", ev.throw(0, [1, 2, 3, 4, 4]))
    assert engine.win_option(state) is None
    assert engine.win_option(play("yacht", ev.throw(0, [4, 4, 4, 4, 4]))) is None
