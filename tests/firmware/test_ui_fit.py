"""No text on any screen is cut off, in either language, on any panel size.

Every game is played through the device (tests/firmware/screens_support.Device) with the
widest names a player may have (8 characters, as the config and the name entry allow): its
menus, house rules with every value, the names, the turn with every option selected, the
screen confirming each box, the turn menu, the score table, the undo and abandon questions,
the winning throw and the final table. Each screen is drawn in both languages on 128x64,
256x64 and 128x128, and the renderer reports every text it had to cut or clip
(`renderer.recording_cuts`): there must be none. Catalogue texts that are not reached that
way (flash messages, rule messages) are checked on the line they are drawn on.
"""

from __future__ import annotations

import itertools
import re

import pytest

import engine
from firmware.appliance import ButtonsMissing
from firmware.appliance.practice import DEVICE_NAME, DeviceTurn
from firmware.ui import DieIcon, LANGUAGES, Names, OptionRow, T, TurnScreen, render
from firmware.ui import font
from firmware.ui.catalogue import (
    GAME_NAMES, MESSAGES, OPTION_LABELS, RULE_MESSAGES, message, option_label, short, value_label,
)
from firmware.ui.renderer import WIDTH, recording_cuts, wrap
from firmware.ui.catalogue import text
from firmware.ui.screens import GameOverScreen, MenuScreen, Screen, ScoreScreen
from tests.firmware.screens_support import SIZES, Device, device

WIDEST = ("WWWWWWWW", "MMMMMMMM")
LINE = WIDTH - 3  # a full text line on a 128-pixel-wide panel (x from 1 to RIGHT - 1)


def cuts_of(screen: Screen) -> list[str]:
    found = []
    for lang in LANGUAGES:
        for size in SIZES:
            with recording_cuts() as cuts:
                render(screen, lang, size)
            found += [f"{lang} {size[0]}x{size[1]} {type(screen).__name__}: {cut!r}" for cut in cuts]
    return found


class Tour:
    """Collects the screens a device shows, and what was cut on any of them."""

    def __init__(self, d: Device) -> None:
        self.d = d
        self.seen: dict[str, Screen] = {}  # by repr: a Text's arguments are a dict
        self.cuts: list[str] = []

    def look(self) -> Screen:
        screen = self.d.screen()
        if repr(screen) not in self.seen:
            self.seen[repr(screen)] = screen
            self.cuts += cuts_of(screen)
        return screen

    def through(self, count: int, button: str = "next") -> None:
        """Look at every item of a list (or value of an option) by pressing `button`."""
        for _ in range(count):
            self.look()
            self.d.press(button)


def select(d: Device, label: str) -> None:
    """Move the menu's cursor to the item whose (English) label is `label`."""
    for _ in range(20):
        screen = d.screen()
        assert isinstance(screen, MenuScreen), screen
        if text(screen.items[screen.selected].label, "en") == label:
            return
        d.press("next")
    raise AssertionError(f"no item {label!r}")


def visit_menus(tour: Tour, game: str) -> None:
    d = tour.d
    tour.look()  # the main menu
    d.press("ok")  # New game
    tour.through(8)
    select(d, "Game")
    d.press("ok")  # edit the game: every game's name, as the menu cycles through them
    tour.through(len(engine.GAMES) + 1)
    while d.app.mode.game != game:
        d.press("next")
    d.press("ok")
    definition = engine.GAMES[game]
    if definition.options:
        select(d, "House rules")
        d.press("ok")
        for option in definition.options:
            d.press("ok")  # edit: every value
            tour.through(len(option.allowed) + 1)
            d.press("ok", "next")
        tour.look()
        d.press("OK")
    select(d, "Names")
    d.press("ok")
    tour.through(3)
    select(d, "Player 1")
    d.press("ok")  # enter player 1's name: the strip of letters
    tour.through(40)
    d.press("ok", "ok", "ok")  # three letters shown in double size
    tour.look()
    while d.app.mode.name:
        d.press("prev")
        if d.app.mode.choices()[d.app.mode.selected] == "«":
            d.press("ok")
    d.press("OK", "OK")  # nothing entered: the name stays; back to the new game menu
    select(d, "Start")
    d.press("ok")
    assert d.state.players[:2] == WIDEST


def visit_turn(tour: Tour, values: tuple[int, ...]) -> None:
    """A throw: every option selected, each one's confirmation, then the best one scored."""
    d = tour.d
    d.throw(values)
    screen = tour.look()
    if not isinstance(screen, TurnScreen):
        return
    for index in range(len(screen.options)):
        screen = tour.look()
        d.press("ok")
        if isinstance(tour.look(), ScoreScreen):
            d.press("prev")
        d.wait()
        d.press("next")
    d.press("OK")  # the turn menu and what it leads to
    tour.through(9)
    d.press("OK")


def play_to_the_end(tour: Tour, game: str) -> None:
    d = tour.d
    dice = engine.GAMES[game].dice
    rolls = [(1, 2, 3, 4, 5), (2, 2, 3, 3, 3), (6, 6, 6, 6, 1), (1, 1, 2, 2, 3), (4, 5, 6, 1, 3), (5, 5, 2, 2, 6)]
    turn = 0
    while not d.state.finished and turn < 400:
        values = rolls[turn % len(rolls)][:dice]
        if turn < 4:
            visit_turn(tour, values)
        d.throw(values)
        tour.look()
        d.press("ok")
        tour.look()
        d.press("ok")
        d.wait()
        if turn == 1 and not d.state.finished:
            d.press("OK")  # the turn menu: undo, the score table, abandon
            for item in ("Undo the last score", "Score table", "Abandon game"):
                select(d, item)
                d.press("ok")
                tour.look()
                d.press("next" if item != "Score table" else "ok")
        turn += 1
    assert d.state.finished, f"{game}: not finished after {turn} turns"
    tour.look()
    d.press("next")
    tour.look()


@pytest.mark.parametrize("game", sorted(engine.GAMES))
def test_every_screen_of_every_game_fits(game: str) -> None:
    tour = Tour(device(game=game, names=WIDEST, stake=0.5, currency="€"))
    visit_menus(tour, game)
    play_to_the_end(tour, game)
    assert any(isinstance(s, GameOverScreen) for s in tour.seen.values())
    assert tour.cuts == []


@pytest.mark.parametrize("game", ["generala", "cacho", "general"])
def test_the_winning_throw_and_its_final_table_fit(game: str) -> None:
    for players in (2, 8):
        names = WIDEST + tuple(f"WWWWWWW{n}" for n in range(players - 2))
        tour = Tour(device(game=game, names=names, players=players, stake=10, currency="€"))
        tour.d.start()
        tour.look()
        tour.d.throw((5, 5, 5, 5, 5))
        tour.look()
        tour.d.press("next")  # back to the turn
        tour.look()
        tour.d.press("ok", "ok").wait()
        assert isinstance(tour.look(), GameOverScreen)
        tour.d.press("next")
        tour.look()
        assert tour.cuts == []


def play_the_devices_turn(tour: Tour, values: tuple[int, ...], odd: bool) -> None:
    """The device's turn as people play it for it: its dice thrown, the dice it names kept
    (when `odd`, once one more than it named: it plans again), a die turned over as it
    says, and once a throw after it stood (refused), then OK on its box."""
    d = tour.d
    seat = d.state.current_player
    for _ in range(12):
        move = d.app.device_move()
        if move is None or d.state.current_player != seat:
            return
        tour.look()
        if not isinstance(d.app.mode, DeviceTurn):  # a question on its turn (a die turned?), a win
            d.press("ok")
            continue
        choice, dice = move.choice, list(d.state.turn.dice)
        if choice.action == "throw":
            d.throw(values)
        elif choice.action == "keep":
            rethrow = list(choice.rethrow)
            if odd and len(rethrow) > 1:
                rethrow, odd = rethrow[1:], False
            d.throw([v % 6 + 1 if i in rethrow else v for i, v in enumerate(dice)],
                    moved=["thrown" if i in rethrow else "held" for i in range(len(dice))])
            tour.look()
            d.wait()
        elif choice.turn:
            i = choice.turn[0]
            d.throw([7 - v if j == i else v for j, v in enumerate(dice)],
                    moved=["turned" if j == i else "held" for j in range(len(dice))])
        else:
            if odd:  # a throw after it stood is refused
                d.throw(dice, moved=["thrown"] * len(dice))
                tour.look()
                d.wait()
                odd = False
            d.press("ok")
            tour.look()
            d.wait()


@pytest.mark.parametrize("game", ["generala", "cacho", "yahtzee"])
def test_every_screen_of_a_game_against_the_device_fits(game: str) -> None:
    """The practice opponent's screens: the seat in the menu, the names with its seat, the
    notice of a game without a table (yahtzee), its turns (cacho: a die to turn over)."""
    d = device(game=game, names=WIDEST[:1], stake=0.5, currency="€")
    tour = Tour(d)
    d.press("ok").select("Cubilete plays").press("ok")
    tour.through(1)  # off, then on
    tour.look()
    d.press("ok").select("Names").press("ok")
    tour.through(3)
    d.press("OK").select("Start").press("ok")
    tour.look()  # the notice of a game without a table
    d.wait()
    assert d.state.device_seats == (1,) and d.state.players == (WIDEST[0], DEVICE_NAME)
    rolls = [(1, 2, 3, 4, 5), (2, 2, 3, 3, 3), (6, 6, 6, 6, 1), (1, 1, 2, 2, 3), (4, 5, 6, 1, 3), (5, 5, 2, 2, 6)]
    turn = 0
    while not d.state.finished and turn < 400:
        values = rolls[turn % len(rolls)][:engine.GAMES[game].dice]
        if d.state.current_player in d.state.device_seats:
            play_the_devices_turn(tour, values, odd=turn < 8)
        else:
            d.throw(values)
            tour.look()
            d.press("ok", "ok").wait()
        turn += 1
    assert d.state.finished, f"{game}: not finished after {turn} turns"
    tour.look()
    assert any(isinstance(s, GameOverScreen) for s in tour.seen.values())
    messages = {text(s.message, "en") for s in tour.seen.values() if isinstance(s, TurnScreen) and s.message}
    assert {"Throw for Cubilete", "OK: Cubilete scores", "Cubilete stands"} <= messages
    assert any(m.startswith("Keep ") for m in messages) and any(m.endswith(": plan B") for m in messages)
    assert game != "cacho" or any(m.startswith("Turn the ") for m in messages)
    assert tour.cuts == []


def sample(template: str) -> str:
    """A message with its fields filled as wide as they come on the device."""
    values = {"player": "WWWWWWWW", "name": "WWWWWWWW", "n": 8, "k": 3, "die": 5, "a": 6, "b": 5, "seen": 4,
              "expected": 5, "points": 100, "category": "Generala", "win": "Generala served", "dice": "6 6 6 6 6",
              "seconds": 30, "key": "display.size", "pins": "5 6 13", "v": "1.0.0", "mb": 9999, "x": "254.6",
              "p": "<0.001", "need": 600, "dice_count": 5}
    return template.format(**{name: values.get(name, "WWWW") for name in re.findall(r"{(\w+)}", template)})


# Messages drawn as a title beside an icon: 20 pixels less.
BESIDE_AN_ICON = {"camera_lost", "usb_exporting", "usb_done", "usb_failed", "stopped", "config_problem",
                  "log_moved", "storage_full", "storage_not_writable", "storage_error", "fairness", "hint",
                  "info", "camera_test", "abandoned", "undo_q", "undo_throw_q", "abandon_q", "start_over_q",
                  "buttons_missing"}
# Messages drawn wrapped: the lines of a message screen, what the turn says (flashes after a
# box is filled, rule messages) on up to two lines.
WRAPPED = {"config_defaults", "scored", "scratched"}


def fits(shown: str, room: int, lines: int) -> bool:
    with recording_cuts() as cuts:
        wrap(shown, room, lines)
    return not cuts


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_catalogue_message_fits_the_line_it_is_drawn_on(lang: str) -> None:
    too_wide = []
    for key, entry in MESSAGES.items():
        templates = [entry[lang]] if isinstance(entry[lang], str) else list(entry[lang].values())
        room = LINE - (20 if key in BESIDE_AN_ICON else 0)
        for template in templates:
            shown = sample(template)
            if not fits(shown, room, 2 if key in WRAPPED else 1):
                too_wide.append(f"{key}: {shown!r} ({font.text_width(shown)} > {room} px)")
    for rule, pair in RULE_MESSAGES.items():
        shown = pair[LANGUAGES.index(lang)]
        if not fits(shown, LINE, 2):
            too_wide.append(f"rule {rule}: {shown!r}")
    assert too_wide == []


def every_rules() -> list[engine.Rules]:
    """The rules of every game with every combination of its house-rule options."""
    found = []
    for game in engine.GAMES.values():
        keys = [option.key for option in game.options]
        for values in itertools.product(*(option.allowed for option in game.options)):
            found.append(game.rules(dict(zip(keys, values))))
    return found


def test_every_box_and_win_name_fits_where_it_is_drawn() -> None:
    names = {short(Names.of(category)) for rules in every_rules() for category in rules.categories}
    wins = {short(Names(win.name_es, win.name_en)) for rules in every_rules() for win in rules.instant_wins}
    rows = tuple(OptionRow(name, points, notes, allowed) for name in sorted(names, key=repr)
                 for points, notes, allowed in ((100, ("served",), True), (None, ("turn_required",), False)))
    dice = tuple(DieIcon(6) for _ in range(5))
    for index in range(len(rows)):
        assert cuts_of(TurnScreen("WWWWWWWW", 3, 3, dice, rows, index, T("throw_or_pick"), total=1234)) == []
    for name in names:
        for title in (T("score_q", category=name), T("scratch_q", category=name)):
            assert cuts_of(ScoreScreen(title, dice, 100, 1234, T("ok_confirms"), T("scratch_note"))) == []
    for win in wins:
        assert cuts_of(ScoreScreen(T("win_title", win=win), dice, 60, 60, T("win_ends"),
                                   T("win_box", name="WWWWWWWW"))) == []


def test_game_names_are_short_and_distinct_in_each_language() -> None:
    assert set(GAME_NAMES) == set(engine.GAMES)
    for lang in LANGUAGES:
        names = [pair[LANGUAGES.index(lang)] for pair in GAME_NAMES.values()]
        assert len(set(names)) == len(names)
        assert max(font.text_width(name) for name in names) <= 70
    assert message("win_title", "es", {"win": short(Names("Dormida", "Dormida (five of a face in one throw)"))}) \
        == "¡Dormida!"


@pytest.mark.parametrize("game", sorted(engine.GAMES))
def test_scoring_without_buttons_fits(game: str) -> None:
    d = device(game=game)
    d.app.handle(ButtonsMissing("no GPIO", pins=(5, 6, 13)))
    tour = Tour(d)
    d.wait(60)
    tour.look()
    d.throw((6, 6, 6, 2, 2, 1)[:engine.GAMES[game].dice])
    tour.look()
    assert type(d.app.mode).__name__ == "ScoreWithoutButtons" and tour.cuts == []


def test_every_house_rule_has_a_short_distinct_label_in_each_language() -> None:
    for game in engine.GAMES.values():
        labels = [option_label(option.key) for option in game.options]
        assert all(option.key in OPTION_LABELS for option in game.options), game.id
        for lang in LANGUAGES:
            shown = [text(label, lang) for label in labels]
            assert len(set(shown)) == len(shown), game.id
        for option in game.options:
            for value in option.allowed:  # a word is shown in the language ("forced": "obligado")
                assert not isinstance(value, str) or isinstance(value_label(value), Names) or value.isdigit()
