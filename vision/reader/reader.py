"""`read_dice`: find every die in a BGR image, read its top face and say how sure.

Pipeline (nothing is tied to one camera: sizes come from the image itself):
  1. the detector (`detector`) finds every die's top face, touching dice included: centre,
     edge length, angle, a die score and a cocked score, from one pass of a small network
     over the image shrunk to 320 px;
  2. the classifier (`classifier.classify_dice`) reads each detection's window: "not a die"
     or a flat die showing 1..6, or cocked, with calibrated probabilities; and again in
     windows scaled by SCALE_LOOKS: a die whose value changes with the window, or that a
     look a little larger doubts is a die at all, is never sure;
  3. the detector decides what is a die, the classifier can only veto: a detection from
     SURE_DETECTION stays unless the classifier is certain there is no die (a little less
     certain will do for one scored under KEEP_SCORE); doubtful ones are used only to reach
     an expected count, and then reported unsure; short of the count, two one-pip faces found
     side by side are read once more as the die holding both (big pips taken for dice);
  4. confidence and problems: a die whose top face is ambiguous is reported unsure with its
     alternatives, a leaning die as cocked; a count different from `expected` is a problem.
The work per image is bounded whatever it holds: images over MAX_WORK_SIDE are read shrunk to
READ_SIDE, arrays over MAX_PIXELS are refused, and the detector decodes a few dozen peaks at
most. With a `tray` polygon only the tray is read: the image is cut to the tray's bounding box
(dice are then bigger at the detector's input) and what lies outside the polygon is ignored.
"""

from __future__ import annotations

import math
from dataclasses import replace
from typing import Sequence

import cv2
import numpy as np

from vision.reader.classifier import CLASS_NAMES, classify_dice
from vision.reader.detector import Detection, detect
from vision.reader.windows import DIE_WINDOW_SCALES, box_from_edge, edge_angle
from vision.reading import SURE_CONFIDENCE, DieReading, Problem, Reading, die_problems

MAX_PIXELS = 40_000_000  # a bigger array is refused (no camera gives one; converting it would cost gigabytes)
MAX_WORK_SIDE = 960  # bigger images are first shrunk to READ_SIDE on their longer side
READ_SIDE = 640
SURE_DETECTION = 0.4  # from this score a detection is a die unless the classifier is certain it is not
VETO = 0.99  # classifier "not a die" probability that overrules a sure detection ...
VETO_BELOW_KEEP = 0.9  # ... or one scored under KEEP_SCORE (a speck at the tray's edge)
EXPECTED_FLOOR = 0.25  # with too few dice for the expected count, detections from this score are added
KEEP_SCORE = 0.6  # with too many, detections below this score are dropped, least likely first
GUESSED_SIZE_RATIO = 1.6  # a die added for the count is within this factor of the found dice' size
COCKED_SCORE = 0.5  # detector cocked probability from which a die is reported cocked
SCALE_LOOKS = (1.25,)  # each die's window read again at these multiples of its size
# The looks (the first, then SCALE_LOOKS') that speak to whether a die is there: a window bigger
# than the classifier learnt dice in can hold a cluster of dice, which it was taught is no die
LOOKS_FOR_A_DIE = (0, *(1 + n for n, k in enumerate(SCALE_LOOKS)
                       if DIE_WINDOW_SCALES[0] <= k <= DIE_WINDOW_SCALES[1]))
LOOK_AGREEMENT = 0.8  # a die is steady when every look gives its value at least this share
# Two one-pip faces found this close (in their size: from one pip found twice to two dice that
# size overlapping), and this alike in size, may be one die's pips: read as the die holding both
PIP_PAIR_REACH = (0.5, 1.5)
PIP_PAIR_SIZE_RATIO = 1.3
MAX_PIP_PAIRS = 8  # at most this many such pairs read, the likeliest first: the work stays bounded


def as_bgr(image: object) -> tuple[np.ndarray | None, str]:
    """The image as 8-bit BGR, or None and why it cannot be read."""
    if not isinstance(image, np.ndarray):
        return None, f"not an image array ({type(image).__name__})"
    if image.size == 0 or image.ndim not in (2, 3):
        return None, f"empty or malformed image (shape {image.shape})"
    if image.shape[0] * image.shape[1] > MAX_PIXELS:
        return None, f"image too large ({image.shape[1]}x{image.shape[0]}, more than {MAX_PIXELS // 10**6} megapixels)"
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


def load_models() -> None:
    """Load the detector and the classifier and run each once, on a blank image: otherwise
    the first reading does it (about a second), which a caller timing readings should not
    count."""
    blank = np.full((240, 320, 3), 128, np.uint8)
    detect(blank)
    classify_dice(blank, [((160.0, 120.0), 40.0, 0.0)])


def classify(image: np.ndarray, found: list[Detection]) -> np.ndarray:
    """N x 8 probabilities: 0 not a die, 1..6 values, 7 cocked (see `classifier`)."""
    return classify_dice(image, [(d.center, d.size, d.angle) for d in found])


def second_looks(image: np.ndarray, dice: list[Detection], first: np.ndarray
                 ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The dice's probabilities after reading each again at every scale of SCALE_LOOKS, per
    die whether every window read its value (at least LOOK_AGREEMENT of the share), and per
    die the probability that there is a die by the look least sure of one, among those at
    window sizes the classifier learnt dice in (DIE_WINDOW_SCALES).

    A die read at its detected size and again in windows a little larger shows the same
    face; a reading that changes with the window (a pip taken for a whole die, a neighbour's
    pips at the edge, a face the network has never seen), or that any look gives less than
    LOOK_AGREEMENT of the value's share, is a guess. Where the looks disagree
    the values are the looks' mean and the die cannot be sure; whether there is a die, and a
    cocked one, stays the first look's, but a die is only as surely there as the least sure
    of those looks says: the bowl of a headline's letter is a one-pip face at its own size
    and a letter among letters in a window a quarter larger, where a die is still a die.
    Only the dice kept are looked at again."""
    if not dice:
        return first, np.zeros(0, bool), np.zeros(0)
    # the other scales are read once each, without the quarter turns the first look may take
    again = classify_dice(image, [(d.center, d.size * k, d.angle) for k in SCALE_LOOKS for d in dice], tta=False)
    looks = np.concatenate([first, again]).reshape(1 + len(SCALE_LOOKS), len(dice), -1)
    shares = looks[:, :, 1:7] / np.maximum(looks[:, :, 1:7].sum(axis=2, keepdims=True), 1e-9)
    value = shares[0].argmax(axis=1)
    steady = (shares[:, np.arange(len(dice)), value] >= LOOK_AGREEMENT).all(axis=0)
    probabilities = looks[0].copy()
    probabilities[~steady, 1:7] = shares[:, ~steady].mean(axis=0) * probabilities[~steady, 1:7].sum(axis=1, keepdims=True)
    return probabilities, steady, 1.0 - looks[list(LOOKS_FOR_A_DIE), :, 0].max(axis=0)


Polygon = Sequence[tuple[float, float]]


def read_dice(image: np.ndarray, expected: int | None = None, tray: Polygon | None = None) -> Reading:
    """Every die in a BGR image with its top-face value and confidence (see module doc);
    with `tray` (a polygon in the image's pixels) only the dice on the tray."""
    img, why = as_bgr(image)
    if img is None:
        return Reading((), (Problem("unreadable", f"image unreadable: {why}"),))
    origin = (0, 0)
    outline = None
    if tray is not None:
        outline = np.asarray(tray, np.float32).reshape(-1, 2)
        x0, y0, w, h = cv2.boundingRect(outline)
        margin = round(0.02 * max(w, h))
        x0, y0 = max(0, x0 - margin), max(0, y0 - margin)
        x1, y1 = min(img.shape[1], x0 + w + 2 * margin), min(img.shape[0], y0 + h + 2 * margin)
        if len(outline) < 3 or min(x1 - x0, y1 - y0) < 48:
            return Reading((), (Problem("unreadable", "the tray's outline leaves nothing to read in the image"),))
        img, origin = img[y0:y1, x0:x1], (x0, y0)
        outline = outline - np.float32(origin)
    factor = 1.0
    longest = max(img.shape[:2])
    if longest > MAX_WORK_SIDE:
        # big camera frames are read at a size where dice are still many pixels wide;
        # positions and sizes are given back in the caller's pixels
        factor = READ_SIDE / longest
        img = cv2.resize(img, (round(img.shape[1] * factor), round(img.shape[0] * factor)), interpolation=cv2.INTER_AREA)
        if outline is not None:
            outline = outline * np.float32(factor)
    reading = read_bgr(img, expected, outline)
    if factor == 1.0 and origin == (0, 0):
        return reading
    dice = [placed(d, factor, origin) for d in reading.dice]
    return Reading(tuple(dice), tuple(problems_of(dice, expected)))


def placed(die: DieReading, factor: float, origin: tuple[int, int]) -> DieReading:
    """A die read in a shrunk (by `factor`) cut-out at `origin`, in the whole image's pixels."""
    return replace(die, center=(die.center[0] / factor + origin[0], die.center[1] / factor + origin[1]),
                   size=die.size / factor)


def read_bgr(img: np.ndarray, expected: int | None, outline: np.ndarray | None = None) -> Reading:
    # only detections that can become dice are read, and only those on the tray
    found = detect(img, SURE_DETECTION if expected is None else EXPECTED_FLOOR)
    if outline is not None:
        found = [d for d in found if cv2.pointPolygonTest(outline, (float(d.center[0]), float(d.center[1])), False) >= 0]
    first, kept, guessed = classified(img, found, expected)
    if expected is not None and len(kept) < expected:
        found, first, kept, guessed = with_pips_joined(img, found, first, kept, guessed, expected)
    kept.sort(key=lambda i: (round(found[i].center[1] / max(found[i].size, 1.0)), found[i].center[0]))
    probabilities, steady, seen = second_looks(img, [found[i] for i in kept], first[kept])
    dice = [die_reading(found[i], p, i in guessed, unsteady=not s, seen=float(a),
                        cut_off=barely_seen_at_the_edge(found[i], img.shape))
            for i, p, s, a in zip(kept, probabilities, steady, seen)]
    return Reading(tuple(dice), tuple(problems_of(dice, expected)))


def classified(img: np.ndarray, found: list[Detection], expected: int | None
               ) -> tuple[np.ndarray, list[int], set[int]]:
    """The classifier's probabilities for the detections, and `select_dice`'s choice.

    Only detections that can be kept are read: the sure ones first, and the doubtful ones
    only when the sure ones fall short of the expected count or some are barely sure and read
    unsurely (they can only fill it, stand in for a sure die where there is none, or take a
    barely sure one's place). Those left unread count as "not a die" and are never kept, so
    the choice is the one reading every detection would give."""
    first = np.zeros((len(found), len(CLASS_NAMES)), np.float32)
    first[:, 0] = 1.0
    sure = [i for i, d in enumerate(found) if d.score >= SURE_DETECTION]
    first[sure] = classify(img, [found[i] for i in sure])
    kept, guessed = select_dice(found, first, expected)
    if expected is None:  # without a count the doubtful detections can never be kept
        return first, kept, guessed
    doubtful = [i for i, d in enumerate(found) if d.score < SURE_DETECTION]
    barely = any(found[i].score < KEEP_SCORE and not read_surely(first[i]) for i in kept)
    if (len(kept) < expected or barely) and doubtful:
        first[doubtful] = classify(img, [found[i] for i in doubtful])
        kept, guessed = select_dice(found, first, expected)
    return first, kept, guessed


def select_dice(found: list[Detection], probabilities: np.ndarray, expected: int | None) -> tuple[list[int], set[int]]:
    """The detections kept as dice, and those among them kept only to reach the expected count.

    The detector decides and the classifier can only veto: a sure detection is a die unless
    the classifier is certain there is none. A doubtful detection is never a die on the
    classifier's word alone: the classifier calls specks of dirt and the tray's holes dice
    (a one on a die the colour of the tray looks much the same), the detector rarely does.
    Knowing how many dice there should be moves the line only for doubtful detections: with
    too many, those under KEEP_SCORE are dropped, least likely first; with too few, the likeliest
    of the rest that are the size of the dice found are added (and reported unsure), likeliest
    by both networks: the detector's score times the classifier's probability that a die is
    there (among small dice on a busy floor the detector scores a die and a token alike). The
    count does not conjure dice out of an empty tray: with no sure die there is no size to go
    by, and a speck at the tray's edge would be asked about as a die; only doubtful detections
    the classifier reads as sure dice on its own (`read_surely`) then stand in for the sure
    dice, as guessed as those added (small dice on a busy floor, under SURE_DETECTION at the
    detector, can be read that plainly). For the same reason, with a count, such a detection
    takes the place of a kept one scored under KEEP_SCORE that the classifier does not read
    surely (a token on a board game scored just over the line), guessed too."""
    not_a_die = probabilities[:, 0] if len(found) else np.zeros(0)
    order = sorted(range(len(found)), key=lambda i: -found[i].score)
    kept = [i for i in order if found[i].score >= SURE_DETECTION
            and not_a_die[i] < (VETO if found[i].score >= KEEP_SCORE else VETO_BELOW_KEEP)]
    if expected is None:
        return kept, set()
    return fitted_to_count(found, probabilities, order, kept, expected)


def fitted_to_count(found: list[Detection], probabilities: np.ndarray, order: list[int], kept: list[int],
                    expected: int) -> tuple[list[int], set[int]]:
    """`select_dice`'s sure dice `kept` (of `order`, likeliest first by the detector) fitted to
    the expected count, in its four steps: stand-ins where nothing is sure, the least likely
    barely sure dropped from too many, the likeliest spare added to too few, and plain dice in
    the place of barely sure ones the classifier doubts; and the dice guessed on the way."""
    not_a_die = probabilities[:, 0]

    def likelihood(i: int) -> float:
        return die_likelihood(found[i], probabilities[i])

    guessed: set[int] = set()
    if not kept:
        stand_ins = [i for i in order if found[i].score >= EXPECTED_FLOOR and read_surely(probabilities[i])]
        kept = sorted(stand_ins, key=likelihood, reverse=True)[:expected]
        guessed = set(kept)
        if not kept:
            return [], guessed
    droppable = sorted((i for i in kept if found[i].score < KEEP_SCORE), key=likelihood)
    for i in droppable[: max(0, len(kept) - expected)]:
        kept.remove(i)
    size = float(np.median([found[i].size for i in kept]))
    spare = [i for i in order if i not in kept and found[i].score >= EXPECTED_FLOOR and not_a_die[i] < 0.5
             and 1 / GUESSED_SIZE_RATIO <= found[i].size / size <= GUESSED_SIZE_RATIO]
    spare.sort(key=likelihood, reverse=True)
    added = spare[: max(0, expected - len(kept))]
    guessed |= set(added)
    kept += added
    likely = [i for i in spare if i not in added and read_surely(probabilities[i])]
    doubted = sorted((i for i in kept if i not in guessed and found[i].score < KEEP_SCORE
                      and not read_surely(probabilities[i])), key=likelihood)
    for out, into in zip(doubted, likely):
        kept[kept.index(out)] = into
        guessed.add(into)
    return kept, guessed


def with_pips_joined(img: np.ndarray, found: list[Detection], first: np.ndarray, kept: list[int], guessed: set[int],
                     expected: int) -> tuple[list[Detection], np.ndarray, list[int], set[int]]:
    """Short of the expected count, the dice whose pips were found as dice, added: two spare
    detections read as one-pip faces, about one size and closer than two dice of that size could
    lie (PIP_PAIR_REACH, PIP_PAIR_SIZE_RATIO), are read as the die that would hold both (centred
    between them, its edge their distance plus their size; the MAX_PIP_PAIRS likeliest); those the
    classifier reads as a sure die on its own, off the kept dice and off each other, are added
    likeliest first up to the count, guessed. A black die's two big white pips are each a one-pip
    face to the detector and "no die" to the classifier, and the die itself is not found. Every
    detection has been read when the count falls short (`classified`); the returned detections
    and probabilities have the added dice at their end."""
    # a row whose six values are all zero ("not a die" to the last bit) has no likeliest value
    spare = [i for i, d in enumerate(found) if i not in kept and d.score >= EXPECTED_FLOOR
             and float(first[i, 1:7].sum()) > 0 and int(np.argmax(first[i, 1:7])) == 0]
    pairs = []
    for n, a in enumerate(spare):
        for b in spare[n + 1:]:
            one, other = found[a], found[b]
            size = (one.size + other.size) / 2
            if (max(one.size, other.size) <= PIP_PAIR_SIZE_RATIO * min(one.size, other.size)
                    and PIP_PAIR_REACH[0] * size <= math.dist(one.center, other.center) <= PIP_PAIR_REACH[1] * size):
                pairs.append((one, other))
    if not pairs:
        return found, first, kept, guessed
    pairs.sort(key=lambda pair: -min(pair[0].score, pair[1].score))
    grey = cv2.cvtColor(img, cv2.COLOR_BGR2GRAY)
    joined = []
    for one, other in pairs[:MAX_PIP_PAIRS]:
        x, y = (one.center[0] + other.center[0]) / 2, (one.center[1] + other.center[1]) / 2
        edge = math.dist(one.center, other.center) + (one.size + other.size) / 2
        joined.append(Detection((x, y), edge, edge_angle(grey, x, y, edge), min(one.score, other.score), 0.0))
    probabilities = classify(img, joined)
    plain = sorted((j for j in range(len(joined)) if read_surely(probabilities[j])),
                   key=lambda j: -die_likelihood(joined[j], probabilities[j]))
    chosen: list[int] = []
    for j in plain:
        if len(kept) + len(chosen) >= expected:
            break
        centres = [found[i].center for i in kept] + [joined[k].center for k in chosen]
        if all(math.dist(joined[j].center, c) > joined[j].size / 2 for c in centres):
            chosen.append(j)
    if not chosen:
        return found, first, kept, guessed
    added = list(range(len(found), len(found) + len(chosen)))
    return (found + [joined[j] for j in chosen], np.concatenate([first, probabilities[chosen]]),
            kept + added, guessed | set(added))


def runs_off(d: Detection, shape: tuple[int, ...]) -> bool:
    """Whether a detection's top face (its square, any corner) runs off the picture read."""
    half = box_from_edge(d.size, d.angle) / 2
    (x, y), (height, width) = d.center, shape[:2]
    return x - half < 0 or y - half < 0 or x + half > width - 1 or y + half > height - 1


def barely_seen_at_the_edge(d: Detection, shape: tuple[int, ...]) -> bool:
    """A face cut by the picture's edge that the detector scores under KEEP_SCORE: its pips may be
    out of sight, and a glyph of printed text cut by the frame's edge scores so too (FINDINGS.md,
    "A die cut by the frame's edge and barely detected"); a real die cut so scores higher."""
    return d.score < KEEP_SCORE and runs_off(d, shape)


def die_likelihood(d: Detection, probabilities: np.ndarray) -> float:
    """That a detection is a die, by both networks: the detector's score times the classifier's
    probability that a die is there."""
    return d.score * (1.0 - float(probabilities[0]))


def read_surely(probabilities: np.ndarray) -> bool:
    """Whether class probabilities alone make a sure die: its likeliest value's share of the
    six values times the probability that a die is there reaches SURE_CONFIDENCE (as in
    `die_reading`)."""
    values = probabilities[1:7]
    return float(values.max()) / max(float(values.sum()), 1e-9) * (1.0 - float(probabilities[0])) >= SURE_CONFIDENCE


def die_reading(d: Detection, probabilities: np.ndarray, guessed: bool = False, unsteady: bool = False,
                seen: float | None = None, cut_off: bool = False) -> DieReading:
    """A die's value, confidence and alternatives from its class probabilities.

    The confidence is the probability of the best value among the six values, so it says
    how sure the reading of the top face is once we know a die is there. A die is sure only
    when the classifier gives "a die showing this value" at least SURE_CONFIDENCE, the value's
    confidence times the probability that a die is there at all (`seen`, that of the look
    least sure of one, where the die was looked at again): a value read surely off
    something that may be no die (a letter's bowl in a headline, a pip on a black die) is no
    sure reading of a die. A die kept only because the expected count asked for it, or one
    whose value changed with the window's scale (`unsteady`), or one barely detected whose face
    runs off the picture (`cut_off`, see `barely_seen_at_the_edge`), is never sure either. A die the
    detector or the classifier sees leaning is cocked (its value still the best guess, for the
    players to see)."""
    values = probabilities[1:7] / max(float(probabilities[1:7].sum()), 1e-9)
    ranked = np.argsort(-values)
    confidence = float(values[ranked[0]])
    there = 1.0 - float(probabilities[0]) if seen is None else seen
    if guessed:
        confidence = min(confidence, d.score, there, SURE_CONFIDENCE - 0.01)
    if unsteady or cut_off or confidence * there < SURE_CONFIDENCE:
        confidence = min(confidence, SURE_CONFIDENCE - 0.01)
    alternatives = tuple(int(v) + 1 for v in ranked[1:] if values[v] >= 0.05)
    if confidence < SURE_CONFIDENCE and not alternatives:
        alternatives = (int(ranked[1]) + 1,)
    cocked = d.cocked >= COCKED_SCORE or float(probabilities[7]) > float(probabilities[1:7].sum())
    return DieReading(int(ranked[0]) + 1, d.center, d.size, d.angle, confidence, alternatives, cocked)


def problems_of(dice: list[DieReading], expected: int | None) -> list[Problem]:
    problems = []
    if expected is not None and expected != len(dice):
        problems.append(Problem("count", f"expected {expected}, found {len(dice)}"))
    return problems + die_problems(dice)
