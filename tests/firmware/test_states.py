"""The appliance's state machine: a game from the menu to the final table, and everything that
must not record a wrong score (unsure dice, a 4th throw, buttons mashed mid-throw...)."""

from __future__ import annotations

from pathlib import Path

from firmware.appliance import (
    CameraBack, CameraLost, MotionSeen, ObjectOnTray, Press, TrayCleared, UsbExportDone, UsbExportFailed,
    UsbExportStarted,
)
from firmware.appliance.machine import Appliance
from firmware.localformat import MoneyStyle
from firmware.ui.catalogue import say
from firmware.ui.screens import (
    ConfirmScreen, CorrectionScreen, GameOverScreen, MenuScreen, MessageScreen, Names, ScoreScreen, T, TurnScreen,
)
from tests.firmware.appliance_support import event_types, later, new_app, press, seen, start_game


def text(label: object, lang: str = "en") -> str:
    return getattr(label, lang) if isinstance(label, Names) else str(label)


def turn_screen(app: Appliance) -> TurnScreen:
    screen = app.screen()
    assert isinstance(screen, TurnScreen), screen
    return screen


def test_boots_to_the_main_menu_and_starts_a_game(tmp_path: Path) -> None:
    app = new_app(tmp_path)
    menu = app.screen()
    assert isinstance(menu, MenuScreen)
    assert [text(i.label) for i in menu.items] == ["New game", "Settings"]
    start_game(app)
    screen = turn_screen(app)
    assert (screen.player, screen.throw, screen.throws) == ("J1", 0, 3)
    assert event_types(app) == ["game_started"]


def test_new_game_menu_changes_players_and_game(tmp_path: Path) -> None:
    app = new_app(tmp_path)
    press(app, "ok")  # New game
    press(app, "next", "ok", "next", "next", "ok")  # Players: 2 -> 4
    menu = app.screen()
    assert isinstance(menu, MenuScreen) and menu.items[1].value == "4"
    press(app, "prev", "ok", "next", "ok")  # Game: generala -> the next game
    assert text(app.screen().items[0].value) != "Generala"
    press(app, "prev", "ok")  # Start is the last item
    assert app.session is not None and len(app.session.state.players) == 4


def test_throw_pick_and_confirm_scores_and_passes_the_turn(tmp_path: Path) -> None:
    app = new_app(tmp_path)
    start_game(app)
    app.handle(seen([2, 3, 4, 5, 1]))
    screen = turn_screen(app)
    assert screen.throw == 1 and [d.value for d in screen.dice] == [2, 3, 4, 5, 1]
    best = screen.options[0]
    assert (text(best.label), best.points, best.notes) == ("Straight", 25, ("served",))
    press(app, "ok")
    confirm = app.screen()
    assert isinstance(confirm, ScoreScreen)
    assert (text(confirm.title), confirm.points, confirm.total, text(confirm.hint), text(confirm.note)) == (
        "Score Straight?", 25, 25, "OK scores  ◀▶ cancel", "served")
    assert [d.value for d in confirm.dice] == [2, 3, 4, 5, 1]
    press(app, "ok")
    assert event_types(app)[-1] == "category_scored"
    assert app.session.state.sheets[0]["straight"].points == 25
    screen = turn_screen(app)
    assert screen.player == "J2" and screen.throw == 0
    assert text(screen.message) == "J1: Straight 25"


def test_cancelling_the_confirmation_records_nothing(tmp_path: Path) -> None:
    app = new_app(tmp_path)
    start_game(app)
    app.handle(seen([6, 6, 6, 2, 2]))
    press(app, "next", "ok", "prev")
    assert isinstance(app.screen(), TurnScreen)
    assert event_types(app) == ["game_started", "throw"]


def test_held_dice_rethrow_keeps_their_indices(tmp_path: Path) -> None:
    app = new_app(tmp_path)
    start_game(app)
    app.handle(seen([6, 6, 2, 3, 6]))
    # The 6s stay; dice 2 and 3 are thrown again and land elsewhere showing 6 and 1.
    app.handle(seen([6, 6, 6, 1, 6], moved=["held", "held", "thrown", "thrown", "held"],
                    previous=[0, 1, None, None, 4], xs=[60, 120, 200, 260, 300]))
    turn = app.session.state.turn
    assert turn.throw_number == 2
    assert sorted(turn.throws[-1].thrown) == [2, 3]
    assert sorted(turn.dice) == [1, 6, 6, 6, 6]
    assert turn_screen(app).dice[0].held


def test_unsure_die_is_confirmed_before_anything_is_scored(tmp_path: Path) -> None:
    app = new_app(tmp_path)
    start_game(app)
    app.handle(seen([5, 5, 5, 5, 6], unsure={4: (5,)}))
    screen = app.screen()
    assert isinstance(screen, CorrectionScreen)
    assert text(screen.prompt) == "Die 5: 6 or 5?"
    assert [text(c) for c in screen.choices] == ["6", "5", "other"]
    # Nothing can be picked before the answer: OK here answers the question.
    press(app, "next", "ok")  # it is a 5
    assert event_types(app)[-2:] == ["throw", "reading_corrected"]
    assert app.session.state.turn.dice == (5, 5, 5, 5, 5)
    screen = app.screen()
    assert isinstance(screen, ScoreScreen)  # generala servida: the winning throw, to confirm
    assert (text(screen.title), screen.points) == ("Generala served!", 60)


def test_other_value_of_an_unsure_die(tmp_path: Path) -> None:
    app = new_app(tmp_path)
    start_game(app)
    app.handle(seen([1, 2, 3, 4, 4], unsure={4: (6,)}))
    press(app, "prev", "ok")  # "other": the full list, starting at the read value
    screen = app.screen()
    assert [text(c) for c in screen.choices] == ["1", "2", "3", "4", "5", "6"]
    assert screen.selected == 3
    press(app, "next", "ok")  # 5
    assert app.session.state.turn.dice == (1, 2, 3, 4, 5)
    assert app.session.state.turn.throws[-1].corrected


def test_a_throw_while_a_die_waits_for_confirmation_is_taken_after_it(tmp_path: Path) -> None:
    app = new_app(tmp_path)
    start_game(app)
    app.handle(seen([2, 2, 3, 4, 6], unsure={0: (3,)}))
    app.handle(seen([2, 2, 1, 1, 1], moved=["held", "held", "thrown", "thrown", "thrown"],
                    xs=[60, 120, 200, 250, 310]))
    assert event_types(app) == ["game_started", "throw"]
    assert isinstance(app.screen(), CorrectionScreen)
    press(app, "ok")  # yes, a 2
    assert event_types(app) == ["game_started", "throw", "reading_corrected", "throw"]
    assert app.session.state.turn.throw_number == 2


def test_fourth_throw_is_refused_with_a_message(tmp_path: Path) -> None:
    app = new_app(tmp_path)
    start_game(app)
    app.handle(seen([1, 2, 3, 4, 6]))
    for values in ([1, 2, 3, 4, 1], [1, 2, 3, 4, 2], [1, 2, 3, 4, 3]):
        app.handle(seen(values, moved=["held"] * 4 + ["thrown"]))
    assert app.session.state.turn.throw_number == 3
    assert event_types(app).count("throw") == 3
    assert text(turn_screen(app).message) == "No throws left: score"
    assert app.session.state.turn.dice == (1, 2, 3, 4, 2)


def test_a_partial_throw_after_scoring_is_not_the_next_players_first_throw(tmp_path: Path) -> None:
    app = new_app(tmp_path)
    start_game(app)
    app.handle(seen([2, 3, 4, 5, 6]))
    press(app, "ok", "ok")
    assert turn_screen(app).player == "J2"
    app.handle(seen([2, 3, 4, 5, 1], moved=["held"] * 4 + ["thrown"]))
    assert text(turn_screen(app).message) == "Throw all 5 dice"
    assert event_types(app)[-1] == "category_scored"
    app.handle(seen([1, 1, 4, 5, 1]))
    assert app.session.state.turn.throw_number == 1


def test_buttons_mashed_while_dice_roll_record_nothing(tmp_path: Path) -> None:
    app = new_app(tmp_path)
    start_game(app)
    app.handle(seen([3, 3, 3, 2, 2]))
    press(app, "ok")  # pick the best option: full house
    app.handle(MotionSeen())
    press(app, "ok", "ok", "ok")
    assert event_types(app) == ["game_started", "throw"]
    screen = app.screen()
    assert isinstance(screen, ScoreScreen)
    assert text(screen.hint) == "Wait: dice rolling"
    app.handle(TrayCleared())
    press(app, "ok")
    assert event_types(app)[-1] == "category_scored"


def test_cocked_die_and_missing_die_are_refused(tmp_path: Path) -> None:
    app = new_app(tmp_path)
    start_game(app)
    app.handle(seen([1, 2, 3, 4]))
    assert text(turn_screen(app).message) == "4 of 5 dice seen"
    app.handle(seen([1, 2, 3, 4, 5], cocked=[3]))
    assert text(turn_screen(app).message) == "Die 4 cocked: rethrow"
    assert event_types(app) == ["game_started"]


def test_rule_violation_is_a_short_message(tmp_path: Path) -> None:
    app = new_app(tmp_path)  # Argentine generala: a die set aside stays aside
    start_game(app)
    app.handle(seen([6, 6, 1, 2, 3]))
    app.handle(seen([6, 6, 4, 5, 1], moved=["held", "held", "thrown", "thrown", "thrown"]))
    # die 1 (a 6) was set aside in throw 2: throwing it in throw 3 breaks the rule. The
    # players confirm it was thrown, so the throw is refused with the rule.
    app.handle(seen([2, 6, 4, 5, 1], moved=["thrown", "held", "held", "held", "held"]))
    assert text(app.screen().prompt) == "Die 1: thrown?"
    press(app, "ok")
    assert text(turn_screen(app).message) == "Held dice stay held"
    assert event_types(app).count("throw") == 2


def test_ambiguous_die_is_asked_about(tmp_path: Path) -> None:
    app = new_app(tmp_path)
    start_game(app)
    app.handle(seen([4, 4, 1, 2, 3]))
    app.handle(seen([4, 4, 4, 2, 3], moved=["held", "held", "thrown", "ambiguous", "held"]))
    screen = app.screen()
    assert isinstance(screen, CorrectionScreen) and text(screen.prompt) == "Die 4: thrown?"
    press(app, "next", "ok")  # no: it was held
    thrown = app.session.state.turn.throws[-1].thrown
    assert thrown == (2,)


def test_correcting_a_die_from_the_turn_menu(tmp_path: Path) -> None:
    app = new_app(tmp_path)
    start_game(app)
    app.handle(seen([1, 2, 3, 4, 6]))
    press(app, "OK")  # the turn menu
    menu = app.screen()
    assert text(menu.items[0].label) == "Correct a die"
    press(app, "ok", "next", "next", "next", "next", "ok")  # die 5
    screen = app.screen()
    assert isinstance(screen, CorrectionScreen) and screen.selected == 5
    press(app, "prev", "ok")  # 6 -> 5
    assert app.session.state.turn.dice == (1, 2, 3, 4, 5)
    assert event_types(app)[-1] == "reading_corrected"
    assert isinstance(app.screen(), TurnScreen)


def test_undo_needs_a_long_press(tmp_path: Path) -> None:
    app = new_app(tmp_path)
    start_game(app)
    app.handle(seen([2, 3, 4, 5, 6]))
    press(app, "ok", "ok")
    press(app, "OK", "ok")  # turn menu, first item: undo
    screen = app.screen()
    assert isinstance(screen, ConfirmScreen) and screen.hold_to_confirm
    assert text(screen.lines[0]) == "J1: Straight 25"
    press(app, "ok")
    assert event_types(app)[-1] == "category_scored"
    press(app, "OK")
    assert event_types(app)[-1] == "turn_undone"
    screen = turn_screen(app)
    assert screen.player == "J1" and screen.throw == 1
    assert app.session.state.sheets[0]["straight"] is None


def test_camera_lost_is_shown_and_the_game_goes_on(tmp_path: Path) -> None:
    app = new_app(tmp_path)
    start_game(app)
    app.handle(CameraLost("no frames", retry_in_s=2))
    screen = app.screen()
    assert isinstance(screen, MessageScreen) and screen.icon == "camera"
    press(app, "next")  # dismisses the warning only
    assert turn_screen(app).message == T("camera_lost")
    app.handle(CameraBack())
    app.handle(seen([1, 1, 2, 2, 3]))
    assert app.session.state.turn.throw_number == 1


def test_an_object_left_on_the_tray_is_shown_during_a_game(tmp_path: Path) -> None:
    app = new_app(tmp_path)
    start_game(app)
    app.handle(MotionSeen())
    app.handle(ObjectOnTray())
    assert turn_screen(app).message == say("object_on_tray")
    assert not app.busy  # nothing moves: the buttons work
    later(app, 11.0)
    assert turn_screen(app).message != say("object_on_tray")


def test_usb_export_messages(tmp_path: Path) -> None:
    app = new_app(tmp_path)
    app.handle(UsbExportStarted())
    assert app.screen().icon == "usb"
    app.handle(UsbExportDone(3))
    assert app.screen().icon == "usb"
    later(app)
    assert isinstance(app.screen(), MenuScreen)
    app.handle(UsbExportFailed("stick is read-only"))
    assert app.screen().icon == "warning"
    press(app, "ok")
    assert isinstance(app.screen(), MenuScreen)


def test_a_stick_that_could_not_be_unmounted_is_not_called_safe_to_remove(tmp_path: Path) -> None:
    app = new_app(tmp_path)
    app.handle(UsbExportFailed("could not unmount", safe_to_remove=False, device="sda1"))
    lines = app.screen().lines
    assert T("usb_do_not_remove") in lines and T("usb_safe_to_remove") not in lines


def test_the_menu_copies_every_game_to_the_stick_last_exported_to(tmp_path: Path) -> None:
    asked: list[str] = []
    app = new_app(tmp_path)
    app.on_usb_request = asked.append
    assert "Copy all to USB" not in [text(i.label) for i in app.screen().items]  # no stick seen yet
    app.handle(UsbExportDone(2, device="sdb1"))
    press(app, "ok")  # clears the "safe to remove" message
    items = [text(i.label) for i in app.screen().items]
    assert "Copy all to USB" in items
    for _ in range(items.index("Copy all to USB")):
        press(app, "next")
    press(app, "ok")
    assert asked == ["sdb1"]
    assert text(app.screen().hint) == "Copy requested"
    app.handle(UsbExportFailed("the stick is gone", device="sdb1"))
    press(app, "ok")
    assert "Copy all to USB" not in [text(i.label) for i in app.screen().items]


def test_game_over_shows_winner_and_settlement_then_closes(tmp_path: Path) -> None:
    app = new_app(tmp_path, stake_per_point=0.5, money=MoneyStyle("$"))
    press(app, "ok")
    app.handle(Press("prev"))  # Start
    press(app, "ok")
    app.handle(seen([2, 3, 4, 5, 6]))
    press(app, "ok", "ok")  # J1 straight 25
    app.handle(seen([6, 6, 6, 6, 6]))  # J2 generala servida: wins at once, once confirmed
    later(app, 5)
    win = app.screen()
    assert isinstance(win, ScoreScreen)
    assert (text(win.title), win.points, win.total, text(win.note), text(win.hint)) == (
        "Generala served!", 60, 60, "J2 wins", "OK scores  ◀▶ cancel")
    press(app, "next")  # < > goes back to the turn: the throw and the win, nothing recorded
    turn = turn_screen(app)
    assert [text(o.label) for o in turn.options] == ["Generala"] and text(turn.message) == "Wins! OK: score it"
    assert event_types(app)[-1] == "throw"
    press(app, "ok", "ok")  # OK in the turn shows the win again, OK writes it in its box
    assert event_types(app)[-1] == "category_scored"
    assert app.session.state.sheets[1]["generala"].points == 60
    screen = app.screen()
    assert isinstance(screen, GameOverScreen)
    assert [(r.name, r.points, r.winner, r.net_cents) for r in screen.rows] == [
        ("J2", 60, True, 2500), ("J1", 25, False, -2500)]  # 50 points x 0.5 (GAMES.md, instant win)
    later(app, 5)
    assert text(app.screen().note) == "Generala served!"
    press(app, "ok")
    assert app.log.unfinished() is None
    assert isinstance(app.screen(), MenuScreen)


def test_main_menu_during_a_game_and_resume(tmp_path: Path) -> None:
    app = new_app(tmp_path)
    start_game(app)
    press(app, "OK")
    menu = app.screen()
    labels = [text(i.label) for i in menu.items]
    press(app, *(["next"] * labels.index("Main menu")), "ok")
    assert text(app.screen().items[0].label) == "Resume game"
    press(app, "ok")
    assert isinstance(app.screen(), TurnScreen)


def test_settings_change_the_language(tmp_path: Path) -> None:
    app = new_app(tmp_path)
    changed = []
    app.on_prefs = changed.append
    press(app, "next", "ok")  # Settings
    press(app, "ok", "next", "ok")
    assert app.lang == "en" and changed[-1].language == "en"


def test_roll_off_orders_the_players(tmp_path: Path) -> None:
    app = new_app(tmp_path, order="roll-off")
    start_game(app)
    screen = turn_screen(app)
    assert screen.player == "J1" and app.session is None
    app.handle(seen([6, 6, 5, 5, 4]))  # J1: 26
    app.handle(seen([1, 2, 2, 3, 1]))  # J2: 9, lowest plays first
    assert app.session is not None
    assert app.session.state.players == ("J2", "J1")
    assert turn_screen(app).player == "J2"


def test_roll_off_tie_throws_again(tmp_path: Path) -> None:
    app = new_app(tmp_path, order="roll-off")
    start_game(app)
    app.handle(seen([1, 2, 3, 4, 5]))
    app.handle(seen([5, 4, 3, 2, 1]))
    assert app.session is None and text(turn_screen(app).message) == "Tie: throw again"
    app.handle(seen([6, 6, 6, 6, 5]))
    app.handle(seen([1, 1, 1, 1, 2]))
    assert app.session.state.players == ("J2", "J1")


def test_cacho_die_turned_over_is_confirmed_and_recorded(tmp_path: Path) -> None:
    app = new_app(tmp_path, game="cacho")
    start_game(app)
    app.handle(seen([2, 3, 4, 5, 1]))
    app.handle(seen([2, 3, 4, 5, 6], moved=["held"] * 4 + ["thrown"]))
    # 2-3-4-5-6 after a second throw with dice held: a die must be turned over.
    assert text(turn_screen(app).message) == "Turn a die over"
    app.handle(seen([2, 3, 4, 5, 1], moved=["held"] * 4 + ["turned"]))
    screen = app.screen()
    assert isinstance(screen, CorrectionScreen) and text(screen.prompt) == "Die 5 turned?"
    press(app, "ok")
    assert event_types(app)[-1] == "die_turned"
    best = turn_screen(app).options[0]
    assert (text(best.label), best.points) == ("Straight", 20)


def test_a_cocked_die_rethrown_alone_completes_the_first_throw(tmp_path: Path) -> None:
    app = new_app(tmp_path)
    start_game(app)
    app.handle(seen([3, 3, 3, 2, 2]))
    press(app, "ok", "ok")  # J1 scores; J2's turn
    app.handle(seen([1, 5, 4, 6, 2], cocked=[2]))
    assert text(turn_screen(app).message) == "Die 3 cocked: rethrow"
    app.handle(seen([1, 5, 3, 6, 2], moved=["held", "held", "thrown", "held", "held"]))
    turn = app.session.state.turn
    assert turn.player == 1 and turn.throw_number == 1 and sorted(turn.dice) == [1, 2, 3, 5, 6]


def test_a_throw_nobody_made_is_cancelled_with_a_long_press(tmp_path: Path) -> None:
    app = new_app(tmp_path)
    start_game(app)
    app.handle(seen([6, 6, 6, 1, 2]))
    app.handle(seen([6, 6, 6, 3, 4], moved=["held"] * 3 + ["thrown"] * 2))  # a bump, not a throw
    press(app, "OK")
    labels = [text(i.label) for i in app.screen().items]
    press(app, *(["next"] * labels.index("Cancel last throw")), "ok")
    screen = app.screen()
    assert isinstance(screen, ConfirmScreen) and screen.hold_to_confirm
    press(app, "ok")
    assert event_types(app)[-1] == "throw"
    press(app, "OK")
    assert event_types(app)[-1] == "throw_undone"
    screen = turn_screen(app)
    assert screen.throw == 1 and [d.value for d in screen.dice] == [6, 6, 6, 1, 2]


def test_roll_off_hands_are_recorded_with_the_game(tmp_path: Path) -> None:
    app = new_app(tmp_path, order="roll-off")
    start_game(app)
    app.handle(seen([6, 6, 5, 5, 4]))
    app.handle(seen([1, 2, 2, 3, 1]))
    started = app.log.events(app.session.game_id)[0].event
    assert started["roll_off"] == {"J2": [[1, 2, 2, 3, 1]], "J1": [[6, 6, 5, 5, 4]]}


def test_a_nudged_die_is_asked_about_and_nothing_is_recorded(tmp_path: Path) -> None:
    app = new_app(tmp_path)
    start_game(app)
    app.handle(seen([2, 2, 3, 4, 5]))
    app.handle(seen([2, 2, 3, 4, 5], moved=["held", "held", "ambiguous", "held", "held"],
                    xs=[60, 120, 190, 240, 300]))
    screen = app.screen()
    assert isinstance(screen, CorrectionScreen) and text(screen.prompt) == "Die 3: thrown?"
    press(app, "next", "ok")  # no: it was only pushed
    assert event_types(app) == ["game_started", "throw"]
    assert isinstance(app.screen(), TurnScreen)


def test_a_die_set_aside_the_tracker_calls_thrown_is_asked_about(tmp_path: Path) -> None:
    app = new_app(tmp_path)  # Argentine generala: a die set aside stays aside
    start_game(app)
    app.handle(seen([6, 6, 1, 2, 3]))
    app.handle(seen([6, 6, 4, 5, 1], moved=["held", "held", "thrown", "thrown", "thrown"]))
    # The first 6 was only jostled, but the tracker calls it thrown.
    app.handle(seen([6, 6, 4, 5, 2], moved=["thrown", "held", "held", "held", "thrown"]))
    screen = app.screen()
    assert isinstance(screen, CorrectionScreen) and text(screen.prompt) == "Die 1: thrown?"
    press(app, "next", "ok")  # no, it stayed aside
    assert app.session.state.turn.throws[-1].thrown == (4,)
    assert app.session.state.turn.dice == (6, 6, 4, 5, 2)
