"""What a screen-state of the appliance is, and what it may use of the appliance.

A mode is one state of the machine (a menu, the turn, a correction, the final table...).
It draws its screen from the machine's data and answers inputs with the next mode (or
None to stay). Modes hold only what is on screen (a cursor, answers so far); everything
that must survive a power cut lives in the event log through `GameSession.record`.

Modes see the appliance only through `Appliance`, the Protocol below; `machine.py`
implements it and is the only module that knows every mode. Where a mode must go to a mode
of a module above it (a correction back to the turn menu, an answered question back to the
throw it was about), it asks the appliance (`turn_menu`, `take_throw`), so the modules of
modes import one another one way only.
"""

from __future__ import annotations

from typing import Any, Protocol

from advisor.opponent import Move
from firmware.appliance.inputs import Press, ThrowSeen
from firmware.appliance.session import GameSession, StoredReading
from firmware.appliance.settings import GameDefaults, Prefs
from firmware.appliance.throws import Answers, TrayLink
from firmware.eventlog import EventLog
from firmware.ui.screens import Label, Screen


class Appliance(Protocol):
    """What modes use of the appliance (`machine.Appliance` is the one implementation)."""

    log: EventLog
    prefs: Prefs
    defaults: GameDefaults
    scoreboard_url: str | None  # the live scoreboard's address, when it is served
    dice_warning: bool  # the last fairness test rejected fair dice
    session: GameSession | None
    link: TrayLink | None  # how the dice on the tray match the last recorded throw
    deferred: ThrowSeen | None  # a throw seen while a die waited for confirmation
    camera_ok: bool
    manual_camera: bool  # no camera at all (the "manual" spec): every throw is entered by hand
    watched: bool  # motion seen since start (dice found lying there were not thrown)
    mode: "Mode"

    @property
    def lang(self) -> str: ...

    @property
    def flash_label(self) -> Label | None: ...

    @property
    def can_request_usb_export(self) -> bool: ...

    def flash(self, label: Label, seconds: float = ...) -> None: ...

    def refuse_if_busy(self) -> bool: ...

    def record(self, event: dict[str, Any], reading: StoredReading | None = None,
               snapshot: bytes | None = None) -> bool: ...

    def game_mode(self) -> "Mode": ...

    def after_commit(self) -> "Mode": ...

    def start_game(self, session: GameSession) -> "Mode": ...

    def close_game(self) -> None: ...

    def request_usb_export(self) -> None: ...

    def set_prefs(self, prefs: Prefs) -> None: ...

    def turn_menu(self, back: "Mode") -> "Mode": ...

    def take_throw(self, seen: ThrowSeen, answers: Answers = ...) -> "Mode | None": ...

    def device_move(self) -> Move | None: ...


class Mode:
    # Throws seen while this mode is shown belong to the game being played.
    in_game: bool = False
    # The camera-lost warning covers this mode (it waits for the camera).
    needs_camera: bool = False

    def view(self, app: "Appliance") -> Screen:
        raise NotImplementedError

    def on_press(self, app: "Appliance", press: Press) -> "Mode | None":
        return None

    def on_throw(self, app: "Appliance", seen: ThrowSeen) -> "Mode | None":
        """Only called for modes that are not `in_game` (those go through the game)."""
        return None

    def name(self) -> str:
        """For the status line and tests: the mode's class name."""
        return type(self).__name__


def step(press: Press) -> int:
    """+1 for next, -1 for prev (short or repeated), 0 otherwise."""
    if press.kind not in ("short", "repeat"):
        return 0
    return {"next": 1, "prev": -1}.get(press.button, 0)


def is_ok(press: Press) -> bool:
    return press.button == "ok" and press.kind == "short"


def is_back(press: Press) -> bool:
    return press.button == "ok" and press.kind == "long"
