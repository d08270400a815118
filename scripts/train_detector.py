"""Train the die detector (`vision/reader/die_detector.onnx` and its `.json`, read by
`vision/reader/detector.py`) with PyTorch, and export it with `torch.onnx.export`.

    .venv/bin/python -m pip install -e '.[train]'
    .venv/bin/python scripts/train_detector.py            # the shipped model: the defaults

Data (nothing of a `test` split is ever read):
  * the `train` split of every photo set under ../shared/data/dice-photos/ (`photo_sets`:
    nell-byler, rune55, dice3, tomitomi); every tenth photo of each set is held out to report
    figures (`photo_sets.is_held_out`; the classifier holds out the same ones). Crops are drawn from a set chosen by `SET_WEIGHTS`, so no one camera dominates.
    A die is centred on its label box's centre, or with `--top-faces` a box taller than wide on
    the square at its top, where a die seen from the front shows its top face (`photo_sets.box_centre`);
    with `--photo-sides` too, the box's part below that square, the face turned to the camera,
    weighs `--side-weight` times as a place with no die (`photo_sets.front_face_box`);
  * synthetic scenes rendered by `lab.synth` (scene i of `--synth-seed` S uses
    `np.random.default_rng([S, i])`; the bench's scenes are seed 1 and 2, never used here):
    1 to 15 dice from 14 px to half the frame, touching, cocked, oblique with side faces,
    under hands, in trays, on every background; some in greyscale, some seen through a round
    opening (a tube or a cup), some with clutter over an edge of the frame (text, grids,
    checkerboards, wood: `lab.synth.clutter`); rendered once into `--work`; on request
    (`--steep N`, seed S + 2) N more of big dice seen close and low, side faces as big as the
    top (`lab.synth.steep`, the views the classifier's `--steep` adds): only the
    top face is a die, so a side face is something the detector learns not to find; and
    (`--blending N`, seed S + 3) N of dice the colour of their floor (`lab.synth.blending`),
    where only the pips and the shading tell a die from the floor; and (`--crowded N`, seed
    S + 4) N of 6 to 15 dice packed close and seen 25 to 50 degrees off vertical, a near die
    hiding part of the one behind it (`lab.synth.crowded`); and (`--boards N`, seed S + 6) N of
    dice on a board game's hex tiles among its number tokens and pieces (`lab.synth.boards`). With `--side-weight W` the cells
    where a scene's side faces show (kept from the renderer's face map) weigh W times as
    places with no die;
  * pictures with no die at all (`lab.synth.clutter.negative_image` of DETECTOR_NEGATIVE_KINDS:
    text, grids, checkerboards, gradients, noise, wood, or the kinds `--negative-kinds` names,
    headlines among them; seeds [S + 5, i]; the bench's negatives use other seeds).
Every crop is augmented: scale (dice from 9 to 170 px at the network input), any rotation,
flips, colour / brightness / contrast / gamma / hue, greyscale, blur, noise, JPEG, light
gradients, glare.

Training: AdamW with a one-cycle schedule, focal loss on the centre heatmap, L1 on offset and
log size, squared error on (cos 4a, sin 4a), BCE on cocked. A checkpoint is written to
`--work` every `--checkpoint-every` steps and a run started again with the same options goes
on from it (a resumed run draws its crops from a generator seeded with the step it resumed
at, so it is repeatable but not bit-identical to an uninterrupted one). At the end the model
is exported with `torch.onnx.export` (batch norm folded by the exporter in eval mode) and its
metadata (input geometry, output layout, options, held-out figures, and `legs`: where each
stretch of a resumed run trained) written beside it.
Everything is seeded (`--seed`); with the same data, threads, workers and torch version a run
repeats. It trains on two CPU cores (27 to 94 minutes for the 16000 steps, by how busy the machine
is: README; plus 4 to 8.5 to render the scenes once with `--render-workers 2`) or,
with `--device cuda --workers 14 --render-workers 15`, on a machine with a GPU and 16 cores in
about 8 minutes (1.5 to render, 6 to train): the crops are cut on the CPU cores, so the
workers set the pace.
"""

from __future__ import annotations

import argparse
import importlib
import json
import math
import os
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "scripts"))

import photo_sets  # noqa: E402
from checkpoints import checkpoint_path, close_leg, legs_with_new_one, trained_legs  # noqa: E402
from lab.synth.clutter import ALL_KINDS  # noqa: E402
from processes import in_processes  # noqa: E402
from vision.reader.detector import (ALIGN, COCKED, COS4, FILL, HEAT, INPUT_SCALE, INPUT_SIDE, KIND,  # noqa: E402
                                    LOG_SIZE, MODEL_PATH, OFFSET_X, OFFSET_Y, OUTPUT_NAMES, OUTPUTS, SIN4,
                                    SIZE_UNIT, STRIDE, normalise)
from vision.reader.model_file import write_metadata  # noqa: E402

CROP = 256  # training crops, network-input pixels
MAX_DIE_INPUT_PX = 170.0  # the biggest die at the network input: about half of INPUT_SIDE
SET_WEIGHTS = {"nell-byler": 0.25, "rune55": 0.3, "dice3": 0.3, "tomitomi": 0.15}
# The kinds of no-dice picture the shipped detector was trained on. One trained with headlines
# too (900 pictures), and the classifier retrained after it, read held-out photos of three sets
# better but tomitomi's worse (a one's big pip taken for the die), with one more sure wrong die
# and, on one seed of no-dice pictures, more sure dice (level over three seeds): it did not ship.
DETECTOR_NEGATIVE_KINDS = ("text", "grid", "checkerboard", "gradient", "noise", "wood")
# options that change how fast a run goes, not what it learns: a checkpoint does not depend on them
SPEED_OPTIONS = ("out", "work", "photos", "threads", "workers", "render_workers", "device", "eval_every",
                 "checkpoint_every", "render_only")
# scenes added on request, each kind's seed offset from --synth-seed (+5 is the no-dice pictures'):
# a run without them keeps the checkpoint it had before they existed
ADDED_SCENE_SEEDS = {"steep": 2, "blending": 3, "crowded": 4, "boards": 6}
ADDED_SCENES = tuple(ADDED_SCENE_SEEDS)


@dataclass(frozen=True)
class Layout:
    """The channel widths of the network (stored in the model's metadata)."""

    stem: int = 16
    stages: tuple[int, ...] = (16, 24, 40, 64)  # at strides 4, 8, 16, 32
    head: int = 24


# ------------------------------------------------------------------ data


@dataclass
class Die:
    center: tuple[float, float]
    size: float | None  # top-face edge, px (None: unknown, real photo)
    angle: float | None  # degrees, edge direction clockwise
    box_side: float  # side of the label box (real) or ~ the top face's extent (synthetic)
    cocked: float | None  # 1 cocked, 0 flat, None unknown / in between
    ignore: bool  # mostly hidden: neither a positive nor a negative


@dataclass
class Sample:
    image: np.ndarray
    dice: list[Die]
    real: bool
    sides: np.ndarray | None = None  # where some die's side face shows (synthetic, when asked for)
    side_boxes: tuple[tuple[float, float, float, float], ...] = ()  # the same on a photo (`--photo-sides`)


def training_scene(rng: np.random.Generator):
    """One varied synthetic scene: camera format, dice count and sizes drawn widely."""
    from lab import synth

    width, height = [(640, 480), (640, 480), (640, 480), (640, 640), (480, 640), (800, 600)][rng.integers(6)]
    big = rng.random() < 0.15  # a few dice filling much of the frame (a camera close to the tray)
    for _ in range(20):
        if big:
            n = int(rng.integers(1, 5))
            lo = float(rng.uniform(0.15, 0.35)) * min(width, height)
            hi = min(lo * float(rng.uniform(1.0, 1.5)), 0.5 * min(width, height))
        else:
            n = int(rng.choice([1, 2, 3, 4, 5, 5, 5, 6, 7, 8, 10, 12, 15]))
            lo = float(rng.uniform(14, 75)) * width / 640
            hi = min(lo * float(rng.uniform(1.0, 2.0)), 150.0 * width / 640)
        if n * lo * lo > 0.3 * width * height:
            continue
        try:
            return synth.random_scene(
                rng, n_dice=n, width=width, height=height, size_range=(lo, hi),
                max_tilt_deg=float(rng.choice([0.0, 15.0, 30.0, 35.0])),
                cocked_prob=0.08, tray_prob=0.35, occluder_prob=0.2,
                touch_prob=float(rng.uniform(0.2, 0.9)))
        except ValueError:
            continue
    return synth.random_scene(rng)


def scene_of_kind(kind: str, rng: np.random.Generator):
    """A scene of `kind`: "varied" (`training_scene`), or one of ADDED_SCENES, made by
    `lab.synth.<kind>.<kind>_spec` (a varied scene where none of that kind fitted)."""
    if kind == "varied":
        return training_scene(rng)
    if kind not in ADDED_SCENES:
        raise ValueError(f"no scenes of kind {kind!r}: varied, {', '.join(ADDED_SCENES)}")
    spec = getattr(importlib.import_module(f"lab.synth.{kind}"), f"{kind}_spec")
    return spec(rng) or training_scene(rng)


def through_opening(rng: np.random.Generator, image: np.ndarray, boxes: list[tuple[float, float, float, float]]) -> None:
    """Darken everything outside a round opening around the dice (in place): dice seen down a
    tube or inside a cup."""
    h, w = image.shape[:2]
    if boxes:
        x0, y0 = min(b[0] for b in boxes), min(b[1] for b in boxes)
        x1, y1 = max(b[2] for b in boxes), max(b[3] for b in boxes)
        cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
        radius = max(math.hypot(x1 - cx, y1 - cy), 1.0) * rng.uniform(1.05, 1.4)
    else:
        cx, cy, radius = w / 2, h / 2, min(h, w) * rng.uniform(0.3, 0.6)
    mask = np.zeros((h, w), np.float32)
    cv2.circle(mask, (int(cx), int(cy)), int(radius), 1.0, -1, cv2.LINE_AA)
    mask = cv2.GaussianBlur(mask, (0, 0), max(1.0, radius * rng.uniform(0.02, 0.1)))[..., None]
    outside = rng.uniform(0, 60)
    image[:] = np.clip(image * mask + outside * (1 - mask), 0, 255).astype(np.uint8)


def render_scene(cache: Path, seed: int, i: int, kind: str = "varied") -> None:
    """Render scene i of `seed` ("varied" or one of ADDED_SCENES) into cache as NNNNNN.png, its labels
    as NNNNNN.json and where side faces show as NNNNNN-sides.png (255 there)."""
    from lab import synth
    from lab.synth.clutter import clutter_strip
    from lab.synth.renderer import FACE_SIDE

    rng = np.random.default_rng([seed, i])
    rendered = synth.render(scene_of_kind(kind, rng))
    image = rendered.image.copy()
    boxes = [tuple(float(v) for v in l.box) for l in rendered.labels]
    if rng.random() < 0.1:
        through_opening(rng, image, boxes)
    elif rng.random() < 0.3:
        clutter_strip(rng, image, boxes, kinds=DETECTOR_NEGATIVE_KINDS)
    if rng.random() < 0.12:
        image = cv2.cvtColor(cv2.cvtColor(image, cv2.COLOR_BGR2GRAY), cv2.COLOR_GRAY2BGR)
    labels = [{"center": list(l.center), "size": l.size, "angle": l.angle, "box": list(l.box),
               "cocked": bool(l.cocked), "tilt": l.tilt_deg, "visible": l.visible} for l in rendered.labels]
    for name, picture in ((f"{i:06d}-sides.png", np.where(rendered.face_map == FACE_SIDE, 255, 0).astype(np.uint8)),
                          (f"{i:06d}.png", image)):
        tmp = cache / f".{name}"
        cv2.imwrite(str(tmp), picture)
        os.replace(tmp, cache / name)
    (cache / f"{i:06d}.json").write_text(json.dumps(labels))


def render_share(cache: Path, count: int, seed: int, share: int, shares: int, kind: str = "varied",
                 sides: bool = False) -> int:
    """Render the scenes i < count with i % shares == share that are not in cache yet (or, with
    `sides`, whose side faces are not: caches from before they were kept)."""
    from lab import synth

    cv2.setNumThreads(1)
    started, done = time.time(), 0
    for i in range(share, count, shares):
        if (cache / f"{i:06d}.png").exists() and (cache / f"{i:06d}.json").exists() \
                and (not sides or (cache / f"{i:06d}-sides.png").exists()):
            continue
        render_scene(cache, seed, i, kind)
        done += 1
        if done % 100 == 0 and share == 0:
            print(f"rendered {done * shares}/{count} ({time.time() - started:.0f} s)", flush=True)
        if done % 50 == 0:
            synth.clear_caches()
    return done


def render_synthetic(cache: Path, count: int, seed: int, workers: int = 1, kind: str = "varied",
                     sides: bool = False) -> None:
    """Render scenes 0..count-1 of `seed` ("varied" or one of ADDED_SCENES) into cache (skips those already
    there), in `workers` processes. Each scene has its own generator, so the scenes are the
    same for any count of workers."""
    cache.mkdir(parents=True, exist_ok=True)
    shares = max(1, workers)
    in_processes(render_share, [(cache, count, seed, share, shares, kind, sides) for share in range(shares)],
                 workers)


def synthetic_die(label: dict) -> Die:
    x0, y0, x1, y1 = label["box"]
    tilt = label["tilt"]
    cocked = 1.0 if tilt > 10 else 0.0 if tilt < 4 else None
    return Die(tuple(label["center"]), label["size"], label["angle"], max(x1 - x0, y1 - y0), cocked,
               label["visible"] < 0.5)


def load_synthetic(cache: Path, count: int, sides: bool = False) -> list[Sample]:
    samples = []
    for i in range(count):
        image = cv2.imread(str(cache / f"{i:06d}.png"), cv2.IMREAD_COLOR)
        labels = json.loads((cache / f"{i:06d}.json").read_text())
        side_faces = cv2.imread(str(cache / f"{i:06d}-sides.png"), cv2.IMREAD_GRAYSCALE) if sides else None
        samples.append(Sample(image, [synthetic_die(l) for l in labels], real=False, sides=side_faces))
    return samples


def negative_pictures(count: int, seed: int, kinds: tuple[str, ...] = DETECTOR_NEGATIVE_KINDS) -> list[Sample]:
    """Pictures with no die (`lab.synth.clutter`) of `kinds`, picture i drawn from rng [seed, i]."""
    from lab.synth.clutter import negative_image

    out = []
    for i in range(count):
        rng = np.random.default_rng([seed, i])
        width, height = [(640, 480), (640, 640), (480, 640)][int(rng.integers(3))]
        out.append(Sample(negative_image(rng, width, height, kinds=kinds), [], real=False))
    return out


def photo_sample(photo: photo_sets.Photo, top_faces: bool = False, photo_sides: bool = False) -> Sample:
    """A photo to train on; with `top_faces`, a die whose label box is taller than wide centred on
    the square at the box's top (`photo_sets.box_centre`); with `photo_sides`, where its dice seen
    from the front show the face turned to the camera (`photo_sets.front_face_box`)."""
    dice = [Die(photo_sets.box_centre(d.box, top_face=True) if top_faces and d.box else d.center,
                d.size, d.angle, d.box_side, None, d.ignore) for d in photo.dice]
    fronts = [photo_sets.front_face_box(d.box) for d in photo.dice if photo_sides and d.box and not d.ignore]
    return Sample(photo.image(), dice, real=True, side_boxes=tuple(b for b in fronts if b is not None))


# ------------------------------------------------------------------ augmentation and targets


def colour_jitter(img: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    x = img.astype(np.float32)
    if rng.random() < 0.35:  # hue / saturation: dice and tables of other colours
        hsv = cv2.cvtColor(img, cv2.COLOR_BGR2HSV).astype(np.float32)
        hsv[..., 0] = (hsv[..., 0] + rng.uniform(0, 180)) % 180
        hsv[..., 1] = np.clip(hsv[..., 1] * rng.uniform(0.4, 1.3), 0, 255)
        x = cv2.cvtColor(hsv.astype(np.uint8), cv2.COLOR_HSV2BGR).astype(np.float32)
    if rng.random() < 0.12:  # greyscale cameras
        x = np.repeat(x.mean(axis=2, keepdims=True), 3, axis=2)
    x *= rng.uniform(0.8, 1.2, 3).astype(np.float32)  # white balance
    mean = x.mean()
    x = (x - mean) * rng.uniform(0.6, 1.3) + mean * rng.uniform(0.55, 1.35)
    if rng.random() < 0.35:  # uneven light: a gradient or a vignette
        h, w = x.shape[:2]
        yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
        a = rng.uniform(0, 2 * np.pi)
        ramp = ((xx - w / 2) * np.cos(a) + (yy - h / 2) * np.sin(a)) / max(h, w)
        x *= (1 + rng.uniform(-0.7, 0.7) * ramp)[..., None]
    if rng.random() < 0.1:  # a glare spot
        h, w = x.shape[:2]
        spot = np.zeros((h, w), np.float32)
        cv2.ellipse(spot, (int(rng.uniform(0, w)), int(rng.uniform(0, h))),
                    (int(rng.uniform(4, 30)), int(rng.uniform(4, 30))), float(rng.uniform(0, 180)), 0, 360, 1.0, -1)
        spot = cv2.GaussianBlur(spot, (0, 0), rng.uniform(2, 8))
        x += spot[..., None] * rng.uniform(60, 200)
    x = np.clip(x, 0, 255)
    if rng.random() < 0.4:
        x = 255.0 * (x / 255.0) ** rng.uniform(0.7, 1.4)
    return x.astype(np.uint8)


def degrade(img: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    if rng.random() < 0.3:
        img = cv2.GaussianBlur(img, (0, 0), rng.uniform(0.3, 1.2))
    if rng.random() < 0.1:
        length = int(rng.integers(2, 5))
        kernel = np.zeros((length, length), np.float32)
        kernel[length // 2] = 1.0 / length
        rot = cv2.getRotationMatrix2D((length / 2 - 0.5, length / 2 - 0.5), rng.uniform(0, 180), 1.0)
        img = cv2.filter2D(img, -1, cv2.warpAffine(kernel, rot, (length, length)))
    if rng.random() < 0.5:
        noise = rng.standard_normal(img.shape, dtype=np.float32) * rng.uniform(1, 7)
        img = np.clip(img.astype(np.float32) + noise, 0, 255).astype(np.uint8)
    if rng.random() < 0.4:
        ok, data = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, int(rng.integers(35, 95))])
        img = cv2.imdecode(data, cv2.IMREAD_COLOR)
    return img


def sigma_cells(size: float) -> float:
    """Spread of a die's centre peak on the output grid (in cells)."""
    return max(0.6, 0.12 * size / STRIDE)


def side_face_cells(sides: np.ndarray, full: np.ndarray, crop: int) -> np.ndarray:
    """Cells of the output grid mostly covered by side faces (`sides`: 255 where a side face of
    some die shows, in the scene's pixels; `full`: scene pixel -> crop pixel)."""
    placed = cv2.warpAffine(sides, full[:2], (crop, crop), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT,
                            borderValue=0)
    return mostly_covered_cells(placed, crop)


def side_box_cells(boxes: tuple[tuple[float, float, float, float], ...], full: np.ndarray, crop: int) -> np.ndarray:
    """Cells of the output grid mostly covered by `boxes` (x0, y0, x1, y1 in the photo's pixels),
    where a photo's dice show a side face (`Sample.side_boxes`)."""
    placed = np.zeros((crop, crop), np.uint8)
    for x0, y0, x1, y1 in boxes:
        corners = full[:2] @ np.array([[x0, x1, x1, x0], [y0, y0, y1, y1], [1, 1, 1, 1]], np.float64)
        cv2.fillConvexPoly(placed, np.round(corners.T * 16).astype(np.int32), 255, cv2.LINE_AA, shift=4)
    return mostly_covered_cells(placed, crop)


def mostly_covered_cells(placed: np.ndarray, crop: int) -> np.ndarray:
    """Cells of the output grid more than half covered by `placed` (255 where covered, crop pixels)."""
    return cv2.resize(placed, (crop // STRIDE, crop // STRIDE), interpolation=cv2.INTER_AREA) > 127


def make_crop(sample: Sample, rng: np.random.Generator, crop: int = CROP, side_weight: float = 1.0):
    """One augmented crop and its targets: (3 x crop x crop uint8 BGR, targets dict). With
    `side_weight`, a die's side faces (a synthetic scene's, or a photo's `side_boxes`) weigh that
    much more as places with no die."""
    img = sample.image
    h, w = img.shape[:2]
    base = 320.0 / max(h, w)  # the detector's own input scale
    sides = [d.box_side for d in sample.dice if not d.ignore] or [40.0]
    median_side = float(np.median(sides)) * base
    # die sizes at the network input from about 9 to 170 px (half a 320-px input)
    zoom = math.exp(rng.uniform(math.log(0.6), math.log(1.7)))
    zoom = float(np.clip(zoom, 9.0 / max(median_side, 1.0), MAX_DIE_INPUT_PX / max(median_side, 1.0)))
    scale = base * zoom
    theta = rng.uniform(0, 360) if rng.random() < 0.7 else 90.0 * rng.integers(4)
    flip = -1.0 if rng.random() < 0.5 else 1.0
    # crop centre (original pixels): near a die most of the time, anywhere otherwise
    if sample.dice and rng.random() < 0.75:
        d = sample.dice[rng.integers(len(sample.dice))]
        cx, cy = d.center[0] + rng.normal(0, 40 / scale), d.center[1] + rng.normal(0, 40 / scale)
    else:
        cx, cy = rng.uniform(0, w), rng.uniform(0, h)
    c, s_ = math.cos(math.radians(theta)), math.sin(math.radians(theta))
    linear = scale * np.array([[c, s_], [-s_, c]]) @ np.diag([flip, 1.0])
    full = np.zeros((3, 3))  # original pixel -> crop pixel (pixel centres at integers)
    full[:2, :2] = linear
    full[:2, 2] = np.array([crop / 2 - 0.5, crop / 2 - 0.5]) - linear @ np.array([cx, cy])
    full[2, 2] = 1.0
    # only the part of the image the crop sees is shrunk (INTER_AREA, as the detector does)
    inverse = np.linalg.inv(full)
    corners = inverse @ np.array([[0, crop, 0, crop], [0, 0, crop, crop], [1, 1, 1, 1]], np.float64)
    margin = 4 / scale
    x0 = int(np.clip(math.floor(corners[0].min() - margin), 0, w - 1))
    x1 = int(np.clip(math.ceil(corners[0].max() + margin), x0 + 1, w))
    y0 = int(np.clip(math.floor(corners[1].min() - margin), 0, h - 1))
    y1 = int(np.clip(math.ceil(corners[1].max() + margin), y0 + 1, h))
    roi = img[y0:y1, x0:x1]
    small = cv2.resize(roi, (max(1, round((x1 - x0) * scale)), max(1, round((y1 - y0) * scale))),
                       interpolation=cv2.INTER_AREA)
    sx, sy = small.shape[1] / (x1 - x0), small.shape[0] / (y1 - y0)
    # small pixel u shows original x0 + (u + 0.5) / sx - 0.5
    to_original = np.array([[1 / sx, 0, x0 + 0.5 / sx - 0.5], [0, 1 / sy, y0 + 0.5 / sy - 0.5], [0, 0, 1]])
    m = (full @ to_original)[:2]
    out = cv2.warpAffine(small, m, (crop, crop), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT,
                         borderValue=(FILL, FILL, FILL))
    valid = cv2.warpAffine(np.ones(small.shape[:2], np.uint8), m, (crop, crop), flags=cv2.INTER_NEAREST,
                           borderMode=cv2.BORDER_CONSTANT, borderValue=0)
    if roi.shape[0] < h or roi.shape[1] < w:  # the roi's edge is not the image's: keep only the image's
        inside = cv2.warpAffine(np.ones((h, w), np.uint8), full[:2], (crop, crop), flags=cv2.INTER_NEAREST,
                                borderMode=cv2.BORDER_CONSTANT, borderValue=0)
        valid &= inside
    out = degrade(colour_jitter(out, rng), rng)
    out[valid == 0] = FILL

    lin = full[:2, :2]
    cells = crop // STRIDE
    heat = np.zeros((cells, cells), np.float32)
    heat_weight = cv2.resize(valid.astype(np.float32), (cells, cells), interpolation=cv2.INTER_AREA)
    heat_weight = (heat_weight > 0.99).astype(np.float32)
    reg = np.zeros((OUTPUTS, cells, cells), np.float32)
    reg_weight = np.zeros((OUTPUTS, cells, cells), np.float32)
    owner_distance = np.full((cells, cells), np.inf, np.float32)
    yy, xx = np.mgrid[0:cells, 0:cells].astype(np.float32)
    mean_scale = math.sqrt(abs(np.linalg.det(lin)))
    for d in sample.dice:
        p = full @ np.array([d.center[0], d.center[1], 1.0])
        side = d.box_side * mean_scale
        # grid coordinates: input pixel centres at integers, cell j covers [4j, 4j+4) - 0.5
        gx, gy = (p[0] + 0.5) / STRIDE, (p[1] + 0.5) / STRIDE
        inside = 0 <= p[0] < crop and 0 <= p[1] < crop and valid[int(p[1]), int(p[0])] > 0
        half = 0.5 * side
        box_in = (min(p[0] + half, crop) - max(p[0] - half, 0)) * (min(p[1] + half, crop) - max(p[1] - half, 0))
        mostly_in = box_in > 0.6 * side * side if half > 0 else False
        if d.ignore or (inside and not mostly_in) or (not inside and box_in > 0.2 * side * side):
            # cut off by the crop or hidden: no opinion either way near it
            r = max(1.0, 0.6 * side / STRIDE)
            cv2.circle(heat_weight, (int(round(gx - 0.5)), int(round(gy - 0.5))), int(math.ceil(r)), 0.0, -1)
            continue
        if not inside:
            continue
        size = (d.size if d.size is not None else d.box_side / 1.2) * mean_scale
        s = sigma_cells(size)
        g = np.exp(-((xx + 0.5 - gx) ** 2 + (yy + 0.5 - gy) ** 2) / (2 * s * s))
        heat = np.maximum(heat, g)
        ci, cj = int(gy), int(gx)
        heat[ci, cj] = 1.0
        angle = None
        if d.angle is not None:
            a = math.radians(d.angle)
            v = lin @ np.array([math.cos(a), math.sin(a)])
            angle = math.atan2(v[1], v[0])
        for di in (-1, 0, 1):
            for dj in (-1, 0, 1):
                i, j = ci + di, cj + dj
                if not (0 <= i < cells and 0 <= j < cells):
                    continue
                dist = (i + 0.5 - gy) ** 2 + (j + 0.5 - gx) ** 2
                if dist >= owner_distance[i, j]:
                    continue
                owner_distance[i, j] = dist
                near = 1.0 if (di, dj) == (0, 0) else 0.5
                reg[OFFSET_X, i, j], reg[OFFSET_Y, i, j] = gx - j, gy - i
                reg_weight[[OFFSET_X, OFFSET_Y], i, j] = near * (0.5 if sample.real else 1.0)
                reg_weight[[LOG_SIZE, COS4, SIN4, COCKED], i, j] = 0.0
                if d.size is not None:
                    reg[LOG_SIZE, i, j] = math.log(size / SIZE_UNIT)
                    reg_weight[LOG_SIZE, i, j] = near
                if angle is not None:
                    reg[COS4, i, j], reg[SIN4, i, j] = math.cos(4 * angle), math.sin(4 * angle)
                    reg_weight[[COS4, SIN4], i, j] = near * (0.3 if d.cocked else 1.0)
                if d.cocked is not None:
                    reg[COCKED, i, j] = d.cocked
                    reg_weight[COCKED, i, j] = near
                elif sample.real:
                    reg_weight[COCKED, i, j] = 0.3 * near  # photo dice lie flat nearly always
    if side_weight != 1.0 and sample.sides is not None:
        heat_weight[side_face_cells(sample.sides, full, crop) & (heat < 0.5)] *= side_weight
    if side_weight != 1.0 and sample.side_boxes:
        heat_weight[side_box_cells(sample.side_boxes, full, crop) & (heat < 0.5)] *= side_weight
    return out.transpose(2, 0, 1), {"heat": heat, "heat_weight": heat_weight, "reg": reg, "reg_weight": reg_weight}


def crop_stream_class():
    import torch

    class CropStream(torch.utils.data.IterableDataset):
        """Batches of augmented crops: from a real photo with probability real_share (its set
        drawn by SET_WEIGHTS), else from a synthetic scene or, with probability
        negative_share, a picture with no die."""

        def __init__(self, real, synthetic, negatives, batch, real_share, negative_share, seed, start, steps,
                     side_weight=1.0):
            self.real, self.synthetic, self.negatives, self.batch = real, synthetic, negatives, batch
            self.side_weight = side_weight
            self.real_share, self.negative_share = real_share, negative_share
            self.seed, self.start, self.steps = seed, start, steps
            self.sets = sorted(real)
            weights = np.array([SET_WEIGHTS.get(name, 0.2) for name in self.sets])
            self.set_weights = weights / weights.sum()

        def pick(self, rng):
            u = rng.random()
            if u < self.real_share:
                pool = self.real[self.sets[rng.choice(len(self.sets), p=self.set_weights)]]
            elif u < self.real_share + self.negative_share:
                pool = self.negatives
            else:
                pool = self.synthetic
            return pool[rng.integers(len(pool))]

        def __iter__(self):
            # with several workers, worker k makes the batches of steps k, k + workers, ...
            # (the loader takes one from each in turn), so the run has `steps` batches in all
            info = torch.utils.data.get_worker_info()
            worker, workers = (0, 1) if info is None else (info.id, info.num_workers)
            rng = np.random.default_rng([self.seed, worker, self.start])
            for _ in range(self.start + worker, self.steps, workers):
                images, targets = [], {"heat": [], "heat_weight": [], "reg": [], "reg_weight": []}
                for _ in range(self.batch):
                    crop, t = make_crop(self.pick(rng), rng, side_weight=self.side_weight)
                    images.append(crop)
                    for k in targets:
                        targets[k].append(t[k])
                yield (torch.from_numpy(np.stack(images)),
                       {k: torch.from_numpy(np.stack(v)) for k, v in targets.items()})

    return CropStream


def CropStream(*args):  # noqa: N802 - a class made on demand (torch is imported lazily)
    return crop_stream_class()(*args)


# ------------------------------------------------------------------ the model


def torch_model(layout: Layout = Layout(), convs: tuple[int, ...] | None = None):
    """A stride-2 stem, stages of (3x3 stride-2 conv, 3x3 conv) at strides 4, 8, 16 and 32,
    every conv followed by batch norm and ReLU; a top-down path brings the coarse features
    back to stride 4 (1x1 conv, nearest x2 upsample, add the stage's own features, 3x3 conv),
    and a 3x3 conv + 1x1 conv head gives the OUTPUTS maps. The coarse stages see a whole die
    and its neighbours (big dice, touching dice); the stride-4 features place the centre.
    `convs`: how many 3x3 convs each stage has after its stride-2 one (one each by default)."""
    import torch
    from torch import nn

    class ConvBN(nn.Module):
        def __init__(self, cin: int, cout: int, k: int, stride: int = 1, relu: bool = True) -> None:
            super().__init__()
            self.conv = nn.Conv2d(cin, cout, k, stride, k // 2, bias=False)
            self.bn = nn.BatchNorm2d(cout)
            self.relu = relu

        def forward(self, x):
            y = self.bn(self.conv(x))
            return torch.relu(y) if self.relu else y

    class Detector(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            stages = layout.stages
            self.stem = ConvBN(3, layout.stem, 3, 2)
            self.down = nn.ModuleList()
            self.conv = nn.ModuleList()
            cin = layout.stem
            for w, n in zip(stages, convs or (1,) * len(stages)):
                self.down.append(ConvBN(cin, w, 3, 2))
                # a stage of one conv keeps its module, so the default network's checkpoints still load
                self.conv.append(ConvBN(w, w, 3) if n == 1
                                 else nn.Sequential(*(ConvBN(w, w, 3) for _ in range(n))))
                cin = w
            self.lateral = nn.ModuleList(ConvBN(stages[i + 1], stages[i], 1, relu=False) for i in range(len(stages) - 1))
            self.merge = nn.ModuleList(ConvBN(stages[i], stages[i], 3) for i in range(len(stages) - 1))
            self.head = ConvBN(stages[0], layout.head, 3)
            self.out = nn.Conv2d(layout.head, OUTPUTS, 1)
            with torch.no_grad():
                self.out.bias.zero_()
                self.out.bias[HEAT] = -2.2  # start by predicting few dice (focal-loss prior)
                self.out.bias[OFFSET_X] = self.out.bias[OFFSET_Y] = 0.5
                self.out.bias[LOG_SIZE] = math.log(20 / SIZE_UNIT)

        def forward(self, x):
            v = self.stem(x)
            features = []
            for down, conv in zip(self.down, self.conv):
                v = conv(down(v))
                features.append(v)
            y = features[-1]
            for i in reversed(range(len(features) - 1)):
                y = nn.functional.interpolate(self.lateral[i](y), scale_factor=2.0, mode="nearest")
                y = self.merge[i](y + features[i])
            return self.out(self.head(y))

    return Detector()


def export_onnx(model, path: Path, notes: dict) -> None:
    """The model in eval mode as ONNX (input "x" 1 x 3 x H x W, output "maps"), and its metadata.
    A model on a GPU is exported from a copy on the CPU; the model itself is left as it was."""
    import copy

    import torch

    if next(model.parameters()).device.type != "cpu":
        model = copy.deepcopy(model).cpu()
    model.eval()
    tmp = path.with_name(path.name + ".part")
    # The input is declared INPUT_SIDE x INPUT_SIDE, not of any height and width: OpenCV 4's ONNX
    # importer works out every layer's shape from the declared input and cannot with symbolic
    # sides (its upsample-and-add fails to load). Its dnn, like OpenCV 5.0's classic engine, runs
    # the network on an input of any shape all the same.
    with torch.no_grad():
        torch.onnx.export(model, (torch.zeros(1, 3, INPUT_SIDE, INPUT_SIDE),), str(tmp), dynamo=False,
                          input_names=["x"], output_names=["maps"], opset_version=13, do_constant_folding=True)
    os.replace(tmp, path)
    write_metadata(path, {"kind": KIND, "outputs": list(OUTPUT_NAMES), "input_side": INPUT_SIDE, "fill": FILL,
                          "input_scale": INPUT_SCALE, "stride": STRIDE, "align": ALIGN, "size_unit": SIZE_UNIT,
                          "trained": notes})


def losses(maps, targets):
    import torch

    heat_logit = maps[:, HEAT]
    p = torch.sigmoid(heat_logit).clamp(1e-4, 1 - 1e-4)
    gt = targets["heat"]
    weight = targets["heat_weight"]
    positive = (gt >= 1.0).float() * weight
    negative = (1 - (gt >= 1.0).float()) * weight
    pos_loss = -(torch.log(p) * (1 - p) ** 2 * positive).sum()
    neg_loss = -(torch.log(1 - p) * p ** 2 * (1 - gt) ** 4 * negative).sum()
    count = positive.sum().clamp(min=1.0)
    heat = (pos_loss + neg_loss) / count
    reg_w = targets["reg_weight"]
    l1 = (maps - targets["reg"]).abs()

    def mean(values, channels):
        w = reg_w[:, channels]
        return (values * w).sum() / w.sum().clamp(min=1.0)

    offset = mean(l1[:, [OFFSET_X, OFFSET_Y]], [OFFSET_X, OFFSET_Y])
    size = mean(l1[:, LOG_SIZE], LOG_SIZE)
    # squared error for the angle: with L1 the network sat at (0, 0), the median of a
    # uniform angle, for thousands of steps before it found the edges' direction
    angle = mean(((maps - targets["reg"]) ** 2)[:, [COS4, SIN4]], [COS4, SIN4])
    cocked = mean(torch.nn.functional.binary_cross_entropy_with_logits(
        maps[:, COCKED], targets["reg"][:, COCKED], reduction="none"), COCKED)
    total = heat + offset + 2 * size + 3 * angle + 0.5 * cocked
    return total, {"heat": heat.item(), "offset": offset.item(), "size": size.item(), "angle": angle.item(),
                   "cocked": cocked.item()}


# ------------------------------------------------------------------ evaluation


def evaluate(model_path: Path, samples: list[Sample], thresholds=(0.3, 0.4, 0.5)) -> dict:
    """Detection recall / precision with the bench's matching, and localisation errors."""
    from vision.reader.detector import DieDetector
    from lab.reader_eval.detector_eval import match_detections
    from lab.reader_eval.evaluate import LabelledDie

    detector = DieDetector(model_path)
    figures = {}
    per = {t: [0, 0, 0] for t in thresholds}  # found, missed, extra
    errors = []
    for sample in samples:
        found = detector.detect(sample.image, threshold=min(thresholds))
        labels = [LabelledDie(1, (d.center[0] - d.box_side / 2, d.center[1] - d.box_side / 2,
                                  d.center[0] + d.box_side / 2, d.center[1] + d.box_side / 2), d.ignore)
                  for d in sample.dice]
        for t in thresholds:
            result = match_detections(labels, [f for f in found if f.score >= t])
            per[t][0] += result.found
            per[t][1] += result.missed
            per[t][2] += result.extra
            if t == thresholds[1]:
                kept = [f for f in found if f.score >= t]
                for li, pi in result.pairs:
                    d, f = sample.dice[li], kept[pi]
                    errors.append(math.dist(f.center, d.center) / d.box_side)
    for t, (found_, missed, extra) in per.items():
        figures[f"recall@{t}"] = round(found_ / max(1, found_ + missed), 4)
        figures[f"precision@{t}"] = round(found_ / max(1, found_ + extra), 4)
        figures[f"extra@{t}"] = extra
    if errors:
        figures["centre_err_p50"] = round(float(np.median(errors)), 4)
    return figures


# ------------------------------------------------------------------ main


def run_checkpoint(args: argparse.Namespace, fit_photos: list[photo_sets.Photo]) -> Path:
    """The checkpoint of a run with these options on these photos (`checkpoints`)."""
    # a run without added scenes (ADDED_SCENES), its side faces weighed as any place, one conv a
    # stage, box centres as they are and no photo's faces weighed keeps the checkpoint it had before
    # those options existed
    return checkpoint_path(args.work, "checkpoint", {
        "options": {k: v for k, v in vars(args).items()
                    if k not in SPEED_OPTIONS and k != "negative_kinds" and not (k in ADDED_SCENES and not v)
                    and not (k == "side_weight" and v == 1.0)
                    and not (k == "stage_convs" and set(v) == {1})
                    and not (k in ("top_faces", "photo_sides") and not v)},
        "negative kinds": args.negative_kinds, "faces by": photo_sets.faces_hash(),
        "photos": sorted(f"{p.set_name}/{p.path.name}" for p in fit_photos), "label fixes": photo_sets.label_fixes_hash()})


def parse_options(argv: list[str] | None = None) -> argparse.Namespace:
    """The command line's options (sys.argv's when `argv` is None)."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=MODEL_PATH, help="the ONNX file to write (and its .json)")
    parser.add_argument("--work", type=Path, default=Path("/tmp/cubilete-detector"),
                        help="rendered scenes, found faces and checkpoints")
    parser.add_argument("--photos", type=Path, default=photo_sets.DICE_PHOTOS, help="folder of the photo sets")
    parser.add_argument("--synthetic", type=int, default=4000, help="synthetic training scenes")
    parser.add_argument("--steep", type=int, default=0, help="more scenes, big dice seen close and low")
    parser.add_argument("--blending", type=int, default=0, help="more scenes, dice the colour of their floor")
    parser.add_argument("--crowded", type=int, default=0, help="more scenes, many dice packed close, seen obliquely")
    parser.add_argument("--boards", type=int, default=0, help="more scenes, dice on a board game's tiles and tokens")
    parser.add_argument("--side-weight", type=float, default=1.0,
                        help="how much more a synthetic die's side faces (and with --photo-sides a photo's) weigh as "
                             "places with no die")
    parser.add_argument("--top-faces", action="store_true",
                        help="a real die whose label box is taller than wide centred on the square at the box's top, "
                             "where its top face lies when seen from the front (photo_sets.box_centre), not on the "
                             "box's centre")
    parser.add_argument("--photo-sides", action="store_true",
                        help="with --top-faces and --side-weight W, the part of a real die's tall label box below "
                             "the square at its top, where a die seen from the front shows the face turned to the "
                             "camera, weighs W times as a place with no die too (photo_sets.front_face_box)")
    parser.add_argument("--negatives", type=int, default=600, help="pictures with no die")
    parser.add_argument("--negative-kinds", default=",".join(DETECTOR_NEGATIVE_KINDS),
                        help=f"their kinds, comma-separated, of {', '.join(ALL_KINDS)}")
    parser.add_argument("--synth-seed", type=int, default=7000)
    parser.add_argument("--val-synthetic", type=int, default=100, help="held-out synthetic scenes (seed + 1)")
    parser.add_argument("--steps", type=int, default=16000)
    parser.add_argument("--batch", type=int, default=16)
    parser.add_argument("--lr", type=float, default=3e-3)
    parser.add_argument("--real-share", type=float, default=0.5, help="share of crops cut from real photos")
    parser.add_argument("--negative-share", type=float, default=0.06, help="share of crops from no-dice pictures")
    parser.add_argument("--threads", type=int, default=1, help="torch threads for training")
    parser.add_argument("--workers", type=int, default=1, help="processes cutting crops (0: in the main one)")
    parser.add_argument("--render-workers", type=int, default=1, help="processes rendering the synthetic scenes")
    parser.add_argument("--device", default="cpu", help="where torch trains: cpu, or cuda on a machine with a GPU")
    parser.add_argument("--eval-every", type=int, default=3000,
                        help="export and measure on the held-out photos every this many steps (0: at the end only)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--stem", type=int, default=Layout.stem, help="channels of the stride-2 stem")
    parser.add_argument("--stages", default=",".join(map(str, Layout.stages)),
                        help="channels of the stages at strides 4, 8, 16 and 32 (comma-separated)")
    parser.add_argument("--head", type=int, default=Layout.head, help="channels of the head's 3x3 conv")
    parser.add_argument("--stage-convs", help="how many 3x3 convs each stage has after its stride-2 conv "
                        "(comma-separated, one per stage; default one each)")
    parser.add_argument("--checkpoint-every", type=int, default=250)
    parser.add_argument("--render-only", action="store_true", help="only render the synthetic scenes")
    args = parser.parse_args(argv)
    try:
        args.layout = Layout(args.stem, tuple(int(w) for w in args.stages.split(",")), args.head)
    except ValueError:
        parser.error(f"--stages {args.stages!r}: give channel counts separated by commas, e.g. 16,24,40,64")
    if not 2 <= len(args.layout.stages) <= 4 or min(args.layout.stages + (args.stem, args.head)) < 1:
        # more than four stages would need inputs aligned to more than ALIGN pixels
        parser.error(f"--stem {args.stem} --stages {args.stages} --head {args.head}: a layout has two to four "
                     "stages and at least one channel everywhere")
    stages = len(args.layout.stages)
    try:
        args.stage_convs = (tuple(int(n) for n in args.stage_convs.split(",")) if args.stage_convs
                            else (1,) * stages)
    except ValueError:
        parser.error(f"--stage-convs {args.stage_convs!r}: give a count of convs per stage separated by commas, "
                     "e.g. 1,1,2,2")
    if len(args.stage_convs) != stages or not all(1 <= n <= 4 for n in args.stage_convs):
        parser.error(f"--stage-convs {','.join(map(str, args.stage_convs))}: one count from 1 to 4 for each of the "
                     f"{stages} stages")
    if not args.side_weight >= 0:
        parser.error(f"--side-weight {args.side_weight}: a weight is 0 or more (1: side faces weigh as any place)")
    if args.photo_sides and (not args.top_faces or args.side_weight == 1.0):
        parser.error("--photo-sides weighs the faces below a tall box's top face: give --top-faces and a "
                     "--side-weight other than 1 too")
    args.negative_kinds = tuple(k.strip() for k in args.negative_kinds.split(",") if k.strip())
    if not args.negative_kinds or set(args.negative_kinds) - set(ALL_KINDS):
        parser.error(f"--negative-kinds {','.join(args.negative_kinds)!r}: give some of {', '.join(ALL_KINDS)}")
    if args.device.startswith("cuda") and not args.render_only:
        import torch  # before the scenes are rendered, which can take 20 minutes

        if not torch.cuda.is_available():
            parser.error(f"--device {args.device}: torch {torch.__version__} sees no GPU here; train with --device cpu")
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_options(argv)
    if not args.render_only and (why := photo_sets.missing_training_photos(args.photos)):
        print(f"train_detector: {why}", file=sys.stderr)  # before the scenes take their minutes
        return 2

    train_cache = args.work / f"synth-{args.synth_seed}"
    val_cache = args.work / f"synth-{args.synth_seed + 1}"
    added = [(kind, getattr(args, kind), args.synth_seed + offset, args.work / f"{kind}-{args.synth_seed + offset}")
             for kind, offset in ADDED_SCENE_SEEDS.items() if getattr(args, kind)]
    started = time.time()
    sides = args.side_weight != 1.0
    render_synthetic(train_cache, args.synthetic, args.synth_seed, args.render_workers, sides=sides)
    render_synthetic(val_cache, args.val_synthetic, args.synth_seed + 1, args.render_workers)
    for kind, count, seed, cache in added:
        render_synthetic(cache, count, seed, args.render_workers, kind=kind, sides=sides)
    print(f"scenes ready ({time.time() - started:.0f} s)", flush=True)
    if args.render_only:
        return 0

    import torch

    torch.manual_seed(args.seed)
    torch.set_num_threads(args.threads)
    cv2.setNumThreads(1)

    fit_photos, held_photos = photo_sets.held_out(photo_sets.training_photos(args.work, args.photos))
    real_train: dict[str, list[Sample]] = {}
    for photo in fit_photos:
        real_train.setdefault(photo.set_name, []).append(photo_sample(photo, args.top_faces, args.photo_sides))
    real_val: dict[str, list[Sample]] = {}
    for photo in held_photos:
        real_val.setdefault(photo.set_name, []).append(photo_sample(photo, args.top_faces))
    synth_train = [sample for cache, count in [(train_cache, args.synthetic)] + [(c, n) for _, n, _, c in added]
                   for sample in load_synthetic(cache, count, sides)]
    synth_val = load_synthetic(val_cache, args.val_synthetic)
    negatives = negative_pictures(args.negatives, args.synth_seed + 5, args.negative_kinds)
    print("data: " + ", ".join(f"{k} {len(v)} photos (+{len(real_val.get(k, []))} held out)" for k, v in
                               sorted(real_train.items()))
          + f"; {len(synth_train)} synthetic scenes (+{len(synth_val)} held out), {len(negatives)} no-dice pictures;"
          f" loaded at {time.time() - started:.0f} s", flush=True)

    checkpoint = run_checkpoint(args, fit_photos)
    device = torch.device(args.device)
    model = torch_model(args.layout, args.stage_convs).to(device)
    optimiser = torch.optim.AdamW(model.parameters(), lr=args.lr, weight_decay=1e-4)
    schedule = torch.optim.lr_scheduler.OneCycleLR(optimiser, max_lr=args.lr, total_steps=args.steps,
                                                   pct_start=0.05, final_div_factor=100)
    start, running, spent, state = 0, {}, 0.0, None
    if checkpoint.exists():
        state = torch.load(checkpoint, weights_only=False, map_location=device)
        model.load_state_dict(state["model"])
        optimiser.load_state_dict(state["optimiser"])
        schedule.load_state_dict(state["schedule"])
        start, running, spent = state["step"], state["running"], state["seconds"]
        print(f"resumed from {checkpoint} at step {start}", flush=True)
    legs = legs_with_new_one(state, start, args.device, torch.__version__)
    leg_started = time.time()
    train_started = time.time() - spent
    batches = torch.utils.data.DataLoader(
        CropStream(real_train, synth_train, negatives, args.batch, args.real_share, args.negative_share, args.seed,
                   start, args.steps, args.side_weight),
        batch_size=None, num_workers=args.workers, prefetch_factor=4 if args.workers else None)
    # the network as measured along the way, named as its run's checkpoint: runs of other recipes
    # and one seed share the work folder (and its rendered scenes), never this file
    work_model = checkpoint.with_suffix(".onnx")
    for step, (images, targets) in enumerate(batches, start=start + 1):
        model.train()
        x = torch.from_numpy(normalise(images.numpy())).to(device)
        total, parts = losses(model(x), {k: v.to(device) for k, v in targets.items()})
        optimiser.zero_grad()
        total.backward()
        optimiser.step()
        schedule.step()
        for k, v in parts.items():
            running[k] = 0.98 * running.get(k, v) + 0.02 * v
        if step % 100 == 0:
            print(f"step {step}: " + " ".join(f"{k} {v:.3f}" for k, v in running.items())
                  + f" ({time.time() - train_started:.0f} s)", flush=True)
        if step % args.checkpoint_every == 0 or step == args.steps:
            tmp = checkpoint.with_name(checkpoint.name + ".part")
            legs = close_leg(legs, step, (time.time() - leg_started) / 60)
            torch.save({"model": model.state_dict(), "optimiser": optimiser.state_dict(),
                        "schedule": schedule.state_dict(), "step": step, "running": running,
                        "seconds": time.time() - train_started, "legs": legs}, tmp)
            os.replace(tmp, checkpoint)
        if args.eval_every and step % args.eval_every == 0 and step < args.steps:
            export_onnx(model, work_model, {"step": step})
            for name, samples in sorted(real_val.items()):
                print(f"  held-out {name}:", fmt(evaluate(work_model, samples)), flush=True)
    minutes = (time.time() - train_started) / 60
    notes = {"steps": args.steps, "batch": args.batch, "lr": args.lr, "seed": args.seed,
             "synthetic": args.synthetic, "steep": args.steep, "blending": args.blending, "crowded": args.crowded, "boards": args.boards, "side_weight": args.side_weight,
             "top_faces": args.top_faces, "photo_sides": args.photo_sides, "synth_seed": args.synth_seed,
             "negatives": args.negatives, "negative_kinds": list(args.negative_kinds),
             "real_share": args.real_share, "negative_share": args.negative_share, "set_weights": SET_WEIGHTS,
             "photo_sets": sorted(real_train), "threads": args.threads, "workers": args.workers,
             "device": args.device, "training_minutes": round(minutes, 1),
             "legs": trained_legs(legs),
             "layout": {"stem": args.layout.stem, "stages": list(args.layout.stages), "head": args.layout.head,
                        "stage_convs": list(args.stage_convs)},
             "torch": torch.__version__}
    export_onnx(model, work_model, notes)
    figures = {name: evaluate(work_model, samples) for name, samples in sorted(real_val.items())}
    figures["synthetic"] = evaluate(work_model, synth_val)
    for name, f in figures.items():
        print(f"  held-out {name}:", fmt(f), flush=True)
    export_onnx(model, args.out, {**notes, "held_out": figures})
    print(f"done in {time.time() - started:.0f} s (training {minutes:.0f} min); model {args.out} "
          f"({args.out.stat().st_size} bytes)")
    return 0


def fmt(figures: dict) -> str:
    return " ".join(f"{k} {v}" for k, v in figures.items())


if __name__ == "__main__":
    raise SystemExit(main())
