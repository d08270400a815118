"""The order to draw dice in, far to near, so nearer dice hide the ones behind them.

Sorting by depth of the dice's centres fails for dice side by side under an oblique view:
a die can be nearer the camera's axis yet stand behind its neighbour. For two solids with
disjoint footprints there is a vertical plane between them, and the one on the camera's
side of it is in front. Those pairwise facts are put in order with a topological sort.
"""

from __future__ import annotations

import numpy as np

from .geometry import Camera, DiePose


def _separating_axis(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, float] | None:
    """A unit axis along which footprint a lies before b (a . axis <= t <= b . axis), and t."""
    best = None
    for poly in (a, b):
        edges = np.roll(poly, -1, axis=0) - poly
        for ex, ey in edges:
            n = np.array([ey, -ex])
            length = np.hypot(*n)
            if length < 1e-9:
                continue
            n /= length
            pa, pb = a @ n, b @ n
            for axis, gap, cut in ((n, pb.min() - pa.max(), (pb.min() + pa.max()) / 2),
                                   (-n, pa.min() - pb.max(), -(pa.min() + pb.max()) / 2)):
                if gap > -1e-6 and (best is None or gap > best[0]):
                    best = (gap, axis, cut)
    return None if best is None else (best[1], best[2])


def _in_front(a: DiePose, b: DiePose, foot: np.ndarray, camera: Camera) -> bool:
    """Whether die a hides (part of) die b rather than the other way round."""
    found = _separating_axis(a.footprint(), b.footprint())
    if found is None:  # one above the other (tumbling): the higher is nearer
        return float(camera.depth(a.center[None])[0]) < float(camera.depth(b.center[None])[0])
    axis, cut = found
    return float(foot @ axis) <= cut  # the camera stands on a's side of the plane


def draw_order(poses: list[DiePose], boxes: list[tuple[float, float, float, float]], camera: Camera) -> list[int]:
    """Indices of the dice, farthest first. `boxes` are their image bounding boxes: only dice
    whose boxes overlap need ordering against each other."""
    n = len(poses)
    foot = camera.position[:2]
    depth = [float(camera.depth(p.center[None])[0]) for p in poses]
    behind: list[set[int]] = [set() for _ in range(n)]  # behind[i]: dice i hides, drawn before i
    for i in range(n):
        for j in range(i + 1, n):
            bi, bj = boxes[i], boxes[j]
            if bi[0] > bj[2] or bj[0] > bi[2] or bi[1] > bj[3] or bj[1] > bi[3]:
                continue
            if _in_front(poses[i], poses[j], foot, camera):
                behind[i].add(j)
            else:
                behind[j].add(i)
    order: list[int] = []
    done: set[int] = set()
    pending = sorted(range(n), key=lambda k: -depth[k])
    while pending:
        # the farthest die with nothing left behind it; on a cycle, the farthest one
        pick = next((k for k in pending if behind[k] <= done), pending[0])
        order.append(pick)
        done.add(pick)
        pending.remove(pick)
    return order
