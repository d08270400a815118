"""Synthetic dice scenes with exact labels, for tests, benchmarks and recorded sessions.

    rng = np.random.default_rng(1)
    scene = random_scene(rng)                # 5 dice, 640x480, tops 40-90 px, up to 30 deg tilt
    out = render(scene)                      # out.image (BGR uint8), out.labels (one DieLabel a die)

The dice are cubes with rounded edges seen through a pinhole camera, so oblique views show
their side faces (with the pips a real die has there). A frame sequence is the same frozen
SceneSpec with some fields replaced; the tray, the lights and every die that did not change
are cached, so a frame costs a few milliseconds:

    moved = dataclasses.replace(scene.dice[0], center=(300.0, 200.0), value=6)
    hand = Occluder("hand", center=(500.0, 400.0), size=260.0, angle=-120.0)
    frame = render(dataclasses.replace(scene, dice=(moved, *scene.dice[1:]), occluders=(hand,), seed=7))

`seed` only picks the sensor noise, so each frame of a sequence gets its own.
`write_manifest` and `python -m lab.synth` write scene sets for `cubilete bench vision`.
"""

from .geometry import COCKED_DEG, resting_orientation, turned
from .looks import LOOK_STYLES, random_background, random_die_look, random_lighting, random_occluder
from .manifest import write_manifest
from .placement import overlapping
from .random_scene import random_scene
from .renderer import FACE_NONE, FACE_OCCLUDER, FACE_SIDE, clear_caches, render
from .spec import (BACKGROUND_KINDS, DIE_STYLES, OCCLUDER_KINDS, BackgroundSpec, BlurSpec, CameraSpec, DieLabel,
                   DieSpec, Lamp, LightingSpec, Occluder, Rendered, SceneSpec, TraySpec)

__all__ = [
    "BACKGROUND_KINDS", "COCKED_DEG", "DIE_STYLES", "FACE_NONE", "FACE_OCCLUDER", "FACE_SIDE", "LOOK_STYLES",
    "OCCLUDER_KINDS",
    "BackgroundSpec", "BlurSpec", "CameraSpec", "DieLabel", "DieSpec", "Lamp", "LightingSpec", "Occluder",
    "Rendered", "SceneSpec", "TraySpec", "clear_caches", "random_background", "random_die_look", "random_lighting",
    "overlapping", "random_occluder", "random_scene", "render", "resting_orientation", "turned", "write_manifest",
]
