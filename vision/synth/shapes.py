"""Outlines of the things that come between the camera and the dice: hands, arms, the cup.

Each occluder becomes an anti-aliased coverage mask (float32 0..1) over a region of the
image, plus a relief map used to shade it so it does not look like a flat sticker.
"""

from __future__ import annotations

import math

import cv2
import numpy as np

from .spec import Occluder

SUBPIXEL_BITS = 4
_SCALE = 1 << SUBPIXEL_BITS


def _pt(x: float, y: float) -> tuple[int, int]:
    return int(round(x * _SCALE)), int(round(y * _SCALE))


def occluder_mask(occ: Occluder, width: int, height: int) -> np.ndarray:
    """Coverage of the occluder over the whole image (float32, height x width, 0..1)."""
    mask = np.zeros((height, width), np.uint8)
    cx, cy = occ.center
    s = occ.size
    a = math.radians(occ.angle)
    fwd = np.array([math.cos(a), math.sin(a)])  # where fingers / the arm point
    side = np.array([-fwd[1], fwd[0]])
    centre = np.array([cx, cy])

    def line(p: np.ndarray, q: np.ndarray, width_px: float) -> None:
        cv2.line(mask, _pt(*p), _pt(*q), 255, max(1, int(round(width_px))), cv2.LINE_AA, SUBPIXEL_BITS)

    def ellipse(c: np.ndarray, axes: tuple[float, float], angle_deg: float) -> None:
        cv2.ellipse(mask, _pt(*c), (int(axes[0] * _SCALE), int(axes[1] * _SCALE)), angle_deg, 0, 360, 255,
                    -1, cv2.LINE_AA, SUBPIXEL_BITS)

    if occ.kind == "hand":
        # palm, four fingers, thumb and the forearm reaching back out of the picture
        palm_len, palm_w = 0.42 * s, 0.36 * s
        ellipse(centre, (palm_len / 2, palm_w / 2), occ.angle)
        finger_w = 0.085 * s
        for k, (offset, length) in enumerate(((-0.36, 0.40), (-0.12, 0.46), (0.12, 0.44), (0.34, 0.36))):
            base = centre + fwd * palm_len * 0.38 + side * offset * palm_w
            bend = math.radians((k - 1.5) * 6)
            direction = np.array([math.cos(a + bend), math.sin(a + bend)])
            line(base, base + direction * length * s, finger_w)
        thumb_base = centre - fwd * palm_len * 0.1 + side * palm_w * 0.45
        thumb_dir = np.array([math.cos(a + 0.9), math.sin(a + 0.9)])
        line(thumb_base, thumb_base + thumb_dir * 0.3 * s, finger_w * 1.15)
        wrist = centre - fwd * palm_len * 0.45
        line(wrist, wrist - fwd * 4 * s, palm_w * 0.85)
    elif occ.kind == "arm":
        line(centre, centre - fwd * 6 * s, s)
        ellipse(centre, (0.35 * s, 0.5 * s), occ.angle)
    elif occ.kind == "cup":
        ellipse(centre, (s / 2, s / 2), 0)
    elif occ.kind == "ellipse":
        ellipse(centre, (s / 2, s / 2 * occ.aspect), occ.angle)
    elif occ.kind == "polygon":
        pts = np.array([_pt(x, y) for x, y in occ.points], np.int32)
        cv2.fillPoly(mask, [pts], 255, cv2.LINE_AA, SUBPIXEL_BITS)
    return mask.astype(np.float32) / 255.0


def occluder_colour(occ: Occluder, mask: np.ndarray, origin: tuple[int, int],
                    rng: np.random.Generator) -> np.ndarray:
    """BGR float32 colour of the occluder over a region of the image whose top-left pixel is
    `origin` (only meaningful where mask > 0)."""
    h, w = mask.shape
    # rounded bodies are darker at their rims: shade by the distance inside the outline
    inside = cv2.GaussianBlur(mask, (0, 0), max(2.0, occ.size * 0.06))
    relief = np.clip(inside * 1.6 - 0.3, 0, 1)
    base = np.array(occ.bgr, np.float32)
    grain = cv2.GaussianBlur(rng.standard_normal((h, w)).astype(np.float32), (0, 0), 1.0)
    if occ.kind == "cup":
        cx, cy = occ.center[0] - origin[0], occ.center[1] - origin[1]
        yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
        r = np.hypot(xx - cx, yy - cy) / max(1.0, occ.size / 2)
        rim = np.exp(-(((r - 0.9) / 0.05) ** 2))
        tone = 0.75 + 0.25 * (1 - r) + 0.25 * rim + 0.06 * grain
    else:
        tone = 0.62 + 0.38 * relief + 0.03 * grain
    return base * tone[..., None]
