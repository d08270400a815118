"""Close, low views of big dice: the camera 45 to 65 degrees off vertical, so a die's side
faces show as big as its top or bigger, as in photos taken across a table. Only the top face
is the die's value. Neither the reader's game scenes nor `random_scene`'s defaults show such
views; both training scripts add them on request (`--steep N`)."""

from __future__ import annotations

import numpy as np

from .random_scene import first_that_fits, random_scene
from .spec import SceneSpec

STEEP_TILT_DEG = (45.0, 65.0)  # the camera off vertical in "steep" scenes
STEEP_VIEW_DEG = 72.0  # and the dice at most this far off it
STEEP_TOP_PX = (60.0, 200.0)  # their top faces' edges


def steep_spec(rng: np.random.Generator) -> SceneSpec | None:
    """A SceneSpec of 1 to 5 big dice seen close and low (the camera STEEP_TILT_DEG off
    vertical), where a die's side faces show as big as its top or bigger, as in photos taken
    across a table: only the top face is the die's value. None when the dice did not fit."""
    width, height = [(640, 480), (640, 640)][int(rng.integers(2))]

    def draw() -> SceneSpec | None:
        n = int(rng.integers(1, 6))
        lo = float(rng.uniform(STEEP_TOP_PX[0], 0.65 * STEEP_TOP_PX[1]))
        hi = float(min(STEEP_TOP_PX[1], lo * rng.uniform(1.0, 1.5)))
        if n * hi * hi > 0.35 * width * height:
            return None
        return random_scene(
            rng, n_dice=n, width=width, height=height, size_range=(lo, hi), touching=bool(rng.random() < 0.6),
            min_tilt_deg=STEEP_TILT_DEG[0], max_tilt_deg=STEEP_TILT_DEG[1], max_view_deg=STEEP_VIEW_DEG,
            tray_prob=0.2, occluder_prob=0.2, touch_prob=float(rng.uniform(0.2, 0.9)), noise_range=(0.5, 8.0),
            jpeg_range=(20, 95), blur_prob=0.6, styles=("opaque", "translucent", "marbled"))

    return first_that_fits(draw)
