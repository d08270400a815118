"""The lit, empty tray as the camera sees it: surface, rim, lamp light, glare, camera gain.

It is what stays the same from frame to frame of a sequence, so it is built once per
(size, background, lighting, camera, tray) and cached.
"""

from __future__ import annotations

import math
from collections import OrderedDict
from dataclasses import dataclass

import cv2
import numpy as np

from .geometry import UP, Camera, apply_homography
from .spec import BackgroundSpec, Lamp, SceneSpec
from .textures import background_texture

_BASE_CACHE: OrderedDict[tuple, "Base"] = OrderedDict()
_BASE_CACHE_SIZE = 3


@dataclass(frozen=True, eq=False)
class Base:
    key: tuple  # what the base was built from; part of the die sprites' cache key
    camera: Camera
    lamps: tuple[Lamp, ...]
    image: np.ndarray  # float32 BGR: the lit, empty tray as the camera sees it
    gain: np.ndarray  # float32 BGR: exposure, tint, gradient and vignette per pixel


def base_key(scene: SceneSpec) -> tuple:
    return (scene.width, scene.height, scene.background, scene.lighting, scene.camera, scene.tray)


def scene_lamps(scene: SceneSpec, camera: Camera) -> tuple[Lamp, ...]:
    if scene.lighting.lamps:
        return scene.lighting.lamps
    return (Lamp(scene.width / 2, scene.height / 2, 2.5 * camera.focal, 60.0, 1.0),)


def irradiance(points: np.ndarray, normals: np.ndarray, lamp: Lamp, ambient: float) -> np.ndarray:
    """Light falling on surfaces (N points, N normals), 1.0 on the tray right under the lamp."""
    lamp_pos = np.array([lamp.x, lamp.y, -lamp.height])
    to_lamp = lamp_pos - points
    dist = np.linalg.norm(to_lamp, axis=-1)
    cos = np.clip(np.sum(to_lamp * normals, axis=-1) / dist, 0, 1)
    return ambient + (1 - ambient) * lamp.intensity * cos * (lamp.height / dist) ** 2


def _camera_gain(scene: SceneSpec) -> np.ndarray:
    w, h = scene.width, scene.height
    light = scene.lighting
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    nx, ny = (xx - w / 2) / (w / 2), (yy - h / 2) / (h / 2)
    gain = np.full((h, w), light.exposure, np.float32)
    if light.gradient:
        a = math.radians(light.gradient_deg)
        gain *= 1 + light.gradient * (nx * math.cos(a) + ny * math.sin(a)) / math.sqrt(2)
    if light.vignette:
        r2 = (nx * nx * w * w + ny * ny * h * h) / (w * w + h * h)
        gain *= 1 - light.vignette * r2
    return gain[..., None] * np.array(light.tint_bgr, np.float32)


def _surface(spec: BackgroundSpec, camera: Camera, width: int, height: int, homography: np.ndarray) -> np.ndarray:
    """A background surface warped into the image (float32 BGR)."""
    corners = np.array([[0, 0], [width - 1, 0], [width - 1, height - 1], [0, height - 1]], float)
    plane = apply_homography(np.linalg.inv(homography), corners)
    cap = 3 * max(width, height)
    x0, y0 = np.clip(plane.min(axis=0), [width / 2 - cap, height / 2 - cap], None) - 2
    x1, y1 = np.clip(plane.max(axis=0), None, [width / 2 + cap, height / 2 + cap]) + 2
    area = (x1 - x0) * (y1 - y0)
    scale = float(np.clip(np.sqrt(2.0 * width * height / area), 0.75, 1.0))
    tex = background_texture(spec, int((x1 - x0) * scale) + 1, int((y1 - y0) * scale) + 1, scale)
    shift = np.array([[1 / scale, 0, x0], [0, 1 / scale, y0], [0, 0, 1]])
    return cv2.warpPerspective(tex, homography @ shift, (width, height), flags=cv2.INTER_LINEAR,
                               borderMode=cv2.BORDER_REFLECT)


def _fill(image: np.ndarray, polygon: np.ndarray, colour: np.ndarray) -> None:
    """Anti-aliased fill of a polygon (image px) with a colour or an image of colours."""
    h, w = image.shape[:2]
    x0, y0 = np.clip(np.floor(polygon.min(axis=0)).astype(int) - 1, 0, None)
    x1, y1 = np.minimum(np.ceil(polygon.max(axis=0)).astype(int) + 2, (w, h))
    if x1 <= x0 or y1 <= y0:
        return
    mask = np.zeros((y1 - y0, x1 - x0), np.uint8)
    cv2.fillPoly(mask, [np.round((polygon - (x0, y0)) * 16).astype(np.int32)], 255, cv2.LINE_AA, 4)
    alpha = mask.astype(np.float32)[..., None] * (1 / 255)
    if np.ndim(colour) == 3:
        colour = colour[y0:y1, x0:x1]
    region = image[y0:y1, x0:x1]
    region *= 1 - alpha
    region += alpha * colour


def _build_base(scene: SceneSpec, key: tuple) -> Base:
    w, h = scene.width, scene.height
    camera = Camera.from_spec(scene.camera, w, h)
    lamps = scene_lamps(scene, camera)
    light = scene.lighting
    floor_h = camera.plane_to_image(0.0)
    image = _surface(scene.background, camera, w, h, floor_h)

    # light on the tray, per pixel, from the key lamp (with its fall-off)
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    inv = np.linalg.inv(floor_h)
    den = inv[2, 0] * xx + inv[2, 1] * yy + inv[2, 2]
    px = (inv[0, 0] * xx + inv[0, 1] * yy + inv[0, 2]) / den
    py = (inv[1, 0] * xx + inv[1, 1] * yy + inv[1, 2]) / den
    key_lamp = lamps[0]
    dist2 = (px - key_lamp.x) ** 2 + (py - key_lamp.y) ** 2 + np.float32(key_lamp.height ** 2)
    # irradiance() for the tray's upward normal: cos = height / dist, fall-off (height / dist)^2
    lit = light.ambient + (1 - light.ambient) * key_lamp.intensity * (np.float32(key_lamp.height ** 2) / dist2) ** 1.5
    image *= lit[..., None]

    if scene.tray is not None:
        image = _draw_tray(scene, camera, image, lamps[0])

    # lamp reflections on a glossy tray: where the mirror image of the camera sees the lamp
    gloss = scene.background.gloss
    if gloss > 0:
        mirror = camera.position * np.array([1, 1, -1])
        for lamp in lamps:
            lamp_pos = np.array([lamp.x, lamp.y, -lamp.height])
            s = mirror[2] / (mirror[2] - lamp_pos[2])
            hit = mirror + s * (lamp_pos - mirror)
            cam_dist = np.linalg.norm(camera.position - hit)
            radius = lamp.radius * cam_dist / (cam_dist + lamp.height) + 40 * (1 - gloss)
            d2 = (px - hit[0]) ** 2 + (py - hit[1]) ** 2
            image += (gloss * lamp.intensity * 140 * np.exp(-d2 / (2 * radius * radius)))[..., None]

    gain = _camera_gain(scene)
    return Base(key, camera, lamps, image * gain, gain)


def _draw_tray(scene: SceneSpec, camera: Camera, floor: np.ndarray, lamp: Lamp) -> np.ndarray:
    tray = scene.tray
    w, h = scene.width, scene.height
    light = scene.lighting
    counter = _surface(tray.counter, camera, w, h, camera.plane_to_image(0.0))
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    image = counter * (0.55 + 0.45 * light.ambient)
    x0, y0, x1, y1 = tray.inner
    inner = np.array([[x0, y0, 0], [x1, y0, 0], [x1, y1, 0], [x0, y1, 0]], float)
    _fill(image, camera.project(inner), floor)

    # the rim: four walls, each an inner face, a top and an outer face; draw far to near
    t, wh = tray.wall_thickness, tray.wall_height
    o = np.array([[x0 - t, y0 - t], [x1 + t, y0 - t], [x1 + t, y1 + t], [x0 - t, y1 + t]], float)
    i = inner[:, :2]
    quads: list[tuple[float, np.ndarray, np.ndarray]] = []
    for k in range(4):
        a, b = k, (k + 1) % 4
        inward = np.append(np.array([[0, 1], [-1, 0], [0, -1], [1, 0]][k], float), 0)
        faces = (
            (np.array([[*i[a], 0], [*i[b], 0], [*i[b], -wh], [*i[a], -wh]]), inward),
            (np.array([[*i[a], -wh], [*i[b], -wh], [*o[b], -wh], [*o[a], -wh]]), UP),
            (np.array([[*o[a], -wh], [*o[b], -wh], [*o[b], 0], [*o[a], 0]]), -inward),
        )
        for quad, normal in faces:
            centre = quad.mean(axis=0)
            if camera.faces_camera(centre, normal):
                quads.append((float(camera.depth(centre[None])[0]), quad, normal))
    wall = np.array(tray.wall_bgr, np.float32)
    for _, quad, normal in sorted(quads, key=lambda q: -q[0]):
        shade = float(irradiance(quad.mean(axis=0)[None], np.asarray(normal)[None], lamp, light.ambient)[0])
        _fill(image, camera.project(quad), wall * shade)
    # the floor is darker along the foot of the walls, where less light reaches
    mask = np.zeros((h, w), np.float32)
    cv2.fillPoly(mask, [np.round(camera.project(inner) * 16).astype(np.int32)], 1.0, cv2.LINE_AA, 4)
    occlusion = cv2.GaussianBlur(mask, (0, 0), max(2.0, wh * 0.6))
    image *= np.where(mask[..., None] > 0, 0.55 + 0.45 * np.clip(occlusion * 2 - 0.0, 0, 1)[..., None], 1.0)
    del xx, yy
    return image


def base_layer(scene: SceneSpec) -> Base:
    """The lit empty tray for a scene; cached, since a frame sequence shares it."""
    key = base_key(scene)
    base = _BASE_CACHE.get(key)
    if base is None:
        base = _build_base(scene, key)
        _BASE_CACHE[key] = base
        while len(_BASE_CACHE) > _BASE_CACHE_SIZE:
            _BASE_CACHE.popitem(last=False)
    else:
        _BASE_CACHE.move_to_end(key)
    return base
