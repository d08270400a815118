"""The training scripts export networks that OpenCV runs exactly as PyTorch does.

Needs the `train` extra (torch, onnx); skipped with the reason when it is not installed.
"""

from __future__ import annotations

import dataclasses
import importlib
import json
import subprocess
import sys
from pathlib import Path

import cv2
import numpy as np
import pytest

SCRIPTS = Path(__file__).resolve().parent.parent / "scripts"


@pytest.fixture(scope="module")
def torch():
    torch = pytest.importorskip("torch", reason="the train extra (torch) is not installed: pip install -e '.[train]'")
    pytest.importorskip("onnx", reason="the train extra (onnx) is not installed: pip install -e '.[train]'")
    sys.path.insert(0, str(SCRIPTS))
    yield torch
    sys.path.remove(str(SCRIPTS))


@pytest.mark.parametrize("layout", [["--stages", "16,24,40,64"], ["--stages", "8,16,24"],
                                    ["--stages", "16,24,40,64", "--stage-convs", "1,1,2,2"]])
def test_the_detector_runs_in_opencv_as_in_torch(torch, tmp_path: Path, layout: list[str]) -> None:
    import train_detector

    from vision.reader.detector import DieDetector

    torch.manual_seed(3)
    options = train_detector.parse_options([*layout, "--head", "16"])
    model = train_detector.torch_model(options.layout, options.stage_convs)
    for module in model.modules():  # batch norm statistics as after training, not the identity
        if isinstance(module, torch.nn.BatchNorm2d):
            module.running_mean.uniform_(-0.5, 0.5)
            module.running_var.uniform_(0.5, 2.0)
    path = tmp_path / "detector.onnx"
    train_detector.export_onnx(model, path, {"note": "test"})
    assert json.loads(path.with_suffix(".json").read_text())["trained"] == {"note": "test"}
    detector = DieDetector(path)
    for shape in ((1, 3, 96, 128), (1, 3, 160, 96)):  # neither the shape it was exported at
        x = np.random.default_rng(1).standard_normal(shape).astype(np.float32)
        with torch.no_grad():
            want = model(torch.from_numpy(x)).numpy()[0]
        np.testing.assert_allclose(detector.maps(x), want, rtol=1e-3, atol=1e-3)


def test_the_detector_declares_an_input_of_a_fixed_size_which_opencv_4_needs_to_load_it(torch, tmp_path: Path) -> None:
    import onnx
    import train_detector

    path = tmp_path / "detector.onnx"
    train_detector.export_onnx(train_detector.torch_model(), path, {})
    declared = onnx.load(str(path)).graph.input[0].type.tensor_type.shape.dim
    assert [dim.dim_value for dim in declared] == [1, 3, train_detector.INPUT_SIDE, train_detector.INPUT_SIDE]


def test_the_classifier_runs_in_opencv_as_in_torch(torch, tmp_path: Path) -> None:
    import train_classifier

    from vision.reader.classifier import ValueNet
    from vision.reader.windows import CHANNELS

    torch.manual_seed(4)
    model = train_classifier.make_model()
    model.eval()
    path = tmp_path / "values.onnx"
    train_classifier.export_onnx(model, path, {"temperature": 1.5})
    net = ValueNet(path)
    side = net.geometry.window_px
    x = np.random.default_rng(2).standard_normal((3, CHANNELS, side, side)).astype(np.float32)
    with torch.no_grad():
        want = model(torch.from_numpy(x)).numpy()
    np.testing.assert_allclose(net.logits(x), want, rtol=1e-3, atol=1e-3)
    assert net.temperature == 1.5


def test_the_scenes_do_not_depend_on_how_many_processes_render_them(tmp_path: Path) -> None:
    sys.path.insert(0, str(SCRIPTS))
    try:
        import train_detector
    finally:
        sys.path.remove(str(SCRIPTS))

    train_detector.render_synthetic(tmp_path / "one", 3, 7000, workers=1)
    train_detector.render_synthetic(tmp_path / "two", 3, 7000, workers=2)
    for i in range(3):
        for suffix in (".png", ".json", "-sides.png"):
            name = f"{i:06d}{suffix}"
            assert (tmp_path / "one" / name).read_bytes() == (tmp_path / "two" / name).read_bytes(), name


def test_a_scene_cached_before_its_side_faces_were_kept_is_rendered_again_only_when_they_are_asked_for(
        tmp_path: Path) -> None:
    train_detector = scripts_module("train_detector")
    train_detector.render_synthetic(tmp_path, 2, 7000)
    kept = (tmp_path / "000001.png").read_bytes()
    (tmp_path / "000001-sides.png").unlink()
    train_detector.render_synthetic(tmp_path, 2, 7000)
    assert not (tmp_path / "000001-sides.png").exists()
    train_detector.render_synthetic(tmp_path, 2, 7000, sides=True)
    assert (tmp_path / "000001-sides.png").exists() and (tmp_path / "000001.png").read_bytes() == kept


SHIFT_8 = np.array([[1.0, 0.0, -8.0], [0.0, 1.0, -8.0], [0.0, 0.0, 1.0]])  # a crop at the picture's scale, 8 px in


def assert_side_faces_alone_weigh_more(train_detector, sample) -> None:
    """A crop of `sample` with side faces weighed 4 times is the same crop with the same targets,
    its heat weighing 4 times as much on some cells, none of them a die's peak or near it."""
    plain = train_detector.make_crop(sample, np.random.default_rng(3))
    weighed = train_detector.make_crop(sample, np.random.default_rng(3), side_weight=4.0)
    assert np.array_equal(plain[0], weighed[0])
    for key in ("heat", "reg", "reg_weight"):
        assert np.array_equal(plain[1][key], weighed[1][key]), key
    changed = weighed[1]["heat_weight"] != plain[1]["heat_weight"]
    assert changed.any()
    assert np.all(weighed[1]["heat_weight"][changed] == 4.0 * plain[1]["heat_weight"][changed])
    assert np.all(plain[1]["heat"][changed] < 0.5)


def assert_cells_cover_rows_132_to_151_and_columns_132_to_171(cells: np.ndarray) -> None:
    """The output grid's cells marked are those over crop pixels 132-151 down and 132-171 across."""
    rows, cols = np.nonzero(cells)
    stride = 256 // cells.shape[0]
    assert (rows.min(), rows.max()) == (132 // stride, 151 // stride)
    assert (cols.min(), cols.max()) == (132 // stride, 171 // stride)


def test_side_faces_weigh_more_as_places_with_no_die_and_nothing_else_changes() -> None:
    train_detector = scripts_module("train_detector")
    # a die seen obliquely: its top face, and below it a side face as deep as half the top
    image = np.full((240, 320, 3), 90, np.uint8)
    cv2.rectangle(image, (140, 100), (179, 139), (230, 230, 230), -1)
    cv2.rectangle(image, (140, 140), (179, 159), (170, 170, 170), -1)
    sides = np.zeros((240, 320), np.uint8)
    sides[140:160, 140:180] = 255
    die = train_detector.Die((160.0, 120.0), 40.0, 0.0, 40.0, 0.0, False)
    scene = train_detector.Sample(image, [die], real=False, sides=sides)
    assert_side_faces_alone_weigh_more(train_detector, scene)
    # where side faces lie on the output grid (a crop at the scene's own scale, shifted by 8 px)
    assert_cells_cover_rows_132_to_151_and_columns_132_to_171(train_detector.side_face_cells(sides, SHIFT_8, 256))
    # photos and scenes without side faces are weighed as before
    photo = train_detector.Sample(image, [die], real=True)
    assert np.array_equal(train_detector.make_crop(photo, np.random.default_rng(3), side_weight=4.0)[1]["heat_weight"],
                          train_detector.make_crop(photo, np.random.default_rng(3))[1]["heat_weight"])


def test_a_photos_front_faces_weigh_more_as_places_with_no_die_when_asked(tmp_path: Path) -> None:
    train_detector, photo_sets = scripts_module("train_detector"), scripts_module("photo_sets")
    # a die seen from the front: its top face 40 x 40, the face turned to the camera 20 deep below it
    image = np.full((240, 320, 3), 90, np.uint8)
    cv2.rectangle(image, (140, 100), (179, 139), (230, 230, 230), -1)
    cv2.rectangle(image, (140, 140), (179, 159), (170, 170, 170), -1)
    (tmp_path / "phone" / "images").mkdir(parents=True)
    cv2.imwrite(str(tmp_path / "phone" / "images" / "a.png"), image)
    boxes = [[140, 100, 180, 160], [20, 20, 60, 60]]  # the tall die, and a square one that shows no front face
    (tmp_path / "phone" / "manifest.jsonl").write_text(json.dumps(
        {"image": "images/a.png", "split": "train", "dice": [{"value": 3, "box": b} for b in boxes]}) + "\n")
    (photo,) = photo_sets.training_photos(tmp_path / "cache", tmp_path)
    assert photo_sets.front_face_box((140, 100, 180, 160)) == (140, 140, 180, 160)
    assert photo_sets.front_face_box((20, 20, 60, 60)) is None and photo_sets.front_face_box((0, 0, 60, 20)) is None
    assert train_detector.photo_sample(photo, top_faces=True).side_boxes == ()
    sample = train_detector.photo_sample(photo, top_faces=True, photo_sides=True)
    assert sample.side_boxes == ((140, 140, 180, 160),)
    assert_side_faces_alone_weigh_more(train_detector, sample)
    # where the front face lies on the output grid (a crop at the photo's own scale, shifted by 8 px)
    assert_cells_cover_rows_132_to_151_and_columns_132_to_171(train_detector.side_box_cells(sample.side_boxes,
                                                                                            SHIFT_8, 256))


def test_front_faces_on_photos_need_top_faces_and_a_side_weight(capsys) -> None:
    parse = scripts_module("train_detector").parse_options
    for options in (["--photo-sides"], ["--photo-sides", "--top-faces"], ["--photo-sides", "--side-weight", "4"]):
        with pytest.raises(SystemExit):
            parse(options)
        assert "--photo-sides weighs the faces below a tall box's top face" in capsys.readouterr().err
    assert parse(["--photo-sides", "--top-faces", "--side-weight", "4"]).photo_sides


@pytest.mark.filterwarnings("ignore:This DataLoader will create:UserWarning")  # three workers on purpose
def test_the_crop_stream_gives_one_batch_a_step_whatever_its_workers(torch) -> None:
    import train_detector

    image = np.full((120, 160, 3), 90, np.uint8)
    die = train_detector.Die((80.0, 60.0), 20.0, 0.0, 24.0, 0.0, False)
    scene = train_detector.Sample(image, [die], real=False)
    for workers in (0, 1, 3):
        stream = train_detector.CropStream({"set": [scene]}, [scene], [scene], 2, 0.5, 0.1, 0, 3, 10)
        batches = torch.utils.data.DataLoader(stream, batch_size=None, num_workers=workers)
        assert sum(1 for _ in batches) == 7, workers


def test_asking_for_a_gpu_where_there_is_none_stops_before_any_work(torch, tmp_path: Path, monkeypatch, capsys) -> None:
    import train_detector

    if torch.cuda.is_available():
        pytest.skip("this machine has a GPU")
    monkeypatch.setattr(sys, "argv", ["train_detector.py", "--device", "cuda", "--work", str(tmp_path / "work"),
                                      "--synthetic", "1", "--val-synthetic", "1"])
    with pytest.raises(SystemExit) as stop:
        train_detector.main()
    assert stop.value.code == 2
    assert "sees no GPU here" in capsys.readouterr().err
    assert not (tmp_path / "work").exists()


def scripts_module(name: str):
    sys.path.insert(0, str(SCRIPTS))
    try:
        return __import__(name)
    finally:
        sys.path.remove(str(SCRIPTS))


def test_a_detector_run_with_other_training_options_does_not_resume_another_runs_checkpoint(tmp_path: Path) -> None:
    train_detector = scripts_module("train_detector")
    photos = [scripts_module("photo_sets").Photo("set", tmp_path / "a.png", ())]

    def checkpoint(*options: str) -> Path:
        return train_detector.run_checkpoint(train_detector.parse_options(["--work", str(tmp_path), *options]), photos)

    plain = checkpoint()
    assert plain.parent == tmp_path
    # the same run, faster or elsewhere, resumes
    assert checkpoint("--workers", "14", "--threads", "4", "--device", "cpu", "--eval-every", "0") == plain
    # another run does not: a longer schedule, other data, another network seed, other photos
    others = {checkpoint("--steps", "24000"), checkpoint("--lr", "0.001"), checkpoint("--negatives", "900"),
              checkpoint("--seed", "1"), checkpoint("--real-share", "0.6"), checkpoint("--stages", "8,16,24,32"),
              checkpoint("--head", "16"), checkpoint("--stage-convs", "1,1,2,2"), checkpoint("--steep", "500"),
              checkpoint("--blending", "500"),
              checkpoint("--crowded", "500"), checkpoint("--boards", "500"), checkpoint("--side-weight", "4"),
              checkpoint("--negative-kinds", "text,grid,checkerboard,gradient,noise,wood,headline"),
              checkpoint("--top-faces"), checkpoint("--top-faces", "--side-weight", "4", "--photo-sides"),
              train_detector.run_checkpoint(train_detector.parse_options(["--work", str(tmp_path)]), photos[:0])}
    assert plain not in others and len(others) == 17
    # a run without steep, blending, crowded or board scenes, weighing side faces as any place, of one conv a
    # stage, or naming the kinds of no-dice pictures it always had, is the run it was before those options existed
    assert checkpoint("--steep", "0") == plain
    assert checkpoint("--blending", "0") == plain
    assert checkpoint("--crowded", "0") == plain
    assert checkpoint("--boards", "0") == plain
    assert checkpoint("--side-weight", "1") == plain
    assert checkpoint("--stage-convs", "1,1,1,1") == plain
    assert checkpoint("--negative-kinds", "text, grid,checkerboard,gradient,noise,wood") == plain
    # nor does a run on labels that a reviewed fix has since changed
    assert with_another_label_fix(checkpoint) != plain


def with_another_label_fix(make):
    """What `make()` gives with one more reviewed label fix in force."""
    from lab.reader_eval import label_fixes

    kept = label_fixes.FINGERPRINT
    label_fixes.FINGERPRINT = kept + "; set/images/train/a.png#0:5->4"
    try:
        return make()
    finally:
        label_fixes.FINGERPRINT = kept


def test_the_classifier_cuts_the_photos_windows_again_when_a_label_fix_changes(tmp_path: Path) -> None:
    train_classifier = scripts_module("train_classifier")
    detector = scripts_module("photo_sets").MODEL_PATHS
    plain = train_classifier.photo_windows_key(detector)
    assert train_classifier.photo_windows_key(detector) == plain
    assert with_another_label_fix(lambda: train_classifier.photo_windows_key(detector)) != plain


def test_windows_and_faces_are_keyed_by_every_file_of_the_detector_that_found_them(tmp_path: Path) -> None:
    import hashlib

    photo_sets = scripts_module("photo_sets")
    (one,) = photo_sets.model_files(photo_sets.MODEL_PATHS[0])
    other = tmp_path / "other.onnx"
    other.write_bytes(one.read_bytes() + b"another network")
    # one file keys as it did before a detector could be several (caches made then stay valid)
    assert photo_sets.detector_hash(one) == hashlib.sha1(one.read_bytes()).hexdigest()[:12]
    assert photo_sets.detector_hash([one]) == photo_sets.detector_hash(one)
    pair = photo_sets.detector_hash([one, other])
    assert pair not in {photo_sets.detector_hash(one), photo_sets.detector_hash(other)}
    assert photo_sets.faces_hash([one, other]) != photo_sets.faces_hash(one)
    # a trained network's record names each file, one as before
    assert photo_sets.detector_record(one) == photo_sets.detector_hash(one)
    each = [photo_sets.detector_hash(path) for path in (one, other)]
    assert photo_sets.detector_record([one, other]) == ", ".join(each)


def test_the_classifier_may_learn_where_a_detector_of_several_networks_looks() -> None:
    train_classifier = scripts_module("train_classifier")
    options = train_classifier.option_parser()
    assert options.parse_args([]).detector == list(scripts_module("photo_sets").MODEL_PATHS)
    assert options.parse_args(["--detector", "a.onnx", "b.onnx"]).detector == [Path("a.onnx"), Path("b.onnx")]


@pytest.mark.parametrize("script", ["train_classifier.py", "train_detector.py"])
def test_each_training_script_explains_its_options(script: str) -> None:
    # argparse formats every help string with %: a stray one stops --help with a traceback
    shown = subprocess.run([sys.executable, str(SCRIPTS / script), "--help"], capture_output=True, text=True,
                           timeout=120)
    assert shown.returncode == 0, shown.stderr
    assert "usage:" in shown.stdout and "--seed" in shown.stdout


def test_a_detector_asked_for_a_kind_of_no_dice_picture_that_does_not_exist_says_which_there_are(capsys) -> None:
    train_detector = scripts_module("train_detector")
    with pytest.raises(SystemExit) as stop:
        train_detector.parse_options(["--negative-kinds", "text,menus"])
    assert stop.value.code == 2
    assert "--negative-kinds 'text,menus': give some of text, grid" in capsys.readouterr().err


def test_no_dice_pictures_of_text_are_drawn_as_the_pictures_of_every_kind_are_but_of_text_only() -> None:
    from lab.synth.clutter import TEXT_KINDS, negative_image

    data = scripts_module("classifier_data")

    def decoded(scene) -> np.ndarray:
        return cv2.imdecode(np.frombuffer(scene.encoded, np.uint8), cv2.IMREAD_COLOR)

    def drawn(i: int, **kinds) -> np.ndarray:  # picture i of seed 19 with the sizes negative_chunk draws
        rng = np.random.default_rng([19, i])
        width, height = [(640, 480), (640, 640), (480, 640)][int(rng.integers(3))]
        return negative_image(rng, width, height, **kinds)

    for i, scene in enumerate(data.negative_scenes(4, 19, 1, TEXT_KINDS)):
        np.testing.assert_array_equal(decoded(scene), drawn(i, kinds=TEXT_KINDS))
        assert scene.dice == [] and scene.name == f"negative-19-{i}"
    # given no kinds, a picture is of any kind, as it was before kinds could be chosen
    np.testing.assert_array_equal(decoded(data.negative_scenes(2, 19, 1)[1]), drawn(1))


def test_pictures_of_text_without_hard_pictures_to_join_are_refused_with_a_clear_message(torch, capsys) -> None:
    with pytest.raises(SystemExit) as stop:
        scripts_module("train_classifier").main(["--hard-text", "500"])
    assert stop.value.code == 2
    assert "--hard-text adds pictures of text to --hard's no-dice pictures: give --hard too" in capsys.readouterr().err


def test_a_negative_weight_for_side_faces_is_refused_with_a_clear_message(capsys) -> None:
    with pytest.raises(SystemExit):
        scripts_module("train_detector").parse_options(["--side-weight", "-2"])
    assert "--side-weight -2.0: a weight is 0 or more" in capsys.readouterr().err


@pytest.mark.parametrize("stages", ["16,x", "16", "8,8,8,8,8", "16,0,24"])
def test_a_detector_layout_that_cannot_be_built_is_refused_with_a_clear_message(stages: str, capsys) -> None:
    train_detector = scripts_module("train_detector")
    with pytest.raises(SystemExit) as stop:
        train_detector.parse_options(["--stages", stages])
    assert stop.value.code == 2
    assert f"--stages {stages}" in capsys.readouterr().err.replace("'", "")


def test_a_classifier_run_with_another_network_or_schedule_does_not_resume_another_runs_checkpoint(tmp_path: Path) -> None:
    import argparse

    train_classifier = scripts_module("train_classifier")
    shipped = dict(widths="24,48,96", convs=1, hidden=128, epochs=20, per_epoch=100000, real_share=0.5,
                   blind_share=0.0, blind_target="die")

    def checkpoint(windows: str = "windows", net_seed: int = 1, **changes) -> Path:
        return train_classifier.run_checkpoint(tmp_path, windows, net_seed, argparse.Namespace(**{**shipped, **changes}))

    plain = checkpoint()
    assert checkpoint() == plain
    others = {checkpoint(epochs=30), checkpoint(widths="16,32,64"), checkpoint(convs=2), checkpoint(hidden=96),
              checkpoint(per_epoch=50000), checkpoint(real_share=0.6), checkpoint(net_seed=2),
              checkpoint(windows="other windows"), checkpoint(blind_share=0.05),
              checkpoint(blind_share=0.05, blind_target="values")}
    assert plain not in others and len(others) == 10
    assert checkpoint(blind_target="values") == plain  # nothing drowned, nothing taught otherwise


def test_the_classifiers_scenes_of_any_colour_hold_dice_off_the_palette_and_never_the_judges() -> None:
    data = scripts_module("classifier_data")
    from lab.synth.looks import UNSEEN_COLOURS, UNSEEN_MARGIN, colour_distance

    dice = [die for i in range(6) for die in data.synthetic_spec(5, i, "colours").dice]
    assert {die.style for die in dice} <= {"opaque", "translucent", "marbled"} and len(dice) >= 6
    for die in dice:
        assert min(colour_distance(die.body_bgr, die.pip_bgr, *pair) for pair in UNSEEN_COLOURS) >= UNSEEN_MARGIN
    assert data.synthetic_spec(5, 0, "colours") == data.synthetic_spec(5, 0, "colours")


def test_the_classifier_data_do_not_depend_on_how_many_processes_make_them(tmp_path: Path) -> None:
    data = scripts_module("classifier_data")
    from vision.reader.windows import DEFAULT

    one = data.synthetic_scenes(3, 5, tmp_path / "one", log=lambda *_: None, kind="game", workers=1)
    two = data.synthetic_scenes(3, 5, tmp_path / "two", log=lambda *_: None, kind="game", workers=2)
    assert [s.encoded for s in one] == [s.encoded for s in two]
    assert [s.dice for s in one] == [s.dice for s in two]
    assert len({s.encoded for s in one}) == 3  # each scene its own
    negatives = [data.negative_scenes(3, 8, workers) for workers in (1, 2)]
    assert [s.encoded for s in negatives[0]] == [s.encoded for s in negatives[1]]
    text = [data.negative_scenes(3, 8, workers, ("text",)) for workers in (1, 2)]
    assert [s.encoded for s in text[0]] == [s.encoded for s in text[1]]
    scenes = one + negatives[0]
    with_one = data.scene_windows(scenes, 2, 9, DEFAULT, 1, per_die=2, negatives_per_die=1.0, background=2)
    with_two = data.scene_windows(scenes, 2, 9, DEFAULT, 2, per_die=2, negatives_per_die=1.0, background=2)
    assert len(with_one[1]) > 0
    np.testing.assert_array_equal(with_one[0], with_two[0])
    np.testing.assert_array_equal(with_one[1], with_two[1])
    mined = [data.detector_windows(one, 4, DEFAULT, 0.2, workers) for workers in (1, 2)]
    np.testing.assert_array_equal(mined[0][0], mined[1][0])


def test_the_classifier_batches_and_their_dropout_do_not_depend_on_how_many_workers_make_them(torch) -> None:
    import train_classifier

    rng = np.random.default_rng(3)
    x = rng.integers(0, 255, (40, 48, 48, 3), dtype=np.uint8)
    y = rng.integers(0, 8, 40)
    index = rng.permutation(40)
    made = {}
    for workers in (0, 2):
        epoch = train_classifier.EpochBatches(x, y, index, seed=1, epoch=3, batch=8)
        torch_rng = torch.get_rng_state()
        made[workers] = list(train_classifier.batches(epoch, workers, pin=False))
        # the network's dropout draws from torch's generator: workers that drew from it too
        # would train another network than one process does from the same batches
        assert torch.equal(torch.get_rng_state(), torch_rng)
    assert len(made[0]) == len(made[2]) == 5
    for (inputs, targets), (inputs2, targets2) in zip(made[0], made[2]):
        assert torch.equal(inputs, inputs2) and torch.equal(targets, targets2)
    other_epoch = next(train_classifier.batches(train_classifier.EpochBatches(x, y, index, 1, 4, 8), 0, False))
    assert not torch.equal(other_epoch[0], made[0][0][0])


def test_drowned_windows_are_only_dice_and_their_pips_are_gone_but_not_the_die(torch, monkeypatch) -> None:
    import train_classifier

    monkeypatch.setattr(train_classifier, "BLIND_SHARE", 0.5)
    side, die = train_classifier.GEOMETRY.window_px, train_classifier.GEOMETRY.die_px
    x = np.full((400, side, side, 3), 40, np.uint8)  # a dark floor
    lo, hi = int(side / 2 - die / 2), int(side / 2 + die / 2)
    x[:, lo:hi, lo:hi] = 230  # a white face
    pips = [(int(side / 2 + dy * die / 4), int(side / 2 + dx * die / 4)) for dy in (-1, 0, 1) for dx in (-1, 1)]
    for cy, cx in pips:  # a six's black pips, a quarter of the face apart
        x[:, cy - 2:cy + 3, cx - 2:cx + 3] = 0
    y = np.resize(np.arange(8), 400)
    drowned, targets = train_classifier.drowned_pips(x, y, np.random.default_rng(0))
    blind = targets == train_classifier.BLIND
    assert 0.3 < blind.sum() / np.isin(y, range(1, 7)).sum() < 0.7
    assert set(y[blind]) <= set(range(1, 7)) and np.array_equal(targets[~blind], y[~blind])
    assert np.array_equal(drowned[~blind], x[~blind]) and np.array_equal(x[0], np.asarray(drowned[0]))
    grey = drowned[blind].astype(float).mean(axis=3)

    def mean_at(cy: int, cx: int) -> np.ndarray:
        return grey[:, cy - 1:cy + 2, cx - 1:cx + 2].mean(axis=(1, 2))

    at_pips = np.mean([mean_at(cy, cx) for cy, cx in pips], axis=0)
    between_them = np.mean([mean_at(cy, side // 2) for cy, _ in pips[::2]], axis=0)
    assert np.all(between_them - at_pips < 0.15 * 230)  # the pips stand out of the face a seventh as much
    floor = grey[:, :4, :4].mean(axis=(1, 2))
    face = grey[:, lo + 3:hi - 3, lo + 3:hi - 3].mean(axis=(1, 2))
    assert np.all(face > floor + 40)  # the die still does


def test_a_drowned_window_is_taught_every_value_alike_and_without_one_the_loss_is_as_before(torch) -> None:
    import torch.nn.functional as F
    import train_classifier

    weight = torch.linspace(0.5, 2.0, 8)
    logits = torch.randn(6, 8, requires_grad=True)
    plain = torch.tensor([0, 1, 2, 3, 6, 7])
    assert torch.allclose(train_classifier.value_loss(logits, plain, weight),
                          F.cross_entropy(logits, plain, weight=weight))
    blind = torch.full((6,), train_classifier.BLIND)
    values_alike = torch.tensor([[-30.0] + [5.0] * 6 + [-30.0]])
    one_value = torch.tensor([[-30.0, 12.0] + [5.0] * 5 + [-30.0]])
    not_a_die = torch.tensor([[12.0] + [5.0] * 6 + [-30.0]])
    loss_of = {name: float(train_classifier.value_loss(z, blind[:1], weight))
               for name, z in (("alike", values_alike), ("one", one_value), ("none", not_a_die))}
    assert loss_of["alike"] < loss_of["one"] and loss_of["alike"] < loss_of["none"]
    mixed = torch.cat([plain[:3], blind[:3]])
    loss = train_classifier.value_loss(logits, mixed, weight)
    loss.backward()
    assert torch.isfinite(loss) and logits.grad[3:, 1:7].sum() < 0  # pushed toward the values


def test_a_drowned_window_taught_its_values_alone_leaves_whether_it_is_a_die_to_the_rest(torch) -> None:
    import torch.nn.functional as F
    import train_classifier

    weight = torch.linspace(0.5, 2.0, 8)
    blind = torch.full((1,), train_classifier.BLIND)

    def loss(z: list[float]) -> float:
        return float(train_classifier.value_loss(torch.tensor([z]), blind, weight, "values"))

    alike_die, alike_no_die = [-30.0] + [5.0] * 6 + [-30.0], [12.0] + [5.0] * 6 + [-30.0]
    assert loss(alike_die) == pytest.approx(loss(alike_no_die))  # a die or not: no matter
    assert loss(alike_die) < loss([-30.0, 12.0] + [5.0] * 5 + [-30.0])
    logits = torch.randn(4, 8, requires_grad=True)
    train_classifier.value_loss(logits, torch.tensor([2, 0, train_classifier.BLIND, train_classifier.BLIND]), weight,
                                "values").backward()
    assert torch.all(logits.grad[2:, [0, 7]] == 0) and torch.all(logits.grad[:2] != 0)
    plain = torch.tensor([0, 1, 2, 3])
    assert torch.allclose(train_classifier.value_loss(logits, plain, weight, "values"),
                          F.cross_entropy(logits, plain, weight=weight))


def test_a_blind_target_without_drowned_windows_is_refused_with_a_clear_message(capsys) -> None:
    import train_classifier

    with pytest.raises(SystemExit):
        train_classifier.main(["--blind-target", "values"])
    assert "--blind-target says what the windows of --blind-share are taught" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        train_classifier.main(["--blind-share", "1.5"])
    assert "--blind-share is a share of the dice's windows" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        train_classifier.main(["--held-game", "-1"])
    assert "--held-game is a number of scenes, 0 or more, got -1" in capsys.readouterr().err


def test_a_classifier_asked_for_a_gpu_where_there_is_none_stops_before_any_work(torch, tmp_path: Path, capsys) -> None:
    import train_classifier

    if torch.cuda.is_available():
        pytest.skip("this machine has a GPU")
    with pytest.raises(SystemExit) as stop:
        train_classifier.main(["--device", "cuda", "--work", str(tmp_path / "work"), "--synthetic", "1"])
    assert stop.value.code == 2
    assert "sees no GPU here" in capsys.readouterr().err
    assert not (tmp_path / "work").exists()


def test_a_classifier_run_stopped_after_a_checkpoint_ends_as_one_that_never_stopped(torch, tmp_path: Path) -> None:
    import train_classifier

    rng = np.random.default_rng(5)
    x = rng.integers(0, 255, (300, 48, 48, 3), dtype=np.uint8)
    y = np.arange(300) % 8
    source = np.where(np.arange(300) % 3 == 0, 0, -1)

    def run(checkpoint: Path, checks=None):
        return train_classifier.train(x, y, source, epochs=5, per_epoch=256, real_share=0.5, seed=2,
                                      checkpoint=checkpoint, checks=checks)

    whole = run(tmp_path / "whole.pt")

    def stop(_model) -> None:  # called after the fourth epoch's checkpoint is written
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        run(tmp_path / "stopped.pt", checks=stop)
    assert torch.load(tmp_path / "stopped.pt", weights_only=False)["epoch"] == 4
    resumed = run(tmp_path / "stopped.pt")
    for a, b in zip(whole.state_dict().values(), resumed.state_dict().values()):
        assert torch.equal(a, b)
    legs = torch.load(tmp_path / "stopped.pt", weights_only=False)["legs"]
    assert [(leg["device"], leg["done"]) for leg in legs] == [("cpu", [0, 4]), ("cpu", [4, 5])]
    assert [leg["done"] for leg in torch.load(tmp_path / "whole.pt", weights_only=False)["legs"]] == [[0, 5]]


def test_a_network_trained_in_stretches_on_two_machines_says_where_each_ran() -> None:
    checkpoints = scripts_module("checkpoints")
    close_leg, legs_with_new_one = checkpoints.close_leg, checkpoints.legs_with_new_one
    fresh = close_leg(legs_with_new_one(None, 0, "cuda", "2.11.0+cu130"), 15000, 7.04)
    assert fresh == [{"device": "cuda", "torch": "2.11.0+cu130", "done": [0, 15000], "minutes": 7.0}]
    resumed = close_leg(legs_with_new_one({"legs": fresh}, 15000, "cpu", "2.13.0+cpu"), 16000, 1.7)
    assert [(leg["device"], leg["torch"], leg["done"]) for leg in resumed] == [
        ("cuda", "2.11.0+cu130", [0, 15000]), ("cpu", "2.13.0+cpu", [15000, 16000])]
    assert fresh[0]["done"] == [0, 15000]  # the checkpoint's own record is not changed
    # a checkpoint written before the stretches were kept: its work is of an unknown place
    older = legs_with_new_one({"step": 3000}, 3000, "cpu", "2.13.0+cpu")
    assert [(leg["device"], leg["done"]) for leg in older] == [("unknown", [0, 3000]), ("cpu", [3000, 3000])]
    assert checkpoints.trained_legs(older) == older[:1]  # the stretch that did nothing is left out


def test_a_detector_trained_to_the_end_records_its_stretch_and_a_run_started_again_adds_none(
        torch, tmp_path: Path, monkeypatch) -> None:
    import train_detector

    out = tmp_path / "det.onnx"
    argv = ["train_detector.py", "--work", str(tmp_path / "work"), "--photos", str(tiny_photo_set(tmp_path / "photos", 2)),
            "--out", str(out), "--synthetic", "2", "--val-synthetic", "1", "--negatives", "2", "--steps", "4",
            "--batch", "2", "--checkpoint-every", "2", "--eval-every", "0", "--workers", "0"]
    monkeypatch.setattr(sys, "argv", argv)
    assert train_detector.main() == 0
    trained = json.loads(out.with_suffix(".json").read_text())["trained"]
    assert trained["negative_kinds"] == list(train_detector.DETECTOR_NEGATIVE_KINDS)
    first = trained["legs"]
    assert [(leg["device"], leg["torch"], leg["done"]) for leg in first] == [("cpu", torch.__version__, [0, 4])]
    assert train_detector.main() == 0  # finds the finished checkpoint: no stretch of no steps
    assert json.loads(out.with_suffix(".json").read_text())["trained"]["legs"] == first
    # the network measured along the way is its run's own, beside its checkpoint: another
    # recipe of the same seed in the same work folder leaves it be
    (checkpoint,) = (tmp_path / "work").glob("checkpoint-*.pt")
    measured = checkpoint.with_suffix(".onnx").read_bytes()
    monkeypatch.setattr(sys, "argv", argv + ["--steps", "2"])
    assert train_detector.main() == 0
    assert checkpoint.with_suffix(".onnx").read_bytes() == measured
    assert len(list((tmp_path / "work").glob("checkpoint-*.onnx"))) == 2


def tiny_photo_set(folder: Path, count: int) -> Path:
    """A photo set of `count` train photos of one pale die showing a one, under folder/tiny."""
    import cv2

    rng = np.random.default_rng(3)
    (folder / "tiny" / "images").mkdir(parents=True)
    rows = []
    for i in range(count):
        image = np.full((240, 320, 3), 90, np.uint8)
        image[100:140, 140:180] = 235
        cv2.circle(image, (160, 120), 5, (20, 20, 20), -1)
        cv2.imwrite(str(folder / "tiny" / "images" / f"{i}.png"), image + rng.integers(0, 9, image.shape, np.uint8))
        rows.append({"image": f"images/{i}.png", "split": "train", "dice": [{"value": 1, "box": [140, 100, 180, 140]}]})
    (folder / "tiny" / "manifest.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    return folder


def test_a_network_is_not_trained_on_photo_sets_copied_in_part(torch, tmp_path: Path, capsys) -> None:
    import train_classifier
    import train_detector

    photos = tiny_photo_set(tmp_path / "photos", 3)
    (photos / "elsewhere").symlink_to(tmp_path / "not-copied")  # a set whose folder did not travel
    detector = ["--work", str(tmp_path / "work"), "--photos", str(photos), "--synthetic", "1", "--val-synthetic", "1"]
    assert train_detector.main(detector) == 2
    assert "no manifest.jsonl in elsewhere" in capsys.readouterr().err
    (photos / "elsewhere").unlink()
    (photos / "tiny" / "images" / "1.png").unlink()  # a photo of a set that did
    assert train_detector.main(detector) == 2
    assert "1 train photos its manifests list are missing, tiny/images/1.png among them" in capsys.readouterr().err
    with pytest.raises(SystemExit) as stop:
        train_classifier.main(["--work", str(tmp_path / "work"), "--photos", str(photos), "--synthetic", "1"])
    assert stop.value.code == 2
    assert "tiny/images/1.png" in capsys.readouterr().err
    assert not (tmp_path / "work").exists()  # stopped before rendering a scene


def test_the_shared_photo_sets_are_whole(shared_dir: Path) -> None:
    assert scripts_module("photo_sets").missing_training_photos(shared_dir / "data" / "dice-photos") == ""


def test_a_classifier_trained_to_the_end_records_where_it_trained_and_what_it_was_taught_after(
        torch, tmp_path: Path) -> None:
    import train_classifier

    out = tmp_path / "values.onnx"
    assert train_classifier.main([
        "--photos", str(tiny_photo_set(tmp_path / "photos", 12)), "--work", str(tmp_path / "work"), "--out", str(out),
        "--synthetic", "2", "--marbled", "0", "--smoky", "0", "--game", "0", "--held-game", "2", "--negatives", "2",
        "--epochs", "1", "--per-epoch", "256", "--hard", "12", "--hard-epochs", "2", "--hard-photo-share", "0.05",
        "--hard-camouflaged", "2", "--hard-boards", "3", "--hard-text", "4", "--colours", "1",
        "--text-negatives", "2"]) == 0
    trained = json.loads(out.with_suffix(".json").read_text())["trained"]
    assert trained["held_out"]["game"]["dice"] > 0  # the two held-out game scenes are read after training
    assert trained["colours"] == 1 and trained["negatives"] == 2 and trained["text_negatives"] == 2
    assert [(leg["device"], leg["torch"], leg["done"]) for leg in trained["legs"]] == [("cpu", torch.__version__, [0, 1])]
    hard = trained["hard"]
    # the barely trained network keeps some detections in the twelve no-dice pictures as dice (the
    # shipped detector finds 2 to 3 things in the fourth and 9 to 11 in the twelfth, under OpenCV 4.14 or 5.0)
    assert hard["pictures"] == 12 and hard["dice_found"] > 0 and hard["scales"] == [1.0, 1.25]
    # one of the twelve photos is held out; the reader finds the one die of the others, on its label
    photos = hard["photos"]
    assert photos["share"] == 0.05 and photos["pictures"] == 11
    assert 0 < photos["on_labels"] <= photos["dice_found"]
    assert hard["camouflaged"] == {"scenes": 2, "share": 0.05}
    # the barely trained reader finds something on the three boards: dice, tokens or markers
    boards = hard["boards"]
    assert boards["scenes"] == 3 and boards["share"] == 0.05 and 0 <= boards["on_dice"] <= boards["dice_found"]
    assert boards["dice_found"] > 0
    assert hard["text"]["pictures"] == 4 and hard["text"]["dice_found"] > 0  # the shipped detector finds letters
    assert [(leg["device"], leg["done"]) for leg in hard["legs"]] == [("cpu", [0, 2])]
    before = tmp_path / "work" / "values-before-hard.onnx"
    assert "hard" not in json.loads(before.with_suffix(".json").read_text())["trained"]
    # it is saved with both temperatures, each from the grid the fits search
    saved = json.loads(out.with_suffix(".json").read_text())
    assert {saved["temperature"], saved["value_temperature"]} <= set(train_classifier.TEMPERATURES.tolist())
    assert before.read_bytes() != out.read_bytes()


def test_a_classifier_loaded_from_its_onnx_file_reads_as_the_network_it_was_and_keeps_its_norms_frozen(
        torch, tmp_path: Path) -> None:
    import train_classifier

    torch.manual_seed(6)
    model = train_classifier.make_model()
    for module in model.modules():  # batch norm statistics as after training, not the identity
        if isinstance(module, torch.nn.BatchNorm2d):
            module.running_mean.uniform_(-0.5, 0.5)
            module.running_var.uniform_(0.5, 2.0)
    model.eval()
    path = tmp_path / "values.onnx"
    train_classifier.export_onnx(model, path, {"temperature": 1.0})
    loaded = train_classifier.model_from_onnx(path)
    x = torch.from_numpy(np.random.default_rng(7).standard_normal((4, 4, 48, 48)).astype(np.float32))
    loaded.eval()
    with torch.no_grad():
        want = model(x)
        np.testing.assert_allclose(loaded(x).numpy(), want.numpy(), rtol=1e-4, atol=1e-4)
        loaded.train()
        train_classifier.freeze_folded_norms(loaded)
        norms = [m for m in loaded.modules() if isinstance(m, torch.nn.BatchNorm2d)]
        assert norms and not any(m.training for m in norms)
        loaded(x)  # a training step's forward pass does not move the statistics
        assert all(torch.equal(m.running_mean, torch.zeros_like(m.running_mean)) for m in norms)


def test_a_deeper_stage_adds_convs_there_and_a_network_of_one_conv_a_stage_keeps_its_modules(torch) -> None:
    train_detector = scripts_module("train_detector")
    plain = train_detector.torch_model()
    deeper = train_detector.torch_model(train_detector.Layout(), (1, 1, 2, 3))
    # one conv a stage, named, is the default network module for module: its checkpoints load
    one_each = train_detector.torch_model(train_detector.Layout(), (1, 1, 1, 1))
    assert set(one_each.state_dict()) == set(plain.state_dict())
    assert {k for k in deeper.state_dict() if not k.startswith(("conv.2.", "conv.3."))} == \
        {k for k in plain.state_dict() if not k.startswith(("conv.2.", "conv.3."))}
    convs = [sum(isinstance(m, torch.nn.Conv2d) for m in stage.modules()) for stage in deeper.conv]
    assert convs == [1, 1, 2, 3]


@pytest.mark.parametrize(("counts", "says"), [("1,1,2", "one count from 1 to 4 for each of the 4 stages"),
                                              ("1,1,0,1", "one count from 1 to 4"),
                                              ("1,x,1,1", "give a count of convs")])
def test_a_stage_depth_that_cannot_be_built_is_refused_with_a_clear_message(counts: str, says: str, capsys) -> None:
    with pytest.raises(SystemExit) as stop:
        scripts_module("train_detector").parse_options(["--stage-convs", counts])
    assert stop.value.code == 2
    assert says in capsys.readouterr().err


def test_pictures_of_printed_words_added_to_the_training_change_its_windows_key_and_only_then() -> None:
    train_classifier = scripts_module("train_classifier")
    plain = train_classifier.negatives_key("k", 2000, 0)
    # the key runs made before the option existed: their cached windows and checkpoints stay theirs
    assert plain == "k|2000 text,grid,checkerboard,gradient,noise,wood,headline"
    with_text = {train_classifier.negatives_key("k", 2000, n) for n in (1000, 2000)}
    assert plain not in with_text and len(with_text) == 2
    assert train_classifier.option_parser().parse_args(["--text-negatives", "500"]).text_negatives == 500
    # the lab's faces make other windows; the default kinds keep the key they had before
    lab_kinds = ("lab-text", "lab-headline")
    assert train_classifier.negatives_key("k", 2000, 1000, ("text", "headline")) in with_text
    assert train_classifier.negatives_key("k", 2000, 1000, lab_kinds) not in with_text | {plain}
    assert train_classifier.negatives_key("k", 2000, 0, lab_kinds) == plain  # no printed words added, no kinds
    reads_with = "r"
    assert train_classifier.hard_text_key(2000, ("text", "headline"), reads_with) \
        == f"reader mistakes text|2000|{train_classifier.HARD_SCALES}|r"
    assert train_classifier.hard_text_key(2000, lab_kinds, reads_with) \
        != train_classifier.hard_text_key(2000, ("text", "headline"), reads_with)


def test_the_kinds_of_printed_words_are_named_on_the_command_line(torch, capsys) -> None:
    train_classifier = scripts_module("train_classifier")
    parse = train_classifier.option_parser().parse_args
    assert parse([]).text_kinds == "text,headline"
    with pytest.raises(SystemExit):
        train_classifier.main(["--text-kinds", "lab-text,wood", "--render-only", "--work", "/nonexistent/x"])
    assert "--text-kinds 'lab-text,wood': give some of text, headline, lab-text, lab-headline" in capsys.readouterr().err
    with pytest.raises(SystemExit):  # kinds of pictures nothing draws are a mistake, not a no-op
        train_classifier.main(["--text-kinds", "lab-text", "--render-only", "--work", "/nonexistent/x"])
    assert "--text-kinds chooses the printed words of --text-negatives and --hard-text" in capsys.readouterr().err


def test_fine_tunings_of_one_network_with_other_seeds_or_lessons_do_not_resume_each_other(tmp_path: Path,
                                                                                          monkeypatch) -> None:
    import argparse

    train_classifier = scripts_module("train_classifier")
    lesson = dict(hard=4000, hard_epochs=3, hard_share=0.3, hard_photo_share=0.15, hard_camouflaged=0, hard_boards=0,
                  hard_photo_count=False, hard_text=0, text_kinds=("text", "headline"))

    def checkpoint(after: str = "start-0123456789ab", net_seed: int = 1, **changes) -> Path:
        return train_classifier.fine_tuning_checkpoint(tmp_path, after, net_seed, argparse.Namespace(**{**lesson, **changes}))

    plain = checkpoint()
    assert checkpoint() == plain
    others = {checkpoint(net_seed=2), checkpoint(after="start-ba9876543210"), checkpoint(hard=2000),
              checkpoint(hard_epochs=4), checkpoint(hard_share=0.2), checkpoint(hard_photo_share=0.3),
              checkpoint(hard_camouflaged=500), checkpoint(hard_boards=1000), checkpoint(hard_photo_count=True),
              checkpoint(hard_text=1000), checkpoint(hard_text=1000, text_kinds=("lab-text", "lab-headline"))}
    assert plain not in others and len(others) == 11
    assert checkpoint(text_kinds=("lab-text",)) == plain  # the kinds of no pictures read teach nothing
    monkeypatch.setattr(train_classifier, "GEOMETRY", dataclasses.replace(train_classifier.GEOMETRY, upright=True))
    assert checkpoint() not in others | {plain}  # upright windows teach another network


def test_upright_windows_keep_their_quarter_turns_only_where_a_scene_has_no_up(tmp_path: Path) -> None:
    data = scripts_module("classifier_data")
    from vision.reader.windows import DEFAULT

    upright = dataclasses.replace(DEFAULT, upright=True)
    # scenes 0 and 1 of the wide kind, seed 1: cameras leaning 4.5 and 12.3 degrees
    low, steep = (data.synthetic_scene(1, i, "wide") for i in (0, 1))
    assert data.camera_lean_deg(low) == pytest.approx(data.synthetic_spec(1, 0, "wide").camera.tilt_deg)
    assert data.camera_lean_deg(low) < 5 < data.camera_lean_deg(steep)
    no_dice = data.negative_scenes(1, 8)[0]
    photo = dataclasses.replace(low, name="IMG_1", real=True, set_name="a set")
    assert data.camera_lean_deg(no_dice) == 0 and data.camera_lean_deg(photo) is None
    assert [data.window_geometry(s, upright, 5).upright for s in (low, steep, no_dice, photo)] == [False, True, False, True]
    assert all(data.window_geometry(s, upright, 0) == upright for s in (low, steep, no_dice, photo))
    assert all(data.window_geometry(s, DEFAULT, 5) == DEFAULT for s in (low, steep, no_dice, photo))

    def windows(scene, geometry: object, below: float) -> np.ndarray:
        return data.scene_windows([scene], 1, 9, geometry, 1, below, per_die=2, negatives_per_die=1.0,
                                  background=2)[0]

    # the scene seen from above is cut as a plain run cuts it, the oblique one stays upright
    np.testing.assert_array_equal(windows(low, upright, 5), windows(low, DEFAULT, 0))
    assert not np.array_equal(windows(low, upright, 5), windows(low, upright, 0))
    np.testing.assert_array_equal(windows(steep, upright, 5), windows(steep, upright, 0))
    np.testing.assert_array_equal(data.detector_windows([low], 4, upright, 0.2, 1, turned_below_deg=5)[0],
                                  data.detector_windows([low], 4, DEFAULT, 0.2, 1)[0])


def test_photos_of_sets_seen_from_above_are_turned_as_scenes_from_above(monkeypatch) -> None:
    data = scripts_module("classifier_data")
    train_classifier = scripts_module("train_classifier")
    from vision.reader.windows import DEFAULT

    upright = dataclasses.replace(DEFAULT, upright=True)
    scene = data.synthetic_scene(1, 0, "wide")
    top, low = (dataclasses.replace(scene, name=f"{name}/IMG_1", real=True, set_name=name) for name in ("top", "low"))
    plain_key = train_classifier.photo_windows_key(train_classifier.detector.MODEL_PATHS)
    monkeypatch.setattr(train_classifier, "PHOTOS_FROM_ABOVE", ("top",))
    marked = train_classifier.seen_from_above([top, low])
    assert [data.camera_lean_deg(p) for p in marked] == [0.0, None]
    assert [p.name for p in marked] == [top.name, low.name] and marked[0].encoded is top.encoded
    assert [data.window_geometry(p, upright, 5).upright for p in marked] == [False, True]
    assert data.window_geometry(marked[0], upright, 0).upright  # only where quarter turns are asked for
    assert data.window_geometry(marked[0], DEFAULT, 5) == DEFAULT
    np.testing.assert_array_equal(
        data.scene_windows([marked[0]], 1, 9, upright, 1, 5, per_die=2, negatives_per_die=1.0, background=2)[0],
        data.scene_windows([top], 1, 9, DEFAULT, 1, 0, per_die=2, negatives_per_die=1.0, background=2)[0])
    np.testing.assert_array_equal(
        data.scene_windows([marked[1]], 1, 9, upright, 1, 5, per_die=2, negatives_per_die=1.0, background=2)[0],
        data.scene_windows([low], 1, 9, upright, 1, 0, per_die=2, negatives_per_die=1.0, background=2)[0])
    # the photos' windows, checkpoints and the reader's finds are keyed apart; runs made before keep theirs
    turned_key = train_classifier.photo_windows_key(train_classifier.detector.MODEL_PATHS)
    assert turned_key != plain_key and turned_key.startswith(plain_key)


def test_quarter_turns_among_upright_windows_are_cut_and_trained_apart(monkeypatch) -> None:
    train_classifier = scripts_module("train_classifier")
    keys = set()
    for upright, below in ((False, 0.0), (True, 0.0), (True, 5.0), (True, 10.0)):
        monkeypatch.setattr(train_classifier, "GEOMETRY", dataclasses.replace(train_classifier.GEOMETRY,
                                                                              upright=upright))
        monkeypatch.setattr(train_classifier, "TURNED_BELOW_DEG", below)
        keys.add(train_classifier.windows_turned())
    assert len(keys) == 4 and "" in keys and "|upright" in keys  # runs made before keep their caches


@pytest.mark.parametrize("options, says", [(["--turn-from-above", "5"], "give --upright too"),
                                           (["--upright", "--turn-from-above", "-1"], "0 or more degrees"),
                                           (["--upright", "--photos-from-above", "nell-byler"],
                                            "give that too"),
                                           (["--upright", "--turn-from-above", "5", "--photos-from-above",
                                             "no-such-set"], "no photo set no-such-set")])
def test_quarter_turns_among_upright_windows_are_refused_where_they_mean_nothing(torch, options: list[str], says: str,
                                                                                capsys) -> None:
    import train_classifier

    with pytest.raises(SystemExit) as stop:
        train_classifier.main(options)
    assert stop.value.code == 2 and says in capsys.readouterr().err


def test_the_classifier_s_board_scenes_are_lab_synths_boards_with_their_dice_labelled() -> None:
    data = scripts_module("classifier_data")
    from lab.synth import render
    from lab.synth.boards import boards_spec

    for i in range(2):
        scene = data.synthetic_scene(7016, i, "boards")
        want = render(boards_spec(np.random.default_rng([7016, i]))).labels
        assert scene.name == f"synth-boards-7016-{i}" and scene.image().shape[:2] in ((480, 640), (640, 640), (640, 480))
        assert [round(die.size, 3) for die in scene.dice] == [round(label.size, 3) for label in want]
        assert all(die.label in (*range(1, 7), data.COCKED, data.IGNORE) for die in scene.dice)


def test_a_classifier_started_from_a_network_only_fine_tunes_it(torch, tmp_path: Path, capsys) -> None:
    import train_classifier

    from vision.reader.classifier import ValueNet

    photos = str(tiny_photo_set(tmp_path / "photos", 12))
    tiny = ["--photos", photos, "--work", str(tmp_path / "work"), "--synthetic", "2", "--marbled", "0", "--smoky", "0",
            "--game", "0", "--held-game", "0", "--negatives", "2", "--per-epoch", "256"]
    start = tmp_path / "start.onnx"
    assert train_classifier.main(tiny + ["--epochs", "1", "--out", str(start)]) == 0
    out = tmp_path / "tuned.onnx"
    assert train_classifier.main(tiny + ["--start-from", str(start), "--hard", "12", "--hard-epochs", "1",
                                         "--out", str(out)]) == 0
    trained = json.loads(out.with_suffix(".json").read_text())["trained"]
    assert "game" not in trained["held_out"]  # --held-game 0: no game scenes to read after training
    assert trained["start_from"]["file"] == "start.onnx"
    assert "epochs" not in trained and "legs" not in trained  # it trained no epochs of its own
    assert [leg["done"] for leg in trained["hard"]["legs"]] == [[0, 1]]
    assert out.read_bytes() != start.read_bytes()
    # upright windows: cut anew, fine-tuned on its own checkpoint, and read upright by the reader
    upright = tmp_path / "upright.onnx"
    assert train_classifier.main(tiny + ["--start-from", str(start), "--hard", "12", "--hard-epochs", "1", "--upright",
                                         "--out", str(upright)]) == 0
    meta = json.loads(upright.with_suffix(".json").read_text())
    assert meta["upright"] is True and [leg["done"] for leg in meta["trained"]["hard"]["legs"]] == [[0, 1]]
    assert ValueNet(upright).geometry.upright
    assert "upright" not in json.loads(out.with_suffix(".json").read_text())
    assert "turned_from_above_deg" not in meta["trained"]
    turned = tmp_path / "turned.onnx"
    assert train_classifier.main(tiny + ["--start-from", str(start), "--hard", "12", "--hard-epochs", "1", "--upright",
                                         "--turn-from-above", "5", "--out", str(turned)]) == 0
    meta = json.loads(turned.with_suffix(".json").read_text())
    assert meta["upright"] is True and meta["trained"]["turned_from_above_deg"] == 5
    assert "photos_from_above" not in meta["trained"]
    assert train_classifier.main(tiny + ["--start-from", str(start), "--hard", "12", "--hard-epochs", "1", "--upright",
                                         "--turn-from-above", "5", "--photos-from-above", "tiny", "--hard-photo-share",
                                         "0.2", "--out", str(turned)]) == 0
    assert json.loads(turned.with_suffix(".json").read_text())["trained"]["photos_from_above"] == ["tiny"]
    with pytest.raises(SystemExit) as stop:
        train_classifier.main(tiny + ["--start-from", str(start), "--out", str(out)])
    assert stop.value.code == 2 and "only fine-tunes" in capsys.readouterr().err
    with pytest.raises(SystemExit, match="are not those of --widths 24,48,96 --hidden 64"):
        train_classifier.main(tiny + ["--start-from", str(start), "--hard", "4", "--hidden", "64", "--out", str(out)])
    (tmp_path / "broken.onnx").write_bytes(b"not a network")
    with pytest.raises(SystemExit, match="cannot read it as ONNX"):
        train_classifier.main(tiny + ["--start-from", str(tmp_path / "broken.onnx"), "--hard", "4", "--out", str(out)])


def test_the_reader_s_own_dice_become_windows_at_its_looks_classed_by_the_label_they_lie_on(tmp_path: Path) -> None:
    import cv2

    data = scripts_module("classifier_data")
    from vision.reader import classifier, detector
    from vision.reader.reader import read_dice
    from vision.reader.windows import Geometry

    die = cv2.imread(str(next((tiny_photo_set(tmp_path, 1) / "tiny" / "images").iterdir())))
    blank = np.full_like(die, 90)
    found = read_dice(die).dice
    assert len(found) == 1 and not read_dice(blank).dice

    def scene(name: str, image: np.ndarray, dice: list) -> object:
        return data.Scene(name, cv2.imencode(".png", image)[1].tobytes(), dice, bool(dice))

    on_label = [data.Die(160, 120, 40, 0, 1)]
    beside = [data.Die(160 + 30, 120, 40, 0, 1)]  # a label three quarters of an edge away: not this die
    ignored = [data.Die(160, 120, 40, 0, data.IGNORE)]
    scenes = [scene("no die", die, []), scene("blank", blank, []), scene("labelled", die, on_label),
              scene("beside", die, beside), scene("ignored", die, ignored)]
    geometry = Geometry(48, 36.0)
    x, y = data.reader_find_windows(scenes, 4, geometry, (1.0, 1.25), detector.MODEL_PATH, classifier.MODEL_PATH)
    assert x.shape == (12, 48, 48, 3)
    assert y.tolist() == [data.NOT_A_DIE] * 4 + [1] * 4 + [data.NOT_A_DIE] * 4
    assert (x[:, 22:26, 22:26].mean(axis=(1, 2, 3)) < 150).all()  # on the pip: cut where the reader found the die
    assert x[:2].mean() > x[2:4].mean() + 10  # the looks a quarter larger take in more of the grey around it


def test_the_reader_reads_the_photos_told_their_dice_count_only_when_asked(monkeypatch) -> None:
    import cv2

    data = scripts_module("classifier_data")
    from vision.reader import classifier, detector
    from vision.reader.windows import Geometry
    from vision.reading import Reading

    counts = []
    monkeypatch.setattr(data, "read_dice", lambda image, expected=None: counts.append(expected) or Reading((), ()))
    encoded = cv2.imencode(".png", np.full((240, 320, 3), 90, np.uint8))[1].tobytes()
    dice = [data.Die(100, 100, 40, 0, 3), data.Die(200, 100, 40, 0, 5)]
    scenes = [data.Scene("photo", encoded, dice, True, "tiny"), data.Scene("synthetic", encoded, dice, False)]
    for with_count in (False, True):
        data.reader_find_windows(scenes, 4, Geometry(48, 36.0), (1.0,), detector.MODEL_PATH, classifier.MODEL_PATH,
                                 with_count=with_count)
    # the device's count is the photo's labelled dice; synthetic scenes are read as before
    assert counts == [None, None, 2, None]


def test_a_dice_count_for_photos_that_are_not_read_is_refused_with_a_clear_message(torch, capsys) -> None:
    import train_classifier

    with pytest.raises(SystemExit) as stop:
        train_classifier.main(["--hard", "10", "--hard-photo-count"])
    assert stop.value.code == 2 and "give that too" in capsys.readouterr().err


def test_fine_tuning_draws_each_pool_s_share_of_windows_from_the_reader_s_finds(torch) -> None:
    import train_classifier

    source = np.array([0] * 40 + [1] * 40 + [-1] * 120)
    index = train_classifier.hard_epoch_index(source, [(30, 0.05), (10, 0.1)], 1000, 0.5, np.random.default_rng(1))
    assert len(index) == 1000
    mistakes = index[(index >= len(source)) & (index < len(source) + 30)]
    photos = index[index >= len(source) + 30]
    assert len(mistakes) == 50 and len(photos) == 100 and photos.max() < len(source) + 40
    rest = source[index[index < len(source)]]
    assert abs((rest >= 0).mean() - 0.5) < 0.01  # the rest drawn as in training: half from the photos
    alone = train_classifier.hard_epoch_index(source, [(30, 0.05), (10, 0.0)], 1000, 0.5, np.random.default_rng(1))
    assert (alone >= len(source)).sum() == 50 and alone.max() < len(source) + 30
    joined = train_classifier.Joined(np.arange(5), np.arange(100, 103), np.arange(200, 202))
    assert len(joined) == 10 and joined[np.array([6, 0, 9, 4, 5, 8])].tolist() == [101, 0, 201, 4, 100, 200]


def test_train_photos_of_a_shot_in_any_test_split_are_left_out(tmp_path: Path) -> None:
    photo_sets = scripts_module("photo_sets")

    def manifest(name: str, rows: list[tuple[str, str]]) -> None:
        (tmp_path / name).mkdir()
        (tmp_path / name / "manifest.jsonl").write_text("".join(
            json.dumps({"image": image, "split": split, "dice": [{"value": 3, "box": [0, 0, 10, 10]}]}) + "\n"
            for image, split in rows))

    # one set re-exported another's phone photos under longer names, on the other side of the split
    manifest("phone", [(f"images/train/IMG_20191209_0954{i:02d}.jpg", "train") for i in range(10)]
             + [("images/test/IMG_20191209_100030.jpg", "test")])
    manifest("export", [("images/test/IMG_20191209_095403_jpg_aa4e32e7.jpg", "test"),
                        ("images/train/IMG_20191209_100030_jpg_1bd0c2f3.jpg", "train"),
                        ("images/train/00019_jpg_76c950ac.jpg", "train")])
    photos = photo_sets.training_photos(tmp_path / "cache", tmp_path)
    names = sorted(p.path.name for p in photos)
    assert "IMG_20191209_095403.jpg" not in names and "IMG_20191209_100030_jpg_1bd0c2f3.jpg" not in names
    assert len(names) == 10 and "00019_jpg_76c950ac.jpg" in names  # a name with no camera shot stays
    # the held-out photo is still the tenth of the manifest's train photos, as lab.reader_eval reads it
    assert [p.path.name for p in photos if p.held_out] == ["IMG_20191209_095409.jpg"]


def test_a_tall_box_is_centred_on_its_top_face_only_when_asked(tmp_path: Path) -> None:
    train_detector, photo_sets = scripts_module("train_detector"), scripts_module("photo_sets")
    (tmp_path / "phone" / "images").mkdir(parents=True)
    cv2.imwrite(str(tmp_path / "phone" / "images" / "a.png"), np.full((400, 400, 3), 90, np.uint8))
    boxes = [[100, 40, 140, 140], [10, 10, 50, 50], [200, 300, 300, 340]]  # tall (seen from the front), square, wide
    (tmp_path / "phone" / "manifest.jsonl").write_text(json.dumps(
        {"image": "images/a.png", "split": "train", "dice": [{"value": 4, "box": b} for b in boxes]}) + "\n")
    (photo,) = photo_sets.training_photos(tmp_path / "cache", tmp_path)
    assert [d.center for d in photo.dice] == [(120, 90), (30, 30), (250, 320)]
    assert [d.center for d in train_detector.photo_sample(photo).dice] == [(120, 90), (30, 30), (250, 320)]
    # the tall die's top face: the 40 x 40 square at the top of its box; the others keep their centres
    top = train_detector.photo_sample(photo, top_faces=True).dice
    assert [d.center for d in top] == [(120, 60), (30, 30), (250, 320)]
    # the die's extent stays the box's longer side either way
    assert [d.box_side for d in top] == [100, 40, 100]


@pytest.mark.parametrize("options, asked_for", [
    ([], (False, False)), (["--top-faces"], (True, False)),
    (["--top-faces", "--side-weight", "4"], (True, False)),
    (["--top-faces", "--side-weight", "4", "--photo-sides"], (True, True))])
def test_the_detector_trains_on_top_faces_and_weighs_photos_front_faces_when_asked(
        torch, tmp_path: Path, monkeypatch, options, asked_for) -> None:
    train_detector, photo_sets = scripts_module("train_detector"), scripts_module("photo_sets")
    die = photo_sets.PhotoDie((5, 5), 10, 3, False)
    photos = [photo_sets.Photo("phone", tmp_path / "a.png", (die,)),
              photo_sets.Photo("phone", tmp_path / "b.png", (die,), held_out=True)]
    asked = []

    def photo_sample(photo, top_faces=False, photo_sides=False):
        asked.append((photo.held_out, top_faces, photo_sides))
        if photo.held_out:
            raise InterruptedError("the photos' samples are all this test looks at")

    monkeypatch.setattr(train_detector, "render_synthetic", lambda *_args, **_kwargs: None)
    monkeypatch.setattr(train_detector.photo_sets, "missing_training_photos", lambda _root: "")
    monkeypatch.setattr(train_detector.photo_sets, "training_photos", lambda *_args, **_kwargs: photos)
    monkeypatch.setattr(train_detector, "photo_sample", photo_sample)
    with pytest.raises(InterruptedError):
        train_detector.main(["--work", str(tmp_path), *options])
    # the held-out photos that measure the run are centred as its training photos are, their faces never weighed
    top_faces, photo_sides = asked_for
    assert asked == [(False, top_faces, photo_sides), (True, top_faces, False)]


def test_the_classifier_mines_and_finds_faces_with_the_detector_file_it_is_given(tmp_path: Path, monkeypatch) -> None:
    import cv2

    from vision.reader.detector import Detection
    from vision.reader.windows import DEFAULT

    photo_sets = scripts_module("photo_sets")
    data = scripts_module("classifier_data")
    asked: list[Path] = []

    class Fake:  # finds one die-sized face at the picture's centre
        def __init__(self, path: Path) -> None:
            self.path = path

        def detect(self, image: np.ndarray, threshold: float) -> list[Detection]:
            asked.append(self.path)
            h, w = image.shape[:2]
            return [Detection(((w - 1) / 2, (h - 1) / 2), w / 2, 10.0, 0.9, 0.0)]

    monkeypatch.setattr(photo_sets, "detector_at", Fake)
    candidate = tmp_path / "candidate.onnx"
    candidate.write_bytes(b"a candidate detector")

    scenes = data.negative_scenes(1, 8, 1)
    _, classes = data.detector_windows(scenes, 4, DEFAULT, 0.2, 1, candidate)
    assert asked == [candidate] and list(classes) == [data.NOT_A_DIE] * 2  # no die there: not a die, twice

    (tmp_path / "tomitomi" / "crops").mkdir(parents=True)
    cv2.imwrite(str(tmp_path / "tomitomi" / "crops" / "a.png"), np.full((128, 128, 3), 200, np.uint8))
    (tmp_path / "tomitomi" / "manifest.jsonl").write_text(json.dumps(
        {"image": "crops/a.png", "split": "train", "dice": [{"value": 4, "box": [0, 0, 128, 128]}]}) + "\n")
    asked.clear()
    photos = photo_sets.training_photos(tmp_path / "cache", tmp_path, detector=candidate)
    assert asked == [candidate]
    assert [d.center for p in photos for d in p.dice] == [(63.5, 63.5)]
    assert (tmp_path / "cache" / f"faces-tomitomi-train-{photo_sets.faces_hash(candidate)}.json").exists()


def test_a_whole_crops_face_is_a_die_sized_detection_near_its_centre(monkeypatch) -> None:
    from vision.reader.detector import Detection

    photo_sets = scripts_module("photo_sets")
    found: list[Detection] = []

    class Fake:
        def __init__(self, path: Path) -> None:
            pass

        def detect(self, image: np.ndarray, threshold: float) -> list[Detection]:
            return found

    monkeypatch.setattr(photo_sets, "detector_at", Fake)
    crop = np.zeros((128, 128, 3), np.uint8)
    pip = Detection((64.0, 63.0), 24.0, 0.0, 0.95, 0.0)  # a one's big pip: no face
    far = Detection((20.0, 20.0), 60.0, 0.0, 0.9, 0.0)  # the tube's edge, off the centre
    tube = Detection((63.5, 63.5), 100.0, 0.0, 0.9, 0.0)  # the whole tube's mouth
    face = Detection((62.0, 61.0), 58.0, 30.0, 0.6, 0.0)
    found[:] = [pip, far, tube]
    assert photo_sets.found_face(crop) is None
    found.append(face)
    assert photo_sets.found_face(crop) == (62.0, 61.0, 58.0, 30.0)


def test_the_faces_of_dark_dice_showing_one_are_found_as_big_as_light_ones(shared_dir: Path) -> None:
    # The face is looked for in the crop as it is: padded to three times its size, tomitomi's
    # dark dice showing a one came out half again their size or not at all.
    import cv2

    photo_sets = scripts_module("photo_sets")
    root = shared_dir / "data" / "dice-photos"
    if not (root / "tomitomi" / "manifest.jsonl").is_file():
        pytest.skip(f"needs the tomitomi photos at {root / 'tomitomi'}")
    sizes: dict[bool, list[float | None]] = {True: [], False: []}
    for row in photo_sets.manifest_rows(root, "tomitomi", "train")[::3]:
        if row["dice"][0]["value"] != 1:
            continue
        image = cv2.imread(str(root / "tomitomi" / row["image"]), cv2.IMREAD_COLOR)
        h, w = image.shape[:2]
        dark = float(np.median(image[h // 2 - 25:h // 2 + 25, w // 2 - 25:w // 2 + 25])) < 100
        face = photo_sets.found_face(image)
        sizes[dark].append(None if face is None else face[2])
    dark, light = ([s for s in sizes[k] if s is not None] for k in (True, False))
    assert len(sizes[True]) >= 30 and len(sizes[False]) >= 30
    assert len(dark) >= 0.95 * len(sizes[True]) and len(light) >= 0.95 * len(sizes[False])
    assert abs(float(np.median(dark)) / float(np.median(light)) - 1) < 0.15


@pytest.mark.parametrize("kind, seed", [("steep", 7002), ("blending", 7003), ("crowded", 7004),
                                               ("boards", 7006)])
def test_the_detectors_added_scenes_are_lab_synths_scenes_of_that_kind(tmp_path: Path, kind: str, seed: int) -> None:
    # the steep ones are the close, low views the classifier's --steep adds
    train_detector = scripts_module("train_detector")
    from lab.synth import render

    spec = getattr(importlib.import_module(f"lab.synth.{kind}"), f"{kind}_spec")
    train_detector.render_synthetic(tmp_path, 2, seed, kind=kind)
    for i in range(2):
        labels = json.loads((tmp_path / f"{i:06d}.json").read_text())
        want = render(spec(np.random.default_rng([seed, i]))).labels
        assert labels and [round(label["size"], 3) for label in labels] == [round(label.size, 3) for label in want]
        assert [label["box"] for label in labels] == [list(label.box) for label in want]


def test_a_classifier_run_that_only_prepares_its_data_says_it_is_done(torch, tmp_path: Path, capsys) -> None:
    import train_classifier

    work = tmp_path / "work"
    assert train_classifier.main(["--photos", str(tiny_photo_set(tmp_path / "photos", 12)), "--work", str(work),
                                  "--synthetic", "2", "--marbled", "0", "--smoky", "0", "--game", "0",
                                  "--held-game", "2", "--negatives", "2", "--prepare-only"]) == 0
    out = capsys.readouterr().out
    assert "windows: " in out and f"prepared in {work}" in out
    assert list(work.glob("windows-*.npz")), "the windows are cached for the run that trains"


@pytest.mark.parametrize("upright", [False, True])
def test_the_temperature_is_fitted_to_the_probabilities_the_reader_gives(tmp_path: Path, monkeypatch,
                                                                        upright: bool) -> None:
    from lab.synth import BackgroundSpec, DieSpec, SceneSpec, render
    from vision.reader import classifier
    from vision.reader.windows import cut_windows, window_channels

    train_classifier = scripts_module("train_classifier")
    shipped = classifier.MODEL_PATH
    model = tmp_path / "values.onnx"
    model.write_bytes(shipped.read_bytes())
    model.with_suffix(".json").write_text(json.dumps({**json.loads(shipped.with_suffix(".json").read_text()),
                                                      "temperature": 0.8, "upright": upright}))
    net = classifier.ValueNet(model)
    monkeypatch.setattr(train_classifier, "GEOMETRY", net.geometry)
    out = render(SceneSpec(width=320, height=240, background=BackgroundSpec("felt", (60, 110, 40)),
                           dice=tuple(DieSpec(v, (50 * v, 120), 40, angle=17 * v) for v in range(1, 6))))
    # windows on the dice, a little off them and half on them: some read surely, some looked at again
    boxes = [(x + dx * 40, y, 40 * k, a) for (x, y), _, a in [(d.center, d.size, d.angle) for d in out.labels]
             for dx, k in ((0.0, 1.0), (0.25, 1.1), (0.5, 0.9))]
    windows = cut_windows(out.image, boxes, net.geometry)
    looks = train_classifier.all_look_logits(net, windows)
    assert looks.shape == (2 if upright else 4, len(boxes), len(classifier.CLASS_NAMES))
    first = classifier.softmax(looks[0] / 0.8)
    assert classifier.needs_second_look(first).any() and not classifier.needs_second_look(first).all()
    assert net.value_temperature != 1.0  # the shipped network's, sharpening its values after the looks
    np.testing.assert_allclose(train_classifier.auto_probabilities(looks, 0.8, net.value_temperature),
                               classifier.read_windows(window_channels(windows, net.geometry), "auto", net),
                               rtol=1e-5, atol=1e-6)


def test_a_mixed_sets_greyscale_photos_alone_are_seen_from_above(monkeypatch) -> None:
    data = scripts_module("classifier_data")
    train_classifier = scripts_module("train_classifier")
    scene = data.synthetic_scene(1, 0, "wide")
    grey_bgr = cv2.cvtColor(cv2.cvtColor(scene.image(), cv2.COLOR_BGR2GRAY), cv2.COLOR_GRAY2BGR)
    grey_jpeg = cv2.imencode(".jpg", grey_bgr)[1].tobytes()  # JPEG's own noise kept
    colour, grey, other = (dataclasses.replace(scene, name=f"mixed/{n}", real=True, set_name=s, encoded=e)
                           for n, s, e in (("PXL_1", "mixed", scene.encoded), ("IMG_2", "mixed", grey_jpeg),
                                           ("IMG_3", "other", grey_jpeg)))
    assert data.is_greyscale(grey.image()) and not data.is_greyscale(colour.image())
    monkeypatch.setattr(train_classifier, "PHOTOS_FROM_ABOVE", ("mixed:grey",))
    marked = train_classifier.seen_from_above([colour, grey, other])
    assert [data.camera_lean_deg(p) for p in marked] == [None, 0.0, None]
    part_key = train_classifier.photo_windows_key(train_classifier.detector.MODEL_PATHS)
    monkeypatch.setattr(train_classifier, "PHOTOS_FROM_ABOVE", ("mixed",))
    assert [data.camera_lean_deg(p) for p in train_classifier.seen_from_above([colour, grey, other])] == \
        [0.0, 0.0, None]
    # the windows of a set turned whole and of its greyscale part alone are cached apart
    assert train_classifier.photo_windows_key(train_classifier.detector.MODEL_PATHS) != part_key


@pytest.mark.parametrize("entries", ["tiny:colour", "tiny,tiny:grey"])
def test_a_part_of_a_set_seen_from_above_must_be_one_the_script_knows(torch, entries: str, tmp_path: Path,
                                                                      capsys) -> None:
    import train_classifier

    with pytest.raises(SystemExit) as stop:
        train_classifier.main(["--upright", "--turn-from-above", "5", "--photos-from-above", entries,
                               "--photos", str(tiny_photo_set(tmp_path / "photos", 2))])
    assert stop.value.code == 2 and "PART one of grey" in capsys.readouterr().err


def test_a_partner_stored_as_float16_weighs_half_and_reads_as_it_did(torch, tmp_path: Path) -> None:
    from vision.reader import classifier
    from vision.reader.windows import CHANNELS

    join_classifiers = scripts_module("join_classifiers")
    shipped = classifier.MODEL_PATH
    target = tmp_path / "half.onnx"
    before, after = join_classifiers.float16_copy(shipped, target)
    assert before == shipped.stat().st_size and after == target.stat().st_size < 0.55 * before
    target.with_suffix(".json").write_text(shipped.with_suffix(".json").read_text())
    side = classifier.ValueNet(alone=True).geometry.window_px
    x = np.random.default_rng(5).standard_normal((6, CHANNELS, side, side)).astype(np.float32)
    full, half = classifier.ValueNet(shipped, alone=True).logits(x), classifier.ValueNet(target).logits(x)
    np.testing.assert_allclose(half, full, atol=0.05)
    assert not np.array_equal(half, full)  # it is the float16 weights that were read


def test_the_joint_temperature_sharpens_draws_that_agree_but_doubt() -> None:
    join_classifiers = scripts_module("join_classifiers")
    rng = np.random.default_rng(6)
    y = rng.integers(1, 7, 400)
    logits = np.zeros((400, 8))
    logits[np.arange(400), y] = 2.0  # right, but only about half sure: draws this sure together should be sharpened
    readings = []
    for _ in range(3):
        noisy = np.exp(logits + rng.normal(0, 0.3, logits.shape))
        readings.append(noisy / noisy.sum(axis=1, keepdims=True))
    t, figures = join_classifiers.fit_joint_temperature(readings, y)
    assert t < 0.5
    loss, sure = figures["value_log_loss"], figures["sure_share"]
    assert loss["joint"] < loss["averaged"] and len(loss["alone"]) == 3
    assert figures["dice_windows"] == 400 and sure["joint"] > max(sure["alone"])


def test_partners_join_the_main_network_with_their_joint_temperature_and_can_be_taken_off(torch, tmp_path: Path,
                                                                                          capsys) -> None:
    from vision.reader import classifier

    join_classifiers = scripts_module("join_classifiers")
    photos = tiny_photo_set(tmp_path / "photos", 20)
    shipped = classifier.MODEL_PATH
    meta = json.loads(shipped.with_suffix(".json").read_text())
    main, first, second = tmp_path / "main.onnx", tmp_path / "draw.onnx", tmp_path / "other.onnx"
    for path, temperature in ((main, meta["temperature"]), (first, 1.2), (second, 1.4)):
        path.write_bytes(shipped.read_bytes())
        path.with_suffix(".json").write_text(json.dumps({**meta, "temperature": temperature}))
    options = ["--main", str(main), "--photos", str(photos), "--work", str(tmp_path / "work")]
    assert join_classifiers.main([str(first), str(second), *options]) == 0
    said = capsys.readouterr().out
    assert "2 held-out photos (tiny)" in said and "now reads with main_partner1.onnx, main_partner2.onnx" in said
    entry = json.loads(main.with_suffix(".json").read_text())["partners"]
    assert entry["files"] == ["main_partner1.onnx", "main_partner2.onnx"] and 0.15 <= entry["temperature"] <= 4.0
    assert entry["fitted"]["dice_windows"] == 8  # the two held-out photos' die, at its box and three near it
    assert len(entry["fitted"]["value_log_loss"]["alone"]) == 3
    assert main.read_bytes() == shipped.read_bytes()  # without --main-float16 only the JSON learns of the partners
    stored = json.loads((tmp_path / "main_partner2.json").read_text())
    assert stored["stored"] == "float16" and stored["stored_from"] == "other.onnx" and stored["temperature"] == 1.4
    net = classifier.ValueNet(main)
    assert net.joint_temperature == entry["temperature"] and [p.meta["stored"] for p in net.partners] == ["float16"] * 2

    # joined again with one draw and the main network stored as float16 too
    assert join_classifiers.main([str(first), "--main-float16", *options]) == 0
    assert "stored" in capsys.readouterr().out
    joined = json.loads(main.with_suffix(".json").read_text())
    assert joined["stored"] == "float16" and joined["partners"]["files"] == ["main_partner1.onnx"]
    assert main.stat().st_size < 0.55 * shipped.stat().st_size and len(classifier.ValueNet(main).partners) == 1

    with pytest.raises(SystemExit):
        join_classifiers.main([str(main), "--main", str(first), "--photos", str(photos)])
    assert "has partners of its own" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        join_classifiers.main([str(main), *options])
    assert "cannot be its own partner" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        join_classifiers.main([str(first), str(first), *options])
    assert "given twice" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        join_classifiers.main(options)
    assert "give the partners' ONNX files, or --alone" in capsys.readouterr().err
    assert join_classifiers.main(["--alone", "--main", str(main)]) == 0
    assert "partners" not in json.loads(main.with_suffix(".json").read_text())
    assert classifier.ValueNet(main).partners == ()


def looks_of(y: np.ndarray, margin: float, seed: int) -> np.ndarray:
    """(1 + 3) x N x 8 logits of windows whose every look favours their class `y` by `margin`, with noise."""
    rng = np.random.default_rng(seed)
    looks = rng.normal(0, 0.4, (4, len(y), 8))
    looks[:, np.arange(len(y)), y] += margin
    return looks


def test_the_value_temperature_sharpens_looks_that_are_right_but_doubt_and_softens_overconfident_ones(torch) -> None:
    import train_classifier

    y = np.random.default_rng(3).integers(1, 7, 600)
    # right every time but read at about half sure: the averaged looks should be sharpened
    assert train_classifier.fit_value_temperature(looks_of(y, 1.5, 1), y, 1.0) < 0.7
    # half of them sure and wrong: the values should be softened
    wrong = np.where(np.arange(600) % 2 == 0, y, y % 6 + 1)
    assert train_classifier.fit_value_temperature(looks_of(wrong, 6.0, 2), y, 1.0) > 1.5


def test_a_saved_network_gets_its_value_temperature_without_training_again(torch, tmp_path: Path, capsys) -> None:
    from vision.reader import classifier

    fit_value_temperature = scripts_module("fit_value_temperature")
    photos = tiny_photo_set(tmp_path / "photos", 20)
    shipped = classifier.MODEL_PATH
    network = tmp_path / "values.onnx"
    network.write_bytes(shipped.read_bytes())
    meta = json.loads(shipped.with_suffix(".json").read_text())
    network.with_suffix(".json").write_text(json.dumps({**meta, "value_temperature": 3.0}))  # fitted again, not kept
    assert fit_value_temperature.main([str(network), "--photos", str(photos), "--work", str(tmp_path / "work")]) == 0
    said = capsys.readouterr().out
    assert "on 8 held-out dice windows of 2 photos" in said  # the two held-out photos' die, at its box and three near it
    saved = json.loads(network.with_suffix(".json").read_text())
    assert saved["value_temperature"] != 3.0 and 0.15 <= saved["value_temperature"] <= 4.0
    assert saved["temperature"] == meta["temperature"] and network.read_bytes() == shipped.read_bytes()
    loss = saved["value_temperature_fitted"]["value_log_loss"]
    assert loss[1] <= loss[0]  # a temperature of 1 is on the grid, so the fit is never worse than none
    assert classifier.ValueNet(network).value_temperature == saved["value_temperature"]
    with pytest.raises(SystemExit):
        fit_value_temperature.main([str(network), "--photos", str(tmp_path / "nowhere")])
    assert "nowhere" in capsys.readouterr().err
