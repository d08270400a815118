"""The die classifier gives the same answers through OpenCV's dnn and through numpy."""

from __future__ import annotations

import numpy as np

from vision.reader import net
from vision.reader.crops import CHANNELS, CROP_PX


def test_dnn_graph_matches_numpy_forward() -> None:
    classifier = net.DieClassifier()
    assert classifier._dnn is not None, "OpenCV could not load the generated ONNX graph"
    windows = np.random.default_rng(1).standard_normal((5, CHANNELS, CROP_PX, CROP_PX)).astype(np.float32)
    np.testing.assert_allclose(classifier.logits(windows), net.logits(classifier.params, windows), atol=1e-3)


def test_model_file_is_small() -> None:
    assert net.MODEL_PATH.stat().st_size < 2_000_000
