"""Reading whole picture sets with the reader in use: labelled photos, scored photo by photo,
and seeded no-dice pictures. Shared by `cubilete bench vision` and `lab.reader_eval.decide`,
so the bench's figures and a decision's are read the same way."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Callable, Sequence

import cv2
import numpy as np

from lab.reader_eval.evaluate import LabelledPhoto, PhotoResult, match_photo, percentile
from lab.synth.clutter import NEGATIVE_KINDS, negative_image
from vision.reader.reader import read_dice
from vision.reading import Reading, SURE_CONFIDENCE

EachPhoto = Callable[[LabelledPhoto, np.ndarray, Reading, PhotoResult], None]


def read_photos(root: Path, photos: list[LabelledPhoto], dice_count: Callable[[LabelledPhoto], int | None],
                each: EachPhoto | None = None) -> list[PhotoResult]:
    """Each photo read with the count `dice_count(photo)` and matched to its labels, timed;
    `each(photo, image, reading, result)` is called after every photo. A photo that cannot be
    read raises OSError naming it."""
    results = []
    for photo in photos:
        image = cv2.imread(str(root / photo.image), cv2.IMREAD_COLOR)
        if image is None:
            raise OSError(f"cannot read {root / photo.image}")
        started = time.perf_counter()
        reading = read_dice(image, dice_count(photo))
        results.append(match_photo(photo.dice, reading, photo.image, (time.perf_counter() - started) * 1000))
        if each is not None:
            each(photo, image, reading, results[-1])
    return results


def read_negatives(count: int, seed: int, expected: int | None = None,
                   kinds: Sequence[str] = NEGATIVE_KINDS) -> dict:
    """Dice found in `count` no-dice pictures of `seed`, read without a dice count (or told
    `expected` dice, as the device reads a throw: an empty tray offered dice to confirm):
    pictures with any die, dice in all, dice at confidence >= SURE_CONFIDENCE, pictures with a
    sure die by kind, and the time per picture. Picture i is 640x480 of `kinds` in turn (every
    kind unless told), drawn from rng [seed, 10**6 + i], apart from the training scripts'
    pictures [seed, i]."""
    with_dice, dice, sure, ms = 0, 0, 0, []
    by_kind: dict[str, int] = {}
    for i in range(count):
        kind = kinds[i % len(kinds)]
        image = negative_image(np.random.default_rng([seed, 10**6 + i]), 640, 480, kind)
        started = time.perf_counter()
        reading = read_dice(image, expected)
        ms.append((time.perf_counter() - started) * 1000)
        with_dice += bool(reading.dice)
        dice += len(reading.dice)
        found_sure = sum(d.confidence >= SURE_CONFIDENCE for d in reading.dice)
        sure += found_sure
        if found_sure:
            by_kind[kind] = by_kind.get(kind, 0) + 1
    return {"set": "negatives" if expected is None else f"negatives told {expected}", "expected": expected,
            "kinds": list(kinds), "photos": count, "pictures_with_dice": with_dice, "extras": dice,
            "sure_extras": sure, "pictures_with_sure_dice_by_kind": by_kind,
            "median_ms": round(percentile(ms, 0.5), 2), "p95_ms": round(percentile(ms, 0.95), 2)}
