"""Dice by hand: entering a throw with the buttons from the turn menu (no camera, a camera
lost, a die the camera is unsure of), the `manual` camera playing a whole game through the
service, and the throw's `source: "hand"` in the log, after a restart and in the export."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import engine
from cli.main import build_parser
from cli.run import build_service
from engine import events as ev
from engine import score_options, turn_actions
from firmware.appliance import Appliance, CameraLost, GameDefaults
from firmware.appliance.by_hand import EnterDice
from firmware.config import Config, GameConfig, load_config
from firmware.eventlog import EventLog
from firmware.export.exporter import export_games
from firmware.service import Service
from firmware.export.formats import LABELS
from firmware.localformat import Locale
from firmware.ui import font
from firmware.ui.catalogue import LANGUAGES, message, rule_message
from firmware.ui.catalogue import text as text_in
from firmware.ui.renderer import RIGHT
from firmware.ui.screens import CorrectionScreen, GameOverScreen, MenuScreen, TurnScreen
from hardware.buttons import ScriptedButtons
from hardware.camera import ManualCamera, open_camera_feed
from hardware.display import DummyDisplay
from tests.firmware.appliance_support import Clock, event_types, later, new_app, press, seen, start_game

PLAYERS = ["J1", "J2"]


def text(label: Any, lang: str = "en") -> str:
    return text_in(label, lang)


def enter(app: Appliance, *values: int) -> None:
    """Give each die's value, the list starting at 1 (a first throw)."""
    for value in values:
        press(app, *values_presses(1, value))


def menu_pick(app: Appliance, label: str) -> None:
    """Long OK, then the turn menu's item with this (English) label."""
    press(app, "OK")
    labels = [text(item.label) for item in app.screen().items]
    press(app, *["next"] * labels.index(label), "ok")


def values_presses(start: int, value: int) -> list[str]:
    """From the value list showing `start`, pick `value` (next wraps round 1..6)."""
    return ["next"] * ((value - start) % 6) + ["ok"]


def manual_app(state_dir: Path) -> Appliance:
    return Appliance(EventLog.open(state_dir), defaults=GameDefaults(game="generala", players=2, order="fixed"),
                     clock=Clock(), manual_camera=True)


def plan_game(seed: int) -> tuple[list[str], list[dict[str, Any]]]:
    """A whole two-player Generala played from the buttons with a manual camera: the presses
    and the events they must record, worked out with the engine alone."""
    rng = random.Random(seed)
    events: list[dict[str, Any]] = [engine.new_game("generala", PLAYERS, {})]
    presses = ["ok", "prev", "ok"]  # New game, Start
    state = engine.replay(events)

    def add(event: dict[str, Any]) -> None:
        nonlocal state
        events.append(event)
        state = engine.apply(state, event)

    while not state.finished:
        player = state.current_player
        values = [rng.randint(1, 6) for _ in range(5)]
        presses.append("ok")  # the turn's first throw: OK enters the dice
        for value in values:
            presses += values_presses(1, value)
        add(ev.throw(player, values, source=ev.SOURCE_HAND))
        while not state.finished and turn_actions(state).may_throw and rng.random() < 0.6:
            presses += ["OK", "ok"]  # the turn menu, its first item: dice by hand
            thrown = [i for i in turn_actions(state).rethrowable if rng.random() < 0.5] or [0]
            for i in turn_actions(state).rethrowable:  # thrown again? yes / no, die by die
                presses += ["ok"] if i in thrown else ["next", "ok"]
            new = list(state.turn.dice)
            for i in thrown:
                new[i] = rng.randint(1, 6)
                presses += values_presses(state.turn.dice[i], new[i])
            add(ev.throw(player, new, thrown, source=ev.SOURCE_HAND))
        if state.finished:
            break
        options = score_options(state)
        allowed = [k for k, o in enumerate(options) if o.allowed]
        k = rng.choice(allowed)
        presses += ["next"] * k + ["ok", "ok"]  # pick the box, confirm
        option = options[k]
        add(ev.category_scratched(player, option.category) if option.points == 0
            else ev.category_scored(player, option.category, option.points))
    return presses, events


def test_a_whole_game_by_hand_through_the_service_with_the_manual_camera(tmp_path: Path) -> None:
    presses, expected = plan_game(seed=18)
    assert len(expected) > 44  # 22 turns, some of two or three throws
    config = Config(game=GameConfig(order="fixed"))
    holder: dict[str, Service] = {}
    script = [(0.001 * k, "ok" if b == "OK" else b, "long" if b == "OK" else "short") for k, b in enumerate(presses)]
    buttons = ScriptedButtons(script, clock=lambda: holder["s"].scene_time() if "s" in holder else 0.0)
    buttons.start(0.0)
    camera = open_camera_feed("manual")
    assert isinstance(camera, ManualCamera)
    service = Service(config, [], tmp_path / "state", camera, DummyDisplay(), buttons, tracker=None,  # type: ignore[arg-type]
                      control_socket=str(tmp_path / "control.sock"))
    holder["s"] = service
    assert service.app is not None and service.app.manual_camera
    for _ in range(400):
        service.step()
        if service.app.session is not None and service.app.session.state.finished:
            break
    app = service.app
    assert app.session is not None and app.session.state.finished
    assert isinstance(app.screen(), GameOverScreen)
    recorded = [e.event for e in app.log.events(app.session.game_id)]
    assert recorded == expected
    assert all(e["source"] == "hand" for e in recorded if e["type"] == "throw")
    final = engine.replay(expected)
    assert app.session.state.totals == final.totals and app.session.state.sheets == final.sheets
    service.shutdown()


def test_the_manual_camera_is_never_lost_and_gives_no_frame() -> None:
    camera = ManualCamera()
    assert camera.read() is None and camera.status.state == "manual" and camera.seconds_until_retry() == 0.0


def test_with_the_manual_camera_ok_enters_the_first_throw(tmp_path: Path) -> None:
    app = manual_app(tmp_path)
    start_game(app)
    screen = app.screen()
    assert isinstance(screen, TurnScreen) and text(screen.message, "es") == "OK: dados a mano"
    press(app, "ok")
    screen = app.screen()
    assert isinstance(screen, CorrectionScreen) and text(screen.title, "es") == "Dados a mano"
    assert text(screen.prompt) == "Die 1: value" and screen.selected == 0
    assert [d.value for d in screen.dice] == [None] * 5
    for value in (2, 2, 5, 4, 4):
        press(app, *values_presses(1, value))
    assert app.session is not None and app.session.state.turn.dice == (2, 2, 5, 4, 4)
    event = app.log.events(app.session.game_id)[-1]
    assert event.event == ev.throw(0, [2, 2, 5, 4, 4], source="hand") and event.reading is None
    screen = app.screen()
    assert isinstance(screen, TurnScreen) and text(screen.message) == "Pick; hold: throw"


def test_a_rethrow_by_hand_asks_which_dice_then_their_values(tmp_path: Path) -> None:
    app = manual_app(tmp_path)
    start_game(app)
    press(app, "ok")
    enter(app, 1, 1, 1, 1, 2)
    press(app, "OK")
    menu = app.screen()
    assert isinstance(menu, MenuScreen) and text(menu.items[0].label) == "Dice by hand"
    press(app, "ok")
    screen = app.screen()
    assert text(screen.prompt) == "Die 1: thrown?" and screen.die == 0
    press(app, "next", "ok", "next", "ok", "next", "ok", "ok", "ok")  # dice 4 and 5 again
    screen = app.screen()
    assert [(d.value, d.held) for d in screen.dice] == [(1, True)] * 3 + [(None, False)] * 2
    assert text(screen.prompt) == "Die 4: value" and screen.selected == 0  # it showed 1
    press(app, "OK")  # a step back: die 5 asked again
    assert text(app.screen().prompt) == "Die 5: thrown?"
    press(app, "ok", "next", "ok", "ok")  # die 4: 2, die 5: 2
    assert app.session is not None
    assert app.session.state.turn.dice == (1, 1, 1, 2, 2)
    assert app.log.events(app.session.game_id)[-1].event == ev.throw(0, [1, 1, 1, 2, 2], [3, 4], source="hand")


def test_no_die_thrown_again_is_refused_before_any_value(tmp_path: Path) -> None:
    app = manual_app(tmp_path)
    start_game(app)
    press(app, "ok")
    enter(app, 1, 1, 1, 1, 2)
    press(app, "OK", "ok", *["next", "ok"] * 5)
    screen = app.screen()
    assert text(screen.title) == "Nothing was thrown" and text(screen.prompt) == "Die 1: thrown?"
    assert event_types(app) == ["game_started", "throw"]


def test_dice_set_aside_by_the_rules_are_not_asked_about(tmp_path: Path) -> None:
    app = manual_app(tmp_path)  # generala's reglamento: a die set aside stays aside
    start_game(app)
    press(app, "ok")
    enter(app, 1, 1, 1, 1, 2)
    press(app, "OK", "ok", "next", "ok", "next", "ok", "next", "ok", "ok", "ok", "ok", "ok")  # 4, 5: 1 2
    press(app, "OK", "ok")
    assert isinstance(app.mode, EnterDice) and app.mode.asked == (3, 4)
    assert text(app.screen().prompt) == "Die 4: thrown?"


def test_long_ok_before_any_answer_leaves_without_recording(tmp_path: Path) -> None:
    app = manual_app(tmp_path)
    start_game(app)
    press(app, "ok", "ok", "ok", "OK", "OK", "OK")
    assert isinstance(app.screen(), TurnScreen) and event_types(app) == ["game_started"]


def test_camera_lost_the_turn_menu_offers_dice_by_hand_first(tmp_path: Path) -> None:
    app = new_app(tmp_path)
    start_game(app)
    app.handle(CameraLost("no frames", retry_in_s=2))
    press(app, "next")  # dismisses the warning
    screen = app.screen()
    assert isinstance(screen, TurnScreen) and text(screen.message, "es") == "Sin cámara"
    press(app, "OK")
    menu = app.screen()
    assert isinstance(menu, MenuScreen) and text(menu.items[0].label, "es") == "Dados a mano"
    press(app, "ok")
    for value in (6, 6, 6, 3, 2):
        press(app, *values_presses(1, value))
    assert app.session is not None and app.session.state.turn.dice == (6, 6, 6, 3, 2)
    assert app.log.events(app.session.game_id)[-1].event["source"] == "hand"
    # Without the menu too: OK at the start of a turn, as with the manual camera.
    press(app, "ok", "ok")  # the best box, confirmed
    later(app)
    press(app, "ok")
    assert isinstance(app.mode, EnterDice)


def test_with_a_camera_the_item_comes_after_the_corrections(tmp_path: Path) -> None:
    app = new_app(tmp_path)
    start_game(app)
    app.handle(seen([1, 2, 3, 4, 6]))
    press(app, "OK")
    labels = [text(item.label) for item in app.screen().items]
    assert labels[:3] == ["Correct a die", "Cancel last throw", "Dice by hand"]


def test_a_die_the_camera_is_unsure_of_can_be_entered_by_hand(tmp_path: Path) -> None:
    app = new_app(tmp_path)
    start_game(app)
    app.handle(seen([5, 5, 2, 5, 6], unsure={2: (3,)}))
    assert isinstance(app.screen(), CorrectionScreen)  # the question about die 3
    press(app, "OK")  # the turn menu instead
    labels = [text(item.label) for item in app.screen().items]
    assert "Dice by hand" in labels
    press(app, "OK")
    menu_pick(app, "Dice by hand")
    screen = app.screen()
    assert isinstance(app.mode, EnterDice) and app.mode.correcting
    assert text(screen.prompt) == "Die 1: value" and screen.selected == 4  # the camera read 5
    press(app, "ok", "ok", "next", "ok", "ok", "prev", "ok")  # 5 5 3 5 5
    assert app.session is not None and app.session.state.turn.dice == (5, 5, 3, 5, 5)
    assert event_types(app)[-2:] == ["throw", "reading_corrected"]
    assert app.session.pending_confirmation == ()
    assert isinstance(app.screen(), TurnScreen)


def test_a_throw_by_hand_keeps_the_camera_order_and_is_resumed_after_a_restart(tmp_path: Path) -> None:
    app = new_app(tmp_path)
    start_game(app)
    app.handle(seen([6, 1, 2, 3, 4], xs=[300, 60, 120, 180, 240]))  # die 1 on the tray is the 1
    order = app.session.display_order
    menu_pick(app, "Dice by hand")
    press(app, "ok", *["next", "ok"] * 4)  # only the leftmost thrown again
    press(app, *values_presses(1, 5))
    assert app.session.display_order == order
    assert [d.value for d in app.screen().dice] == [5, 2, 3, 4, 6]
    resumed = Appliance(EventLog.open(tmp_path), clock=Clock())
    assert resumed.session is not None and resumed.session.state == app.session.state
    assert [d.value for d in resumed.screen().dice] == [5, 2, 3, 4, 6]


def test_the_exported_sheet_says_which_throws_were_entered_by_hand(tmp_path: Path) -> None:
    app = manual_app(tmp_path / "state")
    start_game(app)
    press(app, "ok")
    enter(app, 1, 1, 1, 1, 2)
    out = tmp_path / "stick"
    out.mkdir()
    export_games(tmp_path / "state", out, "bar", all_games=True, locale=Locale("es"))
    page = next((out / "CUBILETE" / "bar").glob("*/scoresheet.html")).read_text(encoding="utf-8")
    assert '<td class="dice">1 1 1 1 2</td><td class="dice">a mano</td>' in page


def test_every_text_of_dice_by_hand_fits_its_line_in_both_languages() -> None:
    for key, args in [("by_hand", {}), ("hand_first", {}), ("hand_more", {}), ("hand_record", {}),
                      ("die_thrown_q", {"die": 5}), ("die_value", {"die": 5}), ("nothing_thrown", {})]:
        for lang in LANGUAGES:
            line = text_in(rule_message(key), lang) if key == "nothing_thrown" else message(key, lang, args)
            assert font.can_draw(line) and font.text_width(line) <= RIGHT - 1, (key, lang, line)
    assert LABELS["es"]["by_hand"] == "a mano" and LABELS["en"]["by_hand"] == "by hand"


def test_the_config_and_the_command_line_take_the_manual_camera(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text('[camera]\nspec = "manual"\n', encoding="utf-8")
    config, problems = load_config(str(path))
    assert problems == [] and config.camera.spec == "manual"
    service = build_service(build_parser().parse_args(
        ["run", "--config", str(path), "--state-dir", str(tmp_path / "s"), "--socket", str(tmp_path / "c.sock"),
         "--buttons", "none", "--display", "dummy"]))
    try:
        assert isinstance(service.camera, ManualCamera) and service.app is not None and service.app.manual_camera
        service.step()
        assert service.app.camera_ok  # no camera-lost warning: there is no camera to lose
    finally:
        service.shutdown()


# -- cacho's turn-over and the roll-off, without a camera ---------------------------------------------


def cacho_after_two_throws(tmp_path: Path) -> Appliance:
    """Manual camera, cacho: 1 2 3 4 6, then dice 1 and 2 thrown again: 5 5 3 4 6 (a die must
    be turned over now: the second throw was not of all five)."""
    app = Appliance(EventLog.open(tmp_path), defaults=GameDefaults(game="cacho", players=2, order="fixed"),
                    clock=Clock(), manual_camera=True)
    start_game(app)
    press(app, "ok")
    enter(app, 1, 2, 3, 4, 6)
    press(app, "OK", "ok", "ok", "ok", "next", "ok", "next", "ok", "next", "ok")
    press(app, *values_presses(1, 5), *values_presses(2, 5))
    assert app.session is not None and app.session.state.turn.dice == (5, 5, 3, 4, 6)
    return app


def test_cacho_by_hand_turns_a_die_over_from_ok(tmp_path: Path) -> None:
    app = cacho_after_two_throws(tmp_path)
    assert turn_actions(app.session.state).must_turn
    screen = app.screen()
    assert isinstance(screen, TurnScreen) and text(screen.message) == "OK: turn a die over"
    press(app, "ok")
    screen = app.screen()
    assert isinstance(screen, CorrectionScreen) and text(screen.title) == "Turn a die over"
    assert text(screen.prompt) == "5 becomes 2" and screen.die == 0
    press(app, "next", "next")
    assert text(app.screen().prompt, "es") == "3 pasa a 4" and app.screen().die == 2
    press(app, "ok")
    assert app.log.events(app.session.game_id)[-1].event == ev.die_turned(0, 2, 4)
    assert app.session.state.turn.dice == (5, 5, 4, 4, 6) and not turn_actions(app.session.state).must_turn
    screen = app.screen()
    assert isinstance(screen, TurnScreen) and [d.turned for d in screen.dice] == [False, False, True, False, False]
    assert screen.selected is not None  # the boxes are open to pick now


def test_cacho_by_hand_a_second_turn_from_the_turn_menu_and_long_ok_goes_back(tmp_path: Path) -> None:
    app = cacho_after_two_throws(tmp_path)
    press(app, "OK")
    menu = app.screen()
    assert isinstance(menu, MenuScreen) and text(menu.items[0].label) == "Turn a die over"
    press(app, "ok", "OK")  # in, then back to the menu without turning
    assert event_types(app)[-1] == "throw" and isinstance(app.screen(), MenuScreen)
    press(app, "ok", "ok")  # in again; die 1: 5 becomes 2
    assert app.session.state.turn.dice == (2, 5, 3, 4, 6)
    if turn_actions(app.session.state).may_turn:  # a second turn only when it scores more
        press(app, "OK")
        assert text(app.screen().items[0].label) == "Turn a die over"


def test_the_turn_over_texts_fit_their_lines_in_both_languages() -> None:
    for key, args in [("turn_over_item", {}), ("hand_turn", {}), ("turn_a_die", {}), ("turned_to", {"a": 6, "b": 1})]:
        for lang in LANGUAGES:
            line = message(key, lang, args)
            assert font.can_draw(line) and font.text_width(line) <= RIGHT - 1, (key, lang, line)


def hand(app: Appliance, *values: int) -> None:
    """OK, then a roll-off hand die by die (each value list starts at 1)."""
    press(app, "ok")
    enter(app, *values)


def test_the_roll_off_by_hand_orders_the_players_and_a_tie_throws_again(tmp_path: Path) -> None:
    app = Appliance(EventLog.open(tmp_path), defaults=GameDefaults(game="generala", players=3, order="roll-off"),
                    clock=Clock(), manual_camera=True)
    start_game(app)
    screen = app.screen()
    assert isinstance(screen, TurnScreen) and screen.player == "J1" and text(screen.message) == "OK: enter the dice"
    press(app, "ok", *values_presses(1, 3))  # J1 starts entering: one value given...
    screen = app.screen()
    assert isinstance(screen, CorrectionScreen) and text(screen.prompt) == "Die 2: value"
    assert [d.value for d in screen.dice] == [3, None, None, None, None] and text(screen.title) == "J1: throw"
    press(app, "OK", "OK")  # ...taken back, and out: nothing entered
    assert isinstance(app.screen(), TurnScreen) and app.session is None
    hand(app, 1, 2, 3, 4, 5)  # J1: 15
    hand(app, 5, 4, 3, 2, 1)  # J2: 15, a tie
    hand(app, 6, 6, 6, 6, 6)  # J3: 30
    assert app.session is None and text(app.screen().message) == "Tie: throw again"
    assert app.screen().player == "J1"
    hand(app, 6, 6, 6, 6, 5)  # J1 again: 29
    hand(app, 1, 1, 1, 1, 2)  # J2 again: 6, the lowest plays first
    assert app.session is not None and app.session.state.players == ("J2", "J1", "J3")
    started = app.log.events(app.session.game_id)[0].event
    assert started["roll_off"] == {"J2": [[5, 4, 3, 2, 1], [1, 1, 1, 1, 2]], "J1": [[1, 2, 3, 4, 5], [6, 6, 6, 6, 5]],
                                   "J3": [[6, 6, 6, 6, 6]]}
    assert isinstance(app.screen(), TurnScreen) and app.screen().player == "J2"


def test_the_new_game_menu_offers_the_roll_off_without_a_camera(tmp_path: Path) -> None:
    app = Appliance(EventLog.open(tmp_path), defaults=GameDefaults(game="generala", players=2, order="roll-off"),
                    clock=Clock(), manual_camera=True)
    press(app, "ok")  # New game
    labels = {text(item.label): text(item.value) for item in app.screen().items if item.value is not None}
    assert labels["Order"] == "roll-off"


def test_cacho_with_the_roll_off_and_a_turn_over_through_the_service_with_the_manual_camera(tmp_path: Path) -> None:
    """What `cubilete run --camera manual --buttons keyboard` plays: the same service, the
    presses scripted."""
    hands = {"J1": [2, 2, 4, 5, 6], "J2": [1, 1, 3, 3, 5]}
    order = engine.roll_off_order(engine.GAMES["cacho"], {p: [h] for p, h in hands.items()}).order
    presses = ["ok", "prev", "ok"]  # New game, Start: the roll-off
    for player in ("J1", "J2"):
        presses.append("ok")
        for value in hands[player]:
            presses += values_presses(1, value)
    presses.append("ok")  # the first player's first throw: 1 2 3 4 6
    for value in (1, 2, 3, 4, 6):
        presses += values_presses(1, value)
    presses += ["OK", "ok", "ok", "ok", "next", "ok", "next", "ok", "next", "ok"]  # dice 1 and 2 again...
    presses += values_presses(1, 5) + values_presses(2, 5)  # ...5 5 3 4 6: a die must be turned over
    presses += ["ok", "next", "next", "ok"]  # OK: turn; die 3: 3 becomes 4
    config = Config(game=GameConfig(game="cacho", order="roll-off"))
    holder: dict[str, Service] = {}
    script = [(0.001 * k, "ok" if b == "OK" else b, "long" if b == "OK" else "short") for k, b in enumerate(presses)]
    buttons = ScriptedButtons(script, clock=lambda: holder["s"].scene_time() if "s" in holder else 0.0)
    buttons.start(0.0)
    service = Service(config, [], tmp_path / "state", open_camera_feed("manual"), DummyDisplay(), buttons,  # type: ignore[arg-type]
                      tracker=None, control_socket=str(tmp_path / "control.sock"))
    holder["s"] = service
    try:
        for _ in range(200):
            service.step()
        app = service.app
        assert app is not None and app.session is not None
        recorded = [e.event for e in app.log.events(app.session.game_id)]
        assert recorded[0]["players"] == list(order) and recorded[0]["roll_off"] == {p: [h] for p, h in hands.items()}
        assert recorded[1:] == [ev.throw(0, [1, 2, 3, 4, 6], source="hand"),
                                ev.throw(0, [5, 5, 3, 4, 6], [0, 1], source="hand"),
                                ev.die_turned(0, 2, 4)]
    finally:
        service.shutdown()
