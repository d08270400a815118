"""Crowded, oblique views: 6 to 15 dice packed close together and seen from the side (the
camera 25 to 50 degrees off vertical), so a near die hides part of the one behind it and
side faces show between the tops, as in photos of a handful of dice taken across a table.
Only the top face is the die's value; a die mostly hidden by its neighbour is labelled so
(`visible`). Neither the game scenes nor `random_scene`'s defaults show such views: their
dice, touching or not, are seen at most 35 degrees off vertical, where a near die hides little
of the one behind. The detector's training script adds them on request (`--crowded N`)."""

from __future__ import annotations

import numpy as np

from .random_scene import first_that_fits, random_scene
from .spec import SceneSpec

CROWDED_TILT_DEG = (25.0, 50.0)  # the camera off vertical
CROWDED_VIEW_DEG = 60.0  # and the dice at most this far off it
CROWDED_DICE = (6, 15)
CROWDED_TOP_PX = (22.0, 95.0)  # their top faces' edges, in a 640 px wide view


def crowded_spec(rng: np.random.Generator) -> SceneSpec | None:
    """A SceneSpec of CROWDED_DICE dice most of which touch a neighbour, seen
    CROWDED_TILT_DEG off vertical. None when the dice did not fit."""
    width, height = [(640, 480), (640, 640), (480, 640)][int(rng.integers(3))]

    def draw() -> SceneSpec | None:
        n = int(rng.integers(CROWDED_DICE[0], CROWDED_DICE[1] + 1))
        lo = float(rng.uniform(CROWDED_TOP_PX[0], 0.6 * CROWDED_TOP_PX[1])) * width / 640
        hi = float(min(CROWDED_TOP_PX[1] * width / 640, lo * rng.uniform(1.0, 1.6)))
        if n * hi * hi > 0.3 * width * height:
            return None
        return random_scene(
            rng, n_dice=n, width=width, height=height, size_range=(lo, hi), touching=True,
            min_tilt_deg=CROWDED_TILT_DEG[0], max_tilt_deg=CROWDED_TILT_DEG[1], max_view_deg=CROWDED_VIEW_DEG,
            cocked_prob=0.05, tray_prob=0.2, occluder_prob=0.1, touch_prob=float(rng.uniform(0.6, 0.95)),
            noise_range=(0.5, 8.0), jpeg_range=(30, 95), blur_prob=0.5)

    return first_that_fits(draw)
