"""Scenes: an augmented copy of a photo (turned, mirrored, cropped, scaled) shows the same scene;
another throw of the same values does not; the training scripts and the benches leave copies of
test scenes out of what they learn and tune on."""

from __future__ import annotations

import cmath
import json
from pathlib import Path

import pytest

import scripts.photo_sets as photo_sets
from lab.reader_eval import label_fixes
from lab.reader_eval.evaluate import HELD_OUT, load_manifest
from lab.reader_eval.scenes import Die, same_scene, same_throw, scene_copies

THROW = (Die(6, complex(100, 100), 40), Die(2, complex(220, 120), 40), Die(3, complex(150, 260), 42),
         Die(6, complex(300, 300), 38))


def copied(dice, turn_degrees: float = 0.0, scale: float = 1.0, shift: complex = 0, mirror: bool = False):
    turn = cmath.rect(scale, turn_degrees * cmath.pi / 180)
    return tuple(Die(d.value, shift + turn * (d.centre.conjugate() if mirror else d.centre), d.side * scale)
                 for d in reversed(dice))


@pytest.mark.parametrize("turn, scale, shift, mirror", [(0, 1, 0, False), (90, 1, 50, False), (33, 1.6, -80 + 20j, False),
                                                        (180, 0.7, 400, True), (-12, 1.2, 0, True)])
def test_an_augmented_copy_is_the_same_scene(turn: float, scale: float, shift: complex, mirror: bool) -> None:
    copy = copied(THROW, turn, scale, shift, mirror)
    assert same_scene(THROW, copy) and same_scene(copy, THROW)


def test_labels_a_little_off_are_still_the_same_scene() -> None:
    nudged = tuple(Die(d.value, d.centre + complex(6, -5), d.side) for d in THROW)
    assert same_scene(THROW, nudged)


def test_another_throw_is_another_scene() -> None:
    moved = THROW[:3] + (Die(6, complex(360, 90), 38),)
    other_values = THROW[:3] + (Die(5, THROW[3].centre, 38),)
    assert not same_scene(THROW, moved)
    assert not same_scene(THROW, other_values)
    assert not same_scene(THROW, THROW[:3]), "a die more or less is another scene"
    # the same figure at another size, with dice of the first size: a throw spread wider
    wider = tuple(Die(d.value, 1.8 * d.centre, d.side) for d in THROW)
    assert not same_scene(THROW, wider)
    # two dice always fit one another: they say nothing
    assert not same_scene(THROW[:2], copied(THROW[:2], 40))


def write_set(root: Path, name: str, rows: list[tuple[str, str, tuple[Die, ...]]]) -> None:
    (root / name).mkdir(parents=True)
    lines = []
    for image, split, dice in rows:
        boxes = [{"value": d.value, "box": [d.centre.real - d.side / 2, d.centre.imag - d.side / 2,
                                            d.centre.real + d.side / 2, d.centre.imag + d.side / 2]} for d in dice]
        lines.append(json.dumps({"image": image, "split": split, "dice": boxes}) + "\n")
    (root / name / "manifest.jsonl").write_text("".join(lines))


def test_train_copies_of_test_scenes_are_left_out_of_training_and_tuning(tmp_path: Path) -> None:
    other = tuple(Die(d.value, d.centre + complex(0, 60 * i), d.side) for i, d in enumerate(THROW))
    train = [(f"images/train/{i:05d}_jpg_aa.jpg", "train", other) for i in range(9)]
    train.append(("images/train/00009_jpg_bb.jpg", "train", copied(THROW, 90, 1.1, 600)))  # held out
    train += [(f"images/train/{i:05d}_jpg_cc.jpg", "train", other) for i in range(10, 19)]
    train.append(("images/train/00019_jpg_dd.jpg", "train", copied(other, 45, 1, 300)))  # held out
    write_set(tmp_path, "export", train + [("images/test/00009_jpg_ee.jpg", "test", THROW)])
    copies = scene_copies(tmp_path.resolve())
    assert copies.tests == {"export/images/test/00009_jpg_ee.jpg"}
    assert copies.train == {"export/images/train/00009_jpg_bb.jpg"}
    manifest = tmp_path / "export" / "manifest.jsonl"
    assert [p.image for p in load_manifest(manifest, HELD_OUT, copies=copies.train)] == ["images/train/00019_jpg_dd.jpg"]
    trained = [p.path.name for p in photo_sets.training_photos(tmp_path / "cache", tmp_path)]
    assert len(trained) == 19 and "00009_jpg_bb.jpg" not in trained


@pytest.fixture
def uncached_scene_copies():
    """`scene_copies` caches per folder: forget what one look at a folder found, even on failure."""
    scene_copies.cache_clear()
    yield scene_copies
    scene_copies.cache_clear()


def test_a_train_copy_is_found_by_its_fixed_labels(tmp_path: Path, monkeypatch, uncached_scene_copies) -> None:
    def row(image: str, split: str, values: tuple[int, ...]) -> str:
        return json.dumps({"image": image, "split": split, "dice": [
            {"value": v, "box": [d.centre.real - 20, d.centre.imag - 20, d.centre.real + 20, d.centre.imag + 20]}
            for v, d in zip(values, THROW)]}) + "\n"

    (tmp_path / "s").mkdir()
    # the train copy's third die was labelled 5, and the photo shows a 3 as in the test photo
    (tmp_path / "s" / "manifest.jsonl").write_text(
        row("test.jpg", "test", (6, 2, 3, 6)) + row("copy.jpg", "train", (6, 2, 5, 6)))
    assert uncached_scene_copies(tmp_path.resolve()).train == frozenset()
    uncached_scene_copies.cache_clear()
    fix = label_fixes.LabelFix("s", "copy.jpg", 2, 5, 3, "three pips")
    monkeypatch.setattr(label_fixes, "LABEL_FIXES", (fix,))
    assert uncached_scene_copies(tmp_path.resolve()).train == {"s/copy.jpg"}


def test_a_throw_photographed_again_from_another_side_is_found_by_the_phones_clock() -> None:
    # another view: the figure is not a similarity of the first, and one die is labelled otherwise
    seen_again = (Die(6, complex(400, 80), 50), Die(2, complex(90, 300), 30), Die(4, complex(250, 250), 44),
                  Die(6, complex(120, 120), 36))
    first = ("images/test/PXL_20240219_192244622_jpg_bb.jpg", THROW)
    assert not same_scene(THROW, seen_again)
    assert same_throw(first, ("images/train/PXL_20240219_192243315_jpg_46.jpg", seen_again))
    assert same_throw(first, ("images/train/PXL_20240219_192258100_jpg_46.jpg", seen_again)), "13.5 s later"
    # not: too long after, another phone or day, no clock, two dice labelled otherwise, a die more
    assert not same_throw(first, ("images/train/PXL_20240219_192301000_jpg_46.jpg", seen_again))
    assert not same_throw(first, ("images/train/IMG_20240219_192243315_jpg_46.jpg", seen_again))
    assert not same_throw(first, ("images/train/PXL_20240220_192243315_jpg_46.jpg", seen_again))
    assert not same_throw(first, ("images/train/00123_jpg_46.jpg", seen_again))
    two_off = seen_again[:3] + (Die(5, complex(120, 120), 36),)
    assert not same_throw(first, ("images/train/PXL_20240219_192243315_jpg_46.jpg", two_off))
    assert not same_throw(first, ("images/train/PXL_20240219_192243315_jpg_46.jpg", seen_again + THROW[:1]))


def test_train_photos_of_a_test_throw_are_left_out_of_training_and_tuning(tmp_path: Path, uncached_scene_copies) -> None:
    view = tuple(Die(d.value, complex(d.centre.imag * 1.7, d.centre.real * 0.6), d.side) for d in THROW)
    others = (Die(1, THROW[0].centre, 40),) + THROW[1:3] + (Die(5, THROW[3].centre, 38),)  # other throws
    train = [(f"images/train/PXL_20240219_1900{i:02d}000_jpg_aa.jpg", "train", others) for i in range(9)]
    train.append(("images/train/PXL_20240219_192243315_jpg_46.jpg", "train", view))  # held out
    write_set(tmp_path, "phone", train + [("images/test/PXL_20240219_192244622_jpg_bb.jpg", "test", THROW)])
    copies = uncached_scene_copies(tmp_path.resolve())
    assert copies.tests == {"phone/images/test/PXL_20240219_192244622_jpg_bb.jpg"}
    assert copies.train == {"phone/images/train/PXL_20240219_192243315_jpg_46.jpg"}
    trained = [p.path.name for p in photo_sets.training_photos(tmp_path / "cache", tmp_path)]
    assert len(trained) == 9 and "PXL_20240219_192243315_jpg_46.jpg" not in trained
