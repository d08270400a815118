"""Find every die's top face in a BGR image: centre, edge length, angle, how sure.

`DieDetector().detect(image)` runs a small fully convolutional network (CenterNet-like,
`die_detector.onnx`, made by `scripts/train_detector.py`) once over the whole image, shrunk
so its longer side is `INPUT_SIDE` pixels (dice keep their shape; no size is assumed: the
network was trained on dice from about 9 to 170 input pixels, i.e. 3% to half of the
image's longer side). On a grid of cells `STRIDE` input pixels apart it gives OUTPUTS maps:
  0  die-centre logit: high in the cell holding the centre of a die's top face;
  1  x offset, 2 y offset of that centre inside its cell (0..1 cell);
  3  log(top-face edge / `SIZE_UNIT` input px);
  4  cos(4 angle), 5 sin(4 angle) (the edge direction modulo 90 degrees);
  6  cocked logit (the top face is not flat to the camera).
Each local maximum of the die-centre map above the threshold is a die (at most
`MAX_DETECTIONS`, the likeliest). Touching dice are separate peaks because the network was
trained on them, not split from a merged blob. When the dice found are very small at the
network input (a camera far from the tray), the image is looked at once more at up to 1.5
times the input size. When none is found surely, it is looked at both bigger and at half the
size (a small picture is enlarged to the input size, and a die filling half of it is then
bigger than any the network learnt), and the looks' detections are pooled; the bigger look is
skipped when the first saw nothing like a die at all (a peak under `HINT`).

A detector may be several networks of one geometry (several seeds of one training recipe):
their raw maps are averaged cell by cell before decoding, so a die one network alone would
misplace or find surely where nothing is must convince the others too.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from vision.reader.model_file import ModelFileError, load_network

MODEL_PATH = Path(__file__).with_name("die_detector.onnx")
MODEL_PATHS: tuple[Path, ...] = (MODEL_PATH,)  # the shipped detector's networks, averaged
ModelFiles = Path | Sequence[Path]  # one network's file, or several to average
KIND = "die detector"
OUTPUTS = 7
HEAT, OFFSET_X, OFFSET_Y, LOG_SIZE, COS4, SIN4, COCKED = range(OUTPUTS)
OUTPUT_NAMES = ("centre", "offset x", "offset y", "log size", "cos 4a", "sin 4a", "cocked")
# what the networks averaged into one detector must agree on: how their input is made and their maps read
GEOMETRY = ("align", "fill", "input_scale", "input_side", "outputs", "size_unit", "stride")
STRIDE = 4  # input pixels per output cell
ALIGN = 32  # input sides must be multiples of this (the coarsest stage's stride)
SIZE_UNIT = 16.0
INPUT_SIDE = 320  # the image's longer side at the network input
# Dice that come out smaller than this at the network input (a camera mounted high) are
# looked for again in a bigger input, up to LARGEST_INPUT_SIDE, where they are about
# WANTED_DIE_PX; an image where nothing was found is looked at once more at that size too.
SMALL_DIE_PX = 10.0
WANTED_DIE_PX = 15.0
LARGEST_INPUT_SIDE = 480
SMALLEST_INPUT_SIDE = 160  # ... and at half the input size, where a die filling half the picture fits
# The bigger look costs more than twice the first (7.5 ms against 2.8 on one core), so with
# nothing sure it is taken only where the first look saw something like a die, a peak of at
# least HINT: in synthetic scenes of dice 4 to 9 input px wide the likeliest die peaked at 0.66
# to 0.92 there, while gradients peaked under 0.05 and nine wood-grain pictures in ten under 0.13.
HINT = 0.2
FILL = 128  # padding grey (the training crops' outside is this grey too)
INPUT_SCALE = 1 / 64.0  # the network sees (pixel - FILL) * INPUT_SCALE
THRESHOLD = 0.4  # die probability from which a peak is a detection
# However busy the picture (a checkerboard, a page of print), no more peaks than this are
# decoded: a throw has a handful of dice, and the work per frame stays bounded.
MAX_DETECTIONS = 40
# Top faces hardly overlap: of two detections whose squares share more than this part of the
# smaller one, only the likelier is a die (the other is the same die seen twice, or a pip,
# a marbled blob or a side face next to it). Not less: in an oblique view a near die hides
# part of a far one's top face, and the far one's square then overlaps the near one's.
MAX_OVERLAP = 0.45


@dataclass(frozen=True)
class Detection:
    """One die's top face as the detector sees it, in the caller's image pixels."""

    center: tuple[float, float]
    size: float  # edge length of the top face
    angle: float  # edge direction, degrees clockwise in [0, 90)
    score: float  # probability that a die's top face is centred here
    cocked: float  # probability that the top face is not flat to the camera


def normalise(batch_bgr: np.ndarray) -> np.ndarray:
    """uint8 N x 3 x H x W -> the network's float input (shared with the trainer)."""
    return (batch_bgr.astype(np.float32) - FILL) * INPUT_SCALE


def sigmoid(x: np.ndarray) -> np.ndarray:
    return 1.0 / (1.0 + np.exp(-x))


def model_files(paths: ModelFiles) -> tuple[Path, ...]:
    """One model file or several, as a tuple."""
    return (paths,) if isinstance(paths, Path) else tuple(paths)


class DieDetector:
    """The trained detector of one ONNX file and its metadata, or of several whose raw maps are
    averaged (see the module docstring), loaded once; run by OpenCV's dnn."""

    def __init__(self, paths: ModelFiles = MODEL_PATHS) -> None:
        paths = model_files(paths)
        if not paths:
            raise ModelFileError(f"no {KIND} file given")
        loaded = [load_network(path, KIND) for path in paths]
        for path, (_, meta) in zip(paths, loaded):
            if tuple(meta.get("outputs", ())) != OUTPUT_NAMES:
                raise ModelFileError(f"{path}: its outputs are {meta.get('outputs')}, the code reads {OUTPUT_NAMES}")
            differ = [key for key in GEOMETRY if meta.get(key) != loaded[0][1].get(key)]
            if differ:
                raise ModelFileError(f"{path} and {paths[0]} cannot be averaged: they differ in {', '.join(differ)}")
        self._nets = [net for net, _ in loaded]
        self.metas = [meta for _, meta in loaded]
        self.meta = self.metas[0]

    def input_for(self, image_bgr: np.ndarray, side: int = INPUT_SIDE) -> tuple[np.ndarray, tuple[float, float]]:
        """The 1 x 3 x H x W network input for an image whose longer side becomes `side`,
        and the (x, y) scales applied."""
        h, w = image_bgr.shape[:2]
        scale = side / max(h, w)
        sw, sh = max(1, round(w * scale)), max(1, round(h * scale))
        small = cv2.resize(image_bgr, (sw, sh), interpolation=cv2.INTER_AREA if scale < 1 else cv2.INTER_LINEAR)
        pw, ph = -sw % ALIGN, -sh % ALIGN
        if pw or ph:
            small = cv2.copyMakeBorder(small, 0, ph, 0, pw, cv2.BORDER_CONSTANT, value=(FILL, FILL, FILL))
        blob = cv2.dnn.blobFromImage(small, INPUT_SCALE, None, (FILL, FILL, FILL), swapRB=False, crop=False)
        return blob, (sw / w, sh / h)

    def maps(self, blob: np.ndarray) -> np.ndarray:
        """OUTPUTS x h x w raw maps for a network input, the networks' mean."""
        outputs = []
        for net in self._nets:
            net.setInput(blob)
            outputs.append(net.forward()[0])
        return outputs[0] if len(outputs) == 1 else np.mean(outputs, axis=0, dtype=np.float32)

    def detect_at(self, image_bgr: np.ndarray, side: int, threshold: float = THRESHOLD) -> list[Detection]:
        """Detections with the image's longer side at `side` pixels at the network input."""
        blob, scale = self.input_for(image_bgr, side)
        return decode(self.maps(blob), scale, threshold, image_bgr.shape[:2])

    def detect(self, image_bgr: np.ndarray, threshold: float = THRESHOLD) -> list[Detection]:
        """Every die whose centre score reaches `threshold`, most likely first."""
        first_look = self.detect_at(image_bgr, INPUT_SIDE, min(threshold, HINT))
        found = [d for d in first_look if d.score >= threshold]
        to_input = INPUT_SIDE / max(image_bgr.shape[:2])
        sure = [d.size * to_input for d in found if d.score >= THRESHOLD]
        if sure and float(np.median(sure)) >= SMALL_DIE_PX:
            return found
        if sure:
            wanted = INPUT_SIDE * WANTED_DIE_PX / float(np.median(sure))
            side = min(LARGEST_INPUT_SIDE, ALIGN * math.ceil(wanted / ALIGN))
            return self.detect_at(image_bgr, side, threshold) if side > INPUT_SIDE else found
        # Nothing sure: the dice may be too big for this input (a small picture is enlarged to
        # INPUT_SIDE, and a die filling half of it outgrows the network) or too small for it.
        looks = found + self.detect_at(image_bgr, SMALLEST_INPUT_SIDE, threshold)
        if any(d.score >= HINT for d in first_look):
            looks += self.detect_at(image_bgr, LARGEST_INPUT_SIDE, threshold)
        return suppress_overlaps(looks)[:MAX_DETECTIONS]


def decode(maps: np.ndarray, scale: tuple[float, float], threshold: float, image_hw: tuple[int, int]) -> list[Detection]:
    """Detections from the raw maps: local maxima of the centre map above `threshold`."""
    heat = sigmoid(maps[HEAT])
    peaks = (heat >= threshold) & (heat >= cv2.dilate(heat, np.ones((3, 3), np.uint8)))
    rows, cols = np.nonzero(peaks)
    if len(rows) > MAX_DETECTIONS:
        likeliest = np.argsort(-heat[rows, cols], kind="stable")[:MAX_DETECTIONS]
        rows, cols = rows[likeliest], cols[likeliest]
    found = []
    for i, j in zip(rows, cols):
        x_in = STRIDE * (j + float(maps[OFFSET_X, i, j])) - 0.5
        y_in = STRIDE * (i + float(maps[OFFSET_Y, i, j])) - 0.5
        x, y = (x_in + 0.5) / scale[0] - 0.5, (y_in + 0.5) / scale[1] - 0.5
        if not (-0.5 <= x < image_hw[1] and -0.5 <= y < image_hw[0]):
            continue  # a peak in the padding
        size = math.exp(float(np.clip(maps[LOG_SIZE, i, j], -3.0, 3.0))) * SIZE_UNIT * 2 / (scale[0] + scale[1])
        angle = math.degrees(math.atan2(float(maps[SIN4, i, j]), float(maps[COS4, i, j]))) / 4.0 % 90.0
        cocked = float(sigmoid(maps[COCKED, i, j]))
        found.append(Detection((x, y), size, angle, float(heat[i, j]), cocked))
    return suppress_overlaps(found)


def suppress_overlaps(found: list[Detection]) -> list[Detection]:
    """The detections, likeliest first, less each that overlaps a likelier one by more than MAX_OVERLAP."""
    kept: list[Detection] = []
    for d in sorted(found, key=lambda d: -d.score):
        if all(overlap(d, k) <= MAX_OVERLAP for k in kept):
            kept.append(d)
    return kept


def overlap(a: Detection, b: Detection) -> float:
    """The share of the smaller detection's top-face square inside the other's."""
    if math.dist(a.center, b.center) >= 0.75 * (a.size + b.size):
        return 0.0
    kind, points = cv2.rotatedRectangleIntersection((a.center, (a.size, a.size), a.angle),
                                                    (b.center, (b.size, b.size), b.angle))
    if kind == cv2.INTERSECT_NONE or points is None:
        return 0.0
    area = cv2.contourArea(cv2.convexHull(points))
    return float(area / max(min(a.size, b.size) ** 2, 1e-6))


_detector: DieDetector | None = None


def detector() -> DieDetector:
    """The shipped detector, loaded once per process."""
    global _detector
    if _detector is None:
        _detector = DieDetector()
    return _detector


def use_model(*paths: Path) -> None:
    """Detect with the networks of the model files `paths`, averaged, from now on (to compare
    trained models)."""
    global _detector
    _detector = DieDetector(paths)


def detect(image_bgr: np.ndarray, threshold: float = THRESHOLD) -> list[Detection]:
    """Every die's top face in a BGR uint8 image (see the module docstring)."""
    return detector().detect(image_bgr, threshold)
