"""Dice on a board game's board: hexagonal tiles of many colours and patterns, round number
tokens whose dots are as big as a small die's pips, roads and round markers, seen straight down
or across the table, with dice from a few pixels to a tenth of the view. Photos of board games
show such floors and the detector took their tokens for dice; random scenes never draw them
(the board is no surface of `BACKGROUND_KINDS`). The detector's training adds such scenes on
request (`--boards N`)."""

from __future__ import annotations

import dataclasses

import numpy as np

from .random_scene import first_that_fits, random_scene
from .spec import BackgroundSpec, SceneSpec

BOARD_DICE = (1, 6)
BOARD_TOP_PX = (10.0, 70.0)  # the dice' top faces' edges, in a 640 px wide view
BOARD_TILT_DEG = 50.0  # the camera at most this far off vertical


def boards_spec(rng: np.random.Generator) -> SceneSpec | None:
    """A SceneSpec of BOARD_DICE dice on a board game's board (`textures`' "board" floor),
    None when the dice did not fit."""
    width, height = [(640, 480), (640, 640), (480, 640)][int(rng.integers(3))]

    def draw() -> SceneSpec | None:
        n = int(rng.integers(BOARD_DICE[0], BOARD_DICE[1] + 1))
        lo = float(np.exp(rng.uniform(np.log(BOARD_TOP_PX[0]), np.log(0.7 * BOARD_TOP_PX[1])))) * width / 640
        hi = float(min(BOARD_TOP_PX[1] * width / 640, lo * rng.uniform(1.0, 1.4)))
        scene = random_scene(
            rng, n_dice=n, width=width, height=height, size_range=(lo, hi), touching=bool(rng.random() < 0.5),
            max_tilt_deg=float(rng.uniform(0.0, BOARD_TILT_DEG)), tray_prob=0.0, occluder_prob=0.1,
            touch_prob=float(rng.uniform(0.1, 0.6)), noise_range=(0.5, 8.0), jpeg_range=(30, 95), blur_prob=0.5)
        floor = BackgroundSpec(kind="board", bgr=(150.0, 150.0, 150.0), texture=float(rng.uniform(0.5, 1.3)),
                               seed=int(rng.integers(2**31)))
        return dataclasses.replace(scene, background=floor)

    return first_that_fits(draw)
