"""Outlines and looks of the things that come between the camera and the dice: hands, arms,
the upturned dice cup, plain shapes.

Occluders are placed in image pixels. Each becomes an anti-aliased coverage mask (uint8
over the image) and a colour image shaded so it does not look like a flat sticker.
"""

from __future__ import annotations

import math

import cv2
import numpy as np

from .filters import seeded_noise, wide_blur
from .spec import Occluder

SUBPIXEL_BITS = 4
_SCALE = 1 << SUBPIXEL_BITS
_FINGERS = ((-0.36, 0.37), (-0.12, 0.43), (0.12, 0.41), (0.35, 0.32))  # across the palm, length


def _pt(p: np.ndarray) -> tuple[int, int]:
    return int(round(p[0] * _SCALE)), int(round(p[1] * _SCALE))


def _line(mask: np.ndarray, p: np.ndarray, q: np.ndarray, width_px: float, value: int = 255) -> None:
    cv2.line(mask, _pt(p), _pt(q), value, max(1, int(round(width_px))), cv2.LINE_AA, SUBPIXEL_BITS)


def _ellipse(mask: np.ndarray, c: np.ndarray, axes: tuple[float, float], angle_deg: float, value: int = 255) -> None:
    cv2.ellipse(mask, _pt(c), (int(axes[0] * _SCALE), int(axes[1] * _SCALE)), angle_deg, 0, 360, value, -1,
                cv2.LINE_AA, SUBPIXEL_BITS)


def _frame(occ: Occluder) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    a = math.radians(occ.angle)
    fwd = np.array([math.cos(a), math.sin(a)])  # where the fingers or the arm point
    return np.array(occ.center, float), fwd, np.array([-fwd[1], fwd[0]])


def _cup_circles(occ: Occluder, width: int, height: int) -> tuple[np.ndarray, float, np.ndarray, float]:
    """Mouth (on the tray) and base (up in the air) of the upturned cup: centre and radius.

    The base is nearer the camera, so perspective pushes it away from the image centre."""
    mouth = np.array(occ.center, float)
    r = occ.size / 2
    centre = np.array([(width - 1) / 2, (height - 1) / 2])
    base = mouth + (mouth - centre) * 0.22
    return mouth, r, base, r * 0.9


def occluder_mask(occ: Occluder, width: int, height: int) -> np.ndarray:
    """Coverage of the occluder over the whole image (uint8, height x width, 0..255)."""
    mask = np.zeros((height, width), np.uint8)
    centre, fwd, side = _frame(occ)
    s = occ.size
    if occ.kind == "hand":
        # palm, four fingers side by side, thumb, and the forearm reaching out of the picture
        palm_len, palm_w = 0.42 * s, 0.40 * s
        _ellipse(mask, centre, (palm_len / 2, palm_w / 2), occ.angle)
        finger_w = 0.105 * s
        for k, (offset, length) in enumerate(_FINGERS):
            base = centre + fwd * palm_len * 0.3 + side * offset * palm_w
            bend = math.radians((k - 1.5) * 3)
            direction = np.array([math.cos(math.radians(occ.angle) + bend), math.sin(math.radians(occ.angle) + bend)])
            _line(mask, base, base + direction * length * s, finger_w)
        thumb_base = centre - fwd * palm_len * 0.12 + side * palm_w * 0.42
        thumb_dir = np.array([math.cos(math.radians(occ.angle) + 0.75), math.sin(math.radians(occ.angle) + 0.75)])
        _line(mask, thumb_base, thumb_base + thumb_dir * 0.28 * s, finger_w * 1.2)
        wrist = centre - fwd * palm_len * 0.45
        _line(mask, wrist, wrist - fwd * 4 * s, palm_w * 0.8)
    elif occ.kind == "arm":
        _line(mask, centre, centre - fwd * 6 * s, s)
        _ellipse(mask, centre, (0.35 * s, 0.5 * s), occ.angle)
    elif occ.kind == "cup":
        mouth, r, base, rb = _cup_circles(occ, width, height)
        _ellipse(mask, mouth, (r, r), 0)
        _ellipse(mask, base, (rb, rb), 0)
        d = base - mouth
        n = np.linalg.norm(d)
        if n > 1e-6:
            perp = np.array([-d[1], d[0]]) / n
            quad = np.array([mouth + perp * r, base + perp * rb, base - perp * rb, mouth - perp * r])
            cv2.fillPoly(mask, [np.round(quad * _SCALE).astype(np.int32)], 255, cv2.LINE_AA, SUBPIXEL_BITS)
    elif occ.kind == "ellipse":
        _ellipse(mask, centre, (s / 2, s / 2 * occ.aspect), occ.angle)
    elif occ.kind == "polygon":
        pts = np.array([_pt(np.array(p)) for p in occ.points], np.int32)
        cv2.fillPoly(mask, [pts], 255, cv2.LINE_AA, SUBPIXEL_BITS)
    return mask


def occluder_colour(occ: Occluder, mask: np.ndarray, origin: tuple[int, int], image_size: tuple[int, int]) -> np.ndarray:
    """BGR float32 colour of the occluder over a region of the image whose top-left pixel is
    `origin` (only meaningful where mask > 0); image_size is (width, height)."""
    h, w = mask.shape
    base = np.array(occ.bgr, np.float32)
    grain = cv2.GaussianBlur(seeded_noise((h, w), occ.texture_seed), (0, 0), 1.0)
    if occ.kind == "cup":
        mouth, r, top, rt = _cup_circles(occ, *image_size)
        yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
        xx += origin[0]
        yy += origin[1]
        on_top = np.hypot(xx - top[0], yy - top[1]) / max(rt, 1.0)
        # leather: a pebbled top with a raised, lighter rim and stitching; a darker side wall
        top_tone = 0.9 + 0.12 * (1 - on_top) + 0.25 * np.exp(-(((on_top - 0.93) / 0.04) ** 2))
        stitches = (np.sin(np.arctan2(yy - top[1], xx - top[0]) * 60) > 0.6) & (np.abs(on_top - 0.85) < 0.012)
        top_tone -= 0.3 * stitches
        side_tone = 0.5 + 0.15 * np.clip(1 - (on_top - 1), 0, 1)
        tone = np.where(on_top <= 1.0, top_tone, side_tone) + 0.08 * grain
        return base * tone[..., None]
    # rounded bodies are darker at their rims: shade by the distance inside the outline
    inside = wide_blur(mask, max(2.0, occ.size * 0.05))
    relief = np.clip(inside * 1.6 - 0.3, 0, 1)
    tone = 0.6 + 0.4 * relief + 0.025 * grain
    colour = base * tone[..., None]
    if occ.kind == "hand":
        colour = _finger_creases(occ, colour, origin)
    return colour


def _finger_creases(occ: Occluder, colour: np.ndarray, origin: tuple[int, int]) -> np.ndarray:
    """Darker lines where neighbouring fingers touch, so the hand does not read as a mitten."""
    h, w = colour.shape[:2]
    crease = np.zeros((h, w), np.uint8)
    centre, fwd, side = _frame(occ)
    centre = centre - np.array(origin, float)
    s = occ.size
    palm_len, palm_w = 0.42 * s, 0.40 * s
    for (o1, l1), (o2, l2) in zip(_FINGERS, _FINGERS[1:]):
        start = centre + fwd * palm_len * 0.32 + side * (o1 + o2) / 2 * palm_w
        _line(crease, start, start + fwd * min(l1, l2) * s * 0.9, max(1.0, s * 0.012))
    soft = cv2.GaussianBlur(crease.astype(np.float32) / 255, (0, 0), max(0.7, s * 0.006))
    return colour * (1 - 0.45 * soft)[..., None]
