"""Where dice might be: blobs of the foreground map at every plausible die size.

A die seen from above is a compact blob of foreground about as wide as it is tall. A
difference-of-Gaussians scale space of the foreground map peaks at the centre of such blobs
at a scale proportional to their size, so it proposes a centre and a size for every die
without knowing the camera's distance: thin things (tray walls, cables, shadows' edges) and
big things (a hand) peak at other scales or not at all. Proposals are deliberately generous;
the die classifier rejects what is not a die.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

# sigma of the best-responding DoG level per pixel of die side (measured on labelled dice).
SIGMA_PER_SIDE = 0.39
LEVELS_PER_OCTAVE = 3
BASE_SIGMA = 1.6
MIN_RESPONSE = 0.06


@dataclass(frozen=True)
class Candidate:
    x: float  # centre, pixels of the image given to `propose`
    y: float
    side: float  # estimated die side, pixels
    response: float  # DoG strength: how die-like the blob is


def _octave_extrema(level_image: np.ndarray, scale: float) -> list[Candidate]:
    sigmas = [BASE_SIGMA * 2 ** (j / LEVELS_PER_OCTAVE) for j in range(LEVELS_PER_OCTAVE + 3)]
    blurred = [cv2.GaussianBlur(level_image, (0, 0), s) for s in sigmas]
    dogs = [blurred[j] - blurred[j + 1] for j in range(len(sigmas) - 1)]
    kernel = np.ones((3, 3), np.uint8)
    dilated = [cv2.dilate(d, kernel) for d in dogs]
    found = []
    for j in range(1, len(dogs) - 1):
        d = dogs[j]
        peak = (d >= dilated[j]) & (d >= dilated[j - 1]) & (d >= dilated[j + 1]) & (d > MIN_RESPONSE)
        ys, xs = np.nonzero(peak)
        sigma = sigmas[j] * 2 ** (1 / (2 * LEVELS_PER_OCTAVE))  # between the two blurs
        for y, x in zip(ys, xs):
            found.append(Candidate((x + 0.5) * scale - 0.5, (y + 0.5) * scale - 0.5, sigma * scale / SIGMA_PER_SIDE, float(d[y, x])))
    return found


def propose(score: np.ndarray, min_side: float, max_side: float, limit: int = 80) -> list[Candidate]:
    """Die-like blobs of a foreground score map with side in [min_side, max_side] pixels,
    strongest first, none centred within a third of a die of a stronger one of similar size."""
    found: list[Candidate] = []
    level_image = score.astype(np.float32)
    scale = 1.0
    while True:
        # sides this octave can detect: sigma between BASE_SIGMA*2^(1/3.. 1)
        low = BASE_SIGMA * 2 ** (1 / LEVELS_PER_OCTAVE) * scale / SIGMA_PER_SIDE * 0.8
        high = BASE_SIGMA * 2 * scale / SIGMA_PER_SIDE * 1.25
        if low > max_side or min(level_image.shape[:2]) < 8:
            break
        if high >= min_side:
            found += [c for c in _octave_extrema(level_image, scale) if min_side <= c.side <= max_side]
        level_image = cv2.resize(level_image, (level_image.shape[1] // 2, level_image.shape[0] // 2), interpolation=cv2.INTER_AREA)
        scale *= 2
    found.sort(key=lambda c: -c.response)
    kept: list[Candidate] = []
    for c in found:
        if all(
            (c.x - k.x) ** 2 + (c.y - k.y) ** 2 > (0.35 * min(c.side, k.side)) ** 2
            or max(c.side, k.side) > 1.4 * min(c.side, k.side)
            for k in kept
        ):
            kept.append(c)
            if len(kept) >= limit:
                break
    return kept
