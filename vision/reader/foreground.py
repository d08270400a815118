"""Where the image differs from the table: a soft foreground map that is high on dice.

The table (felt, wood, plastic, a tray) is the dominant, slowly varying surface of the
image. Its colour is estimated per region with a median over a coarse grid of the image,
wide enough that a die or a small cluster of dice does not move it, and smooth enough to
follow uneven light. Each pixel's colour distance from that background, divided by the
image's own noise level, gives a foreground score; nothing here depends on one camera.
"""

from __future__ import annotations

import cv2
import numpy as np

# Chroma counts double: dice are usually coloured against a greyish table and shading
# changes lightness more than hue.
CHROMA_WEIGHT = 2.0
# The background grid cell is this fraction of the image's shorter side; the median over
# 9x9 cells then spans more than a cluster of touching dice.
GRID_FRACTION = 1 / 80
MEDIAN_CELLS = 9


def background_lab(lab: np.ndarray) -> np.ndarray:
    """The table's Lab colour at every pixel (float32)."""
    h, w = lab.shape[:2]
    cell = max(2, int(round(min(h, w) * GRID_FRACTION)))
    small = cv2.resize(lab, (max(1, w // cell), max(1, h // cell)), interpolation=cv2.INTER_AREA)
    k = MEDIAN_CELLS if min(small.shape[:2]) > MEDIAN_CELLS else max(1, (min(small.shape[:2]) // 2) * 2 - 1)
    median = cv2.medianBlur(small, k) if k >= 3 else small
    return cv2.resize(median, (w, h), interpolation=cv2.INTER_LINEAR).astype(np.float32)


def colour_distance(lab: np.ndarray, reference: np.ndarray) -> np.ndarray:
    """Weighted Lab distance between an image and a reference image or colour."""
    d = lab.astype(np.float32) - reference
    d[..., 1:] *= CHROMA_WEIGHT
    return cv2.magnitude(d[..., 0], cv2.magnitude(d[..., 1], d[..., 2]))


def foreground_score(lab: np.ndarray) -> np.ndarray:
    return foreground_and_unit(lab)[0]


def foreground_and_unit(lab: np.ndarray) -> tuple[np.ndarray, float]:
    """Colour distance from the table in units of its threshold, clipped to [0, 1.5].

    The threshold is the background's robust spread (median + 6 MAD of the distance over the
    whole image, most of which is table), with a floor for very clean images.
    """
    distance = colour_distance(lab, background_lab(lab))
    sample = distance[::4, ::4]
    median = float(np.median(sample))
    mad = float(np.median(np.abs(sample - median)))
    threshold = max(median + 6.0 * mad, 12.0)
    return np.clip(distance * (1.0 / threshold), 0.0, 1.5), threshold


def edge_strength(lab: np.ndarray, unit: float) -> np.ndarray:
    """Colour gradient magnitude (same weighting as `colour_distance`) in units of `unit`."""
    f = lab.astype(np.float32)
    f[..., 1:] *= CHROMA_WEIGHT
    total = np.zeros(lab.shape[:2], np.float32)
    for c in range(3):
        gx = cv2.Sobel(f[..., c], cv2.CV_32F, 1, 0, ksize=3)
        gy = cv2.Sobel(f[..., c], cv2.CV_32F, 0, 1, ksize=3)
        total += gx * gx + gy * gy
    return np.sqrt(total) * (1.0 / (8.0 * unit))
