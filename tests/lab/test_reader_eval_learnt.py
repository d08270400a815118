"""Held-out photos the networks learnt all the same: a held-out photo is learnt when a photo the
networks fit on is its augmented copy, the same throw seen again or the same camera shot; the
benches' held-out split and `decide` read only the others."""

from __future__ import annotations

import cmath
import json
from pathlib import Path

import pytest

from lab.reader_eval.evaluate import HELD_OUT, held_out_names, load_split
from lab.reader_eval.learnt import learnt_held_out
from lab.reader_eval.scenes import Die, scene_copies

THROW = (Die(6, complex(100, 100), 40), Die(2, complex(220, 120), 40), Die(3, complex(150, 260), 42),
         Die(6, complex(300, 300), 38))


def another(i: int) -> tuple[Die, ...]:
    """A throw of its own for each i: the same values, the dice spread apart differently."""
    return tuple(Die(d.value, d.centre + complex(37 * i * k, -23 * i * k * k), d.side) for k, d in enumerate(THROW))


def turned(dice: tuple[Die, ...], degrees: float, shift: complex) -> tuple[Die, ...]:
    turn = cmath.rect(1, degrees * cmath.pi / 180)
    return tuple(Die(d.value, shift + turn * d.centre, d.side) for d in dice)


def write_set(root: Path, name: str, rows: list[tuple[str, str, tuple[Die, ...]]]) -> None:
    (root / name).mkdir(parents=True)
    (root / name / "manifest.jsonl").write_text("".join(json.dumps({"image": image, "split": split, "dice": [
        {"value": d.value, "box": [d.centre.real - d.side / 2, d.centre.imag - d.side / 2,
                                   d.centre.real + d.side / 2, d.centre.imag + d.side / 2]} for d in dice]}) + "\n"
        for image, split, dice in rows))


@pytest.fixture
def learnt():
    """The learnt held-out photos of the sets under a folder (the held-out ones being every tenth
    train photo, as `evaluate.HELD_OUT` picks them), each folder looked at afresh."""
    def learnt_of(root: Path) -> frozenset[str]:
        return learnt_held_out(root.resolve(), held_out_names(root.resolve()))

    for cached in (learnt_held_out, scene_copies, held_out_names):
        cached.cache_clear()
    yield learnt_of
    for cached in (learnt_held_out, scene_copies, held_out_names):
        cached.cache_clear()


def test_a_held_out_photo_copied_among_the_fitting_photos_is_learnt(tmp_path: Path, learnt) -> None:
    rows = [(f"images/train/{i:05d}_jpg_aa.jpg", "train", another(i)) for i in range(30)]
    rows[9] = ("images/train/00009_jpg_bb.jpg", "train", turned(another(3), 90, 500))  # held out: photo 3 turned
    rows[29] = ("images/train/00029_jpg_cc.jpg", "train", turned(another(40), 0, 0))  # held out: a throw of its own
    write_set(tmp_path, "export", rows)
    assert learnt(tmp_path) == {"export/images/train/00009_jpg_bb.jpg"}


def test_a_copy_left_out_of_training_teaches_nothing(tmp_path: Path, learnt) -> None:
    # photo 3 is a camera shot of a test photo (another crop of it), so the networks never fit on
    # it: its held-out copy is a scene they never saw
    rows = [(f"images/train/{i:05d}_jpg_aa.jpg", "train", another(i)) for i in range(20)]
    rows[3] = ("images/train/IMG_20191209_095439_jpg_aa.jpg", "train", another(3))
    rows[9] = ("images/train/00009_jpg_bb.jpg", "train", turned(another(3), 90, 500))
    write_set(tmp_path, "export", rows + [("images/test/IMG_20191209_095439_jpg_dd.jpg", "test", another(60))])
    assert learnt(tmp_path) == frozenset()
    rows[3] = ("images/train/00003_jpg_aa.jpg", "train", another(3))
    write_set(tmp_path / "without the test", "export", rows)
    assert learnt(tmp_path / "without the test") == {"export/images/train/00009_jpg_bb.jpg"}, \
        "with photo 3 fitted, its copy is learnt"


def test_the_same_shot_or_throw_among_the_fitting_photos_is_learnt(tmp_path: Path, learnt) -> None:
    rows = [(f"images/train/PXL_20240219_19{i:02d}00000_jpg_aa.jpg", "train", another(i)) for i in range(20)]
    # held out: a re-export of photo 2's shot (another crop, dice labelled apart) ...
    rows[9] = ("images/train/x_PXL_20240219_190200000_jpg_bb.jpg", "train", another(50))
    # ... and photo 12's throw seen from the other side four seconds later
    seen_again = tuple(Die(d.value, complex(d.centre.imag * 1.7, d.centre.real * 0.6), d.side) for d in another(12))
    rows[19] = ("images/train/PXL_20240219_191200400_jpg_cc.jpg", "train", seen_again)
    write_set(tmp_path, "phone", rows)
    assert learnt(tmp_path) == {"phone/images/train/x_PXL_20240219_190200000_jpg_bb.jpg",
                                "phone/images/train/PXL_20240219_191200400_jpg_cc.jpg"}


def test_the_benches_and_decide_read_only_the_held_out_photos_not_learnt(tmp_path: Path, learnt) -> None:
    rows = [(f"images/train/{i:05d}_jpg_aa.jpg", "train", another(i)) for i in range(30)]
    rows[9] = ("images/train/00009_jpg_bb.jpg", "train", turned(another(3), 90, 500))
    write_set(tmp_path, "export", rows + [("images/test/00001_jpg_zz.jpg", "test", another(70))])
    manifest = tmp_path / "export" / "manifest.jsonl"
    assert [p.image for p in load_split(manifest, HELD_OUT, tmp_path)] == ["images/train/00019_jpg_aa.jpg",
                                                                            "images/train/00029_jpg_aa.jpg"]
    assert len(load_split(manifest, "train", tmp_path)) == 30, "only the held-out split leaves photos out"
