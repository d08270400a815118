"""Scripts for synthetic sessions: what the players do, step by step.

A script is a list of steps. Dice are numbered 0..n-1 for the whole session (physical dice,
not reading order). In JSON (for the demo and the command line):

    {"throw": [3, 3, 5, 1, 6]}          throw every die; they land on these values
    {"throw": [null, null, 4, null, 6]}  pick up dice 2 and 4 and throw them (the rest held)
    {"throw": [...], "off": [3], "cocked": [1], "pause": 1.0}
                                         die 3 rolls off the tray, die 1 lands cocked, and the
                                         player waits 1 s with the dice in the cup (0 = none)
    {"turn": [2]}                        turn die 2 over by hand (v becomes 7 - v)
    {"nudge": 1}                         push die 1 a little by hand (not a throw)
    {"clear": true}                      pick every die up: the turn is over
    {"hand": "pass"}                     a hand passes over the tray and touches nothing
    {"hand": "rest", "seconds": 1.5}     a hand rests still in the tray for a while
    {"pause": 2.0}                       nothing happens for a while

`random_script` makes a seeded game-like script with all of the above.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence, Union

import numpy as np


@dataclass(frozen=True)
class Throw:
    values: tuple[int | None, ...]  # per die: the value it lands on, or None: held, not thrown
    off_tray: tuple[int, ...] = ()  # dice that roll off the tray (out of view)
    cocked: tuple[int, ...] = ()  # dice that land leaning (cocked)
    pause_s: float | None = None  # seconds with the thrown dice in the cup first (None: random)

    @property
    def thrown(self) -> tuple[int, ...]:
        return tuple(i for i, v in enumerate(self.values) if v is not None)


@dataclass(frozen=True)
class TurnOver:
    dice: tuple[int, ...]


@dataclass(frozen=True)
class Nudge:
    die: int


@dataclass(frozen=True)
class ClearTray:
    pass


@dataclass(frozen=True)
class HandPass:
    pass


@dataclass(frozen=True)
class HandRest:
    seconds: float = 1.5


@dataclass(frozen=True)
class Pause:
    seconds: float


Step = Union[Throw, TurnOver, Nudge, ClearTray, HandPass, HandRest, Pause]


class ScriptError(ValueError):
    """A script step that cannot be played; the message names the step."""


def parse_script(steps: Sequence[Any], dice_count: int = 5) -> list[Step]:
    """Steps from their JSON form (see the module docstring). Raises ScriptError."""
    if not isinstance(steps, (list, tuple)):
        raise ScriptError("a script is a list of steps")
    return [_parse_step(number, raw, dice_count) for number, raw in enumerate(steps)]


def _parse_step(number: int, raw: Any, dice_count: int) -> Step:
    where = f"step {number}"
    if not isinstance(raw, dict):
        raise ScriptError(f"{where}: expected an object, got {raw!r}")
    if "throw" in raw:
        values = raw["throw"]
        if not isinstance(values, list) or len(values) != dice_count:
            raise ScriptError(f"{where}: 'throw' needs {dice_count} values (null for a held die)")
        for v in values:
            if v is not None and (not isinstance(v, int) or not 1 <= v <= 6):
                raise ScriptError(f"{where}: die values are 1..6 or null, got {v!r}")
        pause = raw.get("pause")
        if pause is not None and (not isinstance(pause, (int, float)) or pause < 0):
            raise ScriptError(f"{where}: 'pause' must be seconds >= 0")
        return Throw(tuple(values), _dice(raw.get("off", []), where, dice_count),
                     _dice(raw.get("cocked", []), where, dice_count), None if pause is None else float(pause))
    if "turn" in raw:
        return TurnOver(_dice(raw["turn"], where, dice_count))
    if "nudge" in raw:
        return Nudge(_dice([raw["nudge"]], where, dice_count)[0])
    if raw.get("clear"):
        return ClearTray()
    if "hand" in raw:
        if raw["hand"] == "pass":
            return HandPass()
        if raw["hand"] == "rest":
            return HandRest(_seconds(raw.get("seconds", 1.5), where))
        raise ScriptError(f"{where}: 'hand' is 'pass' or 'rest', got {raw['hand']!r}")
    if "pause" in raw:
        return Pause(_seconds(raw["pause"], where))
    raise ScriptError(f"{where}: unknown step {raw!r}")


def _dice(raw: Any, where: str, dice_count: int) -> tuple[int, ...]:
    if not isinstance(raw, list) or not all(isinstance(i, int) and 0 <= i < dice_count for i in raw):
        raise ScriptError(f"{where}: dice are numbered 0..{dice_count - 1}, got {raw!r}")
    return tuple(raw)


def _seconds(raw: Any, where: str) -> float:
    if not isinstance(raw, (int, float)) or not 0 <= raw <= 600:
        raise ScriptError(f"{where}: seconds must be 0..600, got {raw!r}")
    return float(raw)


def script_to_json(steps: Sequence[Step]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for step in steps:
        if isinstance(step, Throw):
            item: dict[str, Any] = {"throw": list(step.values)}
            if step.off_tray:
                item["off"] = list(step.off_tray)
            if step.cocked:
                item["cocked"] = list(step.cocked)
            if step.pause_s is not None:
                item["pause"] = step.pause_s
            out.append(item)
        elif isinstance(step, TurnOver):
            out.append({"turn": list(step.dice)})
        elif isinstance(step, Nudge):
            out.append({"nudge": step.die})
        elif isinstance(step, ClearTray):
            out.append({"clear": True})
        elif isinstance(step, HandPass):
            out.append({"hand": "pass"})
        elif isinstance(step, HandRest):
            out.append({"hand": "rest", "seconds": step.seconds})
        else:
            out.append({"pause": step.seconds})
    return out


def random_script(rng: np.random.Generator, turns: int = 3, dice_count: int = 5, throws: int = 3,
                  extras: bool = True) -> list[Step]:
    """A game-like script: `turns` turns of up to `throws` throws, each turn cleared at its end.
    With `extras`, turns over, nudges, passing and resting hands and dice rolling off the tray
    are mixed in."""
    steps: list[Step] = []
    for turn in range(turns):
        if turn:
            steps.append(ClearTray())
        off: tuple[int, ...] = ()
        values = tuple(int(v) for v in rng.integers(1, 7, dice_count))
        if extras and rng.random() < 0.25:
            off = (int(rng.integers(dice_count)),)
        steps.append(Throw(values, off_tray=off))
        lost = set(off)
        for _ in range(int(rng.integers(1, throws))):
            if extras and rng.random() < 0.3:
                steps.append(HandPass() if rng.random() < 0.6 else HandRest(float(rng.uniform(0.8, 1.6))))
            on_tray = [i for i in range(dice_count) if i not in lost]
            rethrow = set(int(i) for i in rng.choice(on_tray, int(rng.integers(1, len(on_tray) + 1)), replace=False))
            rethrow |= lost  # a die that left the tray is fetched and thrown again
            steps.append(Throw(tuple(int(rng.integers(1, 7)) if i in rethrow else None for i in range(dice_count))))
            lost = set()
        if extras and rng.random() < 0.5:
            steps.append(Nudge(int(rng.integers(dice_count))))
        if extras and rng.random() < 0.6:
            steps.append(TurnOver((int(rng.integers(dice_count)),)))
    return steps
