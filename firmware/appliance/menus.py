"""The menus: the main menu, setting up a new game (game, players, their names, the device's
own seat, house rules, stake, order), the settings, and two read-only screens (about, the
last game's table). While the dice fairness test rejects fair dice the main menu says so.

Three buttons drive every list: prev / next move, OK picks an item or starts changing its
value (then prev / next change it and OK is done), a long OK goes back.
"""

from __future__ import annotations

import os
import shutil
from dataclasses import dataclass, field, replace
from decimal import Decimal
from importlib.metadata import PackageNotFoundError, version
from typing import Any, Callable

import engine
from engine.fairness import WARN_FROM_THROWS
from firmware.appliance.inputs import Press, ThrowSeen
from firmware.appliance.mode import Appliance, Mode, is_back, is_ok, step
from firmware.appliance.practice import DEVICE_NAME, offered
from firmware.appliance.rolloff import RollOff
from firmware.appliance.session import GameSession
from firmware.appliance.views import brightness_label, final_rows, next_brightness, number_label, stake_label
from firmware.ui.catalogue import game_name, option_label, say, value_label
from firmware.fairness_report import FairnessReport, fairness_report, today
from firmware.ui.qr import qr_modules
from firmware.ui.screens import (ConfirmScreen, GameOverScreen, Label, MenuItem, MenuScreen, MessageScreen, Names,
                                 NameScreen, QrScreen, Screen)

GAME_IDS = tuple(engine.GAMES)
STAKES = (Decimal(0), Decimal("0.01"), Decimal("0.05"), Decimal("0.1"), Decimal("0.25"), Decimal("0.5"),
          Decimal(1), Decimal(2), Decimal(5), Decimal(10), Decimal(20), Decimal(50), Decimal(100))


@dataclass(frozen=True)
class Item:
    label: Label
    value: Label | None = None
    action: Callable[[Appliance], Mode | None] | None = None  # OK on the item
    change: Callable[[Appliance, int], None] | None = None  # prev / next while editing


@dataclass
class ListMenu(Mode):
    """A list of items; subclasses say which (`items`) and where back goes (`back_to`)."""

    selected: int = 0
    editing: bool = False

    def title(self, app: Appliance) -> Label:
        raise NotImplementedError

    def items(self, app: Appliance) -> list[Item]:
        raise NotImplementedError

    def back_to(self, app: Appliance) -> Mode | None:
        return None

    def hint(self, app: Appliance) -> Label:
        return say("hint_edit") if self.editing else say("hint_menu")

    def view(self, app: Appliance) -> Screen:
        items = self.items(app)
        self.selected = min(self.selected, len(items) - 1)
        return MenuScreen(self.title(app), tuple(MenuItem(i.label, i.value) for i in items),
                          self.selected, self.editing, app.flash_label or self.hint(app))

    def on_press(self, app: Appliance, press: Press) -> Mode | None:
        items = self.items(app)
        item = items[min(self.selected, len(items) - 1)]
        if is_back(press):
            if self.editing:
                self.editing = False
                return None
            return self.back_to(app)
        if step(press):
            if self.editing and item.change is not None:
                item.change(app, step(press))
            else:
                self.selected = (self.selected + step(press)) % len(items)
            return None
        if not is_ok(press):
            return None
        if self.editing:
            self.editing = False
            return None
        if item.change is not None:
            self.editing = True
            return None
        if item.action is not None:
            return item.action(app)
        return None


def _cycle(values: tuple[Any, ...], current: Any, delta: int) -> Any:
    index = values.index(current) if current in values else 0
    return values[(index + delta) % len(values)]


# -- main menu -----------------------------------------------------------------------------------------


@dataclass
class MainMenu(ListMenu):
    """The home screen; while the dice fairness test rejects fair dice its title and bottom
    line say so, and Settings is marked."""

    def title(self, app: Appliance) -> Label:
        return say("fairness_alert") if app.dice_warning else say("main_menu")

    def hint(self, app: Appliance) -> Label:
        return say("fairness_see_short") if app.dice_warning else super().hint(app)

    def items(self, app: Appliance) -> list[Item]:
        items = [Item(say("new_game"), action=lambda a: NewGameMenu.from_defaults(a))]
        if app.session is not None:
            items.insert(0, Item(say("resume"), action=lambda a: a.game_mode()))
        if any(g.ended_at for g in app.log.games()):
            items.append(Item(say("last_game"), action=lambda a: LastGame.load(a, back=self)))
        if app.can_request_usb_export:
            items.append(Item(say("usb_copy_all"), action=lambda a: a.request_usb_export()))
        items.append(Item(say("settings"), "!" if app.dice_warning else None, action=lambda a: SettingsMenu()))
        return items

    def back_to(self, app: Appliance) -> Mode | None:
        return app.game_mode() if app.session is not None else None


# -- a new game ------------------------------------------------------------------------------------------


def default_names(app: Appliance, count: int, reserved: tuple[str, ...] = ()) -> list[str]:
    """Each player's name: the one entered on the device (kept in the prefs), else the
    config's, else J<n> (Spanish) or P<n> (English) for player n; never two the same, and
    never one of `reserved` (the device's own seat)."""
    prefix = "J" if app.lang == "es" else "P"
    reserved_keys = {name.casefold() for name in reserved}
    # A reserved name in the prefs or the config is the device's: the people's names move up past it.
    sources = [[n for n in source if n.casefold() not in reserved_keys]
               for source in (app.prefs.names, app.defaults.names)]
    names: list[str] = []
    for position in range(count):
        taken = {name.casefold() for name in names} | reserved_keys
        given = [source[position] for source in sources if position < len(source)]
        name = next((n for n in given if n.casefold() not in taken), None)
        n = position + 1
        while name is None:
            candidate = f"{prefix}{n}"
            name = candidate if candidate.casefold() not in taken else None
            n += 1
        names.append(name)
    return names


@dataclass
class NewGameMenu(ListMenu):
    game: str = "generala"
    players: int = 2
    options: dict[str, Any] = field(default_factory=dict)
    stake: Decimal = Decimal(0)
    order: str = "roll-off"
    partnerships: bool = False
    device: bool = False  # the device takes one of the seats (the practice opponent)
    names: list[str] = field(default_factory=list)  # entered here; default_names for the rest

    @classmethod
    def from_defaults(cls, app: Appliance) -> "NewGameMenu":
        d = app.defaults
        return cls(game=d.game, players=d.players, options=dict(d.options),
                   stake=Decimal(str(d.stake_per_point)), order=d.order)

    @property
    def definition(self) -> engine.GameDef:
        return engine.GAMES[self.game]

    @property
    def offers_partnerships(self) -> bool:
        return self.definition.default_rules.partnerships and self.players == 4

    def plays_device(self, app: Appliance) -> bool:
        """The device takes a seat: asked for, and offered for this game."""
        return self.device and offered(self.definition, app.defaults)

    def title(self, app: Appliance) -> Label:
        return say("new_game")

    def items(self, app: Appliance) -> list[Item]:
        items = [
            Item(say("game"), game_name(self.game), change=self._change_game),
            Item(say("players"), str(self.players), change=self._change_players),
            Item(say("names"), action=lambda a: NamesMenu(menu=self)),
        ]
        if offered(self.definition, app.defaults):
            items.append(Item(say("device_seat", name=DEVICE_NAME), value_label(self.device), change=self._toggle_device))
        if self.definition.options:
            items.append(Item(say("house_rules"), action=lambda a: OptionsMenu(menu=self)))
        if self.offers_partnerships:
            items.append(Item(say("partnerships"), value_label(self.partnerships), change=self._toggle_partners))
        items += [
            Item(say("stake"), stake_label(self.stake, app.defaults.money), change=self._change_stake),
            Item(say("order"), say("order_roll_off") if self.order == "roll-off" else say("order_fixed"),
                 change=self._change_order),
            Item(say("start"), action=self._start),
        ]
        return items

    def back_to(self, app: Appliance) -> Mode | None:
        return MainMenu()

    def player_names(self, app: Appliance) -> list[str]:
        """The players' names in seat order: the people's (`people_names`), then the
        device's own seat when it plays."""
        return self.people_names(app) + ([DEVICE_NAME] if self.plays_device(app) else [])

    def people_names(self, app: Appliance) -> list[str]:
        """The names of the seats people play: those entered here, then the defaults;
        never the device's name while it plays."""
        reserved = (DEVICE_NAME,) if self.plays_device(app) else ()
        humans = self.players - len(reserved)
        names = default_names(app, humans, reserved)
        for position, name in enumerate(self.names[:humans]):
            others = {n.casefold() for i, n in enumerate(names) if i != position} | {r.casefold() for r in reserved}
            if name.casefold() not in others:
                names[position] = name
        return names

    def _change_game(self, app: Appliance, delta: int) -> None:
        self.game = _cycle(GAME_IDS, self.game, delta)
        self.options = dict(app.defaults.options) if self.game == app.defaults.game else {}

    def _change_players(self, app: Appliance, delta: int) -> None:
        self.players = (self.players - 1 + delta) % 8 + 1
        if self.players == 1 and self.plays_device(app):  # the device and at least one person
            self.players = (self.players - 1 + delta) % 8 + 1

    def _toggle_device(self, app: Appliance, delta: int) -> None:
        self.device = not self.device
        self.players = max(self.players, 2) if self.device else self.players

    def _toggle_partners(self, app: Appliance, delta: int) -> None:
        self.partnerships = not self.partnerships

    def _change_stake(self, app: Appliance, delta: int) -> None:
        stakes = STAKES if self.stake in STAKES else tuple(sorted(STAKES + (self.stake,)))
        self.stake = _cycle(stakes, self.stake, delta)

    def _change_order(self, app: Appliance, delta: int) -> None:
        self.order = "fixed" if self.order == "roll-off" else "roll-off"

    def _start(self, app: Appliance) -> Mode | None:
        if app.session is not None:
            return StartOverConfirm(menu=self)
        return self.begin(app)

    def begin(self, app: Appliance) -> Mode | None:
        names = self.player_names(app)
        if self.order == "roll-off" and self.players > 1:
            return RollOff(menu=self, names=tuple(names), queue=list(range(len(names))))
        sides = engine.partnerships_from_order(range(4)) if self.partnerships and self.offers_partnerships else None
        return self.start_game(app, names, sides)

    def start_game(self, app: Appliance, names_in_order: list[str], partnerships: Any = None,
                   roll_off: dict[str, list[list[int]]] | None = None) -> Mode | None:
        seats = [names_in_order.index(DEVICE_NAME)] if self.plays_device(app) and DEVICE_NAME in names_in_order else None
        try:
            event = engine.new_game(self.game, names_in_order, self.options,
                                    stake=self.stake if self.stake > 0 else None, partnerships=partnerships,
                                    roll_off=roll_off, device_seats=seats)
        except engine.RuleError as error:
            app.flash(str(error)[:40])
            return self
        return app.start_game(GameSession.start(app.log, event))


@dataclass
class StartOverConfirm(Mode):
    """A game is unfinished: starting another closes it (its scores stay in the log)."""

    menu: NewGameMenu

    def view(self, app: Appliance) -> Screen:
        return ConfirmScreen(say("start_over_q"), (say("start_over_line"),), hold_to_confirm=True)

    def on_press(self, app: Appliance, press: Press) -> Mode | None:
        if step(press):
            return self.menu
        if not is_back(press):
            return None
        app.close_game()
        return self.menu.begin(app)


@dataclass
class OptionsMenu(ListMenu):
    """The chosen game's house rules."""

    menu: NewGameMenu | None = None

    def title(self, app: Appliance) -> Label:
        assert self.menu is not None
        return game_name(self.menu.game)

    def items(self, app: Appliance) -> list[Item]:
        assert self.menu is not None
        menu = self.menu
        resolved = menu.definition.resolve_options(menu.options)
        items = []
        for option in menu.definition.options:
            def change(a: Appliance, delta: int, option: engine.OptionDef = option) -> None:
                current = menu.definition.resolve_options(menu.options)[option.key]
                menu.options[option.key] = _cycle(option.allowed, current, delta)
            items.append(Item(option_label(option.key), value_label(resolved[option.key]), change=change))
        items.append(Item(say("back"), action=lambda a: menu))
        return items

    def back_to(self, app: Appliance) -> Mode | None:
        return self.menu


# -- the players' names ------------------------------------------------------------------------------


@dataclass
class NamesMenu(ListMenu):
    """The players in menu order with their names; OK on one enters a new name. The
    device's seat, when it plays, is listed with its name but has none to enter."""

    menu: NewGameMenu | None = None

    def title(self, app: Appliance) -> Label:
        return say("names")

    def items(self, app: Appliance) -> list[Item]:
        assert self.menu is not None
        menu = self.menu
        people = menu.people_names(app)
        items = [Item(say("player_n", n=position + 1), name,
                      action=lambda a, position=position: NameEntry.of(a, menu, position))
                 for position, name in enumerate(people)]
        if menu.plays_device(app):
            items.append(Item(say("player_n", n=len(people) + 1), DEVICE_NAME))
        items.append(Item(say("back"), action=lambda a: menu))
        return items

    def back_to(self, app: Appliance) -> Mode | None:
        return self.menu


NAME_MAX = 8  # as the config's names: it fits every screen (tests/firmware/test_ui_fit.py)
DONE, DELETE = "✓", "«"
UPPER = tuple("ABCDEFGHIJKLMNÑOPQRSTUVWXYZÁÉÍÓÚ")
LOWER = tuple("abcdefghijklmnñopqrstuvwxyzáéíóúü")
OTHER = tuple("0123456789") + (" ",)


@dataclass
class NameEntry(Mode):
    """A name with three buttons: prev / next run through the letters (capitals for the
    first, small letters after) and two marks, "✓" (done) and "«" (delete the last letter);
    OK takes the one shown. A long OK, or the eighth letter, finishes. The name goes into
    the new game (its game_started event keeps it) and into the prefs, for the next game."""

    menu: NewGameMenu
    position: int
    name: str = ""
    selected: int = 0

    @classmethod
    def of(cls, app: Appliance, menu: NewGameMenu, position: int) -> "NameEntry":
        entry = cls(menu, position)
        entry.selected = entry.choices().index("A")
        return entry

    def choices(self) -> tuple[str, ...]:
        return (DONE, DELETE) + (LOWER if self.name else UPPER) + OTHER

    def view(self, app: Appliance) -> Screen:
        choices = self.choices()
        return NameScreen(say("name_of", n=self.position + 1), self.name, choices,
                          min(self.selected, len(choices) - 1), app.flash_label or say("name_hint"))

    def on_press(self, app: Appliance, press: Press) -> Mode | None:
        choices = self.choices()
        if step(press):
            self.selected = (self.selected + step(press)) % len(choices)
            return None
        if is_back(press):
            return self._finish(app)
        if not is_ok(press):
            return None
        choice = choices[min(self.selected, len(choices) - 1)]
        if choice == DONE:
            return self._finish(app)
        if choice == DELETE:
            was_first = len(self.name) == 1
            self.name = self.name[:-1]
            if was_first:  # back to the capitals, from A
                self.selected = self.choices().index(UPPER[0])
            return None
        if not self.name and choice == " ":
            return None  # a name does not start with a space
        first = not self.name
        self.name += choice
        if len(self.name) >= NAME_MAX:
            return self._finish(app)
        if first:
            self.selected = self.choices().index(choice.lower() if choice.lower() in LOWER else LOWER[0])
        return None

    def _finish(self, app: Appliance) -> Mode | None:
        name = self.name.strip()
        if not name:
            return NamesMenu(menu=self.menu, selected=self.position)  # nothing entered: unchanged
        names = self.menu.people_names(app)
        seats = self.menu.player_names(app)  # the device's seat, when it plays, is taken
        if any(n.casefold() == name.casefold() for i, n in enumerate(seats) if i != self.position):
            app.flash(say("name_taken", name=name))
            return None
        names[self.position] = name
        self.menu.names = names
        app.set_prefs(replace(app.prefs, names=tuple(names)))
        return NamesMenu(menu=self.menu, selected=self.position)


# -- settings -------------------------------------------------------------------------------------------


@dataclass
class SettingsMenu(ListMenu):
    def title(self, app: Appliance) -> Label:
        return say("settings")

    def items(self, app: Appliance) -> list[Item]:
        prefs = app.prefs
        return [
            Item(say("language"), "Español" if prefs.language == "es" else "English",
                 change=lambda a, d: a.set_prefs(replace(a.prefs, language=_cycle(("es", "en"), a.prefs.language, d)))),
            Item(say("contrast"), brightness_label(prefs.contrast),
                 change=lambda a, d: a.set_prefs(replace(a.prefs, contrast=next_brightness(a.prefs.contrast, d)))),
            Item(say("camera_test"), action=lambda a: CameraTest(back=self)),
            *([Item(say("scoreboard"), action=lambda a: Scoreboard(back=self))] if app.scoreboard_url else []),
            Item(say("fairness"), "!" if app.dice_warning else None, action=lambda a: DiceFairness.load(a, self)),
            Item(say("info"), action=lambda a: About(back=self)),
            Item(say("back"), action=lambda a: MainMenu()),
        ]

    def back_to(self, app: Appliance) -> Mode | None:
        return MainMenu()


@dataclass
class CameraTest(Mode):
    """What the camera reads now: for setting up the tray and the light."""

    back: Mode
    last: ThrowSeen | None = None
    needs_camera = True

    def view(self, app: Appliance) -> Screen:
        if self.last is None:
            lines: tuple[Label, ...] = (say("throw_dice"),)
        else:
            reading = self.last.reading
            dice = " ".join(f"{d.value}{'' if d.sure else '?'}" for d in reading.dice) or say("camera_no_dice")
            lines = (dice,) + tuple(p.message[:40] for p in reading.problems[:2])
        if app.flash_label is not None:
            lines += (app.flash_label,)
        return MessageScreen(say("camera_test"), lines, icon="camera")

    def on_throw(self, app: Appliance, seen: ThrowSeen) -> Mode | None:
        self.last = seen
        return None

    def on_press(self, app: Appliance, press: Press) -> Mode | None:
        return self.back if (is_ok(press) or is_back(press)) else None


@dataclass
class Scoreboard(Mode):
    """Where the room's scoreboard is served: the address and its QR code to scan."""

    back: Mode

    def view(self, app: Appliance) -> Screen:
        address = app.scoreboard_url or ""
        return QrScreen(say("scoreboard"), (say("scoreboard_open"),), address, qr_modules(address))

    def on_press(self, app: Appliance, press: Press) -> Mode | None:
        return self.back if (is_ok(press) or is_back(press)) else None


@dataclass
class DiceFairness(Mode):
    """Are the dice fair: the chi-square test over every game's first throws, and today's."""

    back: Mode
    report: FairnessReport

    @classmethod
    def load(cls, app: Appliance, back: Mode) -> Mode:
        report = fairness_report(app.log)
        app.dice_warning = report.device.warning
        return cls(back, report)

    def view(self, app: Appliance) -> Screen:
        every, day = self.report.device, self.report.day(today())
        lines: list[Label] = [say("fairness_all", n=every.throws, p=_p(every.p_value, app))]
        if every.dice:
            counts = [f"{face}:{count}" for face, count in enumerate(every.counts, 1)]
            lines += [" ".join(counts[:3]), " ".join(counts[3:])]
        if every.warning:
            lines.append(say("fairness_warning"))
        elif every.throws < WARN_FROM_THROWS:
            lines.append(say("fairness_few", n=every.throws, need=WARN_FROM_THROWS))
        else:
            lines.append(say("fairness_ok"))
        if day is not None:
            lines.append(say("fairness_today", n=day.throws, p=_p(day.p_value, app)))
        return MessageScreen(say("fairness"), tuple(lines), icon="warning" if every.warning else "dice")

    def on_press(self, app: Appliance, press: Press) -> Mode | None:
        return self.back if (is_ok(press) or is_back(press)) else None


def _p(p_value: float, app: Appliance) -> Names:
    shown = number_label(max(p_value, 0.001), 3, app.defaults.money)
    if p_value < 0.001:
        return Names(es="<" + shown.es, en="<" + shown.en)
    return Names(es=" " + shown.es, en=" " + shown.en)


@dataclass
class About(Mode):
    back: Mode

    def view(self, app: Appliance) -> Screen:
        try:
            v = version("cubilete")
        except PackageNotFoundError:
            v = "dev"
        free_mb = shutil.disk_usage(os.fspath(app.log.state_dir)).free // (1024 * 1024)
        return MessageScreen(say("info"), (say("version", v=v), say("games_stored", n=len(app.log.games())),
                                           say("disk_free", mb=free_mb)), icon="info")

    def on_press(self, app: Appliance, press: Press) -> Mode | None:
        return self.back if (is_ok(press) or is_back(press)) else None


@dataclass
class LastGame(Mode):
    """The final table of the last game played to the end (read-only)."""

    back: Mode
    screen: GameOverScreen | None = None
    page: int = 0

    @classmethod
    def load(cls, app: Appliance, back: Mode) -> Mode:
        ended = [g for g in app.log.games() if g.ended_at]
        if not ended:
            return back
        try:
            state = engine.replay(e.event for e in app.log.events(ended[-1].game_id))
        except engine.RuleError:
            return back
        stake = state.finished and state.stake is not None and state.stake > 0
        rows = final_rows(state, stake)
        return cls(back, GameOverScreen(game=game_name(state.game.id, Names.of(state.game)), rows=rows,
                                        money=app.defaults.money))

    def view(self, app: Appliance) -> Screen:
        assert self.screen is not None
        return replace(self.screen, page=self.page % self.screen.page_count)

    def on_press(self, app: Appliance, press: Press) -> Mode | None:
        if step(press):
            self.page += step(press)
            return None
        return self.back if (is_ok(press) or is_back(press)) else None
