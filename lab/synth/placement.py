"""Placing dice on the tray without overlaps, against each other or against the rim.

Dice never overlap: their footprints (the outline of the solid seen from straight above)
may touch but not intersect, which is enough for two solids standing on the tray not to
intersect either.
"""

from __future__ import annotations

import dataclasses
import math

import cv2
import numpy as np

from .geometry import Camera, die_pose
from .spec import DieSpec, TraySpec

def overlap(a: np.ndarray, b: np.ndarray) -> bool:
    area, _ = cv2.intersectConvexConvex(a.astype(np.float32), b.astype(np.float32))
    return area > 1e-3  # a corner poking 0.03 px into a neighbour


def world_size(camera: Camera, xy: tuple[float, float], image_size: float) -> float:
    """Edge length that makes a die at xy show a top face of about image_size px."""
    s = image_size
    for _ in range(3):
        depth = float(camera.depth(np.array([[xy[0], xy[1], -s]]))[0])
        s = image_size * depth / camera.focal
    return s


def view_angle_deg(camera: Camera, point: np.ndarray) -> float:
    """Angle between the vertical and the camera's line of sight to a point."""
    sight = camera.position - np.asarray(point, float)
    return math.degrees(math.acos(min(1.0, -sight[2] / float(np.linalg.norm(sight)))))


class Placer:
    """Places dice one by one without overlaps, inside the image and the tray."""

    def __init__(self, camera: Camera, width: int, height: int, tray: TraySpec | None, min_gap: float,
                 max_view_deg: float = 90.0):
        self.camera, self.width, self.height, self.tray = camera, width, height, tray
        self.min_gap = min_gap
        self.max_view_deg = max_view_deg
        self.placed: list[tuple[DieSpec, np.ndarray]] = []
        self.floor_to_plane = camera.image_to_plane(0.0)

    def fits(self, die: DieSpec, against_wall: int | None = None) -> bool:
        pose = die_pose(die)
        if view_angle_deg(self.camera, pose.center) > self.max_view_deg:
            return False
        img = self.camera.project(pose.corners())
        m = 3.0
        if img.min() < m or img[:, 0].max() > self.width - 1 - m or img[:, 1].max() > self.height - 1 - m:
            return False
        foot = pose.footprint()
        if self.tray is not None:
            # keep off the walls (a near wall would hide the die), except the one leant on
            keep = [self.tray.wall_height * 1.8 + 2] * 4
            if against_wall is not None:
                keep[against_wall] = -0.01
            x0, y0, x1, y1 = self.tray.inner
            if foot[:, 1].min() < y0 + keep[0] or foot[:, 0].max() > x1 - keep[1]:
                return False
            if foot[:, 1].max() > y1 - keep[2] or foot[:, 0].min() < x0 + keep[3]:
                return False
        grown = self._grow(foot, self.min_gap)
        return not any(overlap(grown, other) for _, other in self.placed)

    @staticmethod
    def _grow(foot: np.ndarray, gap: float) -> np.ndarray:
        if gap <= 0:
            return foot
        c = foot.mean(axis=0)
        d = foot - c
        n = np.linalg.norm(d, axis=1, keepdims=True)
        return c + d * (n + gap) / n

    def add(self, die: DieSpec) -> None:
        self.placed.append((die, die_pose(die).footprint()))

    def random_point(self, rng: np.random.Generator) -> tuple[float, float]:
        p = np.array([[rng.uniform(0, self.width - 1), rng.uniform(0, self.height - 1)]])
        x, y = (self.floor_to_plane @ np.array([p[0, 0], p[0, 1], 1.0]))[:2] / (
            self.floor_to_plane @ np.array([p[0, 0], p[0, 1], 1.0]))[2]
        return float(x), float(y)

    def visible_walls(self) -> list[int]:
        """Walls (0 top, 1 right, 2 bottom, 3 left of the tray plane) whose inner face the
        camera sees: a die leaning on one of them is not hidden behind it."""
        if self.tray is None:
            return []
        x0, y0, x1, y1 = self.tray.inner
        h = self.tray.wall_height / 2
        walls = [((x0 + x1) / 2, y0, (0, 1)), (x1, (y0 + y1) / 2, (-1, 0)), ((x0 + x1) / 2, y1, (0, -1)),
                 (x0, (y0 + y1) / 2, (1, 0))]
        return [k for k, (x, y, n) in enumerate(walls)
                if self.camera.faces_camera(np.array([x, y, -h]), np.array([n[0], n[1], 0.0]))]

    def against_wall(self, die: DieSpec, wall: int, along: float) -> DieSpec:
        """Move `die` so its footprint touches the inner face of `wall`, `along` (0..1) the way along it."""
        x0, y0, x1, y1 = self.tray.inner
        foot = die_pose(die).footprint() - np.array(die.center)
        if wall in (0, 2):
            x = x0 + (x1 - x0) * along
            y = y0 - foot[:, 1].min() if wall == 0 else y1 - foot[:, 1].max()
        else:
            y = y0 + (y1 - y0) * along
            x = x1 - foot[:, 0].max() if wall == 1 else x0 - foot[:, 0].min()
        return dataclasses.replace(die, center=(float(x), float(y)))

    def next_to(self, die: DieSpec, other: DieSpec, direction: float, gap: float) -> DieSpec:
        """Slide `die` out from `other`'s centre along `direction` until it just clears it."""
        ux, uy = math.cos(direction), math.sin(direction)
        other_foot = die_pose(other).footprint()
        lo, hi = 0.0, (die.size + other.size) * 1.2

        def at(t: float) -> DieSpec:
            return dataclasses.replace(die, center=(other.center[0] + ux * t, other.center[1] + uy * t))

        for _ in range(18):
            mid = (lo + hi) / 2
            if overlap(die_pose(at(mid)).footprint(), other_foot):
                lo = mid
            else:
                hi = mid
        return at(hi + gap)


def overlapping(dice: tuple[DieSpec, ...] | list[DieSpec]) -> list[tuple[int, int]]:
    """Pairs of dice (indices) whose solids would intersect: footprints overlapping while
    both stand within a die's height of the tray. Use it to check hand-made frames."""
    feet = [die_pose(d).footprint() for d in dice]
    pairs = []
    for i in range(len(dice)):
        for j in range(i + 1, len(dice)):
            apart_in_height = abs(dice[i].lift - dice[j].lift) >= max(dice[i].size, dice[j].size)
            if not apart_in_height and overlap(feet[i], feet[j]):
                pairs.append((i, j))
    return pairs
