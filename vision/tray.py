"""Finding the tray in a picture of it empty, so the reader looks only there.

`find_tray(frame)` returns the tray's floor as a polygon in the frame's pixels, or None when
no tray stands out (the camera sees only the floor, or a cluttered counter). The camera looks
down at the tray, so the tray's floor is the even region around the middle of the picture:
it is grown from the middle over pixels of its own colour and texture, holes left by
glare or specks are filled, and the outline is simplified to a convex polygon of a few
corners, drawn a little inside the rim so a die leaning on the rim is still read.
`TrayReader` reads only the tray, with an outline from the config or found by itself.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Callable, Sequence

import cv2
import numpy as np

from vision import read_dice

if TYPE_CHECKING:
    from vision.reading import Reading

WORK_SIDE = 320  # the picture is looked at this size (the outline is given back in frame pixels)
MIN_SHARE = 0.08  # a floor smaller than this share of the picture is no tray
MAX_SHARE = 0.97  # ... and one filling more than this is the whole picture: no outline needed
COLOUR_TOLERANCE = 14.0  # Lab distance from the floor's colour still counted as floor
INSET = 0.01  # the outline is drawn this share of the picture's side inside the floor's edge


def find_tray(frame: np.ndarray) -> list[tuple[float, float]] | None:
    """The empty tray's floor as a convex polygon (frame pixels), or None (module doc)."""
    if not isinstance(frame, np.ndarray) or frame.ndim != 3 or frame.shape[2] != 3 or min(frame.shape[:2]) < 32:
        return None
    h, w = frame.shape[:2]
    scale = WORK_SIDE / max(h, w)
    small = cv2.resize(frame, (max(1, round(w * scale)), max(1, round(h * scale))), interpolation=cv2.INTER_AREA)
    lab = cv2.cvtColor(cv2.GaussianBlur(small, (0, 0), 1.5), cv2.COLOR_BGR2Lab).astype(np.float32)
    sh, sw = lab.shape[:2]
    middle = lab[sh * 2 // 5: sh * 3 // 5, sw * 2 // 5: sw * 3 // 5].reshape(-1, 3)
    floor = np.median(middle, axis=0)
    near = np.linalg.norm(lab - floor, axis=2) <= COLOUR_TOLERANCE + 1.5 * float(middle.std(axis=0).mean())
    mask = near.astype(np.uint8)
    mask = cv2.morphologyEx(mask, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
    count, labels = cv2.connectedComponents(mask)
    if count < 2:
        return None
    centre = labels[sh * 2 // 5: sh * 3 // 5, sw * 2 // 5: sw * 3 // 5]
    ids, votes = np.unique(centre[centre > 0], return_counts=True)
    if len(ids) == 0:
        return None
    region = (labels == ids[np.argmax(votes)]).astype(np.uint8)
    region = cv2.morphologyEx(region, cv2.MORPH_CLOSE, np.ones((7, 7), np.uint8))
    contours, _ = cv2.findContours(region, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    hull = cv2.convexHull(max(contours, key=cv2.contourArea))
    share = cv2.contourArea(hull) / float(sh * sw)
    if not MIN_SHARE <= share <= MAX_SHARE:
        return None
    outline = cv2.approxPolyDP(hull, 0.015 * cv2.arcLength(hull, True), True).reshape(-1, 2).astype(np.float64)
    if len(outline) < 3:
        return None
    centroid = outline.mean(axis=0)
    inset = INSET * max(sh, sw)
    inward = centroid - outline
    outline += inward / np.maximum(np.linalg.norm(inward, axis=1, keepdims=True), 1e-6) * inset
    return [(float(x / scale), float(y / scale)) for x, y in outline]


class TrayReader:
    """The dice reader limited to the tray: a reader for `vision.tracker.ThrowTracker`.

    `outline` is the tray's floor (a polygon in frame pixels), None for the whole frame, or
    AUTO: the whole frame until a still frame is read with no die and nothing amiss (the
    tracker reads only still frames, so that is the empty tray), when `find_tray` looks for
    the floor in it; found, the outline is kept for the rest of the session."""

    AUTO = "auto"

    def __init__(self, outline: "Sequence[tuple[float, float]] | str | None" = None,
                 read: "Callable[..., Reading] | None" = None) -> None:
        self.looking = outline == self.AUTO
        self.outline = None if self.looking else outline
        self._read = read

    def __call__(self, frame: np.ndarray, expected: int | None) -> "Reading":
        if self._read is None:
            self._read = read_dice
        reading = self._read(frame, expected, self.outline)
        if self.looking and not reading.dice and all(p.kind == "count" for p in reading.problems):
            found = find_tray(frame)
            if found is not None:
                self.outline, self.looking = found, False
        return reading
