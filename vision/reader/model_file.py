"""The reader's trained networks on disk: an ONNX file run by OpenCV's dnn module, and a small
JSON file of the same name beside it holding what the code needs to feed and read the network
(input geometry, output layout, temperature) and how it was trained.

Both files are written by the training scripts (`scripts/train_detector.py`,
`scripts/train_classifier.py`), the ONNX file by `torch.onnx.export`.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import cv2

# OpenCV 5 runs a network with its new dnn engine unless told otherwise; on the reader's small
# convolutions its classic engine gives the same outputs in less time (one thread: the
# classifier 0.60 -> 0.25 ms a window, a detector pass at 320x256 px 3.5 -> 2.4 ms). OpenCV 4
# has only the classic engine and no choice to make; OpenCV 5.1 only the new one (hence the
# project's `<5.1`), which it calls ENGINE_OPENCV.
CLASSIC_ENGINE: int | None = getattr(cv2.dnn, "ENGINE_CLASSIC", None)


class ModelFileError(ValueError):
    """A model file that is missing, unreadable or not the network the code expects."""


def metadata_path(onnx_path: Path) -> Path:
    return onnx_path.with_suffix(".json")


def load_network(onnx_path: Path, kind: str) -> tuple[cv2.dnn.Net, dict[str, Any]]:
    """The network of `onnx_path` and its metadata, checked to be of `kind`."""
    if not onnx_path.name:
        raise ModelFileError(f"{str(onnx_path)!r} names no file (give the .onnx file of a {kind} model)")
    try:
        meta = json.loads(metadata_path(onnx_path).read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        raise ModelFileError(f"{metadata_path(onnx_path)}: {error}") from None
    if not isinstance(meta, dict) or meta.get("kind") != kind:
        raise ModelFileError(f"{metadata_path(onnx_path)}: not a {kind} model")
    try:
        net = read_onnx(onnx_path)
    except cv2.error as error:
        raise ModelFileError(f"{onnx_path}: OpenCV cannot load it ({str(error).strip().splitlines()[-1]})") from None
    return net, meta


def read_onnx(onnx_path: Path) -> cv2.dnn.Net:
    """The ONNX file as an OpenCV network, on the classic engine where OpenCV has a choice."""
    if CLASSIC_ENGINE is None:
        return cv2.dnn.readNetFromONNX(str(onnx_path))
    return cv2.dnn.readNetFromONNX(str(onnx_path), CLASSIC_ENGINE)


def write_metadata(onnx_path: Path, meta: dict[str, Any]) -> None:
    metadata_path(onnx_path).write_text(json.dumps(meta, indent=1, sort_keys=True) + "\n", encoding="utf-8")
