"""What the reader says about one image: the dice it found and the problems it saw.

These types are the contract between the reader, the throw tracker and the firmware.
They know nothing of games.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

# A die read with less confidence than this is unsure: shown to the players to confirm,
# never scored silently.
SURE_CONFIDENCE = 0.9


@dataclass(frozen=True)
class DieReading:
    """One die: its top-face value and where its top face is in the image."""

    value: int  # 1..6, the best reading of the top face
    center: tuple[float, float]  # centre of the top face, pixels (x, y)
    size: float  # side of the top face, pixels
    angle: float  # rotation of the top face, degrees in [0, 90)
    confidence: float  # 0..1, calibrated: how often a die read like this is right
    alternatives: tuple[int, ...] = ()  # other values it could be, most likely first
    cocked: bool = False  # top face not flat to the camera: the die must be rethrown

    @property
    def sure(self) -> bool:
        return self.confidence >= SURE_CONFIDENCE and not self.cocked

    def to_json(self) -> dict[str, Any]:
        return {
            "value": self.value,
            "center": [round(self.center[0], 1), round(self.center[1], 1)],
            "size": round(self.size, 1),
            "angle": round(self.angle, 1),
            "confidence": round(self.confidence, 3),
            "alternatives": list(self.alternatives),
            "cocked": self.cocked,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> "DieReading":
        return cls(
            value=int(data["value"]),
            center=(float(data["center"][0]), float(data["center"][1])),
            size=float(data.get("size", 0.0)),
            angle=float(data.get("angle", 0.0)),
            confidence=float(data["confidence"]),
            alternatives=tuple(int(v) for v in data.get("alternatives", ())),
            cocked=bool(data.get("cocked", False)),
        )


@dataclass(frozen=True)
class Problem:
    """Something the players should look at. `kind` is one of:
    "count" (expected n dice, found m), "unsure" (a die that may be another value),
    "cocked" (a die not flat), "unreadable" (the image could not be read)."""

    kind: str
    message: str  # English, e.g. "die at (312, 188) unsure: 5 or 6"
    die: int | None = None  # index into Reading.dice when the problem is about one die

    def __str__(self) -> str:
        return self.message


def die_problems(dice: "tuple[DieReading, ...] | list[DieReading]") -> list[Problem]:
    """What the players should check about each die: a cocked die, or an unsure one with the
    values it may be."""
    problems = []
    for index, die in enumerate(dice):
        where = f"die at ({die.center[0]:.0f}, {die.center[1]:.0f})"
        if die.cocked:
            problems.append(Problem("cocked", f"{where} looks cocked", index))
        elif die.confidence < SURE_CONFIDENCE:
            options = " or ".join(str(v) for v in (die.value, *die.alternatives[:2]))
            problems.append(Problem("unsure", f"{where} unsure: {options}", index))
    return problems


@dataclass(frozen=True)
class Reading:
    """The dice found in one image, in reading order (top to bottom, left to right)."""

    dice: tuple[DieReading, ...] = ()
    problems: tuple[Problem, ...] = field(default=())

    @property
    def values(self) -> tuple[int, ...]:
        return tuple(d.value for d in self.dice)

    @property
    def sure(self) -> bool:
        """True when every die is sure and nothing else is wrong."""
        return not self.problems and all(d.sure for d in self.dice)

    def to_json(self) -> dict[str, Any]:
        return {
            "dice": [d.to_json() for d in self.dice],
            "problems": [p.message for p in self.problems],
            "problem_details": [
                {"kind": p.kind, "message": p.message, "die": p.die} for p in self.problems
            ],
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> "Reading":
        details = data.get("problem_details")
        if details is None:
            details = [{"kind": "other", "message": m, "die": None} for m in data.get("problems", [])]
        return cls(
            dice=tuple(DieReading.from_json(d) for d in data.get("dice", [])),
            problems=tuple(Problem(p["kind"], p["message"], p.get("die")) for p in details),
        )
