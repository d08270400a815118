"""What the appliance's state machine reacts to: one small immutable event per happening.

`Press` is the buttons' own (`hardware.buttons`) and `ReadingUnstable` the tracker's
(`vision.tracker_events`): one type each, from where they happen to the state machine.
The service turns camera frames (through the throw tracker), button presses, the camera's
status, messages on the control socket and the passing of time into these. The state
machine knows nothing of OpenCV, GPIO or sockets, so it is tested with plain values.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Union

from hardware.buttons import Press
from vision.reading import Reading
from vision.tracker_events import ReadingUnstable


@dataclass(frozen=True)
class ThrowSeen:
    """The tracker saw the dice come to rest after a throw.

    moved: per die of `reading.dice`, "held" | "thrown" | "turned" | "ambiguous" | "new",
        relative to the tracker's previous settled throw.
    previous: per die, its index in that previous reading (None when it has none).
    snapshot: encodes the settled frame as JPEG, called only if the throw is recorded.
    tracked: the throw comes from the throw tracker, which also gave `previous` and
        `expected` (the dice count it expected); both are stored with the reading.
    """

    reading: Reading
    moved: tuple[str, ...]
    previous: tuple[int | None, ...] = ()
    t: float = 0.0
    snapshot: Callable[[], bytes | None] | None = field(default=None, compare=False)
    tracked: bool = field(default=False, compare=False)
    expected: int | None = field(default=None, compare=False)


@dataclass(frozen=True)
class MotionSeen:
    """Dice moving, or a hand or the cup over the tray: a throw is under way."""

    t: float = 0.0
    reason: str = "motion"  # "motion" | "hand"


@dataclass(frozen=True)
class TrayCleared:
    """No dice on the tray (picked up for the next throw)."""

    t: float = 0.0


@dataclass(frozen=True)
class ObjectOnTray:
    """Something that is not a die lies still in the tray (a glass, a phone, the cup upside
    down): no throw can settle until it is taken away or the tracker makes it part of the tray."""

    t: float = 0.0


@dataclass(frozen=True)
class CameraLost:
    message: str = ""
    retry_in_s: float | None = None


@dataclass(frozen=True)
class CameraBack:
    pass


@dataclass(frozen=True)
class ButtonsMissing:
    """No buttons can be read (no GPIO here, a pin in use, a wire off): the device goes on
    scoring the throws by itself and says how to wire the buttons."""

    reason: str = ""
    pins: tuple[int, ...] = ()  # the BCM pins the config expects, to say where they go


@dataclass(frozen=True)
class ButtonsBack:
    pass


@dataclass(frozen=True)
class UsbExportStarted:
    device: str = ""  # the stick's partition ("sda1"); the menu offers to copy every game to it


@dataclass(frozen=True)
class UsbExportDone:
    games: int = 0
    device: str = ""


@dataclass(frozen=True)
class UsbExportFailed:
    message: str = ""
    safe_to_remove: bool = True  # False: the stick could not be unmounted; it must not be pulled yet
    device: str = ""


@dataclass(frozen=True)
class Tick:
    """Time passes (the main loop sends one per iteration); `now` is monotonic seconds."""

    now: float


Input = Union[Press, ThrowSeen, MotionSeen, TrayCleared, ObjectOnTray, ReadingUnstable, CameraLost, CameraBack,
              ButtonsMissing, ButtonsBack, UsbExportStarted, UsbExportDone, UsbExportFailed, Tick]
