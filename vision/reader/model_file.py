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


class ModelFileError(ValueError):
    """A model file that is missing, unreadable or not the network the code expects."""


def metadata_path(onnx_path: Path) -> Path:
    return onnx_path.with_suffix(".json")


def load_network(onnx_path: Path, kind: str) -> tuple[cv2.dnn.Net, dict[str, Any]]:
    """The network of `onnx_path` and its metadata, checked to be of `kind`."""
    try:
        meta = json.loads(metadata_path(onnx_path).read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        raise ModelFileError(f"{metadata_path(onnx_path)}: {error}") from None
    if not isinstance(meta, dict) or meta.get("kind") != kind:
        raise ModelFileError(f"{metadata_path(onnx_path)}: not a {kind} model")
    try:
        net = cv2.dnn.readNetFromONNX(str(onnx_path))
    except cv2.error as error:
        raise ModelFileError(f"{onnx_path}: OpenCV cannot load it ({str(error).strip().splitlines()[-1]})") from None
    return net, meta


def write_metadata(onnx_path: Path, meta: dict[str, Any]) -> None:
    metadata_path(onnx_path).write_text(json.dumps(meta, indent=1, sort_keys=True) + "\n", encoding="utf-8")
