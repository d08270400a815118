"""The unseen held-out photos as worse cameras would take them: more pictures of real dice to judge by.

`decide`'s held-out photos are few (a few hundred dice the networks never learnt), too few to show
a rate of sure mistakes of a few in a hundred: twice a change held there and made more sure
mistakes on dice3's test split (FINDINGS.md). Each unseen held-out photo is taken here
`WORSE_COPIES` times more as a worse camera would: fewer pixels (the dice smaller), a softer lens,
another exposure and white balance, sometimes no colour, sensor noise and a coarser JPEG. Every
copy is drawn from its own seeded generator (the photo's name and the copy's number), so the same
photos give the same pictures in every run, and its labels are the photo's, scaled with it.

A copy is no new scene: it is the same dice, a little harder to read. What it tells is whether a
reader's sureness holds when the camera gets worse, which is what a bar's camera does to a reader
tuned on phone photos; a change that makes dice sure only where they are sharp shows here as sure
mistakes on the copies.
"""

from __future__ import annotations

import zlib
from pathlib import Path

import cv2
import numpy as np

from lab.reader_eval.evaluate import LabelledDie, LabelledPhoto

WORSE_COPIES = 3  # worse copies of each unseen held-out photo
WORSE_SEED = 23
WORK_SIDE = 640  # a photo is first taken to the reader's working size (READ_SIDE) on its longer side ...
SHRINK = (0.4, 0.85)  # ... then shrunk by this: its dice 0.4 to 0.85 times as many pixels across
MIN_SIDE = 96  # no copy's shorter side is under this


def worse_copy(image: np.ndarray, rng: np.random.Generator) -> tuple[np.ndarray, float]:
    """The BGR `image` as a worse camera would take it, and the factor its pixels were scaled by."""
    longest = max(image.shape[:2])
    factor = min(1.0, WORK_SIDE / longest) * float(rng.uniform(*SHRINK))
    factor = max(factor, MIN_SIDE / min(image.shape[:2]))
    size = (max(1, round(image.shape[1] * factor)), max(1, round(image.shape[0] * factor)))
    out = cv2.resize(image, size, interpolation=cv2.INTER_AREA).astype(np.float32) / 255.0
    if rng.random() < 0.5:
        out = cv2.GaussianBlur(out, (0, 0), float(rng.uniform(0.5, 1.3)))
    out = out * rng.uniform(0.85, 1.15, 3).astype(np.float32)  # white balance
    out = np.clip(out, 0.0, 1.0) ** float(rng.uniform(0.7, 1.5))  # exposure
    contrast = float(rng.uniform(0.65, 1.0))
    out = out * contrast + (1.0 - contrast) * float(out.mean())
    if rng.random() < 0.2:
        out = np.repeat(cv2.cvtColor(out, cv2.COLOR_BGR2GRAY)[:, :, None], 3, axis=2)
    out = out * 255.0 + rng.normal(0.0, float(rng.uniform(1.0, 7.0)), out.shape).astype(np.float32)
    out = np.clip(out, 0, 255).astype(np.uint8)
    quality = int(rng.integers(30, 85))
    return cv2.imdecode(cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, quality])[1], cv2.IMREAD_COLOR), factor


def copy_rng(photo: LabelledPhoto, copy: int) -> np.random.Generator:
    return np.random.default_rng([WORSE_SEED, copy, zlib.crc32(photo.image.encode())])


def scaled(photo: LabelledPhoto, factor: float, image: str) -> LabelledPhoto:
    """The photo's labels for a copy of it scaled by `factor`, named `image`."""
    dice = tuple(LabelledDie(d.value, tuple(v * factor for v in d.box), d.ignore) for d in photo.dice)
    return LabelledPhoto(image, photo.split, dice)


def write_worse_copies(root: Path, photos: list[LabelledPhoto], out: Path, copies: int = WORSE_COPIES
                       ) -> list[LabelledPhoto]:
    """Write `copies` worse copies of each photo (of the set in `root`) as PNG files under `out`
    and return them as labelled photos (their images relative to `out`). A photo that cannot be
    read raises OSError naming it."""
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for number, photo in enumerate(photos):
        image = cv2.imread(str(root / photo.image), cv2.IMREAD_COLOR)
        if image is None:
            raise OSError(f"cannot read {root / photo.image}")
        for copy in range(copies):
            worse, factor = worse_copy(image, copy_rng(photo, copy))
            name = f"{number:05d}-{copy}.png"
            cv2.imwrite(str(out / name), worse)
            written.append(scaled(photo, factor, name))
    return written
