"""Player names entered on the device (issue 18): prev / next choose a letter, OK takes it,
"✓" or a long OK finishes; the game's game_started event keeps the names (the log replays
them) and the prefs remember them for the next game."""

from __future__ import annotations

import json
from pathlib import Path

from firmware.appliance.menus import DELETE, DONE, NameEntry
from firmware.appliance.settings import Prefs, load_prefs, save_prefs
from firmware.ui.catalogue import text
from firmware.ui.screens import MenuScreen, NameScreen
from tests.firmware.screens_support import Device


def open_names(d: Device) -> None:
    """Main menu > New game > Names."""
    d.press("ok", "next", "next", "ok")
    screen = d.screen()
    assert isinstance(screen, MenuScreen) and text(screen.title, "en") == "Names"


def type_name(d: Device, name: str) -> None:
    """Choose each letter with next / prev (the shorter way round) and take it with OK."""
    for letter in name:
        entry = d.app.mode
        assert isinstance(entry, NameEntry)
        choices = entry.choices()
        steps = (choices.index(letter) - entry.selected) % len(choices)
        d.press(*(["next"] * steps if steps <= len(choices) // 2 else ["prev"] * (len(choices) - steps)))
        d.press("ok")


def test_a_name_is_entered_with_three_buttons_and_goes_into_the_game(tmp_path: Path) -> None:
    d = Device(tmp_path, lang="en")
    open_names(d)
    assert [(text(i.label, "en"), i.value) for i in d.screen().items] == [
        ("Player 1", "P1"), ("Player 2", "P2"), ("Back", None)]
    d.press("ok")  # player 1
    screen = d.screen()
    assert isinstance(screen, NameScreen) and screen.name == "" and screen.choices[screen.selected] == "A"
    assert text(screen.hint, "en") == "◀▶ letter  OK next"
    type_name(d, "Lu")  # capitals first, small letters after
    assert d.screen().name == "Lu" and d.screen().choices[d.screen().selected] == "u"  # stays: "ll", "rr"
    type_name(d, "z")
    type_name(d, DELETE)  # "«" takes the last letter back
    type_name(d, "c")
    type_name(d, "ía")  # accented letters are there too
    type_name(d, DONE)
    assert [i.value for i in d.screen().items[:2]] == ["Lucía", "P2"]
    d.press("OK", "OK")  # back to the new game menu (long OK), then the main menu
    d.press("ok", "prev", "ok")  # New game > Start
    assert d.state.players == ("Lucía", "P2")
    # The game_started event holds them: the log replays the game with its names.
    started = d.app.log.events(d.app.session.game_id)[0].event
    assert started["players"] == ["Lucía", "P2"]
    assert d.app.prefs.names == ("Lucía", "P2")


def test_a_long_ok_finishes_and_eight_letters_are_the_most(tmp_path: Path) -> None:
    d = Device(tmp_path, lang="es")
    open_names(d)
    d.press("next", "ok")  # player 2
    type_name(d, "Maximili")  # the eighth letter finishes it
    assert [i.value for i in d.screen().items[:2]] == ["J1", "Maximili"]
    d.press("prev", "ok")  # player 1
    type_name(d, "Ana")
    d.press("OK")  # a long OK keeps what was entered
    assert [i.value for i in d.screen().items[:2]] == ["Ana", "Maximili"]


def test_nothing_entered_keeps_the_name_and_a_name_taken_is_refused(tmp_path: Path) -> None:
    d = Device(tmp_path, lang="en", names=("Ana", "Beto"))
    open_names(d)
    d.press("ok", "OK")  # nothing entered
    assert [i.value for i in d.screen().items[:2]] == ["Ana", "Beto"]
    d.press("ok")
    type_name(d, "Beto")
    type_name(d, DONE)
    assert isinstance(d.screen(), NameScreen) and text(d.screen().hint, "en") == "Beto is playing"


def test_the_prefs_keep_the_names_across_a_restart(tmp_path: Path) -> None:
    save_prefs(tmp_path, Prefs(names=("Ana", "Beto")))
    assert json.loads((tmp_path / "settings.json").read_text())["names"] == ["Ana", "Beto"]
    assert load_prefs(tmp_path, "es", 200).names == ("Ana", "Beto")
    (tmp_path / "settings.json").write_text(json.dumps({"names": ["", "far too long a name"]}))
    assert load_prefs(tmp_path, "es", 200).names == ()


def test_the_device_seat_is_listed_but_not_entered_and_its_name_stays_the_devices(tmp_path: Path) -> None:
    d = Device(tmp_path, lang="en", names=("Cubilete", "Ana"))
    d.press("ok", "next", "next", "next", "ok", "next", "ok")  # New game > Cubilete plays: on
    d.press("prev", "ok")  # Names
    assert text(d.screen().title, "en") == "Names"
    # The config's "Cubilete" is the device's: the people's names move up past it.
    assert [(text(i.label, "en"), i.value) for i in d.screen().items] == [
        ("Player 1", "Ana"), ("Player 2", "Cubilete"), ("Back", None)]
    d.press("next", "ok")  # the device's seat: nothing to enter
    assert isinstance(d.screen(), MenuScreen) and d.screen().selected == 1
    d.press("prev", "ok")
    type_name(d, "Cubilete")  # the eighth letter finishes it: the device's name is taken
    assert isinstance(d.screen(), NameScreen) and text(d.screen().hint, "en") == "Cubilete is playing"
    d.press("OK")  # finishes again, still taken; delete the name instead
    for _ in range(8):
        type_name(d, DELETE)
    type_name(d, "Eva")
    type_name(d, DONE)
    assert [i.value for i in d.screen().items[:2]] == ["Eva", "Cubilete"]
    assert d.app.prefs.names == ("Eva",)  # the prefs keep the people's names only
