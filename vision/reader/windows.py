"""Die windows: the small square picture of one die the value classifier looks at.

Whatever the camera, the die's size, colour or rotation, a die becomes the same picture:
the window is centred on the top face's centre, turned by the face's edge angle (for an upright
geometry, the quarter turn of it nearest the photo's up) and scaled
so the face's edge is `die_px` of the window's `window_px` pixels (the rest is a margin
showing the die's surroundings, so the classifier can tell a die centred in the window from
a window half on a die). The `Geometry` is stored with the trained model. `window_channels` then turns the colour window into channels that do not
depend on the dice's colours:
  0. lightness, zero mean and unit spread over the die's own area (dark pips on a light die
     and light pips on a dark die differ only in sign, which the network learns);
  1. colour distance from the die's body colour (the median of the face area), scaled by its
     own spread, so pips stand out whether lighter, darker or just another hue (red pips on a
     dark blue die);
  2, 3. the window's chroma (Lab a, b) relative to that body colour, for translucent and
     marbled dice whose lightness says little.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Sequence

import cv2
import numpy as np

CHANNELS = 4
# Windows cut from this many times a die's edge up to that many are taught to be the die (the
# detector's errors in size); beyond them the classifier was never told whether a die is there.
DIE_WINDOW_SCALES = (0.8, 1.25)


@dataclass(frozen=True)
class Geometry:
    window_px: int = 32  # side of the window
    die_px: float = 24.0  # a top face's edge inside it
    # Turn windows by the edge angle folded into [-45, 45), so the photo's up stays the window's
    # up within 45 degrees: in a photo taken at an angle the top face lies above the side face
    # turned to the camera, a cue a network taught on quarter-turned windows cannot use.
    # Left out of the repr, which names the windows cached by training runs made before it.
    upright: bool = field(default=False, repr=False)

    @property
    def face_slice(self) -> slice:
        """Rows (and columns) of the window inside the die's face, away from its edges."""
        lo = int(round((self.window_px - self.die_px) / 2 + 0.15 * self.die_px))
        return slice(lo, self.window_px - lo)


DEFAULT = Geometry()


def upright_angle(angle: float) -> float:
    """An edge angle (degrees, any turn) as the one of its quarter turns in [-45, 45)."""
    return (angle + 45.0) % 90.0 - 45.0

Box = tuple[float, float, float, float]  # centre x, centre y, edge length, edge angle (image px, degrees)


def edge_angle(grey: np.ndarray, x: float, y: float, side: float) -> float:
    """The dominant edge direction around (x, y), degrees in [0, 90), clockwise on the image.

    Gradient angles are folded modulo 90 degrees (so a square's four sides agree) by
    averaging exp(4i*theta) weighted by the squared gradient magnitude.
    """
    r = int(math.ceil(0.75 * side))
    x0, y0 = max(0, int(x) - r), max(0, int(y) - r)
    x1, y1 = min(grey.shape[1], int(x) + r + 1), min(grey.shape[0], int(y) + r + 1)
    patch = grey[y0:y1, x0:x1].astype(np.float32)
    if patch.shape[0] < 3 or patch.shape[1] < 3:
        return 0.0
    gx = cv2.Sobel(patch, cv2.CV_32F, 1, 0, ksize=3)
    gy = cv2.Sobel(patch, cv2.CV_32F, 0, 1, ksize=3)
    # (gx + i gy)^4 / |g|^2 = |g|^2 exp(4i theta)
    m2 = gx * gx + gy * gy + 1e-6
    c2 = (gx * gx - gy * gy) / m2
    s2 = (2 * gx * gy) / m2
    c4 = c2 * c2 - s2 * s2
    s4 = 2 * s2 * c2
    angle = math.degrees(math.atan2(float((s4 * m2).sum()), float((c4 * m2).sum()))) / 4.0
    return angle % 90.0


def window_transform(x: float, y: float, side: float, angle: float, geometry: Geometry = DEFAULT) -> np.ndarray:
    """2x3 affine matrix taking image pixels to the window of the die at (x, y)."""
    scale = geometry.die_px / max(side, 1e-3)
    m = cv2.getRotationMatrix2D((x, y), angle, scale)
    m[0, 2] += geometry.window_px / 2 - x
    m[1, 2] += geometry.window_px / 2 - y
    return m


def cut_windows(image_bgr: np.ndarray, boxes: Sequence[Box], geometry: Geometry = DEFAULT) -> np.ndarray:
    """N x window_px x window_px x 3 uint8 windows for (x, y, edge, angle) boxes.

    A window shrinking the die (a big die) is taken from a blurred-down copy of its region,
    so pips do not alias away; one enlarging it samples the image bilinearly."""
    side_px = geometry.window_px
    out = np.empty((len(boxes), side_px, side_px, 3), np.uint8)
    for i, (x, y, side, angle) in enumerate(boxes):
        if geometry.upright:
            angle = upright_angle(angle)
        factor = side / geometry.die_px
        if factor > 1.5:
            out[i] = _shrunk_window(image_bgr, x, y, side, angle, factor, geometry)
        else:
            out[i] = cv2.warpAffine(image_bgr, window_transform(x, y, side, angle, geometry), (side_px, side_px),
                                    flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    return out


def _shrunk_window(image_bgr: np.ndarray, x: float, y: float, side: float, angle: float, factor: float,
                   geometry: Geometry) -> np.ndarray:
    side_px = geometry.window_px
    reach = int(math.ceil(0.75 * side_px * factor)) + 2
    h, w = image_bgr.shape[:2]
    x0, y0 = max(0, int(x) - reach), max(0, int(y) - reach)
    x1, y1 = min(w, int(x) + reach + 1), min(h, int(y) + reach + 1)
    if x1 - x0 < 2 or y1 - y0 < 2:
        return cv2.warpAffine(image_bgr, window_transform(x, y, side, angle, geometry), (side_px, side_px),
                              flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    shrink = 1.0 / factor
    patch = cv2.resize(image_bgr[y0:y1, x0:x1], None, fx=shrink, fy=shrink, interpolation=cv2.INTER_AREA)
    sy, sx = patch.shape[0] / (y1 - y0), patch.shape[1] / (x1 - x0)
    px, py = (x - x0 + 0.5) * sx - 0.5, (y - y0 + 0.5) * sy - 0.5
    return cv2.warpAffine(patch, window_transform(px, py, side * sx, angle, geometry), (side_px, side_px),
                          flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)


def window_channels(windows_bgr: np.ndarray, geometry: Geometry = DEFAULT) -> np.ndarray:
    """N x H x W x 3 uint8 BGR windows -> N x CHANNELS x H x W float32 (see the module doc)."""
    n, side = windows_bgr.shape[0], geometry.window_px
    if n == 0:
        return np.zeros((0, CHANNELS, side, side), np.float32)
    inner = geometry.face_slice
    lab = cv2.cvtColor(np.ascontiguousarray(windows_bgr).reshape(n * side, side, 3), cv2.COLOR_BGR2Lab)
    lab = lab.reshape(n, side, side, 3)
    face = lab[:, inner, inner].reshape(n, -1, 3)
    middle = face.shape[1] // 2
    body = np.partition(face, middle, axis=1)[:, middle].astype(np.float32)  # the face's median colour
    face_l = face[:, :, 0].astype(np.float32)
    spread = face_l.std(axis=1) + 4.0
    # planes (N x 3 x HW), each contiguous: per-pixel arithmetic on interleaved L, a, b
    # strides through memory and took three times as long
    d = lab.reshape(n, side * side, 3).transpose(0, 2, 1).astype(np.float32, order="C")
    d -= body[:, :, None]
    d[:, 1:] *= 2.0
    distance = d[:, 0] * d[:, 0]
    distance += d[:, 1] * d[:, 1]
    distance += d[:, 2] * d[:, 2]
    np.sqrt(distance, out=distance)
    face_d = distance.reshape(n, side, side)[:, inner, inner].reshape(n, -1)
    q = int(0.95 * (face_d.shape[1] - 1))
    scale = 1.0 / (np.partition(face_d, q, axis=1)[:, q] + 8.0)
    out = np.empty((n, CHANNELS, side * side), np.float32)
    out[:, 0] = (d[:, 0] + (body[:, 0] - face_l.mean(axis=1))[:, None]) * (1.0 / spread)[:, None]
    out[:, 1] = distance * scale[:, None]
    out[:, 2:] = d[:, 1:] * scale[:, None, None]
    return out.reshape(n, CHANNELS, side, side)


def box_from_edge(edge: float, angle: float) -> float:
    """The side of the axis-aligned bounding box of a square of `edge` turned by `angle`."""
    a = math.radians(angle)
    return edge * (abs(math.cos(a)) + abs(math.sin(a)))


def edge_from_box(box_side: float, angle: float) -> float:
    """The edge of a square turned by `angle` whose axis-aligned bounding box has side
    box_side (how a labelled photo's box becomes a top-face edge; `box_from_edge`'s inverse)."""
    a = math.radians(angle)
    return box_side / (abs(math.cos(a)) + abs(math.sin(a)))
