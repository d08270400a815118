"""`cubilete read` and `cubilete bench vision` from the command line."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from cli.main import main


@pytest.fixture(scope="module")
def scene_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from lab import synth

    rendered = synth.render(synth.random_scene(np.random.default_rng(3)))
    path = tmp_path_factory.mktemp("scene") / "throw.png"
    cv2.imwrite(str(path), rendered.image)
    return path


def test_json_line_per_image(scene_file: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["read", "--json", "--expect", "5", str(scene_file)]) == 0
    lines = capsys.readouterr().out.strip().splitlines()
    assert len(lines) == 1
    result = json.loads(lines[0])
    assert result["image"] == str(scene_file)
    assert isinstance(result["ms"], float) and result["ms"] > 0
    assert isinstance(result["problems"], list)
    for die in result["dice"]:
        assert 1 <= die["value"] <= 6
        assert len(die["center"]) == 2 and 0.0 <= die["confidence"] <= 1.0


def test_missing_and_unreadable_files_are_error_objects_and_exit_1(
    scene_file: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    garbage = tmp_path / "garbage.jpg"
    garbage.write_bytes(b"not a jpeg at all")
    code = main(["read", "--json", str(tmp_path / "missing.jpg"), str(garbage), str(scene_file)])
    out = [json.loads(line) for line in capsys.readouterr().out.strip().splitlines()]
    assert code == 1
    assert [o["image"] for o in out] == [str(tmp_path / "missing.jpg"), str(garbage), str(scene_file)]
    assert "error" in out[0] and "error" in out[1]
    assert "error" not in out[2] and "dice" in out[2]


def test_plain_output_is_one_line_per_image(scene_file: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["read", str(scene_file), str(scene_file)]) == 0
    lines = capsys.readouterr().out.strip().splitlines()
    assert len(lines) == 2 and lines[0].startswith(f"{scene_file}: ")


def test_debug_dir_gets_an_annotated_png(scene_file: Path, tmp_path: Path) -> None:
    assert main(["read", "--debug-dir", str(tmp_path / "debug"), str(scene_file)]) == 0
    written = list((tmp_path / "debug").glob("*.png"))
    assert len(written) == 1
    annotated = cv2.imread(str(written[0]))
    assert annotated is not None and annotated.shape == cv2.imread(str(scene_file)).shape


def test_bench_vision_prints_the_figures(scene_file: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from lab import synth

    manifest = synth.write_manifest(tmp_path, n=3, seed=4)
    assert main(["bench", "vision", "--manifest", str(manifest)]) == 0
    out = capsys.readouterr().out
    for figure in ("photos exactly right", "per-die accuracy", "wrong values", "misses", "extras",
                   "accuracy per face value", "median", "p95", "confidence >= 0.9"):
        assert figure in out
    assert main(["bench", "vision", "--manifest", str(manifest), "--json"]) == 0
    figures = json.loads(capsys.readouterr().out)
    assert figures["photos"] == 3 and figures["dice"] > 0


def test_bench_vision_reads_synthetic_dice_of_unseen_looks(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bench", "vision", "--synthetic", "2", "--seed", "3", "--expect", "5", "--looks", "unseen"]) == 0
    out = capsys.readouterr().out
    assert "synthetic scenes: 2 (seed 3, dice of unseen looks)" in out and "per-die accuracy" in out
    assert main(["bench", "vision", "--manifest", "x.jsonl", "--looks", "unseen"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "--synthetic" in err[0]


def test_bench_vision_missing_manifest_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bench", "vision", "--manifest", str(tmp_path / "none.jsonl")]) == 2
    assert len(capsys.readouterr().err.strip().splitlines()) == 1


def test_bench_vision_can_compare_another_classifier_model(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from lab import synth
    from vision.reader.classifier import MODEL_PATH

    manifest = synth.write_manifest(tmp_path, n=2, seed=5)
    assert main(["bench", "vision", "--manifest", str(manifest), "--json"]) == 0
    own = json.loads(capsys.readouterr().out)
    assert main(["bench", "vision", "--manifest", str(manifest), "--json", "--classifier", str(MODEL_PATH)]) == 0
    assert json.loads(capsys.readouterr().out)["accuracy"] == own["accuracy"]
    broken = tmp_path / "broken.npz"
    broken.write_bytes(b"not a model")
    assert main(["bench", "vision", "--manifest", str(manifest), "--classifier", str(broken)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "broken.npz" in err[0]


def test_bench_vision_can_compare_another_detector_model(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from lab import synth
    from vision.reader import detector

    manifest = synth.write_manifest(tmp_path, n=2, seed=5)
    assert main(["bench", "vision", "--manifest", str(manifest), "--json"]) == 0
    own = json.loads(capsys.readouterr().out)
    copy = tmp_path / "copy.onnx"  # the shipped detector under another name, marked: the same figures
    copy.write_bytes(detector.MODEL_PATH.read_bytes())
    meta = json.loads(detector.MODEL_PATH.with_suffix(".json").read_text(encoding="utf-8"))
    copy.with_suffix(".json").write_text(json.dumps(meta | {"copied_by": "this test"}), encoding="utf-8")
    try:
        assert main(["bench", "vision", "--manifest", str(manifest), "--json", "--detector", str(copy)]) == 0
        assert json.loads(capsys.readouterr().out)["accuracy"] == own["accuracy"]
        assert detector.detector().meta.get("copied_by") == "this test"  # the copy read, not the shipped file
        broken = tmp_path / "broken.onnx"
        broken.write_bytes(b"not a model")
        assert main(["bench", "vision", "--manifest", str(manifest), "--detector", str(broken)]) == 2
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and "broken.onnx" in err[0]
    finally:
        detector.use_model(*detector.MODEL_PATHS)


def test_bench_vision_suite_prints_a_row_per_set_and_the_negatives(tmp_path: Path,
                                                                  capsys: pytest.CaptureFixture[str]) -> None:
    from lab import synth

    for name, seed in (("camera-a", 6), ("camera-b", 7)):
        synth.write_manifest(tmp_path / name, n=2, seed=seed, split="test")
    assert main(["bench", "vision", "--suite", str(tmp_path), "--negatives", "6", "--json"]) == 0
    figures = json.loads(capsys.readouterr().out)
    assert figures["expect"] == "labelled" and figures["opencv"] == cv2.__version__
    rows = {row["set"]: row for row in figures["sets"]}
    assert set(rows) == {"camera-a", "camera-b", "negatives"}
    assert rows["camera-a"]["photos"] == 2 and rows["camera-a"]["dice"] > 0
    for key in ("exact_rate", "accuracy", "wrong", "misses", "extras", "sure_wrong", "asked", "median_ms", "p95_ms"):
        assert key in rows["camera-b"]
    assert rows["negatives"]["photos"] == 6 and "sure_extras" in rows["negatives"]
    assert main(["bench", "vision", "--suite", str(tmp_path)]) == 0
    table = capsys.readouterr().out
    assert "camera-a" in table and "camera-b" in table and "sure wrong" in table
    assert f"one thread of OpenCV {cv2.__version__}" in table  # its versions draw the no-dice pictures otherwise


def test_bench_vision_reads_the_negatives_again_told_a_count_as_the_device_does(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from lab.reader_eval import read_sets

    assert main(["bench", "vision", "--negatives", "6", "--negatives-count", "5", "--json"]) == 0
    rows = {row["set"]: row for row in json.loads(capsys.readouterr().out)["sets"]}
    assert set(rows) == {"negatives", "negatives told 5"}
    told = rows["negatives told 5"]
    assert told["photos"] == 6 and told["expected"] == 5 and rows["negatives"]["expected"] is None
    # the count only ever adds unsure dice to a picture read without it
    assert told["sure_extras"] <= rows["negatives"]["sure_extras"]
    assert told == read_sets.read_negatives(6, 1, 5) | {"median_ms": told["median_ms"], "p95_ms": told["p95_ms"]}
    assert main(["bench", "vision", "--negatives", "6", "--negatives-count", "5"]) == 0
    assert "negatives told 5 dice, as the device reads a throw: " in capsys.readouterr().out
    assert main(["bench", "vision", "--suite", str(tmp_path), "--negatives-count", "5"]) == 2
    assert "give --negatives too" in capsys.readouterr().err


def test_bench_vision_reads_only_the_kinds_of_no_dice_pictures_it_is_given(
        capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    from lab.synth.clutter import NEGATIVE_KINDS
    from lab.reader_eval import read_sets

    assert main(["bench", "vision", "--negatives", "4", "--negatives-kinds", "text", "headline", "--json"]) == 0
    (row,) = json.loads(capsys.readouterr().out)["sets"]
    assert row["kinds"] == ["text", "headline"] and row["photos"] == 4
    timed = {"median_ms": row["median_ms"], "p95_ms": row["p95_ms"]}
    assert row == read_sets.read_negatives(4, 1, kinds=("text", "headline")) | timed
    drawn = []
    monkeypatch.setattr(read_sets, "negative_image",
                        lambda rng, w, h, kind: drawn.append(kind) or np.zeros((h, w, 3), np.uint8))
    read_sets.read_negatives(5, 1, kinds=("text", "headline"))
    assert drawn == ["text", "headline", "text", "headline", "text"]
    drawn.clear()
    read_sets.read_negatives(8, 1)
    assert drawn == [*NEGATIVE_KINDS, NEGATIVE_KINDS[0]]
    monkeypatch.undo()
    assert main(["bench", "vision", "--negatives", "2", "--negatives-kinds", "text"]) == 0
    assert "negatives: 2 pictures with no die of text only (no count given)" in capsys.readouterr().out
    # printed words in the lab's own faces are read only when named, never among every kind
    assert main(["bench", "vision", "--negatives", "2", "--negatives-kinds", "lab-text", "lab-headline"]) == 0
    assert "negatives: 2 pictures with no die of lab-text, lab-headline only" in capsys.readouterr().out
    assert not {"lab-text", "lab-headline"} & set(NEGATIVE_KINDS)
    assert main(["bench", "vision", "--negatives", "2", "--negatives-kinds", "text", "--negatives-count", "5"]) == 0
    assert "of 2 pictures of text only offered dice to confirm" in capsys.readouterr().out
    assert main(["bench", "vision", "--negatives", "2"]) == 0
    assert "negatives: 2 pictures with no die (no count given)" in capsys.readouterr().out
    assert main(["bench", "vision", "--synthetic", "1", "--negatives-kinds", "text"]) == 2
    assert "give --negatives too" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["bench", "vision", "--negatives", "2", "--negatives-kinds", "menu"])
    assert "invalid choice: 'menu'" in capsys.readouterr().err


def mislabelled(manifest: Path) -> Path:
    """The manifest with the first photo's first die given another value: that photo cannot be exact."""
    lines = manifest.read_text().splitlines()
    first = json.loads(lines[0])
    first["dice"][0]["value"] = first["dice"][0]["value"] % 6 + 1
    manifest.write_text("\n".join([json.dumps(first)] + lines[1:]) + "\n")
    return manifest


def test_bench_vision_shows_the_photos_it_got_wrong(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from lab import synth

    manifest = mislabelled(synth.write_manifest(tmp_path / "set", n=2, seed=8, split="test"))
    image = json.loads(manifest.read_text().splitlines()[0])["image"]
    assert main(["bench", "vision", "--manifest", str(manifest), "--debug-dir", str(tmp_path / "debug")]) == 0
    written = [p.name for p in (tmp_path / "debug").glob("*.png")]
    assert written == [image.replace("/", "_").rsplit(".", 1)[0] + ".png"]  # the wrong photo only
    capsys.readouterr()
    assert main(["bench", "vision", "--suite", str(tmp_path), "--failures"]) == 0
    assert f"set/{image}: wrong [" in capsys.readouterr().err


@pytest.mark.parametrize("mode", ["--manifest", "--suite"])
def test_bench_vision_names_a_photo_it_cannot_read(mode: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from lab import synth

    manifest = synth.write_manifest(tmp_path / "set", n=2, seed=9, split="test")
    (manifest.parent / json.loads(manifest.read_text().splitlines()[1])["image"]).write_bytes(b"not a picture")
    assert main(["bench", "vision", mode, str(manifest if mode == "--manifest" else tmp_path)]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert err[-1].startswith("cubilete bench vision: cannot read ") and len([e for e in err if "cannot" in e]) == 1


def test_bench_vision_needs_something_to_read(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bench", "vision"]) == 2
    assert "--suite" in capsys.readouterr().err


def test_negative_pictures_are_seeded() -> None:
    from lab.synth.clutter import ALL_KINDS, negative_image

    for kind in ALL_KINDS:
        first = negative_image(np.random.default_rng([1, 2]), 160, 120, kind)
        assert first.shape == (120, 160, 3) and first.dtype == np.uint8
        assert np.array_equal(first, negative_image(np.random.default_rng([1, 2]), 160, 120, kind))
    with pytest.raises(ValueError):
        negative_image(np.random.default_rng(1), 64, 64, "dice")


def test_negative_pictures_drawn_from_the_kinds_given() -> None:
    """The detector's training keeps the kinds it was trained on: `kinds` limits the draw."""
    from lab.synth.clutter import negative_image

    drawn = negative_image(np.random.default_rng([3, 4]), 160, 120, kinds=("gradient",))
    rng = np.random.default_rng([3, 4])
    rng.integers(1)  # the draw of the kind
    assert np.array_equal(drawn, negative_image(rng, 160, 120, "gradient"))


def test_strange_files_are_errors_and_every_other_photo_is_still_read(
        scene_file: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from lab.fuzz_inputs import bmp_claiming, png_bomb

    huge_bmp = tmp_path / "huge.bmp"
    huge_bmp.write_bytes(bmp_claiming(1048577, 1048577))  # raised out of cv2.imdecode on main
    bomb = tmp_path / "bomb.png"
    bomb.write_bytes(png_bomb(6000))
    tiny = tmp_path / "tiny.png"
    cv2.imwrite(str(tiny), np.zeros((1, 1, 3), np.uint8))  # decodes, but holds no die: exit 1, not 0
    paths = [huge_bmp, scene_file, bomb, tiny, scene_file]
    code = main(["read", "--json", *map(str, paths)])
    out = [json.loads(line) for line in capsys.readouterr().out.strip().splitlines()]
    assert code == 1
    assert [o["image"] for o in out] == [str(p) for p in paths]
    assert "refused before decoding" in out[0]["error"] and "refused before decoding" in out[2]["error"], out
    assert "too small" in out[3]["error"]
    assert "dice" in out[1] and "dice" in out[4] and "error" not in out[1]


def test_one_tiny_picture_alone_exits_1(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    tiny = tmp_path / "tiny.png"
    cv2.imwrite(str(tiny), np.zeros((1, 1, 3), np.uint8))
    assert main(["read", str(tiny)]) == 1
    assert "error" in capsys.readouterr().out


def test_bench_fuzz_prints_its_figures(capsys: pytest.CaptureFixture[str]) -> None:
    main(["bench", "fuzz", "--inputs", "16", "--seed", "2", "--json"])  # exit 1 if an input was slow: not a test
    figures = json.loads(capsys.readouterr().out)
    assert figures["inputs"] == 16 and figures["exceptions"] == 0 and figures["crashes"] == 0
    assert sum(figures["outcomes"].values()) == 16 and figures["max_mb"] > 0


def test_bench_vision_suite_reads_apart_the_test_photos_whose_scene_is_in_a_train_split(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from lab import synth

    manifest = synth.write_manifest(tmp_path / "camera", n=3, seed=9, split="test")
    first = json.loads(manifest.read_text().splitlines()[0])
    assert sum(not d.get("ignore") for d in first["dice"]) >= 3
    copy = {**first, "image": "images/train/copy.jpg", "split": "train"}  # its labels are enough
    manifest.write_text(manifest.read_text() + json.dumps(copy) + "\n")
    assert main(["bench", "vision", "--suite", str(tmp_path), "--json"]) == 0
    rows = {row["set"]: row for row in json.loads(capsys.readouterr().out)["sets"]}
    assert rows["camera"]["photos"] == 3 and rows["camera unseen"]["photos"] == 2
    assert main(["bench", "vision", "--suite", str(tmp_path)]) == 0
    assert "camera unseen" in capsys.readouterr().out
