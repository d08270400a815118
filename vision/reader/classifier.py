"""Reading a die's top face: `classify_dice(image, dice)` -> class probabilities per die.

The detector says where a die's top face is (centre, edge length, edge angle); this module
cuts the die's window (`windows`), runs the small die-value network on it through OpenCV's
dnn and returns calibrated probabilities over eight classes:
  0 NOT_A_DIE   the window is not centred on a die's top face (a false detection, a window
                half on a die, a pip or a cluster of dice);
  1..6          a flat die showing that value on top;
  7 COCKED      a die leaning on something, its top face clearly off flat.
A value is read from the face only: side faces seen in oblique views and neighbours' pips
near the window's edge are trained to be ignored. Windows whose reading is not clear are
read again and the answers averaged (`tta="auto"`): at the other three quarter turns, or, for a
network trained on upright windows (`Geometry.upright`, which keeps the photo's up), mirrored
left to right.
The network (`die_values.onnx`, made by `scripts/train_classifier.py` and exported with
`torch.onnx.export`) is run by OpenCV's dnn; its metadata JSON beside it gives the window
geometry it was trained on and the temperature that divides its logits, fitted on photos it
never trained on, so that a value confidence (`value_confidence`) of 0.9 is right about 9
times in 10 or more. It may give a value temperature too (`"value_temperature": s`): once a
window's looks are averaged (the four looks of an unclear window soften it), the shares of the
six values are raised to 1/s and normalised (`sharpen_values`), their total, "not a die" and
"cocked" kept as read; s is fitted like the temperature, on the readings so averaged.
The JSON may name partners (`"partners": {"files": [...], "temperature": t}`, written by
`scripts/join_classifiers.py`): other draws of the network's training recipe, stored beside it.
Every window is then read by all of them, each as above at its own temperatures, and their
probabilities averaged and calibrated as one network's: raised to 1/t and normalised, t fitted
like a temperature. A draw's own quirks (a die it alone reads surely wrong) must then convince
the others too.
"""

from __future__ import annotations

from pathlib import Path
from typing import Sequence

import cv2
import numpy as np

from vision.reader.model_file import ModelFileError, load_network
from vision.reader.windows import CHANNELS, Box, Geometry, cut_windows, edge_angle, window_channels

MODEL_PATH = Path(__file__).with_name("die_values.onnx")
KIND = "die values"
NOT_A_DIE, COCKED = 0, 7
CLASS_NAMES = ("not a die", "1", "2", "3", "4", "5", "6", "cocked")
TTA_BELOW = 0.995  # windows read less surely than this get a second look (`second_look_windows`)
TTA_DIE_PROBABILITY = 0.3  # ...when they look at least this much like a die
# Windows go through the network this many at a time: OpenCV's dnn keeps buffers for the
# biggest batch it has seen (30 windows at once held about 12 MB more than one window, 8
# about 4 MB), and batches bigger than this are no faster per window.
WINDOW_BATCH = 8

DieBox = tuple[tuple[float, float], float, float | None]  # (centre x, y), top-face edge, edge angle


class ValueNet:
    """The trained network of an ONNX file and its metadata, loaded once: `logits(channels)`
    for N x CHANNELS x W x W windows cut with `geometry` (`windows`). The partners its metadata
    names are loaded too (`partners`, `joint_temperature`), unless `alone`."""

    def __init__(self, path: Path = MODEL_PATH, alone: bool = False) -> None:
        self._net, meta = load_network(path, KIND)
        self.path = path
        try:
            channels, window_px, die_px = int(meta["channels"]), int(meta["window_px"]), float(meta["die_px"])
            self.temperature = float(meta["temperature"])
            classes = tuple(meta["classes"])
        except (KeyError, TypeError, ValueError) as error:
            raise ModelFileError(f"{path}: incomplete metadata ({error})") from None
        upright = meta.get("upright", False)
        if not isinstance(upright, bool):
            raise ModelFileError(f"{path}: \"upright\" is {upright!r}, not true or false")
        if channels != CHANNELS or classes != CLASS_NAMES:
            raise ModelFileError(f"{path} reads {channels} channels into {classes}; the code makes {CHANNELS} "
                                 f"channels and reads {CLASS_NAMES}")
        self.geometry = Geometry(window_px, die_px, upright)
        self.value_temperature = checked_temperature(path, "value temperature", meta.get("value_temperature", 1.0))
        self.meta = meta
        self.partners: tuple[ValueNet, ...] = ()
        self.joint_temperature = 1.0
        if "partners" in meta and not alone:
            self.partners, self.joint_temperature = load_partners(path, meta["partners"])

    def logits(self, channels: np.ndarray) -> np.ndarray:
        """N x classes logits for N windows' channels."""
        if len(channels) == 0:
            return np.zeros((0, len(CLASS_NAMES)), np.float32)
        out = []
        for start in range(0, len(channels), WINDOW_BATCH):
            self._net.setInput(np.ascontiguousarray(channels[start:start + WINDOW_BATCH], dtype=np.float32))
            out.append(self._net.forward().reshape(-1, len(CLASS_NAMES)))
        return np.concatenate(out)

    def windows(self, image_bgr: np.ndarray, boxes: Sequence[Box]) -> np.ndarray:
        """The channels of the windows of (x, y, edge, angle) boxes, cut at the model's geometry."""
        return window_channels(cut_windows(image_bgr, boxes, self.geometry), self.geometry)


def checked_temperature(path: Path, name: str, entry: object) -> float:
    """A temperature `path`'s metadata gives (`entry`, its `name` for the message), checked."""
    if isinstance(entry, bool) or not isinstance(entry, (int, float)) or not 0.05 <= entry <= 20.0:
        raise ModelFileError(f"{path}: its {name} {entry!r} is not a temperature")
    return float(entry)


def load_partners(path: Path, entry: object) -> tuple[tuple[ValueNet, ...], float]:
    """The partner networks that `path`'s metadata names (`entry`) and their joint temperature."""
    try:
        names, temperature = entry["files"], float(entry["temperature"])
    except (KeyError, TypeError, ValueError) as error:
        raise ModelFileError(f"{path}: its partners are {entry!r}, not files and a temperature ({error})") from None
    if not isinstance(names, list) or not names or not all(isinstance(name, str) for name in names):
        raise ModelFileError(f"{path}: its partners name {names!r}, not a list of files")
    files = [Path(name) for name in names]
    for file in files:
        if file.name != str(file) or file.suffix != ".onnx":
            raise ModelFileError(f"{path}: its partner {str(file)!r} is not the name of an .onnx file beside it")
    if len(set(files)) < len(files) or path.name in {file.name for file in files}:
        raise ModelFileError(f"{path}: its partners {[str(f) for f in files]} name one network twice")
    temperature = checked_temperature(path, "partners' joint temperature", temperature)
    partners = tuple(ValueNet(path.with_name(file.name), alone=True) for file in files)
    for file, partner in zip(files, partners):
        if "partners" in partner.meta:
            raise ModelFileError(f"{path}: its partner {file} names partners of its own; partners read alone")
    return partners, temperature


_net: ValueNet | None = None


def value_net() -> ValueNet:
    """The network of MODEL_PATH (or of `use_model`), loaded once per process."""
    global _net
    if _net is None:
        _net = ValueNet()
    return _net


def use_model(path: Path) -> None:
    """Read with the model file at `path` from now on (to compare trained models)."""
    global _net
    _net = ValueNet(path)


def softmax(z: np.ndarray) -> np.ndarray:
    z = z - z.max(axis=-1, keepdims=True)
    e = np.exp(z)
    return e / e.sum(axis=-1, keepdims=True)


def value_confidence(probabilities: np.ndarray) -> np.ndarray:
    """(N,) how sure the value is, given a die is there: best value's share of p[1..6]."""
    values = np.asarray(probabilities)[..., 1:7]
    return values.max(axis=-1) / np.maximum(values.sum(axis=-1), 1e-9)


def value_ranking(probabilities: np.ndarray) -> list[list[tuple[int, float]]]:
    """Per die, the values 1..6 with their share of p[1..6], most likely first."""
    values = np.asarray(probabilities)[:, 1:7]
    shares = values / np.maximum(values.sum(axis=1, keepdims=True), 1e-9)
    return [[(int(v) + 1, float(row[v])) for v in np.argsort(-row)] for row in shares]


def needs_second_look(probabilities: np.ndarray) -> np.ndarray:
    """Boolean (N,): windows worth a second look (`second_look_windows`)."""
    return (value_confidence(probabilities) < TTA_BELOW) & (probabilities[:, NOT_A_DIE] < 1.0 - TTA_DIE_PROBABILITY)


def second_look_windows(channels: np.ndarray, upright: bool = False) -> np.ndarray:
    """The N windows looked at again, as K x N windows (same die, same value): turned by 90,
    180 and 270 degrees, or, when `upright` (the photo's up is the window's), mirrored left to
    right, which keeps it."""
    if upright:
        return channels[np.newaxis, :, :, :, ::-1]
    return np.stack([np.rot90(channels, k, axes=(2, 3)) for k in (1, 2, 3)])


def combine(first_logits: np.ndarray, again_logits: np.ndarray | None, temperature: float) -> np.ndarray:
    """Probabilities from the first look and, for the windows given a second look (in the
    order of `needs_second_look`), K x M logits of their `second_look_windows`: all answers averaged."""
    probabilities = softmax(first_logits / temperature)
    if again_logits is not None:
        again = np.nonzero(needs_second_look(probabilities))[0]
        looks = softmax(again_logits / temperature).reshape(-1, len(again), probabilities.shape[1])
        probabilities[again] = (probabilities[again] + looks.sum(axis=0)) / (1 + len(looks))
    return probabilities


def second_look_logits(net: ValueNet, channels: np.ndarray) -> np.ndarray:
    """K x N logits of the N windows' K `second_look_windows` each, all read in one go."""
    looks = second_look_windows(channels, net.geometry.upright)
    k, n = looks.shape[:2]
    return net.logits(looks.reshape(k * n, *looks.shape[2:])).reshape(k, n, -1)


def read_windows(channels: np.ndarray, tta: bool | str = "auto", net: ValueNet | None = None) -> np.ndarray:
    """N x 8 calibrated probabilities for N x CHANNELS x W x W window channels (`ValueNet.windows`),
    read by that one network (a partner cuts windows of its own: `read_boxes`)."""
    net = net or value_net()
    return sharpen_values(read_looks(channels, tta, net), net.value_temperature)


def read_looks(channels: np.ndarray, tta: bool | str, net: ValueNet) -> np.ndarray:
    """The windows' probabilities at the network's temperature, their looks averaged."""
    first = net.logits(channels)
    if tta is False or len(first) == 0:
        return softmax(first / net.temperature)
    if tta is True:
        again = second_look_logits(net, channels)
        return (softmax(first / net.temperature) + softmax(again / net.temperature).sum(axis=0)) / (1 + len(again))
    again = needs_second_look(softmax(first / net.temperature))
    if not again.any():
        return softmax(first / net.temperature)
    return combine(first, second_look_logits(net, channels[again]), net.temperature)


def sharpen_values(probabilities: np.ndarray, temperature: float) -> np.ndarray:
    """`probabilities` with the shares of the values 1..6 raised to 1 / `temperature` and
    normalised: their total and the other classes stay as they are."""
    if temperature == 1.0 or len(probabilities) == 0:
        return probabilities
    values = probabilities[:, 1:7]
    total = values.sum(axis=1, keepdims=True)
    shares = np.divide(values, total, out=np.full_like(values, 1 / 6), where=total > 0)
    # In logs, less their largest: a window surely no die (every value's share near 0) would
    # otherwise raise six tiny shares to the power 1 / temperature, sum to 0 and read NaN.
    logs = np.log(np.maximum(shares, 1e-12)) / temperature
    sharpened = np.exp(logs - logs.max(axis=1, keepdims=True))
    out = probabilities.copy()
    out[:, 1:7] = total * sharpened / sharpened.sum(axis=1, keepdims=True)
    return out


def classify_dice(image_bgr: np.ndarray, dice: Sequence[DieBox], tta: bool | str = "auto") -> np.ndarray:
    """N x 8 float32 probabilities (classes: CLASS_NAMES) for dice given as
    ((x, y) top-face centre, top-face edge length, edge angle in degrees or None), all in the
    pixels of `image_bgr`. An angle of None is estimated from the image's gradients."""
    if len(dice) == 0:
        return np.zeros((0, len(CLASS_NAMES)), np.float32)
    grey = None
    boxes = []
    for (x, y), size, angle in dice:
        if angle is None:
            if grey is None:
                grey = cv2.cvtColor(image_bgr, cv2.COLOR_BGR2GRAY)
            angle = edge_angle(grey, x, y, size)
        boxes.append((float(x), float(y), float(size), float(angle)))
    return read_boxes(image_bgr, boxes, tta).astype(np.float32)


def read_boxes(image_bgr: np.ndarray, boxes: Sequence[Box], tta: bool | str = "auto",
               net: ValueNet | None = None) -> np.ndarray:
    """N x 8 calibrated probabilities of the windows of (x, y, edge, angle) boxes, read by the
    network and, when it has partners, by all of them (`joint_probabilities`)."""
    net = net or value_net()
    channels = net.windows(image_bgr, boxes)
    readings = [read_windows(channels, tta, net)]
    if not net.partners:
        return readings[0]
    for partner in net.partners:  # draws of one recipe share a geometry, and the windows are cut once
        cut = channels if partner.geometry == net.geometry else partner.windows(image_bgr, boxes)
        readings.append(read_windows(cut, tta, partner))
    return joint_probabilities(readings, net.joint_temperature)


def joint_probabilities(readings: Sequence[np.ndarray], temperature: float) -> np.ndarray:
    """Several networks' calibrated probabilities of the same windows as one reading: averaged,
    raised to 1 / `temperature` and normalised."""
    mean = np.mean(np.stack(readings), axis=0)
    sharpened = np.power(np.maximum(mean, 1e-12), 1.0 / temperature)
    return sharpened / sharpened.sum(axis=-1, keepdims=True)
