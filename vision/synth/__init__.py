"""Synthetic dice scenes with exact labels, for tests, benchmarks and recorded sessions.

    from vision.synth import random_scene, render
    scene = random_scene(np.random.default_rng(1))
    out = render(scene)          # out.image (BGR uint8), out.labels (DieLabel per die)

A scene is a frozen SceneSpec: change dice or the seed with dataclasses.replace to make
the frames of a sequence; the tray, lights and camera are rendered once and cached.
"""

from .geometry import COCKED_DEG, resting_orientation, turned
from .manifest import write_manifest
from .looks import random_background, random_die_look, random_lighting, random_occluder
from .random_scene import random_scene
from .renderer import FACE_NONE, FACE_OCCLUDER, FACE_SIDE, clear_caches, render
from .spec import (BACKGROUND_KINDS, DIE_STYLES, OCCLUDER_KINDS, BackgroundSpec, BlurSpec, CameraSpec, DieLabel,
                   DieSpec, Lamp, LightingSpec, Occluder, Rendered, SceneSpec, TraySpec)

__all__ = [
    "BACKGROUND_KINDS", "COCKED_DEG", "DIE_STYLES", "FACE_NONE", "FACE_OCCLUDER", "FACE_SIDE", "OCCLUDER_KINDS",
    "BackgroundSpec", "BlurSpec", "CameraSpec", "DieLabel", "DieSpec", "Lamp", "LightingSpec", "Occluder",
    "Rendered", "SceneSpec", "TraySpec", "clear_caches", "random_background", "random_die_look", "random_lighting",
    "random_occluder", "random_scene", "render", "resting_orientation", "turned", "write_manifest",
]
