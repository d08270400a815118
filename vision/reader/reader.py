"""`read_dice`: find every die in a BGR image, read its top face and say how sure.

Pipeline (every size is relative to the image or to the dice found in it):
  1. foreground: colour distance from the table's own colour (`foreground`);
  2. proposals: die-sized blobs of that map in a scale space (`candidates`);
  3. each proposal -> a normalised window (`crops`) -> the die classifier (`net`):
     "not a die centred here" or a value 1..6 with probabilities;
  4. foreground near the dice found that no die explains (touching dice) gets extra
     proposals on a grid at the size of the dice found;
  5. overlapping detections, and dice inside dice, are suppressed, the most die-like kept;
     an expected count only settles doubtful detections;
  6. dice read with low confidence are looked at again through slightly moved or scaled
     windows, keeping the clearest look;
  7. confidence and problems: a die whose top face is ambiguous is reported unsure with its
     alternatives, a leaning die as cocked; a count different from `expected` is a problem.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

import cv2
import numpy as np

from vision.reader.candidates import propose
from vision.reader.foreground import foreground_score
from vision.reading import SURE_CONFIDENCE, DieReading, Problem, Reading

# Die sides searched, as fractions of the image's shorter side.
MIN_SIDE_FRACTION = 0.025
MAX_SIDE_FRACTION = 0.22
WORK_SCALE = 0.5  # proposals are found on a half-size image
MAX_WORK_SIDE = 960  # bigger images are first shrunk to READ_SIDE on their longer side
READ_SIDE = 640


@dataclass(frozen=True)
class Proposal:
    x: float
    y: float
    side: float
    angle: float
    response: float


def foreground(image: np.ndarray) -> np.ndarray:
    """The foreground score map (see `foreground`) of the image at WORK_SCALE."""
    h, w = image.shape[:2]
    small = cv2.resize(image, (max(1, int(w * WORK_SCALE)), max(1, int(h * WORK_SCALE))), interpolation=cv2.INTER_AREA)
    score = foreground_score(cv2.cvtColor(small, cv2.COLOR_BGR2Lab))
    return fill_pip_holes(score)


def fill_pip_holes(score: np.ndarray) -> np.ndarray:
    """Foreground with its small enclosed holes filled: a big pip of the table's own colour
    (a white 1 on a white table) would otherwise leave a ring the scale space reads as
    something smaller than a die. Holes bigger than a third of the biggest die stay open,
    so a tray's rim does not turn the whole table into foreground."""
    mask = (score > 1.0).astype(np.uint8)
    contours, hierarchy = cv2.findContours(mask, cv2.RETR_CCOMP, cv2.CHAIN_APPROX_SIMPLE)
    if hierarchy is None:
        return score
    largest_hole = (MAX_SIDE_FRACTION * min(score.shape[:2])) ** 2 / 3
    holes = [c for c, h in zip(contours, hierarchy[0]) if h[3] >= 0 and cv2.contourArea(c) < largest_hole]
    if not holes:
        return score
    filled = np.zeros_like(mask)
    cv2.drawContours(filled, holes, -1, 1, thickness=-1)
    return np.where(filled > 0, np.maximum(score, 1.0), score).astype(np.float32)


def to_full(v: float) -> float:
    return (v + 0.5) / WORK_SCALE - 0.5


def proposals(image: np.ndarray, score: np.ndarray | None = None, grey: np.ndarray | None = None) -> list[Proposal]:
    """Candidate die centres and sizes in full-image pixels, with their edge angle."""
    from vision.reader.crops import edge_angle

    score = foreground(image) if score is None else score
    grey = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY) if grey is None else grey
    shorter = min(score.shape[:2])
    found = propose(score, MIN_SIDE_FRACTION * shorter, MAX_SIDE_FRACTION * shorter)
    out = []
    for c in found:
        x, y, side = to_full(c.x), to_full(c.y), c.side / WORK_SCALE
        out.append(Proposal(x, y, side, edge_angle(grey, x, y, side), c.response))
    return out


def cluster_proposals(score: np.ndarray, grey: np.ndarray, dice: list[Proposal], limit: int = 120) -> list[Proposal]:
    """Extra proposals inside foreground that no accepted die explains, on a grid a quarter
    of a die apart: touching dice merge into one blob the scale space cannot split, but the
    classifier finds their centres among these. The die size is the median of the dice
    already found; with none found, it is guessed from the widest foreground blob (a
    cluster's inscribed circle is about one die wide)."""
    from vision.reader.crops import edge_angle

    mask = (score > 1.0).astype(np.uint8)
    depth = cv2.distanceTransform(mask, cv2.DIST_L2, 3)
    if dice:
        side = float(np.median([d.side for d in dice]))
    else:
        widest = float(depth.max(initial=0.0)) / WORK_SCALE
        shorter = min(score.shape[:2]) / WORK_SCALE
        if widest < 0.5 * MIN_SIDE_FRACTION * shorter:
            return []
        side = min(1.8 * widest, MAX_SIDE_FRACTION * shorter)
    covered = np.zeros_like(mask)
    near = np.zeros_like(mask) if dice else np.ones_like(mask)
    for d in dice:
        centre = (round(d.x * WORK_SCALE), round(d.y * WORK_SCALE))
        cv2.circle(covered, centre, max(1, round(0.6 * d.side * WORK_SCALE)), 1, -1)
        cv2.circle(near, centre, max(1, round(CLUSTER_REACH * d.side * WORK_SCALE)), 1, -1)
    # touching dice touch a die already found (or none was found at all): foreground far
    # from every die (a tray's wall, a cable) is not searched, which keeps crowded images fast
    covered[near == 0] = 1
    out = []
    for size in (side,):
        small_side = size * WORK_SCALE
        free = (depth >= 0.3 * small_side) & (covered == 0)
        step = max(1, int(round(small_side / 4)))
        ys, xs = np.nonzero(free[step // 2 :: step, step // 2 :: step])
        for gy, gx in zip(ys, xs):
            x, y = to_full(gx * step + step // 2), to_full(gy * step + step // 2)
            out.append(Proposal(x, y, size, edge_angle(grey, x, y, size), 0.0))
            if len(out) >= limit:
                return out
    return out


CLUSTER_REACH = 1.6  # grid proposals only this many die sides from a die found

# A proposal is a die when the classifier gives "not a die centred here" less than this.
DIE_PROBABILITY = 0.5
RECHECK_DIE_PROBABILITY = 0.25
# Unsure dice are looked at again through windows moved by this share of their side, or
# scaled by this factor.
REFINE_SHIFT = 0.12
REFINE_SCALE = 1.2
# With an expected count, detections between these die probabilities may be added or dropped.
DOUBTFUL_BELOW = 0.25
DOUBTFUL_ABOVE = 0.75
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


def classify(image: np.ndarray, found: list[Proposal], recheck: bool = True) -> np.ndarray:
    """N x 7 class probabilities. Windows that look like a die are read again at the other
    three quarter turns and the four answers averaged (steadier values, better calibrated);
    the rest are rejected after one look, which keeps crowded images fast."""
    from vision.reader.crops import normalised_crops

    if not found:
        return np.zeros((0, classifier().params['bo'].shape[0]), np.float32)
    windows = normalised_crops(image, [(p.x, p.y, p.side, p.angle) for p in found])
    net = classifier()
    probabilities = net.probabilities(windows)
    likely = np.nonzero(probabilities[:, 0] < 1.0 - RECHECK_DIE_PROBABILITY)[0]
    if recheck and len(likely):
        turned = np.concatenate([np.rot90(windows[likely], k, axes=(2, 3)) for k in (1, 2, 3)])
        more = net.probabilities(turned).reshape(3, len(likely), -1)
        probabilities[likely] = (probabilities[likely] + more.sum(axis=0)) / 4.0
    return probabilities


def read_dice(image: np.ndarray, expected: int | None = None) -> Reading:
    """Every die in a BGR image with its top-face value and confidence (see module doc)."""
    img, why = as_bgr(image)
    if img is None:
        return Reading((), (Problem("unreadable", f"image unreadable: {why}"),))
    longest = max(img.shape[:2])
    if longest > MAX_WORK_SIDE:
        # big camera frames are read at a size where dice are still many pixels wide;
        # positions and sizes are given back in the caller's pixels
        factor = READ_SIDE / longest
        small = cv2.resize(img, (round(img.shape[1] * factor), round(img.shape[0] * factor)), interpolation=cv2.INTER_AREA)
        dice = [scaled(d, 1 / factor) for d in read_bgr(small, expected).dice]
        return Reading(tuple(dice), tuple(problems_of(dice, expected)))
    return read_bgr(img, expected)


def scaled(die: DieReading, factor: float) -> DieReading:
    return replace(die, center=(die.center[0] * factor, die.center[1] * factor), size=die.size * factor)


def read_bgr(img: np.ndarray, expected: int | None) -> Reading:
    score = foreground(img)
    grey = cv2.cvtColor(img, cv2.COLOR_BGR2GRAY)
    found = proposals(img, score, grey)
    probabilities = classify(img, found)
    dice_like = [found[i] for i in range(len(found)) if probabilities[i, 0] < 1.0 - DIE_PROBABILITY]
    extra = cluster_proposals(score, grey, dice_like)
    if extra:
        found = found + extra
        probabilities = np.concatenate([probabilities, classify(img, extra)])
    kept = select_dice(found, 1.0 - probabilities[:, 0], expected)
    kept.sort(key=lambda i: (round(found[i].y / max(found[i].side, 1.0)), found[i].x))
    chosen = [found[i] for i in kept]
    chosen_probabilities = [probabilities[i] for i in kept]
    refine_unsure(img, chosen, chosen_probabilities)
    dice = [die_reading(p, q) for p, q in zip(chosen, chosen_probabilities)]
    return Reading(tuple(dice), tuple(problems_of(dice, expected)))


def value_confidence(probabilities: np.ndarray) -> float:
    values = probabilities[1:7]
    return float(values.max() / max(float(values.sum()), 1e-9))


def refine_unsure(img: np.ndarray, dice: list[Proposal], probabilities: list[np.ndarray]) -> None:
    """Look again at dice read with low confidence through windows nudged a little in
    position and size (a window off the top face, or cut too tight, is the usual reason)
    and keep the look that reads the face most clearly. Changes the lists in place."""
    unsure = [i for i, q in enumerate(probabilities) if value_confidence(q) < SURE_CONFIDENCE]
    if not unsure:
        return
    variants: list[Proposal] = []
    owners: list[int] = []
    for i in unsure:
        p = dice[i]
        d = REFINE_SHIFT * p.side
        for dx, dy, k in ((d, 0, 1), (-d, 0, 1), (0, d, 1), (0, -d, 1), (0, 0, 1 / REFINE_SCALE), (0, 0, REFINE_SCALE)):
            variants.append(replace(p, x=p.x + dx, y=p.y + dy, side=p.side * k))
            owners.append(i)
    looks = classify(img, variants, recheck=False)
    best: dict[int, int] = {}
    for j, i in enumerate(owners):
        q = looks[j]
        if q[0] < 1.0 - DIE_PROBABILITY and value_confidence(q) > value_confidence(looks[best[i]] if i in best else probabilities[i]):
            best[i] = j
    if not best:
        return
    # the chosen windows are read again at all four turns, so the reported confidence is
    # an honest reading of that window, not the luckiest of several glances
    again = classify(img, [variants[j] for j in best.values()])
    for (i, j), q in zip(best.items(), again):
        if value_confidence(q) > value_confidence(probabilities[i]) and q[0] < 1.0 - DIE_PROBABILITY:
            dice[i], probabilities[i] = variants[j], q


def select_dice(found: list[Proposal], die_probability: np.ndarray, expected: int | None) -> list[int]:
    """The detections kept as dice: most die-like first, none on top of a kept one.

    Knowing how many dice there should be moves the line only for doubtful detections:
    with too many, doubtful ones (die probability below DOUBTFUL_ABOVE) are dropped,
    weakest first; with too few, doubtful ones down to DOUBTFUL_BELOW are added."""
    order = sorted(range(len(found)), key=lambda i: -die_probability[i])
    kept: list[int] = []
    spare: list[int] = []
    for i in order:
        if die_probability[i] < DOUBTFUL_BELOW:
            break
        if not any(overlap(found[i], found[k]) for k in kept):
            (kept if die_probability[i] >= DIE_PROBABILITY else spare).append(i)
    if expected is not None:
        while len(kept) > expected and die_probability[kept[-1]] < DOUBTFUL_ABOVE:
            kept.pop()
        for i in spare:
            if len(kept) >= expected:
                break
            if not any(overlap(found[i], found[k]) for k in kept):
                kept.append(i)
    return kept


def overlap(a: Proposal, b: Proposal) -> bool:
    """Two detections that cannot both be dice: the same die seen twice, or one inside the
    other (a pip read as a small die, or a cluster read as one big die)."""
    distance = math.hypot(a.x - b.x, a.y - b.y)
    small, big = sorted((a.side, b.side))
    return distance <= SAME_DIE * small or (distance < 0.5 * big and small < 0.6 * big)


def die_reading(p: Proposal, probabilities: np.ndarray) -> DieReading:
    """A die's value, confidence and alternatives from its class probabilities.

    The confidence is the probability of the best value among the six values, so it says
    how sure the reading of the top face is once we know a die is there. A die the
    classifier thinks more likely leaning than flat is cocked (its value still the best
    guess, for the players to see)."""
    values = probabilities[1:7] / max(float(probabilities[1:7].sum()), 1e-9)
    ranked = np.argsort(-values)
    confidence = float(values[ranked[0]])
    die_probability = 1.0 - float(probabilities[0])
    if die_probability < DIE_PROBABILITY:  # kept only because the expected count asked for it
        confidence = min(confidence, die_probability)
    alternatives = tuple(int(v) + 1 for v in ranked[1:] if values[v] >= 0.05)
    if confidence < SURE_CONFIDENCE and not alternatives:
        alternatives = (int(ranked[1]) + 1,)
    cocked = len(probabilities) > 7 and float(probabilities[7]) > float(probabilities[1:7].sum())
    return DieReading(int(ranked[0]) + 1, (p.x, p.y), p.side, p.angle, confidence, alternatives, cocked)


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
