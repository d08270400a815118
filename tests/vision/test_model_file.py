"""The reader's networks are run on OpenCV's classic dnn engine where OpenCV has a choice, that
engine computes what the new one does for both shipped networks, and the detector runs on
inputs of any size."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from vision.reader import model_file
from vision.reader.classifier import MODEL_PATH as CLASSIFIER_PATH
from vision.reader.detector import MODEL_PATH as DETECTOR_PATH
from vision.reader.detector import OUTPUTS, STRIDE
from vision.reader.model_file import ModelFileError, load_network


def recorded_reads(monkeypatch) -> list[tuple]:
    calls: list[tuple] = []
    real = cv2.dnn.readNetFromONNX

    def recording(*args):
        calls.append(args)
        return real(*args)

    monkeypatch.setattr(cv2.dnn, "readNetFromONNX", recording)
    return calls


@pytest.mark.skipif(not hasattr(cv2.dnn, "ENGINE_CLASSIC"), reason="this OpenCV has one dnn engine only")
def test_networks_are_loaded_on_the_classic_engine(monkeypatch) -> None:
    calls = recorded_reads(monkeypatch)
    load_network(CLASSIFIER_PATH, "die values")
    assert calls == [(str(CLASSIFIER_PATH), cv2.dnn.ENGINE_CLASSIC)]


def test_an_opencv_without_engines_loads_the_file_alone(monkeypatch) -> None:
    monkeypatch.setattr(model_file, "CLASSIC_ENGINE", None)
    calls = recorded_reads(monkeypatch)
    load_network(DETECTOR_PATH, "die detector")
    assert calls == [(str(DETECTOR_PATH),)]


@pytest.mark.skipif(not hasattr(cv2.dnn, "ENGINE_NEW"), reason="this OpenCV has one dnn engine only")
@pytest.mark.parametrize("path, shape", [(CLASSIFIER_PATH, (8, 4, 48, 48)), (DETECTOR_PATH, (1, 3, 256, 320)),
                                         (DETECTOR_PATH, (1, 3, 480, 352))])
def test_the_classic_engine_computes_what_the_new_one_does(path: Path, shape: tuple[int, ...]) -> None:
    batch = np.random.default_rng(5).normal(0.0, 1.0, shape).astype(np.float32)
    outputs = []
    for engine in (cv2.dnn.ENGINE_CLASSIC, cv2.dnn.ENGINE_NEW):
        net = cv2.dnn.readNetFromONNX(str(path), engine)
        net.setInput(batch)
        outputs.append(net.forward())
    assert outputs[0].shape == outputs[1].shape
    assert np.abs(outputs[0] - outputs[1]).max() <= 1e-3 * max(1.0, float(np.abs(outputs[1]).max()))


@pytest.mark.parametrize("height, width", [(256, 320), (480, 352), (160, 128)])
def test_the_shipped_detector_runs_on_inputs_of_other_sizes_than_the_one_it_declares(height: int, width: int) -> None:
    net, _ = load_network(DETECTOR_PATH, "die detector")  # declared 320 x 320, which OpenCV 4 needs to load it
    net.setInput(np.random.default_rng(5).normal(0.0, 1.0, (1, 3, height, width)).astype(np.float32))
    assert net.forward().shape == (1, OUTPUTS, height // STRIDE, width // STRIDE)


@pytest.mark.parametrize("path", [Path(""), Path("/")])
def test_a_path_naming_no_file_is_a_model_file_error(path: Path) -> None:
    with pytest.raises(ModelFileError, match="names no file"):
        load_network(path, "die values")
