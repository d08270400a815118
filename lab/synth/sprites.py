"""A die as the camera sees it: its shadow on the tray and its visible faces, ready to blend.

A sprite depends only on the die and the scene's base (camera, lamps, gain), so it is cached:
in a frame sequence, dice that did not move cost one blend per face.
"""

from __future__ import annotations

import math
from collections import OrderedDict
from dataclasses import dataclass

import cv2
import numpy as np

from .base import Base, irradiance
from .filters import line_kernel
from .geometry import FACE_AXES, Camera, DiePose, apply_homography, die_pose
from .spec import DieSpec, Lamp
from .textures import DieLook, edge_weights, face_texture, texture_size_for

Roi = tuple[int, int, int, int]  # x0, y0, x1, y1 (exclusive)

_SPRITE_CACHE: OrderedDict[tuple, "DieSprite"] = OrderedDict()
_SPRITE_CACHE_SIZE = 48


OWN_NONE, OWN_SIDE, OWN_TOP = 0, 1, 2


@dataclass(frozen=True, eq=False)
class Layer:
    """frame[roi] = frame[roi] * keep + add; `owner` says which pixels show the die's top
    face (OWN_TOP) or another face (OWN_SIDE)."""

    roi: Roi
    keep: np.ndarray  # float32 h x w x 1 or x 3
    add: np.ndarray  # float32 h x w x 3 (zero for a shadow)
    owner: np.ndarray | None = None  # uint8 h x w


@dataclass(frozen=True, eq=False)
class TopFace:
    """Where the die's top face is in the image (the label, less what hides it)."""

    value: int
    center: tuple[float, float]
    box: tuple[float, float, float, float]
    size: float
    angle: float
    tilt_deg: float
    pixels: int  # pixels it covers in the image when nothing hides it
    in_frame: float  # share of its area inside the image


@dataclass(frozen=True, eq=False)
class DieSprite:
    pose: DiePose
    shadow: Layer | None
    body: Layer | None  # all visible faces blended into one layer
    top: TopFace


def roi_around(points: np.ndarray, width: int, height: int, margin: float) -> Roi | None:
    x0, y0 = np.floor(points.min(axis=0) - margin).astype(int)
    x1, y1 = np.ceil(points.max(axis=0) + margin).astype(int) + 1
    x0, y0, x1, y1 = max(0, x0), max(0, y0), min(width, x1), min(height, y1)
    if x1 <= x0 or y1 <= y0:
        return None
    return int(x0), int(y0), int(x1), int(y1)


def die_sprite(die: DieSpec, base: Base, shadow_strength: float, ambient: float) -> DieSprite:
    key = (base.key, die, shadow_strength, ambient)
    sprite = _SPRITE_CACHE.get(key)
    if sprite is None:
        sprite = _build_sprite(die, base, shadow_strength, ambient)
        _SPRITE_CACHE[key] = sprite
        while len(_SPRITE_CACHE) > _SPRITE_CACHE_SIZE:
            _SPRITE_CACHE.popitem(last=False)
    else:
        _SPRITE_CACHE.move_to_end(key)
    return sprite


def clear_cache() -> None:
    _SPRITE_CACHE.clear()


def _build_sprite(die: DieSpec, base: Base, shadow_strength: float, ambient: float) -> DieSprite:
    pose = die_pose(die)
    shadow = _shadow(die, pose, base, shadow_strength)
    faces, top_pixels = _faces(die, pose, base, ambient)
    body = _merge(faces)
    if body is not None and die.motion_px > 0.5:
        body = _smear(body, die.motion_px, die.motion_deg, base.image.shape[:2])
    h, w = base.image.shape[:2]
    return DieSprite(pose, shadow, body, top_face(die, pose, base.camera, top_pixels, (w, h)))


def _smear(layer: Layer, length: float, angle_deg: float, shape: tuple[int, int]) -> Layer:
    """Motion blur of a moving die: the average of the die drawn along its path. Blending is
    linear in the frame underneath, so blurring `keep` and `add` does exactly that."""
    h, w = shape
    pad = int(math.ceil(length / 2)) + 1
    x0, y0, x1, y1 = layer.roi
    nx0, ny0, nx1, ny1 = max(0, x0 - pad), max(0, y0 - pad), min(w, x1 + pad), min(h, y1 + pad)
    keep = np.ones((ny1 - ny0, nx1 - nx0, 3), np.float32)
    add = np.zeros_like(keep)
    sub = (slice(y0 - ny0, y1 - ny0), slice(x0 - nx0, x1 - nx0))
    keep[sub] = layer.keep
    add[sub] = layer.add
    kernel = line_kernel(length, angle_deg)
    keep = cv2.filter2D(keep, -1, kernel, borderType=cv2.BORDER_REPLICATE)
    add = cv2.filter2D(add, -1, kernel, borderType=cv2.BORDER_CONSTANT)
    owner = np.zeros(keep.shape[:2], np.uint8)
    owner[sub] = layer.owner
    return Layer((nx0, ny0, nx1, ny1), keep, add, owner)


def _merge(layers: list[Layer]) -> Layer | None:
    """One layer doing what the layers do one after the other."""
    if not layers:
        return None
    x0 = min(lay.roi[0] for lay in layers)
    y0 = min(lay.roi[1] for lay in layers)
    x1 = max(lay.roi[2] for lay in layers)
    y1 = max(lay.roi[3] for lay in layers)
    keep = np.ones((y1 - y0, x1 - x0, 3), np.float32)
    add = np.zeros((y1 - y0, x1 - x0, 3), np.float32)
    owner = np.zeros((y1 - y0, x1 - x0), np.uint8)
    for lay in layers:
        a0, b0, a1, b1 = lay.roi
        sub = (slice(b0 - y0, b1 - y0), slice(a0 - x0, a1 - x0))
        keep[sub] *= lay.keep
        add[sub] = add[sub] * lay.keep + lay.add
        if lay.owner is not None:
            owner[sub] = np.where(lay.owner > 0, lay.owner, owner[sub])
    return Layer((x0, y0, x1, y1), keep, add, owner)


def top_face(die: DieSpec, pose: DiePose, camera: Camera, pixels: int, image_size: tuple[int, int]) -> TopFace:
    corners = pose.face_quad(pose.top_value())
    centre = corners.mean(axis=0)
    u = (corners[1] - corners[0]) / 2
    v = (corners[3] - corners[0]) / 2
    r = die.corner_radius * 2
    # the box is around the visible, rounded face: sample its rounded corners
    # corners in turn, each arc a quarter turn on from the last: a simple closed outline
    outline = [centre + su * (1 - r) * u + sv * (1 - r) * v + r * math.cos(a) * u + r * math.sin(a) * v
               for k, (su, sv) in enumerate(((-1, -1), (1, -1), (1, 1), (-1, 1)))
               for a in np.linspace(math.pi * (1 + k / 2), math.pi * (1.5 + k / 2), 5)]
    outline_img = camera.project(np.array(outline))
    quad = camera.project(corners)
    d1, d2 = quad[2] - quad[0], quad[3] - quad[1]
    area = 0.5 * abs(float(d1[0] * d2[1] - d1[1] * d2[0]))
    edge = quad[1] - quad[0]
    x0, y0 = outline_img.min(axis=0)
    x1, y1 = outline_img.max(axis=0)
    centre_img = camera.project(centre[None])[0]
    w, h = image_size
    frame = np.array([[-0.5, -0.5], [w - 0.5, -0.5], [w - 0.5, h - 0.5], [-0.5, h - 0.5]], np.float32)
    full = cv2.contourArea(outline_img.astype(np.float32))
    inside, _ = cv2.intersectConvexConvex(outline_img.astype(np.float32), frame)
    return TopFace(
        value=pose.top_value(),
        center=(float(centre_img[0]), float(centre_img[1])),
        box=(float(x0), float(y0), float(x1), float(y1)),
        size=math.sqrt(area),
        angle=math.degrees(math.atan2(edge[1], edge[0])) % 90.0,
        tilt_deg=pose.top_tilt_deg(),
        pixels=pixels,
        in_frame=float(min(1.0, inside / full)) if full > 0 else 0.0,
    )


def _shadow(die: DieSpec, pose: DiePose, base: Base, strength: float) -> Layer | None:
    """The cast shadow of the key lamp plus the contact shadow around the die's foot."""
    if strength <= 0:
        return None
    h, w = base.image.shape[:2]
    camera, lamp = base.camera, base.lamps[0]
    to_image = camera.plane_to_image(0.0)
    lamp_pos = np.array([lamp.x, lamp.y, -lamp.height])
    corners = pose.corners()
    s = lamp_pos[2] / (lamp_pos[2] - corners[:, 2])
    cast = lamp_pos[:2] + (corners[:, :2] - lamp_pos[:2]) * s[:, None]
    # a die on the tray shades the tray under it too; one in the air only casts its shadow
    outline = np.vstack([cast, pose.footprint()]) if die.lift <= 0.5 else cast
    hull = cv2.convexHull(outline.astype(np.float32)).reshape(-1, 2)
    cast_img = apply_homography(to_image, hull)
    # the penumbra widens with the lamp's size and with the height of what casts it
    penumbra = 0.8 + lamp.radius * pose.size / max(lamp.height, 1.0)
    roi = roi_around(cast_img, w, h, 3 * penumbra + 0.3 * pose.size)
    if roi is None:
        return None
    x0, y0, x1, y1 = roi
    mask = np.zeros((y1 - y0, x1 - x0), np.float32)
    cv2.fillPoly(mask, [np.round((cast_img - (x0, y0)) * 16).astype(np.int32)], 1.0, cv2.LINE_AA, 4)
    mask = cv2.GaussianBlur(mask, (0, 0), penumbra)
    lift_fade = 1.0 / (1.0 + die.lift / max(pose.size, 1.0))
    amount = strength * (0.55 if die.style == "translucent" else 1.0) * lift_fade * mask
    touch = corners[corners[:, 2] > -1.0, :2]
    if len(touch) >= 2:
        # contact shadow: the tray right at the foot of the die gets little light
        foot = apply_homography(to_image, cv2.convexHull(touch.astype(np.float32)).reshape(-1, 2))
        contact = np.zeros_like(mask)
        pts = np.round((foot - (x0, y0)) * 16).astype(np.int32)
        if len(touch) >= 3:
            cv2.fillPoly(contact, [pts], 1.0, cv2.LINE_AA, 4)
        else:
            cv2.polylines(contact, [pts], False, 1.0, 2, cv2.LINE_AA, 4)
        contact = cv2.GaussianBlur(contact, (0, 0), max(1.0, 0.06 * pose.size))
        amount = np.maximum(amount, 0.6 * contact)
    keep = (1 - np.clip(amount, 0, 0.95))[..., None]
    return Layer(roi, keep, np.zeros((y1 - y0, x1 - x0, 3), np.float32))


def _face_shade(pose: DiePose, value: int, lamps: tuple[Lamp, ...], ambient: float) -> float:
    return _shade(pose.face_center(value), pose.face_normal(value), lamps, ambient)


def _shade(point: np.ndarray, normal: np.ndarray, lamps: tuple[Lamp, ...], ambient: float) -> float:
    normal = normal[None]
    centre = point[None]
    total = float(irradiance(centre, normal, lamps[0], ambient)[0])
    for lamp in lamps[1:]:  # fill lights: no ambient of their own, and softer
        fill = Lamp(lamp.x, lamp.y, lamp.height, lamp.radius, lamp.intensity * 0.3)
        total += float(irradiance(centre, normal, fill, 0.0)[0])
    return total


def _face_highlight(pose: DiePose, value: int, lamps: tuple[Lamp, ...], camera: Camera, gloss: float,
                    roi: Roi) -> np.ndarray | None:
    """Specular spots of the lamps on a flat face (float32 levels to add), or None.

    The spot is where the face mirrors the lamp into the camera; a lamp whose mirror point
    is off the face leaves no spot on it.
    """
    if gloss <= 0:
        return None
    x0, y0, x1, y1 = roi
    normal = pose.face_normal(value)
    centre = pose.face_center(value)
    total = None
    for lamp in lamps:
        lamp_pos = np.array([lamp.x, lamp.y, -lamp.height])
        cam_off = float(np.dot(camera.position - centre, normal))
        if cam_off <= 0 or float(np.dot(lamp_pos - centre, normal)) <= 0:
            continue
        mirror = camera.position - 2 * cam_off * normal
        s = -float(np.dot(mirror - centre, normal)) / float(np.dot(lamp_pos - mirror, normal))
        hit = mirror + s * (lamp_pos - mirror)
        cam_dist = float(np.linalg.norm(camera.position - hit))
        radius_w = lamp.radius * cam_dist / (cam_dist + float(np.linalg.norm(lamp_pos - hit))) + 0.06 * pose.size
        if np.max(np.abs(hit - centre)) > pose.size / 2 + 2.5 * radius_w:
            continue
        spot = camera.project(hit[None])[0]
        radius = max(0.7, radius_w * camera.focal / max(float(camera.depth(hit[None])[0]), 1e-3))
        xs = (np.arange(x0, x1, dtype=np.float32) - spot[0]) ** 2
        ys = (np.arange(y0, y1, dtype=np.float32) - spot[1]) ** 2
        glow = gloss * lamp.intensity * 200 * np.exp(-(ys[:, None] + xs[None, :]) / (2 * radius * radius))
        total = glow if total is None else total + glow
    return total


def _bevels(pose: DiePose, value: int, lamps: tuple[Lamp, ...], camera: Camera, ambient: float,
            gloss: float) -> tuple[np.ndarray, np.ndarray]:
    """Light on the rounded edges of a face, towards each side (top, right, bottom, left of
    its texture): brightness relative to the flat face, and the lamps' specular glint."""
    u, v = (pose.rotation @ np.array(axis, float) for axis in FACE_AXES[value])
    normal = pose.face_normal(value)
    centre = pose.face_center(value)
    flat = max(_shade(centre, normal, lamps, ambient), 1e-3)
    ratio, glint = np.ones(4, np.float32), np.zeros(4, np.float32)
    for k, across in enumerate((-v, u, v, -u)):
        bevel = normal + across
        bevel /= np.linalg.norm(bevel)
        point = centre + across * (pose.size / 2)
        ratio[k] = _shade(point, bevel, lamps, ambient) / flat
        view = camera.position - point
        view /= np.linalg.norm(view)
        for lamp in lamps:
            light = np.array([lamp.x, lamp.y, -lamp.height]) - point
            half = light / np.linalg.norm(light) + view
            half /= np.linalg.norm(half)
            glint[k] += gloss * lamp.intensity * 150 * max(0.0, float(np.dot(bevel, half))) ** 30
    return ratio, glint


def _warp_face(look: DieLook, value: int, quad: np.ndarray, roi: Roi, pips_only: bool = False,
               bevels: tuple[np.ndarray, np.ndarray] | None = None) -> np.ndarray:
    x0, y0, x1, y1 = roi
    edge = max(np.linalg.norm(quad[k] - quad[(k + 1) % 4]) for k in range(4))
    size = texture_size_for(edge)
    tex = face_texture(look, value, size, pips_only)
    if bevels is not None:
        ratio, glint = bevels
        weights = edge_weights(size, look.corner_radius)
        lit = tex.astype(np.float32)
        lit[..., :3] *= (1 + weights @ (ratio - 1))[..., None]
        lit[..., :3] += (weights @ glint)[..., None]
        tex = lit
    src = np.array([[-0.5, -0.5], [size - 0.5, -0.5], [size - 0.5, size - 0.5], [-0.5, size - 0.5]], np.float32)
    m = cv2.getPerspectiveTransform(src, (quad - (x0, y0)).astype(np.float32))
    return cv2.warpPerspective(tex, m, (x1 - x0, y1 - y0), flags=cv2.INTER_LINEAR,
                               borderMode=cv2.BORDER_CONSTANT, borderValue=0).astype(np.float32)


def _faces(die: DieSpec, pose: DiePose, base: Base, ambient: float) -> tuple[list[Layer], int]:
    h, w = base.image.shape[:2]
    camera = base.camera
    look = DieLook.of(die)
    top = pose.top_value()
    facing = {v: camera.faces_camera(pose.face_center(v), pose.face_normal(v)) for v in range(1, 7)}
    layers: list[Layer] = []
    translucent = die.style == "translucent"
    if translucent:
        # the pips of the far faces show through the body, mirrored and dimmed
        for value in (v for v in range(1, 7) if not facing[v]):
            quad = camera.project(pose.face_quad(value))
            roi = roi_around(quad, w, h, 2)
            if roi is None:
                continue
            warped = _warp_face(look, value, quad, roi, pips_only=True)
            alpha = warped[..., 3:4] * (0.7 / 255)
            colour = warped[..., :3] * (0.6 * _face_shade(pose, value, base.lamps, ambient))
            gain = base.gain[roi[1]:roi[3], roi[0]:roi[2]]
            layers.append(Layer(roi, 1 - alpha, colour * gain * alpha))
    top_pixels = 0
    for value in sorted((v for v in range(1, 7) if facing[v]), key=lambda v: v == top):
        # side faces are drawn a little large so the top face overlaps their shared edge
        quad = camera.project(pose.face_quad(value, grow=0.0 if value == top else 0.5))
        roi = roi_around(quad, w, h, 2)
        if roi is None:
            continue
        x0, y0, x1, y1 = roi
        bevels = _bevels(pose, value, base.lamps, camera, ambient, die.gloss)
        warped = _warp_face(look, value, quad, roi, bevels=bevels)
        alpha = warped[..., 3:4] * (1 / 255)
        colour = warped[..., :3] * (_face_shade(pose, value, base.lamps, ambient) * base.gain[y0:y1, x0:x1])
        glow = _face_highlight(pose, value, base.lamps, camera, die.gloss, roi)
        if glow is not None:
            colour += glow[..., None]
        keep = 1 - alpha
        if translucent:
            # light through the body takes its colour; the pips (alpha 1) hide the tray
            coverage = np.clip(alpha / max(die.opacity, 1e-3), 0, 1)
            tint = 0.35 + 0.65 * np.array(die.body_bgr, np.float32) / 255
            keep = keep * (1 - coverage + coverage * tint)
        solid = warped[..., 3] > 0 if translucent else warped[..., 3] >= 128
        if value == top:
            top_pixels = int(np.count_nonzero(solid))
        owner = solid.astype(np.uint8) * (OWN_TOP if value == top else OWN_SIDE)
        layers.append(Layer(roi, keep, colour * alpha, owner))
    return layers, top_pixels
