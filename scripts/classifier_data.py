"""Training data of the die-value classifier: labelled scenes and augmented die windows.

Used by `scripts/train_classifier.py` (see there for the command line). Three sources:
  * real photos: the `train` split of every photo set (`photo_sets`; never a test split),
    divided by photo into a fitting part and a held-out part;
  * pictures with no die (`lab.synth.clutter`);
  * synthetic scenes from `lab.synth`, drawn with widely varied options (die sizes 16 to
    110 px, 1 to 12 dice touching or not, oblique views with side faces, cocked dice, trays,
    hands, every die style, blur, noise, JPEG) and, on request, close and low views of big dice
    whose side faces show as big as the top (`lab.synth.steep`) or dice on board games' boards
    (`lab.synth.boards`), cached as files under a work folder.
A scene is an encoded image plus its dice: centre, top-face edge, edge angle, value, and
whether it is cocked or to be ignored. `sample_windows` cuts windows from a scene the way the
reader cuts them, with the detector's errors (centre, size, angle) and camera degradations
(lower resolution, JPEG) simulated, plus "not a die" windows: off-centre, pip-sized,
cluster-sized, background, trays and hands. Every scene and every pass of windows over a scene
draws from its own generator (the seed and the scene's index), so they can be made in any
number of processes (`in_processes`) and come out the same.
"""

from __future__ import annotations

import math
import pickle
import sys
import time
from dataclasses import dataclass, replace
from pathlib import Path

import cv2
import numpy as np

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))
if str(ROOT / "scripts") not in sys.path:
    sys.path.insert(0, str(ROOT / "scripts"))

import photo_sets  # noqa: E402
from processes import in_processes  # noqa: E402
from vision.reader import classifier, detector  # noqa: E402
from vision.reader.detector import MODEL_PATHS, ModelFiles, model_files  # noqa: E402
from vision.reader.reader import read_dice  # noqa: E402
from vision.reader.windows import DEFAULT, DIE_WINDOW_SCALES, Geometry, cut_windows, edge_angle, edge_from_box  # noqa: E402

NOT_A_DIE, COCKED = 0, 7
IGNORE = -1  # a die neither trained as a value nor used as background
CLEARLY_COCKED_DEG = 12.0  # synthetic dice leaning more than this are the "cocked" class
MIN_VISIBLE = 0.85  # synthetic dice less visible than this are not trained on
WINDOWS_PER_LOOK = 2  # reader_find_windows: windows cut at each look at each die the reader found
CHUNK = 50  # scenes a process renders or cuts at a time (a fixed size: the data do not depend on the workers)


@dataclass
class Die:
    x: float
    y: float
    size: float  # top-face edge, image px
    angle: float
    label: int  # 1..6, COCKED, or IGNORE


@dataclass
class Scene:
    name: str
    encoded: bytes  # the image file's bytes (JPEG or PNG)
    dice: list[Die]
    real: bool
    set_name: str = ""  # the photo set of a real scene
    lean_deg: float | None = None  # a photo's camera lean off vertical, where its set's source says it

    def image(self) -> np.ndarray:
        return cv2.imdecode(np.frombuffer(self.encoded, np.uint8), cv2.IMREAD_COLOR)


# ----------------------------------------------------------------------------- real photos


def photo_scenes(photos: list[photo_sets.Photo]) -> list[Scene]:
    """Photos as scenes. Where only a box is known, its centre is taken as the face's centre
    and its side, corrected for the die's edge angle measured in the image, as the face's edge
    (the box is around the die as seen: top face, maybe some side)."""
    scenes = []
    for photo in photos:
        encoded = photo.path.read_bytes()
        grey = None
        dice = []
        for d in photo.dice:
            x, y = d.center
            if d.size is not None and d.angle is not None:
                size, angle = d.size, d.angle
            else:
                if grey is None:
                    grey = cv2.cvtColor(cv2.imdecode(np.frombuffer(encoded, np.uint8), cv2.IMREAD_COLOR),
                                        cv2.COLOR_BGR2GRAY)
                angle = edge_angle(grey, x, y, d.box_side)
                size = edge_from_box(d.box_side, angle)
            dice.append(Die(x, y, size, angle, IGNORE if d.ignore else d.value))
        scenes.append(Scene(f"{photo.set_name}/{photo.path.name}", encoded, dice, True, photo.set_name))
    return scenes


def negative_chunk(seed: int, first: int, stop: int, kinds: tuple[str, ...] | None = None) -> list[Scene]:
    from lab.synth.clutter import NEGATIVE_KINDS, negative_image

    cv2.setNumThreads(1)
    scenes = []
    for i in range(first, stop):
        rng = np.random.default_rng([seed, i])
        width, height = [(640, 480), (640, 640), (480, 640)][int(rng.integers(3))]
        encoded = cv2.imencode(".png", negative_image(rng, width, height, kinds=kinds or NEGATIVE_KINDS))[1].tobytes()
        scenes.append(Scene(f"negative-{seed}-{i}", encoded, [], False))
    return scenes


def negative_scenes(count: int, seed: int, workers: int = 1, kinds: tuple[str, ...] | None = None) -> list[Scene]:
    """Pictures with no die, picture i drawn from rng [seed, i] (`lab.synth.clutter`) of one of
    `kinds` (default: every kind), made in `workers` processes."""
    jobs = [(seed, first, min(count, first + CHUNK), kinds) for first in range(0, count, CHUNK)]
    return [scene for chunk in in_processes(negative_chunk, jobs, workers) for scene in chunk]


# ----------------------------------------------------------------------------- synthetic scenes


def random_synthetic_spec(rng: np.random.Generator, kind: str = "wide"):
    """A SceneSpec: "wide" = drawn from a wide range of options (see the module doc);
    "marbled" = the same with marbled dice only (the hardest to read); "smoky" = the same with
    dark see-through dice only (the pips of the hidden faces show); "camouflaged" = the same
    with marbled dice whose pips vanish on one swirl colour; "colours" = the same with dice of
    colours off the palette (`looks.any_colour_look`: never the unseen-looks judge's); "game" = the game scenes
    of `random_scene`'s defaults (5 dice, 640x480, 40-90 px); "steep" = close, low views
    (`lab.synth.steep`); "boards" = dice on board games' boards (`lab.synth.boards`)."""
    from lab.synth import random_scene

    if kind == "game":
        return random_scene(rng)
    if kind == "steep":
        from lab.synth.steep import steep_spec

        return steep_spec(rng)
    if kind == "boards":
        from lab.synth.boards import boards_spec

        return boards_spec(rng)
    styles = {"marbled": ("marbled",), "smoky": ("smoky",), "camouflaged": ("camouflaged",),
              "colours": ("any colour",)}.get(kind, ("opaque", "translucent", "marbled"))

    width, height = [(640, 480), (640, 640), (800, 600)][int(rng.integers(3))]
    for _ in range(20):
        n = int(rng.choice([1, 2, 3, 4, 5, 5, 5, 6, 7, 8, 10, 12]))
        lo = float(rng.uniform(16, 70))
        hi = float(min(110.0, lo * rng.uniform(1.0, 1.8)))
        if n * lo * lo > 0.25 * width * height:
            continue
        try:
            return random_scene(
                rng, n_dice=n, width=width, height=height, size_range=(lo, hi), touching=bool(rng.random() < 0.8),
                max_tilt_deg=float(rng.uniform(0, 35)), cocked_prob=0.12, tray_prob=0.35, occluder_prob=0.3,
                touch_prob=float(rng.uniform(0.2, 0.9)), noise_range=(0.5, 8.0), jpeg_range=(20, 95), blur_prob=0.6,
                styles=styles)
        except ValueError:
            continue
    return None


def synthetic_spec(seed: int, i: int, kind: str):
    """The SceneSpec of scene i of a kind for a seed, drawn from its own generator [seed, i]."""
    rng = np.random.default_rng([seed, i])
    spec = None
    while spec is None:
        spec = random_synthetic_spec(rng, kind)
    return spec


def camera_lean_deg(scene: Scene) -> float | None:
    """How far a scene's camera leans off vertical, in degrees: a synthetic scene's from its spec
    (drawn again from the scene's name: the scenes cached on disk keep no more); 0 for a picture
    with no die, which no camera looked at; a photo's own `lean_deg` (None where not known)."""
    if scene.real:
        return scene.lean_deg
    if scene.name.startswith("negative-"):
        return 0.0
    kind, seed, i = scene.name.removeprefix("synth-").rsplit("-", 2)
    return float(synthetic_spec(int(seed), int(i), kind).camera.tilt_deg)


# A greyscale photo's channels differ by a few levels of JPEG noise at most; a colour photo's
# by far more (rune55's colour phone photos by 100 or more).
GREY_TOLERANCE = 24


def is_greyscale(image_bgr: np.ndarray) -> bool:
    """Whether a photo's three channels are the same picture (a greyscale camera's)."""
    levels = image_bgr.astype(np.int16)
    return int(np.abs(levels - levels[..., :1]).max(initial=0)) <= GREY_TOLERANCE


def window_geometry(scene: Scene, geometry: Geometry, turned_below_deg: float) -> Geometry:
    """How a scene's windows are cut: upright windows (`Geometry.upright`) cut as a plain run cuts
    them (a die's window at its edge angle plus a random quarter turn) where the scene has no up,
    its camera leaning less than `turned_below_deg` (0: never); otherwise `geometry` itself."""
    if not geometry.upright or turned_below_deg <= 0:
        return geometry
    lean = camera_lean_deg(scene)
    return replace(geometry, upright=False) if lean is not None and lean < turned_below_deg else geometry


def synthetic_scene(seed: int, i: int, kind: str) -> Scene:
    """Scene i of a kind (see random_synthetic_spec) for a seed, drawn from its own generator
    [seed, i], so any share of the scenes can be rendered in any process."""
    from lab.synth import render

    rendered = render(synthetic_spec(seed, i, kind))
    encoded = rendered.jpeg if rendered.jpeg is not None else cv2.imencode(".png", rendered.image)[1].tobytes()
    dice = []
    for label in rendered.labels:
        if label.cocked:
            cls = COCKED if label.tilt_deg >= CLEARLY_COCKED_DEG and label.visible >= MIN_VISIBLE else IGNORE
        else:
            cls = label.value if label.visible >= MIN_VISIBLE else IGNORE
        dice.append(Die(float(label.center[0]), float(label.center[1]), float(label.size), float(label.angle), cls))
    return Scene(f"synth-{kind}-{seed}-{i}", encoded, dice, False)


def synthetic_chunk(seed: int, first: int, stop: int, kind: str) -> list[Scene]:
    from lab import synth

    cv2.setNumThreads(1)
    scenes = [synthetic_scene(seed, i, kind) for i in range(first, stop)]
    synth.clear_caches()  # the renderer's texture caches grow with every new die look
    return scenes


def synthetic_scenes(n: int, seed: int, cache_dir: Path, log=print, kind: str = "wide", workers: int = 1) -> list[Scene]:
    """Scenes 0..n-1 of a kind for a seed (`synthetic_scene`), rendered once in `workers`
    processes and cached in cache_dir."""
    path = cache_dir / f"scenes-{kind}-{seed}-{n}.pkl"
    if path.exists():
        with path.open("rb") as f:
            return pickle.load(f)
    started = time.time()
    jobs = [(seed, first, min(n, first + CHUNK), kind) for first in range(0, n, CHUNK)]
    scenes = [scene for chunk in in_processes(synthetic_chunk, jobs, workers) for scene in chunk]
    log(f"  rendered {n} {kind} scenes of seed {seed} ({time.time() - started:.0f} s)")
    cache_dir.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".part")
    with tmp.open("wb") as f:
        pickle.dump(scenes, f)
    tmp.replace(path)
    return scenes


# ----------------------------------------------------------------------------- windows


@dataclass(frozen=True)
class Jitter:
    """How far the windows of a die are from its true box (the detector's errors)."""
    shift: float = 0.2  # centre off by up to this share of the edge
    scale: tuple[float, float] = DIE_WINDOW_SCALES
    angle_deg: float = 15.0
    any_angle: float = 0.15  # share of windows at a random angle (a detector that got it wrong)


# around the boxes the reader itself read (reader_find_windows): a little off, turned a quarter, never at a random angle
READER_JITTER = Jitter(shift=0.08, scale=(0.94, 1.06), angle_deg=8.0, any_angle=0.0)


def cut_window(image: np.ndarray, x: float, y: float, size: float, angle: float, rng: np.random.Generator | None,
               degrade: float = 0.0, geometry: Geometry = DEFAULT) -> np.ndarray:
    """One window; with a generator and degrade > 0, sometimes seen through a worse camera:
    the region shrunk so the die is 14..40 px, then JPEG-compressed."""
    if rng is not None and rng.random() < degrade and size > 16:
        target = float(rng.uniform(14.0, min(40.0, size)))
        factor = target / size
        reach = int(math.ceil(0.8 * geometry.window_px * size / geometry.die_px)) + 4
        h, w = image.shape[:2]
        x0, y0 = max(0, int(x) - reach), max(0, int(y) - reach)
        x1, y1 = min(w, int(x) + reach + 1), min(h, int(y) + reach + 1)
        if x1 - x0 > 4 and y1 - y0 > 4:
            patch = cv2.resize(image[y0:y1, x0:x1], None, fx=factor, fy=factor, interpolation=cv2.INTER_AREA)
            if rng.random() < 0.7:
                quality = int(rng.integers(20, 90))
                patch = cv2.imdecode(cv2.imencode(".jpg", patch, [cv2.IMWRITE_JPEG_QUALITY, quality])[1], cv2.IMREAD_COLOR)
            sy, sx = patch.shape[0] / (y1 - y0), patch.shape[1] / (x1 - x0)
            image = patch
            x, y, size = (x - x0 + 0.5) * sx - 0.5, (y - y0 + 0.5) * sy - 0.5, size * sx
    return cut_windows(image, [(x, y, size, angle)], geometry)[0]


def jittered(die: Die, rng: np.random.Generator, jitter: Jitter) -> tuple[float, float, float, float]:
    r = jitter.shift * die.size * math.sqrt(rng.random())
    t = rng.uniform(0, 2 * math.pi)
    size = die.size * math.exp(rng.uniform(math.log(jitter.scale[0]), math.log(jitter.scale[1])))
    if rng.random() < jitter.any_angle:
        angle = rng.uniform(0, 90)
    else:
        angle = die.angle + rng.uniform(-jitter.angle_deg, jitter.angle_deg)
    angle += 90 * int(rng.integers(4))
    return die.x + r * math.cos(t), die.y + r * math.sin(t), size, angle


def far_from_dice(x: float, y: float, dice: list[Die], share: float = 0.45) -> bool:
    return all(math.hypot(x - d.x, y - d.y) >= share * d.size for d in dice)


def sample_windows(scene: Scene, rng: np.random.Generator, per_die: int, negatives_per_die: float,
                   background: int, jitter: Jitter = Jitter(), degrade: float = 0.4,
                   geometry: Geometry = DEFAULT) -> tuple[list[np.ndarray], list[int]]:
    """Windows and classes from one scene (see the module doc)."""
    image = scene.image()
    h, w = image.shape[:2]
    windows: list[np.ndarray] = []
    classes: list[int] = []
    dice = scene.dice
    grey = None
    for die in dice:
        if die.label == IGNORE:
            continue
        for _ in range(per_die):
            x, y, size, angle = jittered(die, rng, jitter)
            windows.append(cut_window(image, x, y, size, angle, rng, degrade, geometry))
            classes.append(die.label)
    sizes = [d.size for d in dice] or [min(h, w) * f for f in (0.03, 0.06, 0.1, 0.18)]

    def negative(x: float, y: float, size: float) -> None:
        nonlocal grey
        if grey is None:
            grey = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
        angle = edge_angle(grey, x, y, size) if rng.random() < 0.6 else rng.uniform(0, 90)
        windows.append(cut_window(image, x, y, size, angle, rng, degrade, geometry))
        classes.append(NOT_A_DIE)

    for die in dice:
        count = int(negatives_per_die) + (rng.random() < negatives_per_die % 1)
        for _ in range(count):
            kind = rng.random()
            if kind < 0.45:  # beside the die: half on it, or on its neighbour's edge
                for _ in range(10):
                    r = rng.uniform(0.5, 1.1) * die.size
                    t = rng.uniform(0, 2 * math.pi)
                    x, y = die.x + r * math.cos(t), die.y + r * math.sin(t)
                    if far_from_dice(x, y, dice):
                        negative(x, y, die.size * rng.uniform(0.8, 1.25))
                        break
            elif kind < 0.7:  # side-sized, across the die's edge: a side face seen in an oblique view
                r = rng.uniform(0.55, 0.95) * die.size
                t = rng.uniform(0, 2 * math.pi)
                x, y = die.x + r * math.cos(t), die.y + r * math.sin(t)
                if far_from_dice(x, y, dice):
                    negative(x, y, die.size * rng.uniform(0.3, 0.65))
            elif kind < 0.85:  # pip-sized, on the die
                r = rng.uniform(0, 0.35) * die.size
                t = rng.uniform(0, 2 * math.pi)
                negative(die.x + r * math.cos(t), die.y + r * math.sin(t), die.size * rng.uniform(0.25, 0.55))
            else:  # cluster-sized
                r = rng.uniform(0, 0.6) * die.size
                t = rng.uniform(0, 2 * math.pi)
                negative(die.x + r * math.cos(t), die.y + r * math.sin(t), die.size * rng.uniform(1.8, 3.0))
    for _ in range(background):
        for _ in range(10):
            size = float(rng.choice(sizes)) * rng.uniform(0.6, 1.6)
            x, y = rng.uniform(0, w), rng.uniform(0, h)
            if far_from_dice(x, y, dice, 0.6):
                negative(x, y, size)
                break
    return windows, classes


def mined_windows(scene: Scene, rng: np.random.Generator, detections, degrade: float = 0.4,
                  geometry: Geometry = DEFAULT) -> tuple[list[np.ndarray], list[int]]:
    """Windows where the reader's own detector looks: each detection (centre, size, angle)
    whose centre is within half an edge of a labelled die becomes a window of that die's class
    cut at the detector's box (unless its size is far off); each detection far from every die becomes a "not a die" window,
    twice (these are the false detections the classifier must veto: side faces, pips of a
    die's flank, reflections). Detections on dice labelled IGNORE are left out."""
    image = scene.image()
    windows: list[np.ndarray] = []
    classes: list[int] = []
    for found in detections:
        (x, y), size, angle = found.center, found.size, found.angle
        nearest = min(scene.dice, key=lambda d: math.hypot(x - d.x, y - d.y), default=None)
        if nearest is not None and math.hypot(x - nearest.x, y - nearest.y) < 0.5 * nearest.size:
            if nearest.label != IGNORE and 0.7 < size / nearest.size < 1.4:
                windows.append(cut_window(image, x, y, size, angle, rng, degrade, geometry))
                classes.append(nearest.label)
            continue
        for _ in range(2):
            windows.append(cut_window(image, x, y, size, angle + 90 * int(rng.integers(4)), rng, degrade, geometry))
            classes.append(NOT_A_DIE)
    return windows, classes


# ----------------------------------------------------------------------------- windows of many scenes


def detected_windows(scene: Scene, rng: np.random.Generator, geometry: Geometry, score: float,
                     detector: ModelFiles) -> tuple[list[np.ndarray], list[int]]:
    """`mined_windows` at the detections of a scene from `score` by the detector of those files."""
    found = photo_sets.detector_at(detector).detect(scene.image(), score)
    return mined_windows(scene, rng, found, geometry=geometry)


def windows_chunk(cut, scenes: list[Scene], key: tuple[int, ...], first: int, geometry: Geometry,
                  options: dict, turned_below_deg: float = 0.0) -> tuple[list[np.ndarray], list[int]]:
    """cut(scene, rng, geometry=..., **options) of scenes first, first+1, ... of a list, scene i
    with generator [*key, i], each scene cut as `window_geometry` says."""
    cv2.setNumThreads(1)
    windows: list[np.ndarray] = []
    classes: list[int] = []
    for k, scene in enumerate(scenes):
        w, c = cut(scene, np.random.default_rng([*key, first + k]),
                   geometry=window_geometry(scene, geometry, turned_below_deg), **options)
        windows += w
        classes += c
    return windows, classes


def stacked(parts: list[tuple[list[np.ndarray], list[int]]], side: int) -> tuple[np.ndarray, np.ndarray]:
    windows = [w for part in parts for w in part[0]]
    classes = [c for part in parts for c in part[1]]
    if not windows:
        return np.zeros((0, side, side, 3), np.uint8), np.zeros(0, np.int64)
    return np.stack(windows), np.asarray(classes, np.int64)


def scene_windows(scenes: list[Scene], passes: int, seed: int, geometry: Geometry, workers: int = 1,
                  turned_below_deg: float = 0.0, **options) -> tuple[np.ndarray, np.ndarray]:
    """Windows of every scene, `passes` times over (`sample_windows` with `options`): pass p
    of scene i draws from generator [seed, p, i], in `workers` processes; upright windows
    turned where a scene has no up (`window_geometry`)."""
    jobs = [(sample_windows, scenes[first:first + CHUNK], (seed, p), first, geometry, options, turned_below_deg)
            for p in range(passes) for first in range(0, len(scenes), CHUNK)]
    return stacked(in_processes(windows_chunk, jobs, workers), geometry.window_px)


def detector_windows(scenes: list[Scene], seed: int, geometry: Geometry, score: float,
                     workers: int = 1, detector: ModelFiles = MODEL_PATHS,
                     turned_below_deg: float = 0.0) -> tuple[np.ndarray, np.ndarray]:
    """Windows at the detections of every scene by the detector of those files (`mined_windows`),
    scene i drawing from generator [seed, i], in `workers` processes; upright windows turned
    where a scene has no up (`window_geometry`)."""
    options = {"score": score, "detector": detector}
    jobs = [(detected_windows, scenes[first:first + CHUNK], (seed,), first, geometry, options, turned_below_deg)
            for first in range(0, len(scenes), CHUNK)]
    return stacked(in_processes(windows_chunk, jobs, workers), geometry.window_px)


# ----------------------------------------------------------------------------- the reader's own finds


def label_under(x: float, y: float, dice: list[Die]) -> int:
    """The label of the nearest die whose centre is within `far_from_dice`'s reach of (x, y),
    or NOT_A_DIE where there is none."""
    near = [d for d in dice if not far_from_dice(x, y, [d])]
    return min(near, key=lambda d: math.hypot(x - d.x, y - d.y)).label if near else NOT_A_DIE


def read_windows_chunk(scenes: list[Scene], seed: int, first: int, geometry: Geometry, scales: tuple[float, ...],
                       detector_files: ModelFiles, classifier_path: Path,
                       with_count: bool = False, turned_below_deg: float = 0.0) -> tuple[list[np.ndarray], list[int]]:
    """Windows wherever the reader, with the networks of those files, reports a die: at `scales`
    times its size (the looks that decide whether a die is there), WINDOWS_PER_LOOK times each,
    a little off its box (`READER_JITTER`), scene i drawing from generator [seed, i]. Each is
    classed as the labelled die it lies on (`label_under`), or "not a die" where it lies on
    none (every die found in a scene that holds none); dice on a label not trained on
    (IGNORE) are left out. With `with_count`, each real photo is read told its number of
    dice, as the device reads a throw (the count keeps doubtful detections too). Upright windows
    are turned where a scene has no up (`window_geometry`)."""
    cv2.setNumThreads(1)
    detector.use_model(*model_files(detector_files))
    classifier.use_model(classifier_path)
    windows: list[np.ndarray] = []
    classes: list[int] = []
    for k, scene in enumerate(scenes):
        rng = np.random.default_rng([seed, first + k])
        image = scene.image()
        cut_as = window_geometry(scene, geometry, turned_below_deg)
        for die in read_dice(image, len(scene.dice) if with_count and scene.real else None).dice:
            label = label_under(die.center[0], die.center[1], scene.dice)
            if label == IGNORE:
                continue
            for scale in scales:
                look = Die(die.center[0], die.center[1], die.size * scale, die.angle, label)
                for _ in range(WINDOWS_PER_LOOK):
                    windows.append(cut_window(image, *jittered(look, rng, READER_JITTER), rng, 0.3, cut_as))
                    classes.append(label)
    return windows, classes


def reader_find_windows(scenes: list[Scene], seed: int, geometry: Geometry, scales: tuple[float, ...],
                        detector_files: ModelFiles, classifier_path: Path,
                        workers: int = 1, with_count: bool = False,
                        turned_below_deg: float = 0.0) -> tuple[np.ndarray, np.ndarray]:
    """`read_windows_chunk` of every scene, in `workers` processes."""
    jobs = [(scenes[first:first + CHUNK], seed, first, geometry, scales, detector_files, classifier_path, with_count,
             turned_below_deg)
            for first in range(0, len(scenes), CHUNK)]
    return stacked(in_processes(read_windows_chunk, jobs, workers), geometry.window_px)
