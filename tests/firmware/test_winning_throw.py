"""The winning throw (issue 18): a first-throw generala is shown, confirmed like any score,
written in its box (the sheet and the export show it) and settled by GAMES.md's rule for an
instant win; a payment of 0.00 is never shown."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import engine
from firmware.export.formats import scoresheet_rows
from firmware.export.summary import summarize
from firmware.ui import render
from firmware.ui.catalogue import text
from firmware.ui.screens import GameOverScreen, MenuScreen, ScoreScreen, TurnScreen
from tests.firmware.screens_support import Device


def en(label) -> str:
    return text(label, "en")


def test_a_generala_servida_is_shown_confirmed_and_written_in_its_box(tmp_path: Path) -> None:
    d = Device(tmp_path, lang="en", names=("Ana", "Beto"), stake=0.5, currency="$").start()
    d.throw((4, 4, 4, 4, 4))
    win = d.screen()
    assert isinstance(win, ScoreScreen)
    assert (en(win.title), win.points, win.total, en(win.note), en(win.hint)) == (
        "Generala served!", 60, 60, "Ana wins", "OK scores  ◀▶ cancel")
    assert [die.value for die in win.dice] == [4] * 5
    assert d.app.log.events(d.app.session.game_id)[-1].event["type"] == "throw"  # nothing more yet

    d.press("ok")
    events = [e.event for e in d.app.log.events(d.app.session.game_id)]
    assert events[-1] == engine.events.category_scored(0, "generala", 60)
    final = d.screen()
    assert isinstance(final, GameOverScreen)
    assert [(r.name, r.points, r.winner, r.net_cents) for r in final.rows] == [
        ("Ana", 60, True, 2500), ("Beto", 0, False, -2500)]  # 50 points x 0.5 whatever the totals

    # The sheet (and so the export) has the generala in its box.
    state = engine.replay(events)
    assert state.sheets[0]["generala"].points == 60
    summary = summarize("g", "generala", "2026-01-01T20:00:00Z", None, events, "en")
    generala = next(row for row in scoresheet_rows(summary) if row[0] == "Generala")
    assert generala[1] == "60"


def test_cancel_goes_back_to_the_turn_where_the_throw_can_be_taken_back(tmp_path: Path) -> None:
    d = Device(tmp_path, lang="en", names=("Ana", "Beto")).start()
    d.throw((4, 4, 4, 4, 4)).press("prev")
    turn = d.screen()
    assert isinstance(turn, TurnScreen) and en(turn.message) == "Wins! OK: score it"
    assert [(en(o.label), o.points, o.notes) for o in turn.options] == [("Generala", 60, ("instant_win",))]
    d.press("OK")  # the turn menu: correct a die, cancel the throw
    menu = d.screen()
    assert isinstance(menu, MenuScreen)
    items = [en(item.label) for item in menu.items]
    assert items[:2] == ["Correct a die", "Cancel last throw"]
    d.press("next", "ok", "OK")  # Cancel last throw, held OK confirms
    assert d.state.turn.throw_number == 0 and not d.state.finished
    assert isinstance(d.screen(), TurnScreen)


def test_a_misread_generala_is_corrected_before_it_is_confirmed(tmp_path: Path) -> None:
    d = Device(tmp_path, lang="en", names=("Ana", "Beto")).start()
    d.throw((4, 4, 4, 4, 4)).press("OK", "ok")  # long OK on the win: the turn menu > Correct a die
    d.press("ok")  # die 1
    d.press("next", "ok")  # its value: 5
    assert d.state.turn.dice == (5, 4, 4, 4, 4) and d.state.instant_win is None
    assert isinstance(d.screen(), TurnScreen)


def test_undo_after_the_confirmation_asks_again(tmp_path: Path) -> None:
    d = Device(tmp_path, lang="en", names=("Ana", "Beto")).start()
    d.throw((2, 2, 2, 2, 2)).press("ok")
    assert isinstance(d.screen(), GameOverScreen)
    d.press("OK", "OK")  # the final table's long OK: undo the last box, held OK confirms
    assert isinstance(d.screen(), ScoreScreen) and d.state.instant_win.open


def test_a_win_with_no_box_needs_only_the_ok(tmp_path: Path) -> None:
    d = Device(tmp_path, lang="en", game="general", names=("Ana", "Beto")).start()
    d.throw((3, 3, 3, 3, 3))
    win = d.screen()
    assert isinstance(win, ScoreScreen)
    assert (en(win.title), win.points, en(win.hint)) == ("Big general!", None, "OK ends it  ◀▶ cancel")
    d.press("ok")
    assert isinstance(d.screen(), GameOverScreen)
    assert d.app.log.events(d.app.session.game_id)[-1].event["type"] == "throw"


def test_the_final_table_never_shows_a_payment_of_zero(tmp_path: Path) -> None:
    # A stake of a hundredth of a cent: each loser owes half a cent, and payments are in
    # whole cents (GAMES.md), so nobody pays; the lines show no amount at all, not "0,00".
    d = Device(tmp_path, lang="es", names=("Ana", "Beto", "Cris"), players=3, stake=0.0001, currency="€").start()
    d.play_turn((2, 3, 4, 5, 6))
    d.throw((6, 6, 6, 6, 6)).press("ok").wait()
    final = d.screen()
    assert isinstance(final, GameOverScreen)
    assert [row.net_cents for row in final.rows] == [0, 0, 0]
    no_zeros = replace(final, rows=tuple(replace(row, net_cents=row.net_cents or None) for row in final.rows))
    assert render(final, "es").tobytes() == render(no_zeros, "es").tobytes()


def test_a_restart_lands_on_the_winning_throw_again(tmp_path: Path) -> None:
    d = Device(tmp_path, lang="es", names=("Ana", "Beto")).start()
    d.throw((5, 5, 5, 5, 5))
    before = d.screen()
    d.app.log.close()
    again = Device(tmp_path, lang="es", names=("Ana", "Beto"))
    assert again.screen() == before
