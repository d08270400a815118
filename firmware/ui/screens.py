"""Screen view models: what each OLED screen shows, as plain frozen dataclasses.

The state machine builds these; `firmware.ui.render(screen, lang)` draws them. A view model
holds no layout and no language: texts are either verbatim strings (player names, numbers),
catalogue messages (`Text`, looked up in `firmware.ui.catalogue` in the display language) or
names given in both languages (`Names`, e.g. a game's or a category's name_es / name_en).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, ClassVar, Mapping, Union

from firmware.localformat import MoneyStyle


@dataclass(frozen=True)
class Text:
    """A catalogue message by id, with the values its template needs."""

    key: str
    args: Mapping[str, Any] = field(default_factory=dict)


def T(key: str, /, **args: Any) -> Text:
    """Shorthand: `T("dice_seen", seen=4, expected=5)`; `key` is positional-only so that a
    message may itself take a `key` argument ("config_problem")."""
    return Text(key, args)


@dataclass(frozen=True)
class Names:
    """A name in both languages, as the engine's game definitions give them."""

    es: str
    en: str

    @classmethod
    def of(cls, thing: Any) -> "Names":
        """The names of anything with `name_es` and `name_en` (GameDef, Category)."""
        return cls(es=thing.name_es, en=thing.name_en)


Label = Union[str, Text, Names]
"""Something shown as text: a verbatim str, a catalogue message, or a two-language name."""


@dataclass(frozen=True)
class DieIcon:
    """One die as a small pip icon.

    value: 1..6, or None when the die was not read (drawn as an empty die with "?").
    held: kept from the previous throw (drawn inverted: a lit die with dark pips).
    unsure: the reader is not sure (confidence below SURE_CONFIDENCE, cocked, ambiguous):
        drawn with a dashed outline and a "?" instead of pips; never scored silently.
    turned: turned over by the player (Cacho), marked with a small bar under the die.
    """

    value: int | None
    held: bool = False
    unsure: bool = False
    turned: bool = False


@dataclass(frozen=True)
class OptionRow:
    """One way to score the current dice.

    label: the category's name, usually `Names.of(category)`.
    points: what it scores now; None when it cannot be scored as the dice lie (for example
        a die must be turned first), drawn as "--".
    notes: the engine's reasons (engine/advice.py ids: "served", "de_mano", "de_huevo",
        "scratch", "turn_required", "crossing_out_not_allowed", "instant_win"); the catalogue
        shortens the known ones, unknown ones are shown verbatim. Only the first fits.
    allowed: False for a row shown for information only (the engine would refuse it now):
        its points are drawn in parentheses.
    """

    label: Label
    points: int | None
    notes: tuple[str, ...] = ()
    allowed: bool = True


@dataclass(frozen=True)
class TurnScreen:
    """The main screen during a turn.

    throw: k in "throw k of n" (0 = waiting for the first throw of the turn).
    dice: in the order the messages number them (die 1 is the leftmost icon).
    options: best first; the renderer scrolls so the selected one is visible.
    selected: index into options, or None when nothing may be picked yet.
    message: a line at the bottom, e.g. T("dice_seen", seen=4, expected=5) or
        T("die_which", die=3, a=5, b=6).
    total: the player's total so far, shown in the header when given.
    """

    player: str
    throw: int
    throws: int
    dice: tuple[DieIcon, ...] = ()
    options: tuple[OptionRow, ...] = ()
    selected: int | None = 0
    message: Label | None = None
    total: int | None = None


@dataclass(frozen=True)
class MenuItem:
    """A menu line: a label and, right-aligned, its current value (if it has one)."""

    label: Label
    value: Label | None = None


@dataclass(frozen=True)
class MenuScreen:
    """A list to choose from: the new-game menu, its options, settings.

    editing: the selected item's value is being changed with prev/next (drawn "< 4 >").
    hint: a bottom line, e.g. T("hint_menu").
    """

    title: Label
    items: tuple[MenuItem, ...]
    selected: int = 0
    editing: bool = False
    hint: Label | None = None


@dataclass(frozen=True)
class CorrectionScreen:
    """Correcting the reading: pick a die, then its value, or confirm a turned/ambiguous die.

    die: index of the die being corrected (drawn with a cursor under it); None while the
        player is still choosing which die (then choices is usually empty and prompt says so).
    choices: the values or answers offered, e.g. ("5", "6"), ("1", ..., "6"), (T("yes"), T("no")).
    """

    title: Label
    dice: tuple[DieIcon, ...]
    die: int | None
    prompt: Label
    choices: tuple[Label, ...] = ()
    selected: int = 0


@dataclass(frozen=True)
class ConfirmScreen:
    """A question before something that cannot be taken back lightly (undo the last score).

    hold_to_confirm: confirming needs a long press of OK (the one hint line says so);
        otherwise a short OK confirms. Prev/next cancel either way.
    hint: the bottom line instead of the default one (a message shown for a moment).
    """

    title: Label
    lines: tuple[Label, ...] = ()
    hold_to_confirm: bool = True
    hint: Label | None = None


@dataclass(frozen=True)
class ScoreScreen:
    """Confirming a box before it is written: the dice, the points in big digits, the total
    it makes, and one hint line (OK scores, prev / next cancel). Also the winning throw: its
    title says the win, `points` is what its box gets (None: the win has no box).

    title: e.g. say("score_q", category=...), or the win ("¡Generala servida!").
    note: a short line under the total (the engine's reason: servida, de mano; who wins).
    """

    title: Label
    dice: tuple[DieIcon, ...]
    points: int | None
    total: int | None
    hint: Label
    note: Label | None = None


@dataclass(frozen=True)
class NameScreen:
    """Entering a player's name with three buttons: prev / next choose the character under
    the cursor (`choices[selected]`: letters, then "done" and "delete" marks), OK takes it.

    name: the letters so far; the cursor is after them. choices: what prev / next run
    through; selected: the one under the cursor now.
    """

    title: Label
    name: str
    choices: tuple[str, ...]
    selected: int
    hint: Label


@dataclass(frozen=True)
class FinalRow:
    """One player's line in the final table.

    net_cents: the settlement in cents of the currency (+ receives, - pays), None if no stake;
    written in the device's money style (the GameOverScreen's `money`).
    """

    name: str
    points: int
    winner: bool = False
    net_cents: int | None = None


@dataclass(frozen=True)
class GameOverScreen:
    """The final table (winners marked, settlement), paged when there are many players.

    rows: in final order, best first. note: e.g. T("win_title", win=Names(...)) after an instant win.
    The state machine flips `page` with prev/next; the renderer shows page % its page count
    (a taller panel holds more rows a page). `page_count` is the count on a 128x64 panel.
    """

    ROWS_PER_PAGE: ClassVar[int] = 5

    game: Label
    rows: tuple[FinalRow, ...]
    page: int = 0
    money: MoneyStyle = MoneyStyle()
    title: Label = T("game_over")
    note: Label | None = None

    @property
    def page_count(self) -> int:
        return max(1, math.ceil(len(self.rows) / self.ROWS_PER_PAGE))


ICONS = ("info", "warning", "camera", "usb", "stop", "ok", "dice")


@dataclass(frozen=True)
class MessageScreen:
    """A full-screen message: camera lost, USB export, stopped, errors, boot.

    icon: one of ICONS, drawn at the left of the title, or None.
    """

    title: Label
    lines: tuple[Label, ...] = ()
    icon: str | None = None


@dataclass(frozen=True)
class QrScreen:
    """A title, an address written out and its QR code (`firmware.ui.qr.qr_modules`: rows of
    modules, True = dark, quiet zone included) at the right; without modules, the text only."""

    title: Label
    lines: tuple[Label, ...]
    address: str
    modules: tuple[tuple[bool, ...], ...] | None


Screen = Union[TurnScreen, MenuScreen, CorrectionScreen, ConfirmScreen, ScoreScreen, NameScreen, GameOverScreen,
               MessageScreen, QrScreen]


def camera_lost_screen(retry_in_s: float | None = None) -> MessageScreen:
    """Shown while the camera is missing; the game and its scores are kept."""
    lines: tuple[Label, ...] = (T("camera_lost_body"), T("scores_kept"))
    if retry_in_s is not None:
        lines += (T("retry_in", seconds=max(0, round(retry_in_s))),)
    return MessageScreen(T("camera_lost"), lines, icon="camera")


def usb_exporting_screen() -> MessageScreen:
    return MessageScreen(T("usb_exporting"), (T("usb_do_not_remove"),), icon="usb")


def usb_done_screen(games: int) -> MessageScreen:
    return MessageScreen(T("usb_done"), (T("usb_games_exported", n=games), T("usb_safe_to_remove")), icon="usb")


def usb_failed_screen(reason: str, safe_to_remove: bool = True) -> MessageScreen:
    if not safe_to_remove:  # still mounted: pulling it now could damage what is on it
        return MessageScreen(T("usb_failed"), (reason, T("usb_do_not_remove"), T("scores_kept")), icon="warning")
    return MessageScreen(T("usb_failed"), (reason, T("scores_kept")), icon="warning")


def stopped_screen() -> MessageScreen:
    return MessageScreen(T("stopped"), (T("stopped_body"), T("scores_kept")), icon="stop")
