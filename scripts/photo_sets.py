"""The real photo sets the reader's networks train on: every `train` split under
../shared/data/dice-photos/ (never a `test` split), as dice with a centre and a size.

Each set's SOURCE.md says what its boxes mean, and the dice are read accordingly:
  * nell-byler, rune55, dice3: the box is around the die as seen (the top face, and in
    oblique views some of the sides); its centre stands for the top face's centre (the
    detector may take the centre of the square at the top of a box taller than wide instead:
    `box_centre`) and its longer side for the face's extent. rune55's low side views label a
    face as seen (most often the one turned to the camera), not the top face that scores: their
    train photos are set aside (`label_fixes.UNTRUSTED_PHOTOS`, every die ignored);
  * tomitomi: the box is the whole 128x128 crop and the face covers about its central 35 to
    50%. The face is found by a detector (the one shipped in the repository unless other
    files are given), looking at the crop as it is; a crop where it finds no die-sized face near
    the centre is left out. The faces found are cached beside the training data, keyed by the
    detector's files and the way it looks (`faces_hash`).
Labels are read with the reviewed fixes of `lab.reader_eval.label_fixes`.
A train photo of a test photo's camera shot (`lab.reader_eval.shots`), scene (the same dice
lying the same way, an augmented copy) or throw (the same dice seen again from another side,
seconds later: both `lab.reader_eval.scenes`), in any set, is left out:
a bench that reads a test split must not read what the networks learnt. It is left out after
the held-out photos are picked, so those stay every tenth train photo in manifest order, as
`lab.reader_eval` reads them.
"""

from __future__ import annotations

import functools
import hashlib
import json
import math
import sys
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from lab.reader_eval import label_fixes  # noqa: E402
from lab.reader_eval.label_fixes import fixed_row  # noqa: E402
from lab.reader_eval.scenes import scene_copies  # noqa: E402
from lab.reader_eval.shots import camera_shot, shots_in_tests  # noqa: E402
from vision.reader.detector import MODEL_PATHS, DieDetector, ModelFiles, model_files  # noqa: E402

DICE_PHOTOS = ROOT.parent / "shared" / "data" / "dice-photos"
WHOLE_CROP_SETS = ("tomitomi",)  # boxes are the whole image, not the die
# A whole crop's face is looked for in the crop as it is, an edge of 35% to 65% of its side:
# the detector knows dice up to half its input. Looked for in the crop padded to three times its
# size (until 2026-11-28), a dark die in tomitomi's dark tube came out half again its size, and
# 130 of the 160 dark dice showing a one were left out for it (their face over 65%).
FACE_SIDES = (0.35, 0.65)
FACES_BY = "the crop as it is, an edge of 0.35 to 0.65 of its side"


@dataclass(frozen=True)
class PhotoDie:
    center: tuple[float, float]
    box_side: float  # the label box's longer side (or the found face's extent)
    value: int
    ignore: bool
    size: float | None = None  # top-face edge when known (found faces), else None
    angle: float | None = None
    box: tuple[float, float, float, float] | None = None  # the label box (x0, y0, x1, y1), when labelled so


@dataclass(frozen=True)
class Photo:
    set_name: str
    path: Path
    dice: tuple[PhotoDie, ...]
    held_out: bool = False  # kept from training to measure and tune on (`is_held_out`)

    def image(self) -> np.ndarray:
        return cv2.imread(str(self.path), cv2.IMREAD_COLOR)


def set_names(root: Path = DICE_PHOTOS) -> list[str]:
    return sorted(p.parent.name for p in root.glob("*/manifest.jsonl"))


def missing_training_photos(root: Path = DICE_PHOTOS) -> str:
    """Why the photo sets under root cannot train a network, or "": no set at all, a folder (or a
    link) without its manifest, or train photos a manifest lists that are not there. A run
    started without them would train on fewer cameras and say nothing; a folder copied in part
    to another machine did so once, and its network was thrown away."""
    if not root.is_dir():
        return f"{root}: no such folder of photo sets"
    entries = sorted(root.iterdir())
    lacking = [e.name for e in entries if (e.is_dir() or e.is_symlink()) and not (e / "manifest.jsonl").is_file()]
    if lacking:
        return f"{root}: no manifest.jsonl in {', '.join(lacking)}"
    names = set_names(root)
    if not names:
        return f"{root}: no photo set (a folder with a manifest.jsonl)"
    absent = [f"{name}/{row['image']}" for name in names for row in manifest_rows(root, name, "train")
              if not (root / name / row["image"]).is_file()]
    if absent:
        return f"{root}: {len(absent)} train photos its manifests list are missing, {', '.join(absent[:3])} among them"
    return ""


def manifest_rows(root: Path, name: str, split: str) -> list[dict]:
    if split == "test":
        raise ValueError("the reader never trains on a test split")
    rows = []
    for line in (root / name / "manifest.jsonl").read_text().splitlines():
        if line.strip():
            row = json.loads(line)
            if row.get("split") == split:
                rows.append(fixed_row(name, row))
    return rows


def is_held_out(index: int) -> bool:
    """Whether the `index`-th photo of a set's train split (in manifest order) is held out
    from training: every tenth. Both networks hold out the same photos, and
    `cubilete bench vision --split held-out` reads them, so the reader's own constants can be
    tuned on photos neither network learnt from, never on a test split."""
    return index % 10 == 9


def box_centre(box: tuple[float, float, float, float], top_face: bool = False) -> tuple[float, float]:
    """Where a label box's top face is taken to lie: the box's centre, or with `top_face` the
    centre of the square at the top of a box taller than wide. A die seen obliquely from the
    front shows its top face above the face turned to the camera, the box holding both; the
    box's centre then lies between them or on the face turned to the camera, which does not score."""
    x0, y0, x1, y1 = box
    if top_face and y1 - y0 > x1 - x0:
        return (x0 + x1) / 2, y0 + (x1 - x0) / 2
    return (x0 + x1) / 2, (y0 + y1) / 2


def front_face_box(box: tuple[float, float, float, float]) -> tuple[float, float, float, float] | None:
    """The part of a box taller than wide below the square at its top (`box_centre`), where a die
    seen from the front shows the face turned to the camera; None for a box as wide as tall or wider."""
    x0, y0, x1, y1 = box
    if y1 - y0 > x1 - x0:
        return x0, y0 + (x1 - x0), x1, y1
    return None


def boxed_photos(root: Path, name: str, split: str) -> list[Photo]:
    photos = []
    for index, row in enumerate(manifest_rows(root, name, split)):
        dice = []
        for d in row["dice"]:
            x0, y0, x1, y1 = (float(v) for v in d["box"])
            dice.append(PhotoDie(box_centre((x0, y0, x1, y1)), max(x1 - x0, y1 - y0), int(d["value"]),
                                 bool(d.get("ignore", False)), box=(x0, y0, x1, y1)))
        photos.append(Photo(name, root / name / row["image"], tuple(dice), is_held_out(index)))
    return photos


def detector_bytes(model: ModelFiles) -> bytes:
    """The bytes of a detector's files, in order (of a one-network detector, its file's)."""
    return b"".join(path.read_bytes() for path in model_files(model))


def detector_hash(model: ModelFiles = MODEL_PATHS) -> str:
    """A short hash of a detector's files: what its detections and the faces it found depend on."""
    return hashlib.sha1(detector_bytes(model)).hexdigest()[:12]


def detector_record(model: ModelFiles = MODEL_PATHS) -> str:
    """The detector's files as a trained network's record names them: each file's
    `detector_hash`, so that each can be found again (a pair's joint hash names neither)."""
    return ", ".join(detector_hash(path) for path in model_files(model))


def faces_hash(model: ModelFiles = MODEL_PATHS) -> str:
    """A short hash of what the faces found in whole-crop photos depend on: the detector's files
    and the way it looks at a crop (`FACES_BY`)."""
    return hashlib.sha1(detector_bytes(model) + FACES_BY.encode()).hexdigest()[:12]


def label_fixes_hash() -> str:
    """A short hash of the reviewed label fixes in force: what the photos' labels, and so every
    window cut or network trained from them, depend on besides the manifests."""
    return hashlib.sha1(label_fixes.FINGERPRINT.encode()).hexdigest()[:12]


def detector_at(model: ModelFiles) -> DieDetector:
    """The detector of those model files, loaded once per process."""
    return loaded_detector(model_files(model))


@functools.lru_cache(maxsize=2)
def loaded_detector(model: tuple[Path, ...]) -> DieDetector:
    """`detector_at`'s cache, keyed by the tuple of files."""
    return DieDetector(model)


def found_face(image: np.ndarray, model: ModelFiles = MODEL_PATHS) -> tuple[float, float, float, float] | None:
    """(x, y, edge, angle) of the die face the detector of `model`'s files sees near a crop's centre."""
    h, w = image.shape[:2]
    side = max(h, w)
    centre = ((w - 1) / 2, (h - 1) / 2)
    smallest, largest = FACE_SIDES
    near = [d for d in detector_at(model).detect(image, 0.2)
            if math.dist(d.center, centre) < 0.3 * side and smallest * side < d.size < largest * side]
    if not near:
        return None
    best = max(near, key=lambda d: d.score)
    return best.center[0], best.center[1], best.size, best.angle


def whole_crop_photos(root: Path, name: str, split: str, cache: Path,
                      detector: ModelFiles = MODEL_PATHS) -> list[Photo]:
    """Photos of a set whose box is the whole crop, with the die's face found by the detector
    of those files (module doc)."""
    path = cache / f"faces-{name}-{split}-{faces_hash(detector)}.json"
    faces: dict[str, list[float] | None] = json.loads(path.read_text()) if path.exists() else {}
    rows = manifest_rows(root, name, split)
    changed = False
    photos = []
    for index, row in enumerate(rows):
        if row["image"] not in faces:
            image = cv2.imread(str(root / name / row["image"]), cv2.IMREAD_COLOR)
            face = found_face(image, detector)
            faces[row["image"]] = None if face is None else [round(v, 2) for v in face]
            changed = True
        face = faces[row["image"]]
        if face is None or len(row["dice"]) != 1:
            continue
        x, y, size, angle = face
        die = PhotoDie((x, y), size * 1.2, int(row["dice"][0]["value"]), False, size, angle)
        photos.append(Photo(name, root / name / row["image"], (die,), is_held_out(index)))
    if changed:
        cache.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(faces))
    return photos


def training_photos(cache: Path, root: Path = DICE_PHOTOS, split: str = "train",
                    names: list[str] | None = None, detector: ModelFiles = MODEL_PATHS) -> list[Photo]:
    """Every photo of `split` of every set under root but those of a test photo's shot, scene or throw
    (see the module doc); whole-crop faces found by the detector of those files."""
    photos = []
    for name in names or set_names(root):
        if name in WHOLE_CROP_SETS:
            photos += whole_crop_photos(root, name, split, cache, detector)
        else:
            photos += boxed_photos(root, name, split)
    tested = shots_in_tests(root)
    copies = scene_copies(root.resolve()).train
    return [photo for photo in photos if camera_shot(photo.path.name) not in tested
            and f"{photo.set_name}/{photo.path.relative_to(root / photo.set_name).as_posix()}" not in copies]


def held_out(photos: list[Photo]) -> tuple[list[Photo], list[Photo]]:
    """(to fit, held out) by `is_held_out`."""
    return [p for p in photos if not p.held_out], [p for p in photos if p.held_out]


if __name__ == "__main__":
    import time

    started = time.time()
    found = training_photos(Path("/tmp/cubilete-photo-sets"))
    by_set: dict[str, list[int]] = {}
    for p in found:
        by_set.setdefault(p.set_name, [0, 0])
        by_set[p.set_name][0] += 1
        by_set[p.set_name][1] += len(p.dice)
    print({k: {"photos": v[0], "dice": v[1]} for k, v in by_set.items()}, f"{time.time() - started:.0f} s")
