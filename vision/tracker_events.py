"""What the throw tracker reports: plain frozen events with a JSON form for logs and the CLI.

Every event has `t` (the time of the frame that decided it, seconds) and `name`; `to_json()`
gives `{"t": seconds, "event": name, ...}` as `cubilete watch --json` prints it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar, Union

import numpy as np

from .reading import Problem, Reading


@dataclass(frozen=True)
class MotionStarted:
    """Something started moving in the tray after it had been still."""

    t: float
    name: ClassVar[str] = "motion_started"

    def to_json(self) -> dict[str, Any]:
        return {"t": round(self.t, 3), "event": self.name}

    def describe(self) -> str:
        return "motion started"


@dataclass(frozen=True)
class ThrowSettled:
    """The dice stopped: the reading, and for each die how it moved since the previous throw.

    moved[i] is "held", "thrown", "turned" or "ambiguous" relative to the previous settled
    throw of the turn ("thrown" for every die of a turn's first throw), or "new" for dice that
    were already lying still when the tracker started. previous[i] is the index of the die in
    the previous throw's reading that die i was matched to. The reading's problems include
    the count check ("4 of 5 dice seen"), cocked dice and dice that read unstably.
    `frame` is the full camera frame the reading was made from (for the snapshot).
    """

    t: float
    reading: Reading
    moved: tuple[str, ...]
    previous: tuple[int | None, ...] = ()
    expected: int | None = None
    frame: np.ndarray | None = field(default=None, repr=False, compare=False)
    name: ClassVar[str] = "settled"

    @property
    def problems(self) -> tuple[Problem, ...]:
        return self.reading.problems

    @property
    def cocked(self) -> tuple[int, ...]:
        """Indices of dice that are not flat and must be thrown again."""
        return tuple(i for i, die in enumerate(self.reading.dice) if die.cocked)

    def to_json(self) -> dict[str, Any]:
        reading = self.reading.to_json()
        dice = [dict(die, moved=moved) for die, moved in zip(reading["dice"], self.moved)]
        return {"t": round(self.t, 3), "event": self.name, "dice": dice,
                "problems": reading["problems"], "problem_details": reading["problem_details"],
                "expected": self.expected}

    def describe(self) -> str:
        dice = " ".join(f"{d.value}{'?' if not d.sure else ''}({m})" for d, m in zip(self.reading.dice, self.moved))
        problems = "; ".join(p.message for p in self.problems)
        return f"settled: {dice or 'no dice'}" + (f"  [{problems}]" if problems else "")


@dataclass(frozen=True)
class DiceRemoved:
    """Some dice were taken off the tray and the others did not move (a player picking up the
    dice to throw again). Not a throw: the next ThrowSettled is still compared with the last throw."""

    t: float
    reading: Reading
    removed: int
    name: ClassVar[str] = "dice_removed"

    def to_json(self) -> dict[str, Any]:
        return {"t": round(self.t, 3), "event": self.name, "removed": self.removed,
                "dice": self.reading.to_json()["dice"]}

    def describe(self) -> str:
        left = " ".join(str(v) for v in self.reading.values) or "none"
        return f"{self.removed} dice picked up; left on the tray: {left}"


@dataclass(frozen=True)
class TrayEmpty:
    """The tray is still and holds no dice."""

    t: float
    name: ClassVar[str] = "tray_empty"

    def to_json(self) -> dict[str, Any]:
        return {"t": round(self.t, 3), "event": self.name}

    def describe(self) -> str:
        return "tray empty"


@dataclass(frozen=True)
class ForeignObject:
    """A hand, an arm or a cup is in view: no throw can settle until it has gone.
    box is (x0, y0, x1, y1) in frame pixels around what was seen."""

    t: float
    box: tuple[int, int, int, int] | None = None
    still: bool = False  # it lies still in the tray (a cup left upside down, an object)
    name: ClassVar[str] = "hand_in_view"

    def to_json(self) -> dict[str, Any]:
        return {"t": round(self.t, 3), "event": self.name,
                "box": list(self.box) if self.box else None, "still": self.still}

    def describe(self) -> str:
        return "something still in the tray that is not a die" if self.still else "hand or cup in view"


@dataclass(frozen=True)
class ReadingUnstable:
    """The dice look still but two readings of them disagree (or the reader failed); the
    tracker reads again before it reports the throw."""

    t: float = 0.0
    reason: str = ""
    name: ClassVar[str] = "reading_unstable"

    def to_json(self) -> dict[str, Any]:
        return {"t": round(self.t, 3), "event": self.name, "reason": self.reason}

    def describe(self) -> str:
        return f"reading unstable: {self.reason}"


TrackerEvent = Union[MotionStarted, ThrowSettled, DiceRemoved, TrayEmpty, ForeignObject, ReadingUnstable]
