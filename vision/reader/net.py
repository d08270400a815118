"""The die classifier: a tiny convolutional network run with numpy.

Input: normalised die windows (see `crops`), N x 2 x 40 x 40. Output: probabilities over
eight classes: 0 = "not a die centred in this window", 1..6 = a flat die showing that
value on top, 7 = a cocked die (leaning, its top face not flat to the camera).
Three 3x3 convolution + ReLU + 2x2 max-pool stages, a hidden dense layer and a softmax;
about 2 million multiply-adds per window, run by OpenCV's dnn. The weights (`die_classifier.npz`, float16) are
made by `scripts/train_reader.py`; training shares `forward` with inference.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

MODEL_PATH = Path(__file__).with_name("die_classifier.npz")
CLASSES = 8
NOT_A_DIE, COCKED = 0, 7
CONV_WIDTHS = (12, 24, 32)
HIDDEN = 64


def init_params(rng: np.random.Generator, in_channels: int, crop_px: int) -> dict[str, np.ndarray]:
    params: dict[str, np.ndarray] = {}
    cin = in_channels
    for i, cout in enumerate(CONV_WIDTHS):
        params[f"w{i}"] = (rng.standard_normal((9 * cin, cout)) * np.sqrt(2.0 / (9 * cin))).astype(np.float32)
        params[f"b{i}"] = np.zeros(cout, np.float32)
        cin = cout
    flat = (crop_px // 2 ** len(CONV_WIDTHS)) ** 2 * cin
    params["wh"] = (rng.standard_normal((flat, HIDDEN)) * np.sqrt(2.0 / flat)).astype(np.float32)
    params["bh"] = np.zeros(HIDDEN, np.float32)
    params["wo"] = (rng.standard_normal((HIDDEN, CLASSES)) * np.sqrt(1.0 / HIDDEN)).astype(np.float32)
    params["bo"] = np.zeros(CLASSES, np.float32)
    return params


def im2col(x: np.ndarray) -> np.ndarray:
    """N x H x W x C (channels last) -> N*H*W x 9C patches of a 3x3 'same' convolution."""
    n, h, w, c = x.shape
    padded = np.pad(x, ((0, 0), (1, 1), (1, 1), (0, 0)))
    cols = np.empty((n, h, w, 9, c), x.dtype)
    for k in range(9):
        dy, dx = divmod(k, 3)
        cols[:, :, :, k, :] = padded[:, dy : dy + h, dx : dx + w, :]
    return cols.reshape(n * h * w, 9 * c)


def max_pool(x: np.ndarray) -> np.ndarray:
    n, h, w, c = x.shape
    return x.reshape(n, h // 2, 2, w // 2, 2, c).max(axis=(2, 4))


def logits(params: dict[str, np.ndarray], batch: np.ndarray) -> np.ndarray:
    """Class scores for N x C x H x W windows (inference path)."""
    x = np.ascontiguousarray(batch.transpose(0, 2, 3, 1), dtype=np.float32)
    for i in range(len(CONV_WIDTHS)):
        n, h, w, _ = x.shape
        y = im2col(x) @ params[f"w{i}"] + params[f"b{i}"]
        x = max_pool(np.maximum(y, 0).reshape(n, h, w, -1))
    x = x.reshape(x.shape[0], -1)
    x = np.maximum(x @ params["wh"] + params["bh"], 0)
    return x @ params["wo"] + params["bo"]


def softmax(z: np.ndarray) -> np.ndarray:
    z = z - z.max(axis=1, keepdims=True)
    e = np.exp(z)
    return e / e.sum(axis=1, keepdims=True)


class DieClassifier:
    """Loads the trained weights once; `probabilities(windows)` -> N x 7.

    Runs through OpenCV's dnn module (the graph built by `onnx_graph`), falling back to the
    numpy `logits` when dnn cannot load it; both give the same numbers."""

    def __init__(self, path: Path = MODEL_PATH) -> None:
        with np.load(path) as data:
            self.params = {k: data[k].astype(np.float32) for k in data.files if not k.startswith("meta_")}
            self.temperature = float(data["meta_temperature"]) if "meta_temperature" in data.files else 1.0
        self._dnn = None
        try:
            import cv2

            from vision.reader.onnx_graph import classifier_onnx

            in_channels = self.params["w0"].shape[0] // 9
            crop_px = int(round((self.params["wh"].shape[0] / CONV_WIDTHS[-1]) ** 0.5)) * 2 ** len(CONV_WIDTHS)
            graph = classifier_onnx(self.params, len(CONV_WIDTHS), in_channels, crop_px)
            self._dnn = cv2.dnn.readNetFromONNX(np.frombuffer(graph, np.uint8))
        except Exception:  # an OpenCV without dnn or ONNX support: numpy does the same job
            self._dnn = None

    def logits(self, windows: np.ndarray) -> np.ndarray:
        if self._dnn is not None:
            self._dnn.setInput(np.ascontiguousarray(windows, dtype=np.float32))
            return self._dnn.forward().reshape(len(windows), -1)
        return logits(self.params, windows)

    def probabilities(self, windows: np.ndarray) -> np.ndarray:
        if len(windows) == 0:
            return np.zeros((0, self.params["bo"].shape[0]), np.float32)
        return softmax(self.logits(windows) / self.temperature)
