"""The die-value classifier: given where a die's top face is, it says the value and how sure."""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from vision.reader import classifier
from vision.reader.classifier import CLASS_NAMES, COCKED, NOT_A_DIE, classify_dice, value_confidence, value_ranking
from vision.reader.windows import (CHANNELS, Geometry, box_from_edge, cut_windows, edge_from_box, upright_angle,
                                   window_channels)
from lab.synth import BackgroundSpec, DieSpec, SceneSpec, render


def scene(dice: list[DieSpec], **options) -> SceneSpec:
    return SceneSpec(width=320, height=240, background=BackgroundSpec("felt", (60, 110, 40)), dice=tuple(dice),
                     **options)


def label_boxes(rendered) -> list:
    return [(label.center, label.size, label.angle) for label in rendered.labels]


def test_reads_every_value_on_light_and_dark_dice() -> None:
    dice = [DieSpec(v, (40 + 48 * (v - 1), 70), 40, angle=13 * v) for v in range(1, 7)]
    dark = [DieSpec(v, (40 + 48 * (v - 1), 170), 36, angle=-9 * v, body_bgr=(40, 30, 150), pip_bgr=(240, 240, 240))
            for v in range(1, 7)]
    out = render(scene(dice + dark, jpeg_quality=80))
    p = classify_dice(out.image, label_boxes(out))
    assert [int(np.argmax(row[1:7])) + 1 for row in p] == [label.value for label in out.labels]
    assert (value_confidence(p) >= 0.9).all()
    assert (p[:, NOT_A_DIE] < 0.5).all()


def test_a_window_beside_a_die_or_on_the_table_is_not_a_die() -> None:
    out = render(scene([DieSpec(5, (160, 120), 44, angle=20)]))
    label = out.labels[0]
    (x, y), size = label.center, label.size
    p = classify_dice(out.image, [((x + 0.9 * size, y), size, label.angle), ((60, 60), size, 0.0),
                                  ((x, y), 0.35 * size, label.angle)])
    assert (p[:, NOT_A_DIE] > 0.5).all()


def test_a_die_leaning_on_another_looks_more_cocked_than_a_flat_one() -> None:
    flat = DieSpec(2, (140, 120), 50)
    leaning = DieSpec(4, (193, 120), 50, cocked_deg=30, cocked_side=2)
    out = render(scene([flat, leaning]))
    p = classify_dice(out.image, label_boxes(out))
    assert p[1, COCKED] > 2 * p[0, COCKED]
    assert np.argmax(p[0]) == 2


def test_probabilities_are_distributions_whatever_the_second_looks() -> None:
    out = render(scene([DieSpec(3, (100, 100), 30, angle=40), DieSpec(6, (200, 120), 60)]))
    boxes = label_boxes(out)
    for tta in (False, "auto", True):
        p = classify_dice(out.image, boxes, tta=tta)
        assert p.shape == (2, len(CLASS_NAMES))
        np.testing.assert_allclose(p.sum(axis=1), 1.0, atol=1e-5)


def test_no_dice_no_rows_and_a_missing_angle_is_measured() -> None:
    out = render(scene([DieSpec(6, (160, 120), 48, angle=30)]))
    assert classify_dice(out.image, []).shape == (0, len(CLASS_NAMES))
    label = out.labels[0]
    p = classify_dice(out.image, [(label.center, label.size, None)])
    assert np.argmax(p[0]) == 6


def test_value_ranking_orders_values_by_share() -> None:
    p = np.array([[0.1, 0.0, 0.0, 0.0, 0.0, 0.3, 0.6, 0.0]])
    assert value_ranking(p)[0][:2] == [(6, pytest.approx(2 / 3)), (5, pytest.approx(1 / 3))]
    assert value_confidence(p)[0] == pytest.approx(2 / 3)


def test_window_puts_the_top_face_at_its_centre_at_die_px() -> None:
    image = np.full((200, 200, 3), 30, np.uint8)
    corners = np.array([[-1, -1], [1, -1], [1, 1], [-1, 1]], np.float32) * 20  # edge 40
    turn = np.deg2rad(25)
    rotation = np.array([[np.cos(turn), -np.sin(turn)], [np.sin(turn), np.cos(turn)]], np.float32)
    square = (corners @ rotation.T + [110, 90]).astype(np.int32)
    import cv2

    cv2.fillConvexPoly(image, square, (230, 230, 230))
    for geometry in (Geometry(32, 24.0), Geometry(40, 30.0), Geometry(24, 12.0)):
        window = cut_windows(image, [(110.0, 90.0, 40.0, 25.0)], geometry)[0]
        bright = np.argwhere(window[..., 0] > 128)
        (y0, x0), (y1, x1) = bright.min(axis=0), bright.max(axis=0)
        die, middle = geometry.die_px, (geometry.window_px - 1) / 2
        tolerance = 1 + 0.06 * die  # the drawn square is a pixel bigger than its corners say
        assert abs((x1 - x0 + 1) - die) <= tolerance and abs((y1 - y0 + 1) - die) <= tolerance
        assert abs((x0 + x1) / 2 - middle) <= 1 and abs((y0 + y1) / 2 - middle) <= 1


def test_window_channels_do_not_depend_on_the_dice_colours() -> None:
    rng = np.random.default_rng(3)
    side = 32
    windows = rng.integers(0, 256, (3, side, side, 3), dtype=np.uint8)
    channels = window_channels(windows)
    assert channels.shape == (3, CHANNELS, side, side) and channels.dtype == np.float32
    brighter = window_channels(np.clip(windows.astype(int) + 20, 0, 255).astype(np.uint8)[:, 8:9].repeat(side, 1))
    flat = window_channels(windows[:, 8:9].repeat(side, 1))
    np.testing.assert_allclose(brighter[:, 0], flat[:, 0], atol=0.3)  # lightness is relative to the die


def channels_of_one_window(window: np.ndarray, geometry: Geometry) -> np.ndarray:
    """The module doc's channels, one window at a time and pixel by pixel in plain numpy."""
    import cv2

    lab = cv2.cvtColor(window, cv2.COLOR_BGR2Lab).astype(np.float64)
    inner = geometry.face_slice
    face = lab[inner, inner].reshape(-1, 3)
    body = np.sort(face, axis=0)[len(face) // 2]  # the face's median colour (the upper one of two)
    d = lab - body
    d[:, :, 1:] *= 2.0
    distance = np.sqrt((d * d).sum(axis=2))
    face_distance = np.sort(distance[inner, inner].ravel())
    scale = 1.0 / (face_distance[int(0.95 * (len(face_distance) - 1))] + 8.0)
    lightness = (lab[:, :, 0] - face[:, 0].mean()) / (face[:, 0].std() + 4.0)
    return np.stack([lightness, distance * scale, d[:, :, 1] * scale, d[:, :, 2] * scale])


@pytest.mark.parametrize("count", [1, 2, 8, 13])
def test_window_channels_are_the_documented_ones_for_any_batch(count: int) -> None:
    rng = np.random.default_rng(count)
    geometry = Geometry(48, 36.0)
    noisy = rng.integers(0, 256, (count, 48, 48, 3), dtype=np.uint8)
    blocky = (rng.integers(0, 4, (count, 6, 6, 3)) * 80).astype(np.uint8).repeat(8, axis=1).repeat(8, axis=2)
    for windows in (noisy, blocky):
        channels = window_channels(windows, geometry)
        assert channels.shape == (count, CHANNELS, 48, 48) and channels.flags.c_contiguous
        for window, got in zip(windows, channels):
            np.testing.assert_allclose(got, channels_of_one_window(window, geometry), rtol=1e-5, atol=1e-5)


def test_edge_from_box() -> None:
    assert edge_from_box(40.0, 0.0) == pytest.approx(40.0)
    assert edge_from_box(40.0 * np.sqrt(2), 45.0) == pytest.approx(40.0)
    for angle in (0.0, 17.0, 45.0, 80.0):
        assert edge_from_box(box_from_edge(40.0, angle), angle) == pytest.approx(40.0)


def test_model_files_are_small_and_calibrated() -> None:
    from vision.reader.detector import MODEL_PATHS as DETECTOR

    # all the networks together, a classifier's partners too, fit a Pi Zero 2 W's budget of 4 MB
    net = classifier.value_net()
    values = [net.path] + [partner.path for partner in net.partners]
    assert sum(path.stat().st_size for path in values + list(DETECTOR)) < 4_000_000
    meta = json.loads(classifier.MODEL_PATH.with_suffix(".json").read_text())
    assert 0.2 < meta["temperature"] < 5.0
    assert meta["trained"]["held_out_photos"], "the held-out photos are recorded"
    assert classifier.value_net().geometry == Geometry(meta["window_px"], meta["die_px"])


def test_a_batch_of_any_size_is_read() -> None:
    net = classifier.value_net()
    side = net.geometry.window_px
    x = np.random.default_rng(1).standard_normal((5, CHANNELS, side, side)).astype(np.float32)
    one_by_one = np.concatenate([net.logits(x[i:i + 1]) for i in range(5)])
    np.testing.assert_allclose(net.logits(x), one_by_one, rtol=1e-4, atol=1e-4)
    assert net.logits(x[:0]).shape == (0, len(CLASS_NAMES))


def test_upright_windows_keep_the_photos_up_within_45_degrees() -> None:
    assert [upright_angle(a) for a in (0.0, 30.0, 44.9, 45.0, 80.0, 90.0, 170.0, -50.0)] == \
        pytest.approx([0.0, 30.0, 44.9, -45.0, -10.0, 0.0, -10.0, 40.0])
    out = render(scene([DieSpec(4, (160, 120), 60, angle=10)]))
    turned, upright = Geometry(48, 36.0), Geometry(48, 36.0, upright=True)
    # an edge angle of 80 degrees turns a window by 80 (the photo's up to its side) or, upright, by -10
    for angle in (80.0, 170.0, 260.0):
        np.testing.assert_array_equal(cut_windows(out.image, [(160.0, 120.0, 60.0, angle)], upright),
                                      cut_windows(out.image, [(160.0, 120.0, 60.0, -10.0)], turned))
    assert not np.array_equal(cut_windows(out.image, [(160.0, 120.0, 60.0, 80.0)], turned),
                              cut_windows(out.image, [(160.0, 120.0, 60.0, 80.0)], upright))


def test_a_second_look_turns_a_window_or_mirrors_an_upright_one() -> None:
    x = np.random.default_rng(2).standard_normal((3, CHANNELS, 8, 8)).astype(np.float32)
    turned = classifier.second_look_windows(x)
    assert turned.shape == (3, 3, CHANNELS, 8, 8)
    for k in (1, 2, 3):
        np.testing.assert_array_equal(turned[k - 1], np.rot90(x, k, axes=(2, 3)))
    mirrored = classifier.second_look_windows(x, upright=True)
    assert mirrored.shape == (1, 3, CHANNELS, 8, 8)
    np.testing.assert_array_equal(mirrored[0], x[:, :, :, ::-1])


def shipped_copy(model: Path, changes: dict, dropped: tuple[str, ...] = ()) -> Path:
    """The shipped network copied to `model`, its JSON with `changes` over the shipped one's and
    without the `dropped` keys."""
    shipped = classifier.MODEL_PATH
    meta = {key: value for key, value in json.loads(shipped.with_suffix(".json").read_text()).items()
            if key not in dropped}
    model.write_bytes(shipped.read_bytes())
    model.with_suffix(".json").write_text(json.dumps({**meta, **changes}))
    return model


def test_a_model_trained_on_upright_windows_cuts_them_and_mirrors_its_second_look(tmp_path) -> None:
    shipped = classifier.MODEL_PATH
    meta = json.loads(shipped.with_suffix(".json").read_text())
    model = shipped_copy(tmp_path / "upright.onnx", {"upright": True})
    net = classifier.ValueNet(model)
    assert net.geometry == Geometry(meta["window_px"], meta["die_px"], upright=True)
    out = render(scene([DieSpec(3, (100, 100), 30, angle=40), DieSpec(6, (200, 120), 60, angle=80)]))
    boxes = [(*label.center, label.size, label.angle) for label in out.labels]
    channels = net.windows(out.image, boxes)
    first = classifier.softmax(net.logits(channels) / net.temperature)
    mirror = classifier.softmax(net.logits(np.ascontiguousarray(channels[:, :, :, ::-1])) / net.temperature)
    np.testing.assert_allclose(classifier.read_windows(channels, tta=True, net=net), (first + mirror) / 2,
                               rtol=1e-5, atol=1e-6)
    # the shipped model, trained on turned windows, is read as before
    assert classifier.value_net().geometry.upright is False


@pytest.mark.parametrize("upright", ["yes", 1, None])
def test_a_model_whose_upright_is_not_true_or_false_is_refused(tmp_path, upright) -> None:
    from vision.reader.model_file import ModelFileError

    with pytest.raises(ModelFileError, match="upright"):
        classifier.ValueNet(shipped_copy(tmp_path / "odd.onnx", {"upright": upright}))


def joined_model(folder: Path, partners: object, partner_meta: dict | None = None, count: int = 1) -> Path:
    """A copy of the shipped network whose JSON names `partners`, with `count` copies of the
    shipped network beside it as partner1.onnx, ... (their JSON `partner_meta` over the shipped
    one's, at temperatures 1.3, 1.4, ...)."""
    shipped = classifier.MODEL_PATH
    meta = json.loads(shipped.with_suffix(".json").read_text())
    model = folder / "main.onnx"
    model.write_bytes(shipped.read_bytes())
    model.with_suffix(".json").write_text(json.dumps({**meta, "partners": partners}))
    for number in range(1, count + 1):
        (folder / f"partner{number}.onnx").write_bytes(shipped.read_bytes())
        (folder / f"partner{number}.json").write_text(json.dumps({**meta, "temperature": 1.2 + number / 10,
                                                                  **(partner_meta or {})}))
    return model


def read_alone(net: classifier.ValueNet, image: np.ndarray, boxes: list) -> np.ndarray:
    return classifier.read_windows(net.windows(image, boxes), "auto", net)


def test_a_network_with_partners_reads_every_window_with_all_of_them_as_one_calibrated_reading(tmp_path) -> None:
    model = joined_model(tmp_path, {"files": ["partner1.onnx", "partner2.onnx"], "temperature": 0.7}, count=2)
    joined = classifier.ValueNet(model)
    assert [partner.temperature for partner in joined.partners] == [1.3, 1.4] and joined.joint_temperature == 0.7
    out = render(scene([DieSpec(3, (100, 100), 30, angle=40), DieSpec(6, (200, 120), 60, angle=80)]))
    boxes = [(*label.center, label.size, label.angle) for label in out.labels] + [(40.0, 40.0, 30.0, 0.0)]
    alone = classifier.ValueNet(model, alone=True)
    assert alone.partners == ()
    own = read_alone(alone, out.image, boxes)
    first, second = (read_alone(partner, out.image, boxes) for partner in joined.partners)
    mean = ((own + first + second) / 3) ** (1 / 0.7)
    want = mean / mean.sum(axis=1, keepdims=True)
    np.testing.assert_allclose(classifier.read_boxes(out.image, boxes, "auto", joined), want, rtol=1e-5, atol=1e-7)
    assert not np.allclose(want, own, atol=1e-3)  # the partners' own temperatures and the joint one changed it
    assert not np.allclose(first, second, atol=1e-3)  # each partner read at its own temperature
    # the reader reads with all three once it is the model in use
    try:
        classifier.use_model(model)
        dice = [((x, y), size, angle) for x, y, size, angle in boxes]
        np.testing.assert_allclose(classifier.classify_dice(out.image, dice), want, rtol=1e-5, atol=1e-6)
    finally:
        classifier.use_model(classifier.MODEL_PATH)


def test_draws_that_agree_read_as_one_at_a_joint_temperature_of_one(tmp_path) -> None:
    shipped_temperature = classifier.ValueNet(alone=True).temperature
    model = joined_model(tmp_path, {"files": ["partner1.onnx"], "temperature": 1.0},
                         {"temperature": shipped_temperature})
    out = render(scene([DieSpec(5, (160, 120), 50, angle=20)]))
    boxes = [(*label.center, label.size, label.angle) for label in out.labels]
    np.testing.assert_allclose(classifier.read_boxes(out.image, boxes, "auto", classifier.ValueNet(model)),
                               classifier.read_boxes(out.image, boxes, "auto", classifier.ValueNet(model, alone=True)),
                               rtol=1e-5, atol=1e-7)


@pytest.mark.parametrize("partners, says", [
    ("partner1.onnx", "not files and a temperature"),
    ({"files": ["partner1.onnx"]}, "not files and a temperature"),
    ({"files": ["partner1.onnx"], "temperature": "warm"}, "not files and a temperature"),
    ({"files": "partner1.onnx", "temperature": 0.8}, "not a list of files"),
    ({"files": [], "temperature": 0.8}, "not a list of files"),
    ({"files": ["partner1.onnx"], "temperature": 0.0}, "not a temperature"),
    ({"files": ["../partner1.onnx"], "temperature": 0.8}, "not the name of an .onnx file beside it"),
    ({"files": ["partner1.json"], "temperature": 0.8}, "not the name of an .onnx file beside it"),
    ({"files": ["partner1.onnx", "partner1.onnx"], "temperature": 0.8}, "name one network twice"),
    ({"files": ["main.onnx"], "temperature": 0.8}, "name one network twice"),
    ({"files": ["partner1.onnx", "gone.onnx"], "temperature": 0.8}, "gone.json"),
])
def test_partners_that_cannot_be_read_are_refused_with_a_clear_message(tmp_path, partners, says) -> None:
    from vision.reader.model_file import ModelFileError

    with pytest.raises(ModelFileError, match=re.escape(says)):
        classifier.ValueNet(joined_model(tmp_path, partners))


def test_a_partner_with_partners_of_its_own_is_refused(tmp_path) -> None:
    from vision.reader.model_file import ModelFileError

    model = joined_model(tmp_path, {"files": ["partner1.onnx"], "temperature": 0.8},
                         {"partners": {"files": ["main.onnx"], "temperature": 0.8}})
    with pytest.raises(ModelFileError, match="partners read alone"):
        classifier.ValueNet(model)


def test_a_partner_of_another_geometry_reads_windows_cut_for_it(tmp_path) -> None:
    model = joined_model(tmp_path, {"files": ["partner1.onnx"], "temperature": 0.9}, {"upright": True})
    joined = classifier.ValueNet(model)
    (partner,) = joined.partners
    assert partner.geometry.upright and not joined.geometry.upright
    out = render(scene([DieSpec(2, (120, 110), 40, angle=30), DieSpec(4, (220, 130), 50, angle=70)]))
    boxes = [(*label.center, label.size, label.angle) for label in out.labels]
    own = read_alone(joined, out.image, boxes)
    upright = read_alone(partner, out.image, boxes)
    np.testing.assert_allclose(classifier.read_boxes(out.image, boxes, "auto", joined),
                               classifier.joint_probabilities([own, upright], 0.9), rtol=1e-5, atol=1e-7)
    turned = classifier.read_windows(joined.windows(out.image, boxes), "auto", partner)
    assert not np.allclose(turned, upright, atol=1e-4)  # cut the first network's way, they would read otherwise

@settings(max_examples=60, deadline=None)
@given(arrays(np.float64, (5, 8), elements=st.floats(0.001, 1.0)), st.floats(0.2, 4.0))
def test_a_value_temperature_changes_how_sure_the_value_is_and_nothing_else(raw: np.ndarray, temperature: float) -> None:
    probabilities = raw / raw.sum(axis=1, keepdims=True)
    sharpened = classifier.sharpen_values(probabilities, temperature)
    np.testing.assert_allclose(sharpened[:, [NOT_A_DIE, COCKED]], probabilities[:, [NOT_A_DIE, COCKED]])
    np.testing.assert_allclose(sharpened[:, 1:7].sum(axis=1), probabilities[:, 1:7].sum(axis=1))
    before, after = value_confidence(probabilities), value_confidence(sharpened)
    if temperature < 1:
        assert np.all(after >= before - 1e-12)
    else:
        assert np.all(after <= before + 1e-12)
    values = probabilities[:, 1:7]
    likeliest = sharpened[:, 1:7].argmax(axis=1)
    # Values tied for the lead stay tied up to rounding, so the lead may pass between them.
    assert np.all(values[np.arange(len(values)), likeliest] >= values.max(axis=1) * (1 - 1e-9))
    np.testing.assert_array_equal(classifier.sharpen_values(probabilities, 1.0), probabilities)


def test_a_window_surely_no_die_keeps_numbers_at_a_sharp_value_temperature() -> None:
    # float32 as the network gives them: the values' shares of a window surely no die lie at or
    # below 1e-12, and 1e-12 to the power 1 / 0.15 is 0 in float32
    probabilities = np.zeros((3, 8), np.float32)
    probabilities[0, NOT_A_DIE] = 1.0
    probabilities[1, [NOT_A_DIE, 3]] = (1.0 - 1e-30, 1e-30)
    probabilities[2, [NOT_A_DIE, 2, 5]] = (0.5, 0.2, 0.3)
    sharpened = classifier.sharpen_values(probabilities, 0.15)
    assert np.all(np.isfinite(sharpened))
    np.testing.assert_array_equal(sharpened[0], probabilities[0])
    assert sharpened[1, 1:7].sum() == pytest.approx(1e-30, abs=0) and sharpened[1, 1:7].argmax() == 2
    lead = 1.5 ** (1 / 0.15)  # 0.3 against 0.2, sharpened
    np.testing.assert_allclose(sharpened[2, [2, 5]], [0.5 / (1 + lead), 0.5 * lead / (1 + lead)], rtol=1e-5)


def test_a_network_with_a_value_temperature_sharpens_its_values_once_its_looks_are_averaged(tmp_path) -> None:
    net = classifier.ValueNet(shipped_copy(tmp_path / "sharper.onnx", {"value_temperature": 0.5}))
    plain = classifier.ValueNet(shipped_copy(tmp_path / "plain.onnx", {}, dropped=("value_temperature",)))
    assert net.value_temperature == 0.5 and plain.value_temperature == 1.0
    out = render(scene([DieSpec(3, (100, 100), 30, angle=40), DieSpec(6, (200, 120), 60, angle=80)]))
    boxes = [(*label.center, label.size, label.angle) for label in out.labels] + [(40.0, 40.0, 30.0, 0.0)]
    channels = net.windows(out.image, boxes)
    for tta in (False, True, "auto"):
        want = classifier.sharpen_values(classifier.read_windows(channels, tta, plain), 0.5)
        np.testing.assert_allclose(classifier.read_windows(channels, tta, net), want, rtol=1e-6, atol=1e-9)
    np.testing.assert_allclose(classifier.read_boxes(out.image, boxes, "auto", net),
                               classifier.sharpen_values(classifier.read_boxes(out.image, boxes, "auto", plain), 0.5),
                               rtol=1e-6, atol=1e-9)


@pytest.mark.parametrize("value_temperature", ["warm", None, True, 0, 50.0, [0.9]])
def test_a_model_whose_value_temperature_is_not_a_temperature_is_refused(tmp_path, value_temperature) -> None:
    from vision.reader.model_file import ModelFileError

    with pytest.raises(ModelFileError, match="value temperature"):
        classifier.ValueNet(shipped_copy(tmp_path / "odd.onnx", {"value_temperature": value_temperature}))
