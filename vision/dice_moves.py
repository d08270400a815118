"""Which dice moved between two settled throws: held, thrown, turned over, or ambiguous.

The scores depend on it: a served hand (servida, de mano) needs every die thrown, the
reglamento locks held dice, Cacho's turned dice must show 7 - v. The tracker gives two
readings and what it saw in between; this module decides, die by die.

Rules (sizes are die sides, from the readings):
- A die matches a die of the previous throw when it lies within `match_radius` of it
  (closest pairs first; dice cannot overlap, so greedy matching is unambiguous).
- held: same value, moved less than `held_distance` and turned less than `held_angle_deg`.
  A thrown die landing there by chance is practically impossible.
- turned: the value is now 7 - v, close to where it was, nothing rolled into place there,
  and no die was thrown in between (Cacho turns dice by hand after a throw has settled);
  also when the flip itself was seen as tumbling, if the die stayed within `turn_distance`
  and no other die was thrown.
- thrown: no previous die nearby; or it rolled into place (free motion seen on it) where
  the previous die had been picked up (its place was seen empty).
- ambiguous: anything else that moved, e.g. a die nudged by a hand or knocked by a rolling
  die, or a 7 - v die in a throw. The players confirm it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Sequence

from .reading import DieReading

HELD, THROWN, TURNED, AMBIGUOUS, NEW = "held", "thrown", "turned", "ambiguous", "new"


@dataclass(frozen=True)
class MoveConfig:
    match_radius: float = 1.0  # die sides: farther than this is not the same die
    held_distance: float = 0.15  # die sides (at least `held_min_px`)
    held_min_px: float = 3.0
    held_angle_deg: float = 10.0
    turn_distance: float = 0.5  # die sides: a die turned over by hand stays about where it was


@dataclass(frozen=True)
class MoveEvidence:
    """What the tracker saw between the two throws.

    tumbled[i]: current die i rolled freely into its place (motion on it away from hands).
    vacated[j]: the place of previous die j was seen empty at some moment (it was lifted).
    """

    tumbled: tuple[bool, ...]
    vacated: tuple[bool, ...]

    @classmethod
    def none(cls, current: int, previous: int) -> "MoveEvidence":
        return cls((False,) * current, (False,) * previous)


@dataclass(frozen=True)
class DiceMoves:
    """moved[i] for current die i; previous[i] is the index of the previous die it matched."""

    moved: tuple[str, ...]
    previous: tuple[int | None, ...]
    missing: tuple[int, ...]  # previous dice matched by no current die

    @property
    def unchanged(self) -> bool:
        """Every die held and none gone: nothing happened."""
        return all(m == HELD for m in self.moved) and not self.missing

    @property
    def only_removed(self) -> bool:
        """Some dice were taken away and the rest did not move."""
        return all(m == HELD for m in self.moved) and bool(self.missing)


def match_dice(previous: Sequence[DieReading], current: Sequence[DieReading],
               radius: float) -> list[int | None]:
    """For each current die, the index of the previous die it is (or None), closest first."""
    pairs = []
    for i, now in enumerate(current):
        for j, before in enumerate(previous):
            size = _size(now, before)
            distance = _distance(now, before) / size
            if distance <= radius:
                pairs.append((distance, i, j))
    pairs.sort()
    matched: list[int | None] = [None] * len(current)
    taken: set[int] = set()
    for _, i, j in pairs:
        if matched[i] is None and j not in taken:
            matched[i] = j
            taken.add(j)
    return matched


def classify_moves(previous: Sequence[DieReading], current: Sequence[DieReading],
                   evidence: MoveEvidence | None = None, config: MoveConfig = MoveConfig()) -> DiceMoves:
    """Held / thrown / turned / ambiguous for each current die, relative to the previous throw."""
    evidence = evidence or MoveEvidence.none(len(current), len(previous))
    matched = match_dice(previous, current, config.match_radius)
    stayed = [j is not None and _stayed(previous[j], current[i], config) for i, j in enumerate(matched)]
    throws = [j is None or (evidence.tumbled[i] and not stayed[i]) for i, j in enumerate(matched)]
    thrown_somewhere = any(throws)
    moved: list[str] = []
    for i, j in enumerate(matched):
        now = current[i]
        if j is None:
            moved.append(THROWN)
        elif stayed[i]:
            moved.append(HELD)
        elif evidence.tumbled[i] and _turned_in_place(previous[j], now, config) and not any(
                thrown for k, thrown in enumerate(throws) if k != i):
            # A die flipped over by hand tumbles and leaves its place for a moment too; one
            # die showing 7 - v where it lay, and nothing else thrown, is a turn (confirmed).
            moved.append(TURNED)
        elif evidence.tumbled[i]:
            moved.append(THROWN if evidence.vacated[j] else AMBIGUOUS)
        elif now.value == 7 - previous[j].value:
            moved.append(AMBIGUOUS if thrown_somewhere else TURNED)
        elif evidence.vacated[j] and thrown_somewhere and now.value != previous[j].value:
            moved.append(THROWN)  # revealed by a lifted cup where a picked-up die had been
        else:
            moved.append(AMBIGUOUS)
    taken = {j for j in matched if j is not None}
    missing = tuple(j for j in range(len(previous)) if j not in taken)
    return DiceMoves(tuple(moved), tuple(matched), missing)


def _turned_in_place(before: DieReading, now: DieReading, config: MoveConfig) -> bool:
    return now.value == 7 - before.value and _distance(now, before) <= config.turn_distance * _size(now, before)


def _stayed(before: DieReading, now: DieReading, config: MoveConfig) -> bool:
    if before.value != now.value:
        return False
    tolerance = max(config.held_min_px, config.held_distance * _size(now, before))
    if _distance(now, before) > tolerance:
        return False
    return _angle_difference(before.angle, now.angle) <= config.held_angle_deg


def _size(a: DieReading, b: DieReading) -> float:
    sizes = [s for s in (a.size, b.size) if s > 0]
    return sum(sizes) / len(sizes) if sizes else 1.0


def _distance(a: DieReading, b: DieReading) -> float:
    return math.hypot(a.center[0] - b.center[0], a.center[1] - b.center[1])


def _angle_difference(a: float, b: float) -> float:
    """Difference of two die rotations: a square looks the same every 90 degrees."""
    difference = abs(a - b) % 90.0
    return min(difference, 90.0 - difference)
