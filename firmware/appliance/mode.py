"""What every screen-state of the appliance offers the state machine.

A mode is one state of the machine (a menu, the turn, a correction, the final table...).
It draws its screen from the machine's data and answers inputs with the next mode (or
None to stay). Modes hold only what is on screen (a cursor, answers so far); everything
that must survive a power cut lives in the event log through `GameSession.record`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from firmware.appliance.inputs import Press, ThrowSeen
from firmware.ui.screens import Screen

if TYPE_CHECKING:
    from firmware.appliance.machine import Appliance


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
