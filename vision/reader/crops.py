"""A die-sized window cut out of the image, turned square to the die and normalised.

Every proposed die becomes the same small picture whatever the camera, the die's size,
colour or rotation: the window is rotated by the die's edge direction (estimated from the
image gradients, modulo 90 degrees), scaled so the die's side is `DIE_PX` pixels, and
turned into two channels that do not depend on the die's colours:
  0. lightness, zero mean and unit spread over the window;
  1. colour distance from the die's own body colour (the median of the window's centre), so
     pips are bright whether they are lighter, darker or just a different hue than the die.
"""

from __future__ import annotations

import math

import cv2
import numpy as np

CROP_PX = 40  # side of the normalised window
DIE_PX = 26.0  # side of the die inside it
CHANNELS = 2


def edge_angle(grey: np.ndarray, x: float, y: float, side: float) -> float:
    """The dominant edge direction around (x, y), degrees in [0, 90).

    Gradient angles are folded modulo 90 degrees (so a square's four sides agree) by
    averaging exp(4i*theta) weighted by squared gradient magnitude.
    """
    r = int(math.ceil(0.75 * side))
    x0, y0 = max(0, int(x) - r), max(0, int(y) - r)
    x1, y1 = min(grey.shape[1], int(x) + r + 1), min(grey.shape[0], int(y) + r + 1)
    patch = grey[y0:y1, x0:x1].astype(np.float32)
    if patch.shape[0] < 3 or patch.shape[1] < 3:
        return 0.0
    gx = cv2.Sobel(patch, cv2.CV_32F, 1, 0, ksize=3)
    gy = cv2.Sobel(patch, cv2.CV_32F, 0, 1, ksize=3)
    # complex (gx + i gy)^4 = |g|^4 exp(4i theta); use |g|^2 weighting: divide by |g|^2
    m2 = gx * gx + gy * gy + 1e-6
    c2 = (gx * gx - gy * gy) / m2
    s2 = (2 * gx * gy) / m2
    c4 = c2 * c2 - s2 * s2
    s4 = 2 * s2 * c2
    angle = math.degrees(math.atan2(float((s4 * m2).sum()), float((c4 * m2).sum()))) / 4.0
    return angle % 90.0


def window_transform(x: float, y: float, side: float, angle: float) -> np.ndarray:
    """2x3 affine matrix taking image pixels to the normalised window."""
    scale = DIE_PX / max(side, 1e-3)
    m = cv2.getRotationMatrix2D((x, y), angle, scale)
    m[0, 2] += CROP_PX / 2 - x
    m[1, 2] += CROP_PX / 2 - y
    return m


def normalised_crop(image_bgr: np.ndarray, x: float, y: float, side: float, angle: float) -> np.ndarray:
    """The CHANNELS x CROP_PX x CROP_PX float32 window of one die (see the module docstring)."""
    return normalised_crops(image_bgr, [(x, y, side, angle)])[0]


def normalised_crops(image_bgr: np.ndarray, dice: list[tuple[float, float, float, float]]) -> np.ndarray:
    """N x CHANNELS x CROP_PX x CROP_PX windows for (x, y, side, angle) tuples."""
    if not dice:
        return np.zeros((0, CHANNELS, CROP_PX, CROP_PX), np.float32)
    strip = np.empty((len(dice) * CROP_PX, CROP_PX, 3), np.uint8)
    for i, (x, y, side, angle) in enumerate(dice):
        strip[i * CROP_PX : (i + 1) * CROP_PX] = cv2.warpAffine(
            image_bgr, window_transform(x, y, side, angle), (CROP_PX, CROP_PX),
            flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    return channels(strip.reshape(len(dice), CROP_PX, CROP_PX, 3))


def channels(windows_bgr: np.ndarray) -> np.ndarray:
    """N x H x W x 3 BGR windows -> N x CHANNELS x H x W normalised channels."""
    n = windows_bgr.shape[0]
    lab = cv2.cvtColor(windows_bgr.reshape(n * CROP_PX, CROP_PX, 3), cv2.COLOR_BGR2Lab)
    lab = lab.reshape(n, CROP_PX, CROP_PX, 3).astype(np.float32)
    lightness = lab[..., 0]
    mean = lightness.mean(axis=(1, 2), keepdims=True)
    std = lightness.std(axis=(1, 2), keepdims=True)
    q = CROP_PX // 4
    centre = lab[:, q : CROP_PX - q, q : CROP_PX - q].reshape(n, -1, 3)
    body = np.median(centre, axis=1)
    d = lab - body[:, None, None, :]
    d[..., 1:] *= 2.0
    distance = np.sqrt((d * d).sum(axis=3))
    inner = distance[:, q : CROP_PX - q, q : CROP_PX - q].reshape(n, -1)
    spread = np.partition(inner, int(0.95 * (inner.shape[1] - 1)), axis=1)[:, int(0.95 * (inner.shape[1] - 1))] + 8.0
    out = np.empty((n, CHANNELS, CROP_PX, CROP_PX), np.float32)
    out[:, 0] = (lightness - mean) / (std + 4.0)
    out[:, 1] = distance / spread[:, None, None]
    return out
