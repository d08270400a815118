"""The die detector: its ONNX file loads with its metadata, its maps decode to image pixels,
and it finds the dice of synthetic scenes, touching ones included."""

from __future__ import annotations

import json
import math

import cv2
import numpy as np
import pytest

from vision.reader import detector as dn
from vision.reader.detector import INPUT_SIDE, MODEL_PATH, DieDetector, decode, detector
from lab.reader_eval.detector_eval import match_detections
from lab.reader_eval.evaluate import LabelledDie
from vision.reader.model_file import ModelFileError


def test_the_model_file_must_be_a_detector_with_its_metadata(tmp_path) -> None:
    import shutil

    copy = tmp_path / "copy.onnx"
    shutil.copy(MODEL_PATH, copy)
    with pytest.raises(ModelFileError, match="copy.json"):
        DieDetector(copy)
    (tmp_path / "copy.json").write_text('{"kind": "die values"}')
    with pytest.raises(ModelFileError, match="not a die detector"):
        DieDetector(copy)
    (tmp_path / "copy.json").write_text(MODEL_PATH.with_suffix(".json").read_text())
    assert DieDetector(copy).meta["kind"] == "die detector"
    (tmp_path / "copy.onnx").write_bytes(b"not a network")
    with pytest.raises(ModelFileError, match="OpenCV cannot load"):
        DieDetector(copy)


class FixedNet:
    """Stands in for one OpenCV network: gives the same maps whatever it is fed."""

    def __init__(self, maps: np.ndarray) -> None:
        self.maps, self.fed = maps, []

    def setInput(self, blob: np.ndarray) -> None:  # noqa: N802 - OpenCV's name
        self.fed.append(blob)

    def forward(self) -> np.ndarray:
        return self.maps[None]


def test_several_networks_are_one_detector_whose_maps_are_their_mean(tmp_path) -> None:
    import shutil

    pair = DieDetector([MODEL_PATH, MODEL_PATH])
    assert len(pair.metas) == 2 and pair.meta["kind"] == "die detector"
    rng = np.random.default_rng(3)
    first, second = rng.normal(size=(2, dn.OUTPUTS, 8, 10)).astype(np.float32)
    pair._nets = [FixedNet(first), FixedNet(second)]
    blob = np.zeros((1, 3, 32, 40), np.float32)
    np.testing.assert_allclose(pair.maps(blob), (first + second) / 2, rtol=1e-6)
    assert all(len(net.fed) == 1 and net.fed[0] is blob for net in pair._nets)
    # a die only one network is sure of is decoded from the mean: less sure, or not found
    first[dn.HEAT], second[dn.HEAT] = -6.0, -6.0
    first[dn.HEAT, 4, 5], second[dn.HEAT, 4, 5] = 4.0, -2.0
    first[dn.LOG_SIZE] = second[dn.LOG_SIZE] = math.log(20 / dn.SIZE_UNIT)
    (die,) = decode(pair.maps(blob), (1.0, 1.0), 0.4, (32, 40))
    assert die.score == pytest.approx(1 / (1 + math.exp(-1.0)))
    second[dn.HEAT, 4, 5] = -6.0
    assert decode(pair.maps(blob), (1.0, 1.0), 0.4, (32, 40)) == []
    # networks that read their input or their maps otherwise cannot be averaged
    other = tmp_path / "other.onnx"
    shutil.copy(MODEL_PATH, other)
    meta = json.loads(MODEL_PATH.with_suffix(".json").read_text())
    other.with_suffix(".json").write_text(json.dumps(dict(meta, stride=8, input_side=416)))
    with pytest.raises(ModelFileError, match="cannot be averaged: they differ in input_side, stride"):
        DieDetector([MODEL_PATH, other])
    with pytest.raises(ModelFileError, match="no die detector file given"):
        DieDetector([])


def test_decode_puts_a_peak_back_in_image_pixels() -> None:
    maps = np.zeros((dn.OUTPUTS, 20, 30), np.float32)
    maps[dn.HEAT] = -6
    maps[dn.HEAT, 7, 11] = 3.0
    maps[dn.OFFSET_X, 7, 11], maps[dn.OFFSET_Y, 7, 11] = 0.25, 0.75
    maps[dn.LOG_SIZE, 7, 11] = math.log(20 / dn.SIZE_UNIT)
    maps[dn.COS4, 7, 11], maps[dn.SIN4, 7, 11] = math.cos(math.radians(4 * 30)), math.sin(math.radians(4 * 30))
    (d,) = decode(maps, (0.5, 0.5), 0.3, (160, 240))
    # cell (11, 7) + offset, at stride 4, half-size input: pixel centres at integers
    x_in, y_in = 4 * 11.25 - 0.5, 4 * 7.75 - 0.5
    assert d.center == pytest.approx(((x_in + 0.5) / 0.5 - 0.5, (y_in + 0.5) / 0.5 - 0.5))
    assert d.size == pytest.approx(40.0)
    assert d.angle == pytest.approx(30.0)
    assert d.score == pytest.approx(1 / (1 + math.exp(-3)))


def test_two_peaks_of_one_die_are_one_detection() -> None:
    maps = np.zeros((dn.OUTPUTS, 20, 20), np.float32)
    maps[dn.HEAT] = -6
    maps[dn.HEAT, 5, 5], maps[dn.HEAT, 5, 7] = 2.0, 1.0  # 8 input px apart, die 40 px
    maps[dn.LOG_SIZE] = math.log(40 / dn.SIZE_UNIT)
    assert len(decode(maps, (1.0, 1.0), 0.3, (80, 80))) == 1


def synthetic_scenes(count: int, seed: int, **options):
    from lab import synth

    rng = np.random.default_rng(seed)
    for _ in range(count):
        rendered = synth.render(synth.random_scene(rng, **options))
        labels = [LabelledDie(l.value, tuple(l.box), ignore=l.cocked or l.visible < 0.6) for l in rendered.labels]
        yield rendered, labels


def test_finds_dice_in_synthetic_scenes_touching_included() -> None:
    found = missed = extra = 0
    errors = []
    for rendered, labels in synthetic_scenes(8, seed=31, touch_prob=0.9):
        detections = detector().detect(rendered.image)
        result = match_detections(labels, detections)
        found, missed, extra = found + result.found, missed + result.missed, extra + result.extra
        for li, pi in result.pairs:
            truth = rendered.labels[li]
            if not truth.cocked:
                errors.append((abs(detections[pi].size / truth.size - 1), abs((detections[pi].angle - truth.angle + 45) % 90 - 45)))
    # floors a little under what the shipped model measures (the bench measures the targets)
    assert found / (found + missed) >= 0.95, (found, missed)
    assert found / (found + extra) >= 0.95, (found, extra)
    size_error, angle_error = np.median(np.array(errors), axis=0)
    assert size_error < 0.06 and angle_error < 5


def test_an_empty_table_has_no_detections() -> None:
    rng = np.random.default_rng(0)
    table = np.clip(rng.normal(120, 3, (480, 640, 3)), 0, 255).astype(np.uint8)
    assert detector().detect(table) == []


def test_any_image_size_is_accepted() -> None:
    for h, w in ((48, 48), (200, 900), (INPUT_SIDE + 7, 333)):
        image = np.full((h, w, 3), 90, np.uint8)
        cv2.rectangle(image, (10, 10), (30, 30), (250, 250, 250), -1)
        for d in detector().detect(image):
            assert -0.5 <= d.center[0] < w and -0.5 <= d.center[1] < h


def test_model_files_are_small() -> None:
    assert all(path.stat().st_size < 1_000_000 for path in dn.MODEL_PATHS)


def test_small_dice_from_a_high_camera_are_found() -> None:
    # 12-18 px dice in a 640x480 image: 6-9 px at the first input, so they are looked for again bigger
    found = missed = 0
    for rendered, labels in synthetic_scenes(4, seed=8, size_range=(12, 18), n_dice=8):
        result = match_detections(labels, detector().detect(rendered.image))
        found, missed = found + result.found, missed + result.missed
    assert found / (found + missed) >= 0.95, (found, missed)


def test_a_die_filling_most_of_a_small_picture_is_found() -> None:
    # A 128 px crop (a die in a cup, a close-up) is enlarged to the network's input, where a die
    # that fills 60% of it is bigger than any the network learnt: it is looked for smaller too.
    found = missed = 0
    for rendered, labels in synthetic_scenes(16, seed=5, n_dice=1, size_range=(160, 190)):
        (x0, y0, x1, y1), = [label.box for label in labels]
        left = int(np.clip((x0 + x1) / 2 - 150, 0, rendered.image.shape[1] - 300))
        top = int(np.clip((y0 + y1) / 2 - 150, 0, rendered.image.shape[0] - 300))
        small = cv2.resize(rendered.image[top:top + 300, left:left + 300], (128, 128), interpolation=cv2.INTER_AREA)
        f = 128 / 300
        box = ((x0 - left) * f, (y0 - top) * f, (x1 - left) * f, (y1 - top) * f)
        result = match_detections([LabelledDie(labels[0].value, box, labels[0].ignore)], detector().detect(small))
        found, missed = found + result.found, missed + result.missed
    assert missed == 0, (found, missed)


def test_pooled_looks_keep_at_most_max_detections(monkeypatch: pytest.MonkeyPatch) -> None:
    # With nothing sure the image may be looked at three times; each look decodes at most
    # MAX_DETECTIONS peaks, and so must their pool (the reader's work per frame is bounded).
    def look(self, image, side, threshold=dn.THRESHOLD):
        return [dn.Detection((10.0 + 20 * k, side / 8), 8.0, 0.0, 0.2, 0.0) for k in range(dn.MAX_DETECTIONS)]

    monkeypatch.setattr(DieDetector, "detect_at", look)
    found = detector().detect(np.zeros((480, 640, 3), np.uint8), threshold=0.1)
    assert len(found) == dn.MAX_DETECTIONS


@pytest.mark.parametrize(("first_peak", "sides"), [
    (None, [dn.INPUT_SIDE, dn.SMALLEST_INPUT_SIDE]),
    (dn.HINT - 0.01, [dn.INPUT_SIDE, dn.SMALLEST_INPUT_SIDE]),
    (dn.HINT, [dn.INPUT_SIDE, dn.SMALLEST_INPUT_SIDE, dn.LARGEST_INPUT_SIDE]),
    (dn.THRESHOLD - 0.01, [dn.INPUT_SIDE, dn.SMALLEST_INPUT_SIDE, dn.LARGEST_INPUT_SIDE]),
])
def test_with_nothing_sure_the_costly_bigger_look_needs_a_hint_of_a_die(
        monkeypatch: pytest.MonkeyPatch, first_peak: float | None, sides: list[int]) -> None:
    # An empty tray (nothing in the first look) is looked at again only at half the size;
    # a peak too weak to be a die, but not nothing, may be a die too small for the first look.
    looked: list[int] = []

    def look(self, image, side, threshold=dn.THRESHOLD):
        looked.append(side)
        peaks = [first_peak] if side == dn.INPUT_SIDE and first_peak is not None else []
        return [dn.Detection((100.0, 100.0), 12.0, 0.0, p, 0.0) for p in peaks if p >= threshold]

    monkeypatch.setattr(DieDetector, "detect_at", look)
    assert detector().detect(np.zeros((480, 640, 3), np.uint8)) == []
    assert looked == sides


def test_the_first_look_keeps_only_detections_of_the_asked_threshold(monkeypatch: pytest.MonkeyPatch) -> None:
    def look(self, image, side, threshold=dn.THRESHOLD):
        peaks = [0.9, 0.3] if side == dn.INPUT_SIDE else []
        return [dn.Detection((100.0 + 50 * k, 100.0), 30.0, 0.0, p, 0.0) for k, p in enumerate(peaks) if p >= threshold]

    monkeypatch.setattr(DieDetector, "detect_at", look)
    assert [d.score for d in detector().detect(np.zeros((480, 640, 3), np.uint8))] == [0.9]
    assert [d.score for d in detector().detect(np.zeros((480, 640, 3), np.uint8), threshold=0.25)] == [0.9, 0.3]
