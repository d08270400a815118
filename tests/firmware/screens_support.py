"""The device's real screens, reached as the players reach them: an `Appliance` on a fresh
event log, fed presses and throws (tests/firmware/appliance_support), its `screen()` taken
where a scene stops. The golden images (test_ui_golden) and the check that every text fits
(test_ui_fit) draw these, so they show only what the device can show."""

from __future__ import annotations

import random
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Sequence

import engine
from firmware.appliance import Appliance, GameDefaults, Prefs
from firmware.eventlog import EventLog
from firmware.localformat import MoneyStyle
from firmware.ui.catalogue import text
from firmware.ui.screens import MenuScreen, Screen
from tests.firmware.appliance_support import Clock, later, press, record_games, seen

SIZES = ((128, 64), (256, 64), (128, 128))


@dataclass
class Device:
    """An appliance as the players see it, on a log in its own folder."""

    folder: Path
    game: str = "generala"
    players: int = 2
    lang: str = "es"
    names: tuple[str, ...] = ()
    stake: float = 0.0
    currency: str = ""
    options: dict[str, Any] = field(default_factory=dict)
    manual: bool = False  # no camera: every throw entered by hand
    app: Appliance = field(init=False)

    def __post_init__(self) -> None:
        defaults = GameDefaults(game=self.game, players=self.players, names=self.names, order="fixed",
                                stake_per_point=self.stake, money=MoneyStyle(self.currency), options=dict(self.options))
        self.app = Appliance(EventLog.open(self.folder), Prefs(language=self.lang), defaults, clock=Clock(),
                             manual_camera=self.manual)

    @property
    def state(self) -> engine.GameState:
        assert self.app.session is not None
        return self.app.session.state

    def press(self, *buttons: str) -> "Device":
        press(self.app, *buttons)
        return self

    def start(self) -> "Device":
        """Main menu > New game > Start (the last item)."""
        return self.press("ok", "prev", "ok")

    def select(self, label: str) -> "Device":
        """Move the menu's cursor to the item whose English label is `label`."""
        for _ in range(20):
            screen = self.screen()
            assert isinstance(screen, MenuScreen), screen
            if text(screen.items[screen.selected].label, "en") == label:
                return self
            self.press("next")
        raise AssertionError(f"no item {label!r}")

    def practice(self) -> "Device":
        """Main menu > New game > "Cubilete plays": on > Start: the device takes the last seat."""
        return self.press("ok").select("Cubilete plays").press("ok", "next", "ok").select("Start").press("ok")

    def throw(self, values: Sequence[int], **kwargs: Any) -> "Device":
        """A throw the camera saw settle (all dice thrown unless `moved` says otherwise)."""
        self.app.handle(seen(values, **kwargs))
        return self

    def wait(self, seconds: float = 60.0) -> "Device":
        """Let a message fade."""
        later(self.app, seconds)
        return self

    def screen(self) -> Screen:
        return self.app.screen()

    def play_turn(self, values: Sequence[int]) -> "Device":
        """Throw once and score the best box."""
        return self.throw(values).press("ok", "ok").wait()


# Every scene's log lives under one folder, removed when the tests end.
_FOLDERS = tempfile.TemporaryDirectory(prefix="cubilete-scenes-")


def device(**kwargs: Any) -> Device:
    """A device on a fresh log of its own."""
    return Device(Path(tempfile.mkdtemp(dir=_FOLDERS.name)), **kwargs)


# Throws that score in each game: (first turn's dice, the next player's dice).
THROWS: dict[str, tuple[tuple[int, ...], tuple[int, ...]]] = {
    "crag": ((6, 6, 1), (2, 5, 6)),
}
DEFAULT_THROWS = ((3, 3, 3, 5, 5), (2, 3, 4, 5, 6))


def throws_for(game: str) -> tuple[tuple[int, ...], tuple[int, ...]]:
    return THROWS.get(game, DEFAULT_THROWS)


def _new_game_editing(lang: str) -> Screen:
    d = device(lang=lang).press("ok", "ok", "next")  # New game, edit the game, next one
    return d.screen()


def _names_entry(lang: str) -> Screen:
    d = device(lang=lang).press("ok", "next", "next", "ok", "ok")  # New game > Names > player 1
    d.press("ok")  # A
    d.press(*["next"] * 13, "ok")  # n
    return d.screen()


def _turn(lang: str) -> Screen:
    return device(lang=lang, names=("Ana", "Beto")).start().play_turn((2, 3, 4, 5, 6)).throw((3, 3, 3, 5, 5)).screen()


def _score(lang: str) -> Screen:
    d = device(lang=lang, names=("Ana", "Beto")).start().play_turn((2, 3, 4, 5, 6)).play_turn((1, 1, 2, 4, 6))
    return d.throw((3, 3, 3, 5, 5)).press("ok").screen()


def _win(lang: str) -> Screen:
    d = device(lang=lang, names=("Ana", "Beto"), stake=0.5, currency="$").start().play_turn((2, 3, 4, 5, 6))
    return d.throw((6, 6, 6, 6, 6)).wait(5).screen()


def _win_turn(lang: str) -> Screen:
    d = device(lang=lang, names=("Ana", "Beto")).start()
    return d.throw((6, 6, 6, 6, 6)).press("next").screen()


def _game_over(lang: str, players: int = 2, names: tuple[str, ...] = ("Ana", "Beto")) -> Screen:
    d = device(lang=lang, names=names, players=players, stake=0.5, currency="$").start()
    for values in ((2, 3, 4, 5, 6), (3, 3, 3, 5, 5), (1, 1, 1, 4, 4), (1, 2, 3, 4, 4), (5, 5, 5, 5, 1),
                   (6, 6, 6, 1, 2), (2, 2, 3, 3, 4))[:players - 1]:
        d.play_turn(values)
    return d.throw((6, 6, 6, 6, 6)).press("ok").wait(5).screen()


def _cacho_turn(lang: str) -> Screen:
    d = device(lang=lang, game="cacho", names=("Ana", "Beto")).start()
    return d.throw((1, 2, 3, 4, 4)).throw((2, 2, 4, 5, 1)).screen()


def _correction(lang: str) -> Screen:
    d = device(lang=lang, names=("Ana", "Beto")).start()
    return d.throw((5, 5, 5, 2, 6), unsure={4: (5,)}).screen()


def _device_turn(lang: str, *throws: tuple[int, ...]) -> Screen:
    """Ana against the device: Ana's first turn played, then the device's dice thrown as
    its screen says (the first throw's three sixes kept, the others thrown again)."""
    d = device(lang=lang, names=("Ana",)).practice().play_turn((2, 3, 4, 5, 6))
    for number, values in enumerate(throws):
        d.throw(values, moved=None if number == 0 else ("held",) * 3 + ("thrown",) * 2)
    return d.screen()


def _loaded(lang: str) -> Device:
    """A device started on a log whose first throws reject fair dice (650, sixes twice as often)."""
    folder = Path(tempfile.mkdtemp(dir=_FOLDERS.name))
    with EventLog.open(folder) as log:
        record_games(log, 50, random.Random(4), loaded=True)
    return Device(folder, lang=lang)


def _undo(lang: str) -> Screen:
    d = device(lang=lang, names=("Ana", "Beto")).start().play_turn((3, 3, 3, 5, 5))
    return d.press("OK", "ok").screen()  # turn menu > Undo the last score


# The golden scenes: name -> (how the device gets there, language, panel sizes drawn).
BIG = SIZES
SCENES: dict[str, tuple[Callable[[], Screen], tuple[tuple[int, int], ...]]] = {
    "menu_main_es": (lambda: device(lang="es").screen(), SIZES[:1]),
    "menu_new_game_es": (lambda: device(lang="es").press("ok").screen(), BIG),
    "menu_new_game_en": (lambda: device(lang="en").press("ok").screen(), SIZES[:1]),
    "menu_new_game_game_en": (lambda: _new_game_editing("en"), SIZES[:1]),
    "menu_house_rules_es": (lambda: device(lang="es", game="generala-classic").press("ok").select("House rules")
                            .press("ok").screen(), SIZES[:1]),
    "menu_new_game_device_es": (lambda: device(lang="es").press("ok").select("Cubilete plays").press("ok", "next")
                                .screen(), SIZES[:1]),
    "menu_new_game_device_en": (lambda: device(lang="en").press("ok").select("Cubilete plays").press("ok", "next")
                                .screen(), SIZES[:1]),
    "menu_names_en": (lambda: device(lang="en", names=("Ana",)).press("ok", "next", "next", "ok").screen(),
                      SIZES[:1]),
    "name_entry_es": (lambda: _names_entry("es"), SIZES[:1]),
    "turn_waiting_es": (lambda: device(lang="es", names=("Ana", "Beto")).start().screen(), BIG),
    "turn_es": (lambda: _turn("es"), BIG),
    "turn_en": (lambda: _turn("en"), SIZES[:1]),
    "turn_crag_es": (lambda: device(lang="es", game="crag", names=("Ana", "Beto")).start().throw((6, 6, 1)).screen(),
                     SIZES[:1]),
    "turn_cacho_turn_a_die_es": (lambda: _cacho_turn("es"), SIZES[:1]),
    "turn_menu_en": (lambda: device(lang="en", names=("Ana", "Beto")).start().throw((1, 2, 3, 4, 4)).press("OK")
                     .screen(), SIZES[:1]),
    "score_confirm_es": (lambda: _score("es"), BIG),
    "score_confirm_en": (lambda: _score("en"), SIZES[:1]),
    "win_es": (lambda: _win("es"), BIG),
    "win_en": (lambda: _win("en"), SIZES[:1]),
    "win_back_to_turn_es": (lambda: _win_turn("es"), SIZES[:1]),
    "win_general_no_box_en": (lambda: device(lang="en", game="general", names=("Ana", "Beto")).start()
                              .throw((2, 2, 2, 2, 2)).screen(), SIZES[:1]),
    "game_over_es": (lambda: _game_over("es"), BIG),
    "game_over_en": (lambda: _game_over("en"), SIZES[:1]),
    "game_over_eight_es": (lambda: _game_over("es", 8, ("Ana", "Beto", "Carmen", "Dolores", "Eugenia",
                                                        "Fernando", "Gabriela", "WWWWWWWW")), BIG),
    "correction_unsure_es": (lambda: _correction("es"), SIZES[:1]),
    "correct_die_en": (lambda: device(lang="en", names=("Ana", "Beto")).start().throw((2, 2, 5, 4, 4))
                       .press("OK", "ok", "next", "next", "ok").screen(), SIZES[:1]),
    "hand_waiting_es": (lambda: device(lang="es", names=("Ana", "Beto"), manual=True).start().screen(), SIZES[:1]),
    "hand_value_en": (lambda: device(lang="en", names=("Ana", "Beto"), manual=True).start()
                      .press("ok", "next", "next", "next", "ok", "next").screen(), SIZES[:1]),
    "hand_thrown_es": (lambda: device(lang="es", names=("Ana", "Beto"), manual=True).start()
                       .press("ok", "ok", "next", "ok", "next", "ok", "next", "ok", "ok").press("OK", "ok").screen(),
                       SIZES[:1]),
    # The practice opponent: the device's turn (throw for it, keep what it says, OK on its
    # box), and the notice of a game it has no table for.
    "device_throw_es": (lambda: _device_turn("es"), SIZES[:1]),
    "device_keep_es": (lambda: _device_turn("es", (6, 6, 6, 2, 3)), BIG),
    "device_keep_en": (lambda: _device_turn("en", (6, 6, 6, 2, 3)), SIZES[:1]),
    "device_scores_es": (lambda: _device_turn("es", (6, 6, 6, 2, 3), (6, 6, 6, 6, 6)), BIG),
    "device_scores_en": (lambda: _device_turn("en", (6, 6, 6, 2, 3), (6, 6, 6, 6, 6)), SIZES[:1]),
    "device_no_table_es": (lambda: device(lang="es", game="yahtzee", names=("Ana",)).practice().screen(), SIZES[:1]),
    "device_no_table_en": (lambda: device(lang="en", game="yahtzee", names=("Ana",)).practice().screen(), SIZES[:1]),
    # Loaded dice, told without opening the settings: the notice at start, then the home screen.
    "fairness_alert_es": (lambda: _loaded("es").screen(), SIZES[:1]),
    "fairness_alert_en": (lambda: _loaded("en").screen(), SIZES[:1]),
    "home_loaded_es": (lambda: _loaded("es").press("ok").screen(), SIZES[:1]),
    "home_loaded_en": (lambda: _loaded("en").press("ok").screen(), SIZES[:1]),
    "confirm_undo_es": (lambda: _undo("es"), SIZES[:1]),
    "confirm_undo_en": (lambda: _undo("en"), SIZES[:1]),
}
