"""Cheap building blocks shared by the renderer and the simulated camera sessions
(`lab.sessions.synth`): seeded noise windows and wide blurs.

Drawing fresh Gaussian noise for every 640x480 frame costs more than rendering the dice,
so noise comes from a fixed bank: a seed picks a window and a sign.
"""

from __future__ import annotations

import math
from functools import lru_cache

import cv2
import numpy as np

_NOISE_PAD = 64


@lru_cache(maxsize=4)
def _noise_bank(height: int, width: int, channels: int) -> np.ndarray:
    rng = np.random.default_rng(20260101)
    return rng.standard_normal((height + _NOISE_PAD, width + _NOISE_PAD, channels), dtype=np.float32)


def seeded_noise(shape: tuple[int, ...], seed: int) -> np.ndarray:
    """Unit Gaussian noise of `shape` (h, w) or (h, w, c), read-only.

    Two seeds give windows that are independent pixel by pixel unless they pick the same
    window (1 in 8192)."""
    h, w = shape[:2]
    c = shape[2] if len(shape) > 2 else 1
    pick = np.random.default_rng(seed & 0x7FFFFFFFFFFFFFFF).integers(0, 2 * _NOISE_PAD * _NOISE_PAD)
    sign, where = divmod(int(pick), _NOISE_PAD * _NOISE_PAD)
    oy, ox = divmod(where, _NOISE_PAD)
    bank = _noise_bank(_round_up(h), _round_up(w), c)
    window = bank[oy:oy + h, ox:ox + w]
    window = -window if sign else window
    return window if len(shape) > 2 else window[..., 0]


def _round_up(n: int) -> int:
    """Bank sizes come in steps of 64 px so regions of many sizes share a few banks."""
    return max(64, int(math.ceil(n / 64)) * 64)


def wide_blur(image: np.ndarray, sigma: float) -> np.ndarray:
    """Gaussian blur; wide ones are done on a smaller copy (the result is smooth anyway)."""
    if sigma <= 4:
        return cv2.GaussianBlur(image, (0, 0), sigma)
    h, w = image.shape[:2]
    f = 4 if sigma > 10 else 2
    small = cv2.resize(image, (max(1, w // f), max(1, h // f)), interpolation=cv2.INTER_AREA)
    small = cv2.GaussianBlur(small, (0, 0), sigma / f)
    return cv2.resize(small, (w, h), interpolation=cv2.INTER_LINEAR)


def disc_kernel(radius: float) -> np.ndarray:
    k = int(math.ceil(radius)) * 2 + 1
    kernel = np.zeros((k, k), np.float32)
    cv2.circle(kernel, (k // 2 * 16, k // 2 * 16), int(radius * 16), 1.0, -1, cv2.LINE_AA, 4)
    return kernel / kernel.sum()


def line_kernel(length: float, angle_deg: float) -> np.ndarray:
    n = int(math.ceil(length)) | 1
    kernel = np.zeros((n, n), np.float32)
    a = math.radians(angle_deg)
    c, half = (n - 1) / 2, length / 2
    p = (c - half * math.cos(a), c - half * math.sin(a))
    q = (c + half * math.cos(a), c + half * math.sin(a))
    cv2.line(kernel, (int(p[0] * 16), int(p[1] * 16)), (int(q[0] * 16), int(q[1] * 16)), 1.0, 1, cv2.LINE_AA, 4)
    return kernel / kernel.sum()
