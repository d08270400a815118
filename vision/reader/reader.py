"""`read_dice`: find every die in a BGR image, read its top face and say how sure.

Pipeline (every size is relative to the image or to the dice found in it):
  1. foreground: colour distance from the table's own colour (`foreground`);
  2. proposals: die-sized blobs of that map in a scale space (`candidates`);
  3. each proposal -> a normalised window (`crops`) -> the die classifier (`net`):
     "not a die centred here" or a value 1..6 with probabilities;
  4. clusters of touching dice get extra proposals on a grid at the size of the dice found;
  5. overlapping detections are suppressed, the most die-like kept;
  6. confidence and problems: a die whose top face is ambiguous is reported unsure with its
     alternatives; a count different from `expected` is a problem.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass

import cv2
import numpy as np

from vision.reader.candidates import Candidate, propose
from vision.reader.foreground import foreground_score
from vision.reading import SURE_CONFIDENCE, DieReading, Problem, Reading

# Die sides searched, as fractions of the image's shorter side.
MIN_SIDE_FRACTION = 0.025
MAX_SIDE_FRACTION = 0.22
WORK_SCALE = 0.5  # proposals are found on a half-size image


@dataclass(frozen=True)
class Proposal:
    x: float
    y: float
    side: float
    angle: float
    response: float


def proposals(image: np.ndarray) -> list[Proposal]:
    """Candidate die centres and sizes in full-image pixels, with their edge angle."""
    from vision.reader.crops import edge_angle

    h, w = image.shape[:2]
    small = cv2.resize(image, (max(1, int(w * WORK_SCALE)), max(1, int(h * WORK_SCALE))), interpolation=cv2.INTER_AREA)
    lab = cv2.cvtColor(small, cv2.COLOR_BGR2Lab)
    score = foreground_score(lab)
    shorter = min(small.shape[:2])
    found = propose(score, MIN_SIDE_FRACTION * shorter, MAX_SIDE_FRACTION * shorter)
    grey = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    out = []
    for c in found:
        x, y, side = (c.x + 0.5) / WORK_SCALE - 0.5, (c.y + 0.5) / WORK_SCALE - 0.5, c.side / WORK_SCALE
        out.append(Proposal(x, y, side, edge_angle(grey, x, y, side), c.response))
    return out


# A proposal is a die when the classifier gives "not a die centred here" less than this.
DIE_PROBABILITY = 0.5
RECHECK_DIE_PROBABILITY = 0.25
# Two detections closer than this fraction of the smaller die are the same die.
SAME_DIE = 0.6

_classifier = None


def classifier():
    """The die classifier, loaded once per process."""
    global _classifier
    if _classifier is None:
        from vision.reader.net import DieClassifier

        _classifier = DieClassifier()
    return _classifier


def as_bgr(image: object) -> tuple[np.ndarray | None, str]:
    """The image as 8-bit BGR, or None and why it cannot be read."""
    if not isinstance(image, np.ndarray):
        return None, f"not an image array ({type(image).__name__})"
    if image.size == 0 or image.ndim not in (2, 3):
        return None, f"empty or malformed image (shape {image.shape})"
    if image.ndim == 3 and image.shape[2] not in (1, 3, 4):
        return None, f"unsupported channel count {image.shape[2]}"
    if image.dtype == np.uint8:
        img = image
    elif image.dtype == np.uint16:
        img = (image >> 8).astype(np.uint8)
    elif np.issubdtype(image.dtype, np.floating):
        finite = np.nan_to_num(image.astype(np.float32))
        scale = 255.0 if float(finite.max(initial=0.0)) <= 1.0 else 1.0
        img = np.clip(finite * scale, 0, 255).astype(np.uint8)
    elif np.issubdtype(image.dtype, np.integer) or image.dtype == np.bool_:
        img = np.clip(image.astype(np.int64) * (255 if image.dtype == np.bool_ else 1), 0, 255).astype(np.uint8)
    else:
        return None, f"unsupported pixel type {image.dtype}"
    if img.ndim == 2 or img.shape[2] == 1:
        img = cv2.cvtColor(img.reshape(img.shape[0], img.shape[1]), cv2.COLOR_GRAY2BGR)
    elif img.shape[2] == 4:
        img = cv2.cvtColor(img, cv2.COLOR_BGRA2BGR)
    if min(img.shape[:2]) < 48:
        return None, f"image too small to read dice ({img.shape[1]}x{img.shape[0]})"
    return np.ascontiguousarray(img), ""


def classify(image: np.ndarray, found: list[Proposal]) -> np.ndarray:
    """N x 7 class probabilities. Windows that look like a die are read again at the other
    three quarter turns and the four answers averaged (steadier values, better calibrated);
    the rest are rejected after one look, which keeps crowded images fast."""
    from vision.reader.crops import normalised_crops

    if not found:
        return np.zeros((0, 7), np.float32)
    windows = normalised_crops(image, [(p.x, p.y, p.side, p.angle) for p in found])
    net = classifier()
    probabilities = net.probabilities(windows)
    likely = np.nonzero(probabilities[:, 0] < 1.0 - RECHECK_DIE_PROBABILITY)[0]
    if len(likely):
        turned = np.concatenate([np.rot90(windows[likely], k, axes=(2, 3)) for k in (1, 2, 3)])
        more = net.probabilities(turned).reshape(3, len(likely), -1)
        probabilities[likely] = (probabilities[likely] + more.sum(axis=0)) / 4.0
    return probabilities


def read_dice(image: np.ndarray, expected: int | None = None) -> Reading:
    """Every die in a BGR image with its top-face value and confidence (see module doc)."""
    img, why = as_bgr(image)
    if img is None:
        return Reading((), (Problem("unreadable", f"image unreadable: {why}"),))
    found = proposals(img)
    probabilities = classify(img, found)
    order = sorted(range(len(found)), key=lambda i: probabilities[i, 0])
    kept: list[int] = []
    for i in order:
        if 1.0 - probabilities[i, 0] < DIE_PROBABILITY:
            break
        p = found[i]
        if all(math.hypot(p.x - found[k].x, p.y - found[k].y) > SAME_DIE * min(p.side, found[k].side) for k in kept):
            kept.append(i)
    kept.sort(key=lambda i: (round(found[i].y / max(found[i].side, 1.0)), found[i].x))
    dice = []
    for i in kept:
        p = found[i]
        values = probabilities[i, 1:] / max(float(probabilities[i, 1:].sum()), 1e-9)
        ranked = np.argsort(-values)
        confidence = float(values[ranked[0]])
        alternatives = tuple(int(v) + 1 for v in ranked[1:] if values[v] >= 0.05)
        if confidence < SURE_CONFIDENCE and not alternatives:
            alternatives = (int(ranked[1]) + 1,)
        dice.append(DieReading(int(ranked[0]) + 1, (p.x, p.y), p.side, p.angle, confidence, alternatives))
    return Reading(tuple(dice), tuple(problems_of(dice, expected)))


def problems_of(dice: list[DieReading], expected: int | None) -> list[Problem]:
    problems = []
    if expected is not None and expected != len(dice):
        problems.append(Problem("count", f"expected {expected}, found {len(dice)}"))
    for index, die in enumerate(dice):
        where = f"die at ({die.center[0]:.0f}, {die.center[1]:.0f})"
        if die.cocked:
            problems.append(Problem("cocked", f"{where} looks cocked", index))
        elif die.confidence < SURE_CONFIDENCE:
            options = " or ".join(str(v) for v in (die.value, *die.alternatives[:2]))
            problems.append(Problem("unsure", f"{where} unsure: {options}", index))
    return problems
