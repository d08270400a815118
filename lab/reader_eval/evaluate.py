"""Scoring a reader against labelled photos: the figures `cubilete bench vision` prints.

A manifest is JSON lines, one photo a line:
`{"image": "rel/path.jpg", "split": "train"|"test"|..., "dice": [{"value": 1..6,
"box": [x0, y0, x1, y1], "ignore": false}]}` with boxes around each die's top face.

Matching predictions to labels (one to one): a predicted die may match a labelled die when
its centre lies within half the box side (the larger of width and height) of the box
centre, i.e. inside the circle that touches the box's sides. Candidate pairs are taken
greedily, nearest first, each prediction and each label used at most once. A prediction
matched to a label marked `"ignore": true` counts neither way. A label with no prediction is
a miss; a prediction with no label is an extra; a matched pair is right when the values
agree, else a wrong value. A photo is exactly right when every labelled die is matched with
the right value and there is no extra.

Unsure dice: per-die accuracy and exact photos count a die by its value alone, whether the
reader was sure of it or not (an unsure die with the right value counts as right). How sure
the reader was is reported beside it, never mixed in: "right and sure" counts the dice read
right with confidence >= SURE_CONFIDENCE and not cocked (those a device scores without asking
the players); "reported unsure" counts matched dice below that confidence or cocked, right or
wrong; the calibration figure is the share of wrong values among the matched sure dice.
"""

from __future__ import annotations

import functools
import json
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Sequence

from lab.reader_eval.label_fixes import fixed_row
from lab.reader_eval.learnt import learnt_held_out
from lab.reader_eval.scenes import scene_copies
from lab.reader_eval.shots import camera_shot, shots_in_tests
from vision.reading import SURE_CONFIDENCE, Reading


@dataclass(frozen=True)
class LabelledDie:
    value: int
    box: tuple[float, float, float, float]
    ignore: bool = False

    @property
    def center(self) -> tuple[float, float]:
        x0, y0, x1, y1 = self.box
        return ((x0 + x1) / 2, (y0 + y1) / 2)

    @property
    def side(self) -> float:
        x0, y0, x1, y1 = self.box
        return max(x1 - x0, y1 - y0)


@dataclass(frozen=True)
class LabelledPhoto:
    image: str
    split: str
    dice: tuple[LabelledDie, ...]


HELD_OUT = "held-out"  # not a split of the manifest: every tenth photo of its train split


def load_manifest(path: Path | str, split: str | None = None,
                  leave_out: frozenset[str] = frozenset(), copies: frozenset[str] = frozenset()) -> list[LabelledPhoto]:
    """The photos of a manifest, optionally only those of one split, less those of the camera
    shots `leave_out` (`shots`) and those named "set/image" in `copies` (`scenes`). The split "held-out" is every tenth photo of the train split,
    in manifest order: the photos the training scripts keep from the networks
    (`scripts/photo_sets.py`), on which the reader may be tuned. Train photos are read with the
    reviewed label fixes of their set (`label_fixes`, the set being the manifest's folder)."""
    set_name = Path(path).parent.name
    photos = []
    train_index = 0
    for number, line in enumerate(Path(path).read_text().splitlines(), start=1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except ValueError as error:
            raise ValueError(f"{path}:{number}: not a manifest line ({error})") from None
        row = fixed_row(set_name, row)
        try:
            dice = tuple(
                LabelledDie(int(d["value"]), tuple(float(v) for v in d["box"]), bool(d.get("ignore", False)))
                for d in row.get("dice", [])
            )
            photo = LabelledPhoto(str(row["image"]), str(row.get("split", "")), dice)
        except (ValueError, KeyError, TypeError) as error:
            raise ValueError(f"{path}:{number}: not a manifest line ({error})") from None
        if split == HELD_OUT:
            if photo.split == "train":
                if train_index % 10 == 9:
                    photos.append(photo)
                train_index += 1
        elif split is None or photo.split == split:
            photos.append(photo)
    return [photo for photo in photos
            if camera_shot(photo.image) not in leave_out and f"{set_name}/{photo.image}" not in copies]


def load_split(path: Path | str, split: str | None, sets: Path) -> list[LabelledPhoto]:
    """The photos of a manifest's split as the benches and `decide` read them: the held-out
    photos less those of a test photo's camera shot (`shots`) or scene (`scenes`) among the sets
    under `sets`, since the reader is tuned on them, and less those the networks learnt all the
    same (`learnt`: a copy of their scene, throw or shot was trained on); any other split whole."""
    if split != HELD_OUT:
        return load_manifest(path, split)
    root = Path(sets).resolve()
    learnt = learnt_held_out(root, held_out_names(root))
    return load_manifest(path, HELD_OUT, shots_in_tests(root), scene_copies(root).train | learnt)


@functools.lru_cache(maxsize=4)
def held_out_names(root: Path) -> frozenset[str]:
    """"set/image" of every held-out photo (HELD_OUT, before anything is left out) of the sets
    under `root`: worked out once per folder, not once per set read."""
    return frozenset(f"{m.parent.name}/{p.image}" for m in sorted(root.glob("*/manifest.jsonl"))
                     for p in load_manifest(m, HELD_OUT))


@dataclass
class PhotoResult:
    image: str
    right: int = 0
    wrong: list[tuple[int, int, float]] = field(default_factory=list)  # (true, read, confidence)
    misses: list[int] = field(default_factory=list)  # true values not found
    extras: list[tuple[int, float]] = field(default_factory=list)  # (read, confidence)
    sure_right: int = 0
    sure_wrong: int = 0
    sure_mistakes: list[tuple[int, int, tuple[float, float]]] = field(default_factory=list)  # (true, read, centre) of those
    sure_extras: int = 0
    per_value: dict[int, list[int]] = field(default_factory=dict)  # true value -> [right, total]
    ms: float = 0.0
    asked: bool = False  # the reading had a problem or an unsure die: a device would ask the players

    @property
    def exact(self) -> bool:
        return not self.wrong and not self.misses and not self.extras


def match_centres(labels: Sequence[LabelledDie], centres: Sequence[tuple[float, float]]) -> dict[int, int]:
    """Label index -> prediction index under the matching rule of the module docstring."""
    pairs = []
    for li, label in enumerate(labels):
        cx, cy = label.center
        for pi, (x, y) in enumerate(centres):
            distance = math.hypot(x - cx, y - cy)
            if distance <= label.side / 2:
                pairs.append((distance, li, pi))
    pairs.sort()
    label_match: dict[int, int] = {}
    used_predictions: set[int] = set()
    for _, li, pi in pairs:
        if li in label_match or pi in used_predictions:
            continue
        label_match[li] = pi
        used_predictions.add(pi)
    return label_match


def match_photo(labels: Sequence[LabelledDie], reading: Reading, image: str = "", ms: float = 0.0) -> PhotoResult:
    """Match one photo's reading to its labels (see the module docstring for the rule)."""
    label_match = match_centres(labels, [die.center for die in reading.dice])
    used_predictions = set(label_match.values())

    result = PhotoResult(image=image, ms=ms, asked=not reading.sure)
    for li, label in enumerate(labels):
        if label.ignore:
            continue
        tally = result.per_value.setdefault(label.value, [0, 0])
        tally[1] += 1
        pi = label_match.get(li)
        if pi is None:
            result.misses.append(label.value)
            continue
        die = reading.dice[pi]
        sure = die.sure
        if die.value == label.value:
            result.right += 1
            tally[0] += 1
            result.sure_right += sure
        else:
            result.wrong.append((label.value, die.value, die.confidence))
            result.sure_wrong += sure
            if sure:
                result.sure_mistakes.append((label.value, die.value, die.center))
    for pi, die in enumerate(reading.dice):
        if pi not in used_predictions:
            result.extras.append((die.value, die.confidence))
            result.sure_extras += die.sure
    return result


def percentile(values: Sequence[float], fraction: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    position = fraction * (len(ordered) - 1)
    low = math.floor(position)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (position - low)


@dataclass
class BenchSummary:
    photos: int
    exact: int
    dice: int
    right: int
    wrong: int
    misses: int
    extras: int
    per_value: dict[int, tuple[int, int]]
    median_ms: float
    p95_ms: float
    sure_right: int
    sure_wrong: int
    sure_extras: int
    unsure_dice: int
    asked: int = 0

    @property
    def asked_rate(self) -> float:
        return self.asked / self.photos if self.photos else float("nan")

    @property
    def accuracy(self) -> float:
        return self.right / self.dice if self.dice else float("nan")

    @property
    def exact_rate(self) -> float:
        return self.exact / self.photos if self.photos else float("nan")

    @property
    def sure_error_rate(self) -> float:
        sure = self.sure_right + self.sure_wrong
        return self.sure_wrong / sure if sure else float("nan")

    def to_json(self) -> dict[str, Any]:
        return {
            "photos": self.photos,
            "exact": self.exact,
            "exact_rate": round(self.exact_rate, 4),
            "dice": self.dice,
            "right": self.right,
            "accuracy": round(self.accuracy, 4),
            "wrong": self.wrong,
            "misses": self.misses,
            "extras": self.extras,
            "per_value": {str(v): {"right": r, "total": t} for v, (r, t) in sorted(self.per_value.items())},
            "median_ms": round(self.median_ms, 2),
            "p95_ms": round(self.p95_ms, 2),
            "sure_right": self.sure_right,
            "sure_wrong": self.sure_wrong,
            "sure_error_rate": round(self.sure_error_rate, 4),
            "sure_extras": self.sure_extras,
            "unsure_dice": self.unsure_dice,
            "asked": self.asked,
        }


def summarise(results: Iterable[PhotoResult]) -> BenchSummary:
    results = list(results)
    per_value: dict[int, list[int]] = {}
    for result in results:
        for value, (right, total) in result.per_value.items():
            tally = per_value.setdefault(value, [0, 0])
            tally[0] += right
            tally[1] += total
    matched = sum(r.right + len(r.wrong) for r in results)
    sure_right = sum(r.sure_right for r in results)
    sure_wrong = sum(r.sure_wrong for r in results)
    ms = [r.ms for r in results]
    return BenchSummary(
        photos=len(results),
        exact=sum(r.exact for r in results),
        dice=sum(r.right + len(r.wrong) + len(r.misses) for r in results),
        right=sum(r.right for r in results),
        wrong=sum(len(r.wrong) for r in results),
        misses=sum(len(r.misses) for r in results),
        extras=sum(len(r.extras) for r in results),
        per_value={v: (t[0], t[1]) for v, t in per_value.items()},
        median_ms=percentile(ms, 0.5),
        p95_ms=percentile(ms, 0.95),
        sure_right=sure_right,
        sure_wrong=sure_wrong,
        sure_extras=sum(r.sure_extras for r in results),
        unsure_dice=matched - sure_right - sure_wrong,
        asked=sum(r.asked for r in results),
    )


def format_summary(summary: BenchSummary, title: str = "") -> str:
    s = summary
    lines = []
    if title:
        lines.append(title)
    lines += [
        f"photos exactly right: {s.exact}/{s.photos} ({100 * s.exact_rate:.1f}%)",
        f"per-die accuracy:     {s.right}/{s.dice} ({100 * s.accuracy:.2f}%)",
        f"wrong values: {s.wrong}   misses: {s.misses}   extras: {s.extras}",
        f"right and sure:       {s.sure_right}/{s.dice} ({100 * s.sure_right / max(s.dice, 1):.2f}%)"
        " (right dice read with confidence >= 0.9 and not cocked: scored without asking)",
        "accuracy per face value: "
        + "  ".join(f"{v}: {r}/{t}" for v, (r, t) in sorted(s.per_value.items())),
        f"ms per photo: median {s.median_ms:.1f}  p95 {s.p95_ms:.1f}",
        f"calibration: dice read with confidence >= {SURE_CONFIDENCE} (and not cocked): "
        f"{s.sure_right + s.sure_wrong}, of which wrong {s.sure_wrong} "
        f"({100 * s.sure_error_rate:.2f}%); sure extras {s.sure_extras}; "
        f"matched dice reported unsure: {s.unsure_dice}",
        f"photos asked about (a count problem, an unsure or cocked die): {s.asked}/{s.photos}",
    ]
    return "\n".join(lines)
