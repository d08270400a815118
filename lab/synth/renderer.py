"""Render a SceneSpec to a BGR image with exact labels.

Order of work, far to near: the lit empty tray (cached per scene, see base.py); every die's
cast and contact shadow; the dice as textured cubes seen through the pinhole camera,
farthest first (sprites.py, cached per die); hands and cup; then the camera: blur, sensor
noise, JPEG. A frame of a sequence where nothing but a few dice changed only builds the
sprites of those dice.
"""

from __future__ import annotations

import cv2
import numpy as np

from . import sprites
from .base import _BASE_CACHE, base_layer
from .effects import FACE_OCCLUDER, camera_effects, draw_occluders
from .geometry import COCKED_DEG
from .order import draw_order
from .spec import DieLabel, DieSpec, Rendered, SceneSpec
from .textures import face_texture
from .sprites import OWN_SIDE, OWN_TOP, DieSprite, Layer, die_sprite

FACE_SIDE = 250  # face_map value: a side face of some die
FACE_NONE = 255  # face_map value: the tray
__all__ = ["FACE_NONE", "FACE_OCCLUDER", "FACE_SIDE", "clear_caches", "render"]


def clear_caches() -> None:
    """Forget the cached trays, die sprites and face textures (to measure cold renders)."""
    _BASE_CACHE.clear()
    sprites.clear_cache()
    face_texture.cache_clear()


def _blend(frame: np.ndarray, layer: Layer) -> None:
    x0, y0, x1, y1 = layer.roi
    region = frame[y0:y1, x0:x1]
    region *= layer.keep
    region += layer.add


def render(scene: SceneSpec) -> Rendered:
    """Render a scene. Deterministic: the same SceneSpec always gives the same image."""
    base = base_layer(scene)
    light = scene.lighting
    frame = base.image.copy()
    face_map = np.full((scene.height, scene.width), FACE_NONE, np.uint8)
    sprites = [die_sprite(d, base, light.shadow_strength, light.ambient) for d in scene.dice]
    for sprite in sprites:
        if sprite.shadow is not None:
            _blend(frame, sprite.shadow)
    boxes = [s.body.roi if s.body is not None else (0, 0, 0, 0) for s in sprites]
    for i in draw_order([s.pose for s in sprites], boxes, base.camera):
        body = sprites[i].body
        if body is not None:
            _blend(frame, body)
            x0, y0, x1, y1 = body.roi
            region = face_map[y0:y1, x0:x1]
            region[body.owner == OWN_SIDE] = FACE_SIDE
            region[body.owner == OWN_TOP] = i
    if scene.occluders:
        draw_occluders(frame, face_map, scene, base)
    image = camera_effects(frame, scene)
    jpeg = None
    if scene.jpeg_quality is not None:
        ok, encoded = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, int(scene.jpeg_quality)])
        if not ok:
            raise RuntimeError("OpenCV could not encode the frame as JPEG")
        jpeg = encoded.tobytes()
        image = cv2.imdecode(encoded, cv2.IMREAD_COLOR)
    labels = [_label(i, d, s, face_map) for i, (d, s) in enumerate(zip(scene.dice, sprites))]
    return Rendered(image=image, labels=labels, face_map=face_map, jpeg=jpeg)


def _label(index: int, die: DieSpec, sprite: DieSprite, face_map: np.ndarray) -> DieLabel:
    top = sprite.top
    visible = 0.0
    if top.pixels:
        x0, y0, x1, y1 = top.box
        bx0, by0 = max(0, int(x0) - 1), max(0, int(y0) - 1)
        seen = int(np.count_nonzero(face_map[by0:int(y1) + 2, bx0:int(x1) + 2] == index))
        visible = min(1.0, seen / top.pixels) * top.in_frame
    return DieLabel(index=index, value=top.value, center=top.center, box=top.box, size=top.size, angle=top.angle,
                    cocked=top.tilt_deg > COCKED_DEG or die.lift > 0.5, visible=visible, tilt_deg=top.tilt_deg)
