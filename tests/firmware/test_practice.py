"""The practice opponent on the device: a seat the device plays itself. People throw its dice
and set aside what the screen says; it picks its box itself, recorded like anyone's; a
resumed game knows the seat; other dice kept than asked, a throw after it stood, a game
without a table, and a whole game against it played through the state machine."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import engine
from advisor.advise import best_choice
from advisor.opponent import greedy_choice
from advisor.tables import find
from firmware.appliance import Appliance, GameDefaults
from firmware.appliance.by_hand import EnterDice, TurnOverByHand
from firmware.appliance.menus import MainMenu, NewGameMenu
from firmware.appliance.play import GameOver, PickConfirm, TurnMode
from firmware.appliance.practice import DEVICE_NAME, DeviceTurn
from firmware.eventlog import EventLog
from firmware.ui.catalogue import text
from firmware.ui.screens import MessageScreen, TurnScreen

from tests.firmware.appliance_support import Clock, event_types, later, new_app, press, seen


def menu_labels(app: Appliance) -> list[str]:
    return [text(item.label, "en") for item in app.screen().items]


def start_practice(app: Appliance) -> None:
    """From the main menu: New game, turn "Cubilete plays" on, Start."""
    press(app, "ok")
    labels = menu_labels(app)
    for _ in range(labels.index("Cubilete plays")):
        press(app, "next")
    press(app, "ok", "next", "ok")  # edit, toggle, done
    press(app, "prev")
    while menu_labels(app)[app.mode.selected] != "Start":
        press(app, "prev")
    press(app, "ok")


def held_throw(app: Appliance, keep: tuple[int, ...], new: list[int]) -> None:
    """A throw of the dice not in `keep` (engine indices, which lie left to right as numbered)."""
    dice = list(app.session.state.turn.dice)
    moved = ["held" if i in keep else "thrown" for i in range(len(dice))]
    fresh = iter(new)
    values = [dice[i] if i in keep else next(fresh) for i in range(len(dice))]
    app.handle(seen(values, moved=moved))


def person_scores_best(app: Appliance) -> None:
    options = engine.score_options(app.session.state)
    allowed = [i for i, o in enumerate(options) if o.allowed]
    while app.mode.selected != allowed[0]:
        press(app, "next")
    press(app, "ok")
    assert isinstance(app.mode, PickConfirm)
    press(app, "ok")


def message(app: Appliance, lang: str = "en") -> str:
    screen = app.screen()
    assert isinstance(screen, TurnScreen)
    return text(screen.message, lang)


@pytest.fixture
def practice(tmp_path: Path) -> Appliance:
    """Generala, one person (J1) against the device, the person's first turn played."""
    app = new_app(tmp_path, players=1)
    start_practice(app)
    app.handle(seen([1, 2, 3, 4, 5]))
    person_scores_best(app)
    later(app)
    return app


def test_the_device_takes_a_seat_and_the_log_says_which(tmp_path: Path) -> None:
    app = new_app(tmp_path, players=1)
    press(app, "ok")
    assert "Cubilete plays" in menu_labels(app)
    app.mode = MainMenu()
    start_practice(app)
    started = app.log.events(app.session.game_id)[0].event
    assert started["players"] == ["J1", DEVICE_NAME] and started["device_seats"] == [1]
    assert isinstance(app.mode, TurnMode)  # the person plays first


def test_no_device_seat_in_poker_dice_nor_in_tournament_mode(tmp_path: Path) -> None:
    for game, tournament in (("poker-dice", False), ("generala", True)):
        app = new_app(tmp_path / f"{game}{tournament}", game=game, tournament=tournament)
        press(app, "ok")
        assert isinstance(app.mode, NewGameMenu) and "Cubilete plays" not in menu_labels(app)


def test_the_device_turn_says_what_to_throw_and_keep_and_scores_itself(practice: Appliance) -> None:
    app = practice
    assert isinstance(app.mode, DeviceTurn) and app.screen().player == DEVICE_NAME
    assert message(app) == "Throw for Cubilete" and message(app, "es") == "Tire por Cubilete"
    app.handle(seen([6, 6, 6, 2, 3]))
    table = find("generala")
    choice = best_choice(app.session.state, table)
    assert choice.keep == (6, 6, 6)
    assert message(app) == "Keep 6 6 6, throw" and message(app, "es") == "Aparte 6 6 6 y tire"
    held_throw(app, (0, 1, 2), [6, 5])
    choice = best_choice(app.session.state, table)
    assert choice.action == "keep" and message(app) == f"Keep {' '.join(map(str, choice.keep))}, throw"
    keep = tuple(i for i in range(5) if i not in choice.rethrow)
    held_throw(app, keep, [6] * len(choice.rethrow))  # five sixes: generala
    choice = best_choice(app.session.state, table)
    assert choice.action == "fill" and choice.category == "generala"
    screen = app.screen()
    assert message(app) == "OK: Cubilete scores" and message(app, "es") == "OK: Cubilete anota"
    assert screen.options[screen.selected].points == choice.points
    press(app, "ok")
    last = app.log.events(app.session.game_id)[-1].event
    assert last == engine.events.category_scored(1, "generala", choice.points)
    assert isinstance(app.mode, TurnMode) and app.session.state.current_player == 0


def test_other_dice_kept_than_asked_are_recorded_and_the_device_plans_again(practice: Appliance) -> None:
    app = practice
    app.handle(seen([6, 6, 6, 2, 3]))
    held_throw(app, (0, 1), [1, 4, 4])  # two sixes kept, not three
    state = app.session.state
    assert state.turn.throw_number == 2 and state.turn.held == (0, 1)
    assert message(app) == "Asked 6 6 6: plan B" and message(app, "es") == "Pidió 6 6 6: plan B"
    later(app)
    assert app.device_move().choice == best_choice(state, find("generala"))  # from what is held now


def test_a_throw_after_the_device_stood_is_refused(practice: Appliance) -> None:
    app = practice
    app.handle(seen([2, 2, 2, 5, 5]))  # a full house served: it stands
    assert app.device_move().choice.action == "fill"
    events = event_types(app)
    held_throw(app, (0, 1, 2), [6, 6])
    assert event_types(app) == events and message(app) == "Cubilete stands"


def test_a_resumed_game_knows_the_devices_seat(practice: Appliance, tmp_path: Path) -> None:
    app = practice
    app.handle(seen([6, 6, 6, 2, 3]))
    before = app.screen()
    app.log.close()
    resumed = Appliance(EventLog.open(tmp_path), defaults=GameDefaults(players=1, order="fixed"), clock=Clock())
    assert isinstance(resumed.mode, DeviceTurn) and resumed.screen() == before


def test_no_hint_on_the_devices_turn_and_the_turn_menu_is_there(practice: Appliance) -> None:
    app = practice
    app.handle(seen([6, 6, 6, 2, 3]))
    press(app, "OK")
    labels = menu_labels(app)
    assert "Hint" not in labels and "Correct a die" in labels
    press(app, "OK")
    assert isinstance(app.mode, DeviceTurn)


def test_without_a_table_the_device_plays_simply_and_says_so(tmp_path: Path) -> None:
    app = new_app(tmp_path, game="yahtzee", players=1)
    start_practice(app)
    screen = app.screen()
    assert isinstance(screen, MessageScreen)
    assert [text(screen.title, "en"), *(text(line, "en") for line in screen.lines)] == [
        "Cubilete: no table", "Simple play, not best.", "No table yet; make it", "cubilete solve yahtzee"]
    press(app, "ok")  # the notice goes
    app.handle(seen([1, 2, 3, 4, 6]))
    person_scores_best(app)
    later(app)
    app.handle(seen([4, 4, 1, 2, 4]))
    assert app.device_move().choice == greedy_choice(app.session.state)
    assert message(app) == "Keep 4 4 4, throw"


def test_dice_by_hand_on_the_devices_turn(tmp_path: Path) -> None:
    app = new_app(tmp_path, players=1)
    app.manual_camera = True
    start_practice(app)
    app.session.record(engine.events.throw(0, [1, 2, 3, 4, 5]))
    app.session.record(engine.events.category_scored(0, "straight", 25))
    app.mode = app.game_mode()
    assert isinstance(app.mode, DeviceTurn)
    press(app, "ok")
    assert isinstance(app.mode, EnterDice)


def test_without_a_camera_the_die_the_device_turns_over_is_turned_by_hand(tmp_path: Path) -> None:
    # Cacho against the device with the manual camera: when its move is to turn a die over,
    # OK opens the turn-over by hand on that die, and OK there records it.
    app = new_app(tmp_path, players=1, game="cacho")
    app.manual_camera = True
    start_practice(app)
    rolls = [(1, 2, 3, 4, 5), (2, 2, 3, 3, 3), (6, 6, 6, 6, 1), (1, 1, 2, 2, 3), (4, 5, 6, 1, 3), (5, 5, 2, 2, 6)]
    for step in range(200):
        state = app.session.state
        if state.finished:
            break
        if state.current_player not in state.device_seats:
            app.session.record(engine.events.throw(state.current_player, [1, 2, 3, 4, 5]))
            option = next(o for o in engine.score_options(app.session.state) if o.allowed)
            app.session.record(engine.events.category_scored(state.current_player, option.category, option.points)
                               if option.points else engine.events.category_scratched(state.current_player, option.category))
            continue
        app.mode = app.game_mode()
        choice = app.device_move().choice
        if choice.turn:
            die = choice.turn[0]
            value = state.turn.dice[die]
            press(app, "ok")
            assert isinstance(app.mode, TurnOverByHand)
            press(app, "ok")
            event = app.log.events(app.session.game_id)[-1].event
            assert (event["type"], event["die"], event["value"]) == ("die_turned", die, 7 - value)
            return
        if choice.action == "throw":
            app.session.record(engine.events.throw(state.current_player, rolls[step % len(rolls)]))
        elif choice.action == "keep":
            values = [v % 6 + 1 if i in choice.rethrow else v for i, v in enumerate(state.turn.dice)]
            app.session.record(engine.events.throw(state.current_player, values, thrown=sorted(choice.rethrow)))
        else:
            press(app, "ok")
    pytest.fail("the device never had a die to turn over")


def test_a_whole_game_against_the_device(tmp_path: Path) -> None:
    """The person plays the greedy policy with the buttons; the device's dice are thrown
    as its screen says. Every box the device filled is the advisor's best choice."""
    rng = np.random.default_rng(3)
    app = new_app(tmp_path, players=1)
    start_practice(app)
    table = find("generala")
    device_fills = 0
    for _ in range(500):
        later(app, 5.0)
        mode, state = app.mode, app.session.state
        if isinstance(mode, GameOver):
            break
        if isinstance(mode, DeviceTurn):
            choice = app.device_move().choice
            assert choice == best_choice(state, table)
        else:
            assert isinstance(mode, TurnMode)
            choice = greedy_choice(state)
        if choice.action == "throw":
            app.handle(seen([int(v) for v in rng.integers(1, 7, 5)]))
        elif choice.action == "keep":
            held_throw(app, tuple(i for i in range(5) if i not in choice.rethrow),
                       [int(v) for v in rng.integers(1, 7, len(choice.rethrow))])
            assert app.flash_label is None  # it kept what it asked for: no new plan
        elif isinstance(mode, DeviceTurn):
            press(app, "ok")
            event = app.log.events(app.session.game_id)[-1].event
            assert event["player"] == 1 and event["category"] == choice.category
            device_fills += 1
        else:
            person_scores_best(app)
    state = app.session.state
    assert state.finished and device_fills >= 1
    assert state.instant_win is not None or device_fills == len(state.rules.categories)
    replayed = engine.replay(e.event for e in app.log.events(app.session.game_id))
    assert replayed.sheets == state.sheets and replayed.device_seats == (1,)


def test_a_roll_off_may_seat_the_device_first_and_the_log_follows_it(tmp_path: Path) -> None:
    app = new_app(tmp_path, players=1, order="roll-off", names=("Cubilete", "Ana"))
    start_practice(app)
    assert app.session is None and app.screen().player == "Ana"  # the config's "Cubilete" is the device's
    app.handle(seen([6, 6, 5, 5, 4]))  # Ana
    app.handle(seen([1, 2, 2, 3, 1]))  # thrown for Cubilete: lowest, plays first
    state = app.session.state
    assert state.players == (DEVICE_NAME, "Ana") and state.device_seats == (0,)
    later(app)
    assert isinstance(app.mode, DeviceTurn) and message(app) == "Throw for Cubilete"


def test_a_failing_move_leaves_the_seat_to_the_buttons_rather_than_the_screen_failing(practice: Appliance,
                                                                                     monkeypatch) -> None:
    def broken(state, table):
        raise ValueError("a bug")
    monkeypatch.setattr("firmware.appliance.practice.device_move", broken)
    app = practice
    app.handle(seen([6, 6, 6, 2, 3]))
    assert app.device_move() is None and isinstance(app.mode, TurnMode)
    assert app.screen().player == DEVICE_NAME
