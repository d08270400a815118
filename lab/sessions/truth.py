"""The ground truth of a synthetic session, a reader that knows it, and scoring tracker events.

The truth (session.json "truth", written by lab.sessions.synth) lists every moment the
scene comes to rest (`settles`: t_stop, what the tracker should report, the dice with their
values, image positions and moves), plus the intervals when dice moved and hands were in view.

`TruthReader` answers like `vision.read_dice` from the truth (tests and the bench use it to
measure the tracker alone, without the reader's own errors). `score_events` compares what a
tracker reported with the truth.
"""

from __future__ import annotations

import bisect
import math
from dataclasses import dataclass, field
from typing import Any, Sequence

import numpy as np

from vision.reading import DieReading, Reading
from vision.tracker_events import DiceRemoved, ThrowSettled, TrackerEvent, TrayEmpty

# The event names the truth uses for what the tracker should report.
EXPECTED_EVENTS = {"settled": ThrowSettled.name, "dice_removed": DiceRemoved.name, "tray_empty": TrayEmpty.name}


class TruthReader:
    """A reader that returns the true dice of the scene at `self.t` (set it before each feed)."""

    def __init__(self, truth: dict[str, Any]) -> None:
        self.settles = truth["settles"]
        self._starts = [s["t_stop"] for s in self.settles]
        self.t = 0.0

    def __call__(self, image: np.ndarray, expected: int | None = None) -> Reading:
        k = bisect.bisect_right(self._starts, self.t + 1e-9) - 1
        if k < 0:
            return Reading()
        return Reading(tuple(DieReading(
            value=d["value"], center=(d["center"][0], d["center"][1]), size=d["size"], angle=d["angle"],
            confidence=1.0, cocked=d["cocked"]) for d in sorted(self.settles[k]["dice"],
                                                               key=lambda d: (d["center"][1], d["center"][0]))))


@dataclass
class Score:
    """How a tracker's events compare with the truth."""

    expected: int = 0  # settles the tracker had to report
    matched: int = 0  # ... and did, with the right kind of event
    missed: list[str] = field(default_factory=list)  # descriptions of the ones it did not
    extra: list[str] = field(default_factory=list)  # settle events nothing called for
    while_moving: list[str] = field(default_factory=list)  # settle events while a die moved
    while_hand: list[str] = field(default_factory=list)  # settle events with a hand in view
    latencies: list[float] = field(default_factory=list)  # event t - t_stop, seconds
    dice: int = 0  # dice compared in matched settled events
    values_right: int = 0
    moves_right: int = 0
    moves_ambiguous: int = 0  # "ambiguous" where the truth says held/thrown/turned: asked, not wrong
    move_errors: list[str] = field(default_factory=list)
    value_errors: list[str] = field(default_factory=list)
    dice_missing: int = 0  # true dice the tracker's reading did not have

    def add(self, other: "Score") -> None:
        for name, value in vars(other).items():
            mine = getattr(self, name)
            setattr(self, name, mine + value)


def score_events(truth: dict[str, Any], events: Sequence[TrackerEvent]) -> Score:
    score = Score()
    settle_events = [e for e in events if e.name in EXPECTED_EVENTS.values()]
    used: set[int] = set()
    for record in truth["settles"]:
        expect = record["expect"]
        window = (record["t_stop"] - 1e-6, record["t_next"] + 1e-6)
        found = [k for k, e in enumerate(settle_events) if window[0] <= e.t <= window[1] and k not in used]
        if expect is None:
            continue
        wanted = EXPECTED_EVENTS[expect]
        match = next((k for k in found if settle_events[k].name == wanted), None)
        if record.get("optional") and match is None:
            continue
        score.expected += 1
        if match is None:
            score.missed.append(f"{expect} at {record['t_stop']:.2f}s ({record.get('step')})")
            continue
        used.add(match)
        score.matched += 1
        event = settle_events[match]
        score.latencies.append(event.t - record["t_stop"])
        if isinstance(event, ThrowSettled):
            _score_dice(score, record, event)
    for k, event in enumerate(settle_events):
        if k in used:
            continue
        if any(e["expect"] is None and e["t_stop"] <= event.t <= e["t_next"] for e in truth["settles"]):
            # a settle where nothing should be reported (a hand passed): reported anyway
            score.extra.append(f"{event.name} at {event.t:.2f}s")
        elif not _inside_any(event.t, truth["motion"]) and not _inside_any(event.t, truth["hands"]):
            score.extra.append(f"{event.name} at {event.t:.2f}s")
    for event in settle_events:
        if _inside_any(event.t, truth["motion"]):
            score.while_moving.append(f"{event.name} at {event.t:.2f}s")
        if _inside_any(event.t, truth["hands"]):
            score.while_hand.append(f"{event.name} at {event.t:.2f}s")
    return score


def _inside_any(t: float, intervals: Sequence[Sequence[float]]) -> bool:
    return any(a < t < b for a, b in intervals)


def _score_dice(score: Score, record: dict[str, Any], event: ThrowSettled) -> None:
    """Pair the event's dice with the true dice by position and compare values and moves."""
    dice = list(event.reading.dice)
    taken: set[int] = set()
    for true in record["dice"]:
        best, best_distance = None, 0.5 * true["size"]
        for k, die in enumerate(dice):
            distance = math.dist(die.center, true["center"])
            if k not in taken and distance <= best_distance:
                best, best_distance = k, distance
        where = f"{event.t:.2f}s die {true['id']} ({true['value']} at {true['center'][0]:.0f},{true['center'][1]:.0f})"
        if best is None:
            score.dice_missing += 1
            continue
        taken.add(best)
        score.dice += 1
        if dice[best].value == true["value"]:
            score.values_right += 1
        else:
            score.value_errors.append(f"{where}: read {dice[best].value}")
        moved = event.moved[best]
        if moved == true["moved"]:
            score.moves_right += 1
        elif moved == "ambiguous":
            score.moves_ambiguous += 1
            score.move_errors.append(f"{where}: {true['moved']} reported as ambiguous")
        else:
            score.move_errors.append(f"{where}: {true['moved']} reported as {moved}")
