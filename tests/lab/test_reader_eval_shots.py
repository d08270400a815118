"""Camera shots: a test photo of one set re-exported into another set's train split is one shot."""

from __future__ import annotations

import json
from pathlib import Path

from lab.reader_eval.evaluate import HELD_OUT, load_manifest
from lab.reader_eval.shots import camera_shot, shot_time, shots_in_tests


def write_manifest(folder: Path, rows: list[tuple[str, str]]) -> Path:
    folder.mkdir(parents=True)
    manifest = folder / "manifest.jsonl"
    manifest.write_text("".join(json.dumps({"image": image, "split": split, "dice": [{"value": 2, "box": [0, 0, 9, 9]}]})
                                + "\n" for image, split in rows))
    return manifest


def test_a_shot_is_the_phone_file_name_inside_a_re_exported_name() -> None:
    assert camera_shot("images/train/IMG_20191209_095439_jpg_aa4e32e7.jpg") == "IMG_20191209_095439"
    assert camera_shot("images/test/IMG_20191209_095439.jpg") == "IMG_20191209_095439"
    assert camera_shot("PXL_20240219_192104357_jpg_6f7cf25f.jpg") == "PXL_20240219_192104357"
    # numbered names are reused by different photos: they name no shot
    assert camera_shot("images/test/00140_jpg_e186cb71.jpg") is None
    assert camera_shot("images/train/IMG_0684_jpeg_jpg_47caff84.jpg") is None


def test_a_shots_name_tells_its_phone_day_and_time() -> None:
    assert shot_time("PXL_20240219_192104357") == ("PXL_20240219", 19 * 3600 + 21 * 60 + 4.357)
    assert shot_time("IMG_20191209_095439") == ("IMG_20191209", 9 * 3600 + 54 * 60 + 39)


def test_held_out_photos_of_another_sets_test_shot_are_left_out(tmp_path: Path) -> None:
    write_manifest(tmp_path / "phone", [("images/test/IMG_20191209_100030.jpg", "test"),
                                         ("images/train/IMG_20191209_100031.jpg", "train")])
    exported = write_manifest(tmp_path / "export", [(f"images/train/{i:05d}_jpg_0a1b2c3d.jpg", "train") for i in range(9)]
                              + [("images/train/IMG_20191209_100030_jpg_1bd0c2f3.jpg", "train")]
                              + [(f"images/train/{i:05d}_jpg_4e5f6a7b.jpg", "train") for i in range(9, 19)]
                              + [("images/test/IMG_20191209_095403_jpg_aa4e32e7.jpg", "test")])
    tested = shots_in_tests(tmp_path)
    assert tested == {"IMG_20191209_100030", "IMG_20191209_095403"}
    # the tenth train photo is the other set's test photo: it is held out from training, and not
    # tuned on either; the twentieth stays
    assert [p.image for p in load_manifest(exported, HELD_OUT)] == [
        "images/train/IMG_20191209_100030_jpg_1bd0c2f3.jpg", "images/train/00018_jpg_4e5f6a7b.jpg"]
    assert [p.image for p in load_manifest(exported, HELD_OUT, tested)] == ["images/train/00018_jpg_4e5f6a7b.jpg"]
    # a test split is what it is: its own photos are never left out by their own shots' list
    assert len(load_manifest(exported, "test")) == 1
