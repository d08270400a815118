"""How things move in a synthetic session: dice at rest, rolling and sliding, hands and cups.

A die's life is a `DieTimeline`: pieces that each start at a time and describe the die from
then on (lying still, rolling to a stop, pushed along, or gone: in a hand, in the cup, off
the tray). An `OccluderPath` moves a hand, an arm or the cup through key positions.
Everything is a pure function of time, so any frame can be rendered on its own.
"""

from __future__ import annotations

import bisect
import math
from dataclasses import dataclass, field, replace

import numpy as np

from lab.synth import DieSpec, Occluder
from lab.synth.geometry import die_pose, rotation_about

Point = tuple[float, float]


@dataclass(frozen=True)
class Rest:
    """Lying still (flat, or leaning when cocked_deg > 0)."""

    center: Point
    value: int
    angle: float
    cocked_deg: float = 0.0
    cocked_side: int = 0

    def spec(self, template: DieSpec) -> DieSpec:
        return replace(template, center=self.center, value=self.value, angle=self.angle,
                       cocked_deg=self.cocked_deg, cocked_side=self.cocked_side, orientation=None, lift=0.0)


@dataclass(frozen=True)
class Roll:
    """Thrown: from `start` (out of the cup) it bounces and rolls to `end` and stops at t1.

    Constant deceleration (dice slide and roll to a stop quickly); the die turns about the
    horizontal axis across its path, a quarter turn per die side travelled, so the top value
    changes while it rolls and lands on `end.value`.
    """

    t0: float
    t1: float
    start: Point
    end: Rest
    tumble: float = 1.0  # extra quarter turns per side travelled in the air
    bounce: float = 0.8  # height of the first bounce, die sides

    def progress(self, t: float) -> float:
        tau = min(1.0, max(0.0, (t - self.t0) / (self.t1 - self.t0)))
        return 1.0 - (1.0 - tau) ** 2

    def spec(self, template: DieSpec, t: float) -> DieSpec:
        if t >= self.t1:
            return self.end.spec(template)
        tau = max(0.0, (t - self.t0) / (self.t1 - self.t0))
        s = self.progress(t)
        (x0, y0), (x1, y1) = self.start, self.end.center
        x, y = x0 + (x1 - x0) * s, y0 + (y1 - y0) * s
        remaining = math.hypot(x1 - x, y1 - y)
        phi = remaining / template.size * (math.pi / 2) * (1.0 + self.tumble * (1.0 - tau))
        heading = math.atan2(y1 - y0, x1 - x0)
        axis = np.array([-math.sin(heading), math.cos(heading), 0.0])
        rest = die_pose(replace(self.end.spec(template), cocked_deg=0.0))
        rotation = rotation_about(axis, phi) @ rest.rotation
        lift = self.bounce * template.size * abs(math.sin(3 * math.pi * tau)) * (1.0 - tau) ** 3
        return replace(template, center=(x, y), orientation=tuple(float(v) for v in rotation.ravel()),
                       lift=float(lift), cocked_deg=0.0)


@dataclass(frozen=True)
class Slide:
    """Pushed along the tray by a hand from t0 to t1, keeping its value (a nudge)."""

    t0: float
    t1: float
    start: Rest
    end: Rest

    def spec(self, template: DieSpec, t: float) -> DieSpec:
        s = _ease(min(1.0, max(0.0, (t - self.t0) / (self.t1 - self.t0))))
        (x0, y0), (x1, y1) = self.start.center, self.end.center
        angle = self.start.angle + (self.end.angle - self.start.angle) * s
        return replace(self.end, center=(x0 + (x1 - x0) * s, y0 + (y1 - y0) * s), angle=angle).spec(template)


Piece = Rest | Roll | Slide | None


@dataclass
class DieTimeline:
    """One physical die over the whole session. Before its first piece it is not there."""

    template: DieSpec
    starts: list[float] = field(default_factory=list)
    pieces: list[Piece] = field(default_factory=list)

    def add(self, t: float, piece: Piece) -> None:
        if self.starts and t < self.starts[-1]:
            raise ValueError("die pieces must be added in time order")
        self.starts.append(t)
        self.pieces.append(piece)

    def piece_at(self, t: float) -> Piece:
        k = bisect.bisect_right(self.starts, t) - 1
        return None if k < 0 else self.pieces[k]

    def spec_at(self, t: float) -> DieSpec | None:
        piece = self.piece_at(t)
        if piece is None:
            return None
        if isinstance(piece, Rest):
            return piece.spec(self.template)
        return piece.spec(self.template, t)

    def moving_at(self, t: float) -> bool:
        piece = self.piece_at(t)
        return isinstance(piece, (Roll, Slide)) and t < piece.t1


@dataclass(frozen=True)
class OccluderPath:
    """A hand, arm or cup moving through key positions (time, centre) with a fixed look."""

    look: Occluder
    keys: tuple[tuple[float, Point], ...]

    @property
    def t0(self) -> float:
        return self.keys[0][0]

    @property
    def t1(self) -> float:
        return self.keys[-1][0]

    def at(self, t: float) -> Occluder | None:
        if t < self.t0 or t > self.t1:
            return None
        for (ta, pa), (tb, pb) in zip(self.keys, self.keys[1:]):
            if ta <= t <= tb:
                s = _ease((t - ta) / (tb - ta)) if tb > ta else 1.0
                return replace(self.look, center=(pa[0] + (pb[0] - pa[0]) * s, pa[1] + (pb[1] - pa[1]) * s))
        return replace(self.look, center=self.keys[-1][1])

    def moving_at(self, t: float) -> bool:
        for (ta, pa), (tb, pb) in zip(self.keys, self.keys[1:]):
            if ta <= t < tb and pa != pb:
                return True
        return False


def _ease(s: float) -> float:
    """Smooth start and stop (a hand accelerates and brakes)."""
    return s * s * (3.0 - 2.0 * s)
