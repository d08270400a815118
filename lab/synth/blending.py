"""Dice the colour of their floor: a dark die on a dark cup or leather, a white one on a white
tray, a red one on red felt, where the body hardly stands out and only the pips and the
shading tell a die from the floor. Random scenes draw the floor and the dice apart, so they
seldom show this; the detector's training adds such scenes on request (`--blending N`)."""

from __future__ import annotations

import dataclasses

import numpy as np

from .looks import choice, random_die_look
from .random_scene import first_that_fits, random_scene
from .spec import BackgroundSpec, SceneSpec

BLENDING_LIGHTNESS = (0.75, 1.25)  # the floor's colour: the dice' times this
BLENDING_FLOORS = ("felt", "leather", "plastic", "card")  # plain ones: wood's grain would stand out


def _scaled(bgr: tuple, factor: float, rng: np.random.Generator, jitter: float) -> tuple[float, float, float]:
    return tuple(float(np.clip(c * factor + rng.normal(0, jitter), 0, 255)) for c in bgr)


def blending_spec(rng: np.random.Generator) -> SceneSpec | None:
    """A SceneSpec of 1 to 8 opaque dice of one colour on a floor of nearly that colour
    (BLENDING_LIGHTNESS), their pips the colours that set's makers give it, in 640x480 or
    640x640 views whose dice measure 20 to 160 px. None when the dice did not fit."""
    width, height = [(640, 480), (640, 640)][int(rng.integers(2))]
    look = random_die_look(rng, ("opaque",))
    body, pip = look["body_bgr"], look["pip_bgr"]

    def draw() -> SceneSpec | None:
        n = int(rng.integers(1, 9))
        lo = float(rng.uniform(20, 110))
        hi = float(min(160.0, lo * rng.uniform(1.0, 1.5)))
        if n * hi * hi > 0.3 * width * height:
            return None
        scene = random_scene(
            rng, n_dice=n, width=width, height=height, size_range=(lo, hi),
            max_tilt_deg=float(rng.choice([0.0, 15.0, 30.0])), tray_prob=0.2, occluder_prob=0.15,
            touch_prob=float(rng.uniform(0.2, 0.9)), styles=("opaque",), matched_set_prob=1.0)
        dice = tuple(dataclasses.replace(d, body_bgr=_scaled(body, 1.0, rng, 4), pip_bgr=_scaled(pip, 1.0, rng, 4))
                     for d in scene.dice)
        floor = BackgroundSpec(kind=choice(rng, BLENDING_FLOORS),
                               bgr=_scaled(body, float(rng.uniform(*BLENDING_LIGHTNESS)), rng, 8),
                               texture=float(rng.uniform(0.3, 1.0)), seed=int(rng.integers(2**31)))
        return dataclasses.replace(scene, dice=dice, background=floor)

    return first_that_fits(draw)
