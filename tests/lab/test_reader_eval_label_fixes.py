"""Label fixes: reviewed train labels are read corrected by the bench and the training scripts;
a test split never is, and a fix that no longer fits its manifest is refused."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import scripts.photo_sets as photo_sets
from lab.reader_eval import label_fixes
from lab.reader_eval.evaluate import LabelledDie, load_manifest, match_centres
from lab.reader_eval.label_fixes import (LABEL_FIXES, MISSING_DICE, UNTRUSTED_PHOTOS, LabelFix, MissingDie,
                                         UntrustedPhotos, fixed_row)

FIX = LabelFix("phone", "images/train/a.jpg", 1, 5, 4, "four pips")
BEHIND = MissingDie("phone", "images/train/a.jpg", (4.0, 10.0, 16.0, 22.0), None, "half hidden behind die 0")
SIDE_VIEWS = UntrustedPhotos("phone", "labels the face turned to the camera", ("images/train/low.jpg",))


def row(image: str, split: str, values: list[int]) -> dict:
    return {"image": image, "split": split, "dice": [{"value": v, "box": [10 * i, 0, 10 * i + 9, 9]}
                                                     for i, v in enumerate(values)]}


def write_set(root: Path, rows: list[dict]) -> Path:
    (root / "phone").mkdir(parents=True)
    manifest = root / "phone" / "manifest.jsonl"
    manifest.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return manifest


def rows_of_set(dice_photos_dir: Path, set_name: str) -> dict[str, dict]:
    """A real photo set's manifest rows as given, by image; the test skips without the set."""
    manifest = dice_photos_dir.parent / set_name / "manifest.jsonl"
    if not manifest.is_file():
        pytest.skip(f"needs the photo set {set_name} at {manifest.parent}")
    rows = (json.loads(line) for line in manifest.read_text().splitlines() if line.strip())
    return {r["image"]: r for r in rows}


def test_a_fix_changes_only_its_die_and_leaves_the_row_it_was_given() -> None:
    given = row("images/train/a.jpg", "train", [2, 5, 5])
    fixed = fixed_row("phone", given, (FIX,))
    assert [d["value"] for d in fixed["dice"]] == [2, 4, 5]
    assert [d["value"] for d in given["dice"]] == [2, 5, 5]
    assert fixed["dice"][1]["box"] == given["dice"][1]["box"]
    # another set's photo of the same name is another photo
    assert fixed_row("other", given, (FIX,)) is given


def test_a_fix_that_no_longer_fits_its_manifest_is_refused() -> None:
    with pytest.raises(ValueError, match="no longer labelled 5"):
        fixed_row("phone", row("images/train/a.jpg", "train", [2, 6, 5]), (FIX,))
    with pytest.raises(ValueError, match="no longer labelled 5"):
        fixed_row("phone", row("images/train/a.jpg", "train", [2]), (FIX,))


def test_a_test_photo_is_never_fixed() -> None:
    with pytest.raises(ValueError, match="train photos only"):
        fixed_row("phone", row("images/train/a.jpg", "test", [2, 5, 5]), (FIX,))


def test_the_bench_and_the_training_scripts_read_the_fixed_labels(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setattr(label_fixes, "LABEL_FIXES", (FIX,))
    manifest = write_set(tmp_path, [row("images/train/a.jpg", "train", [2, 5, 5]),
                                    row("images/test/a.jpg", "test", [2, 5, 5])])
    read = {p.image: [d.value for d in p.dice] for p in load_manifest(manifest)}
    assert read == {"images/train/a.jpg": [2, 4, 5], "images/test/a.jpg": [2, 5, 5]}
    assert [[d.value for d in p.dice] for p in photo_sets.boxed_photos(tmp_path, "phone", "train")] == [[2, 4, 5]]


def test_a_die_whose_labels_contradict_each_other_counts_neither_way(tmp_path: Path, monkeypatch) -> None:
    unsettled = LabelFix("phone", "images/train/a.jpg", 1, 5, None, "labelled 4 in the next photo of the throw")
    monkeypatch.setattr(label_fixes, "LABEL_FIXES", (unsettled,))
    manifest = write_set(tmp_path, [row("images/train/a.jpg", "train", [2, 5, 5])])
    (photo,) = load_manifest(manifest)
    assert [(d.value, d.ignore) for d in photo.dice] == [(2, False), (5, True), (5, False)]
    (boxed,) = photo_sets.boxed_photos(tmp_path, "phone", "train")
    assert [d.ignore for d in boxed.dice] == [False, True, False]


def test_every_shipped_fix_is_reviewed_and_changes_a_value_or_ignores_the_die() -> None:
    assert len({(f.set_name, f.image, f.die) for f in LABEL_FIXES}) == len(LABEL_FIXES)
    for fix in LABEL_FIXES:
        assert fix.labelled in range(1, 7) and fix.seen != fix.labelled and fix.seen in (None, *range(1, 7))
        assert fix.image.startswith("images/train/") and fix.why
    # the fingerprint the training scripts key their caches on names every fix and every photo set aside
    assert label_fixes.FINGERPRINT.count("->") == len(LABEL_FIXES)
    assert label_fixes.FINGERPRINT.count("photos untrusted") == len(UNTRUSTED_PHOTOS)


def test_every_shipped_fix_fits_the_photo_sets(dice_photos_dir: Path) -> None:
    for fix in LABEL_FIXES:
        photo = rows_of_set(dice_photos_dir, fix.set_name)[fix.image]
        die = fixed_row(fix.set_name, photo)["dice"][fix.die]
        assert (die["value"], bool(die.get("ignore"))) == ((fix.labelled, True) if fix.seen is None else (fix.seen, False))


def test_every_die_of_an_untrusted_photo_is_ignored_by_the_bench_and_the_training_scripts(
        tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setattr(label_fixes, "UNTRUSTED_PHOTOS", (SIDE_VIEWS,))
    given = row("images/train/low.jpg", "train", [3, 6])
    assert [d.get("ignore") for d in fixed_row("phone", given)["dice"]] == [True, True]
    assert [d.get("ignore") for d in given["dice"]] == [None, None]
    assert fixed_row("other", given) is given
    manifest = write_set(tmp_path, [given, row("images/train/a.jpg", "train", [2, 5])])
    read = {p.image: [(d.value, d.ignore) for d in p.dice] for p in load_manifest(manifest)}
    assert read == {"images/train/low.jpg": [(3, True), (6, True)], "images/train/a.jpg": [(2, False), (5, False)]}
    boxed = {p.path.name: [d.ignore for d in p.dice] for p in photo_sets.boxed_photos(tmp_path, "phone", "train")}
    assert boxed == {"low.jpg": [True, True], "a.jpg": [False, False]}


def test_an_untrusted_test_photo_is_refused() -> None:
    with pytest.raises(ValueError, match="train photos only"):
        fixed_row("phone", row("images/train/low.jpg", "test", [3]), (), (SIDE_VIEWS,))


def test_a_photo_both_fixed_and_untrusted_is_refused() -> None:
    on_low = LabelFix("phone", "images/train/low.jpg", 0, 3, 4, "four pips")
    with pytest.raises(ValueError, match="both fixed and untrusted"):
        fixed_row("phone", row("images/train/low.jpg", "train", [3, 6]), (on_low,), (SIDE_VIEWS,))


def test_no_shipped_fix_names_an_untrusted_photo() -> None:
    set_aside = {(u.set_name, image) for u in UNTRUSTED_PHOTOS for image in u.images}
    assert not [f for f in LABEL_FIXES if (f.set_name, f.image) in set_aside]


def test_setting_photos_aside_changes_the_fingerprint() -> None:
    other = UntrustedPhotos("rune55", "why", UNTRUSTED_PHOTOS[0].images[1:])
    assert label_fixes.untrusted_key(other) != label_fixes.untrusted_key(UNTRUSTED_PHOTOS[0])
    assert label_fixes.untrusted_key(UNTRUSTED_PHOTOS[0]) in label_fixes.FINGERPRINT


def test_every_untrusted_photo_is_a_train_photo_of_its_set(dice_photos_dir: Path) -> None:
    for photos in UNTRUSTED_PHOTOS:
        assert photos.why and len(set(photos.images)) == len(photos.images)
        rows = rows_of_set(dice_photos_dir, photos.set_name)
        assert {rows[image]["split"] for image in photos.images} == {"train"}
        assert all(d.get("ignore") for image in photos.images for d in fixed_row(photos.set_name, rows[image])["dice"])


def test_a_die_the_labels_leave_out_is_added_after_the_others_and_ignored_when_its_face_is_hidden(
        tmp_path: Path, monkeypatch) -> None:
    given = row("images/train/a.jpg", "train", [2, 5])
    fixed = fixed_row("phone", given, (), (), (BEHIND,))
    assert fixed["dice"][:2] == given["dice"] and len(given["dice"]) == 2
    assert fixed["dice"][2] == {"value": 0, "box": [4.0, 10.0, 16.0, 22.0], "ignore": True}
    seen = MissingDie("phone", "images/train/a.jpg", (4.0, 10.0, 16.0, 22.0), 3, "three pips")
    assert fixed_row("phone", given, (), (), (seen,))["dice"][2] == {"value": 3, "box": [4.0, 10.0, 16.0, 22.0]}
    assert fixed_row("other", given, (), (), (BEHIND,)) is given
    monkeypatch.setattr(label_fixes, "MISSING_DICE", (BEHIND,))
    manifest = write_set(tmp_path, [given, row("images/test/a.jpg", "test", [2, 5])])
    read = {p.image: [(d.value, d.ignore) for d in p.dice] for p in load_manifest(manifest)}
    assert read == {"images/train/a.jpg": [(2, False), (5, False), (0, True)],
                    "images/test/a.jpg": [(2, False), (5, False)]}
    (boxed,) = photo_sets.boxed_photos(tmp_path, "phone", "train")
    assert [d.ignore for d in boxed.dice] == [False, False, True]


def test_a_reading_of_the_die_left_out_is_no_longer_scored_as_its_neighbour() -> None:
    neighbour = LabelledDie(1, (0.0, 0.0, 100.0, 140.0))  # a tall box: its matching circle reaches 70 px
    behind = LabelledDie(0, (60.0, -30.0, 120.0, 30.0), ignore=True)
    reading = [(80.0, 10.0)]  # near the hidden die's centre, 67 px from the neighbour's
    assert match_centres([neighbour], reading) == {0: 0}
    assert match_centres([neighbour, behind], reading) == {1: 0}


def test_a_die_added_to_a_test_photo_or_an_untrusted_one_is_refused() -> None:
    with pytest.raises(ValueError, match="train photos only"):
        fixed_row("phone", row("images/train/a.jpg", "test", [2]), (), (), (BEHIND,))
    on_low = MissingDie("phone", "images/train/low.jpg", (0.0, 0.0, 9.0, 9.0), None, "hidden")
    with pytest.raises(ValueError, match="both fixed and untrusted"):
        fixed_row("phone", row("images/train/low.jpg", "train", [3]), (), (SIDE_VIEWS,), (on_low,))


def test_every_shipped_missing_die_is_reviewed_and_named_by_the_fingerprint() -> None:
    assert len({(m.set_name, m.image, m.box) for m in MISSING_DICE}) == len(MISSING_DICE)
    set_aside = {(u.set_name, image) for u in UNTRUSTED_PHOTOS for image in u.images}
    for missing in MISSING_DICE:
        x0, y0, x1, y1 = missing.box
        assert 0 <= x0 < x1 and 0 <= y0 < y1 and missing.seen in (None, *range(1, 7))
        assert missing.image.startswith("images/train/") and missing.why
        assert (missing.set_name, missing.image) not in set_aside
        assert f"{missing.set_name}/{missing.image}+" in label_fixes.FINGERPRINT


def test_every_shipped_missing_die_lies_in_its_photo_with_no_labelled_die_centred_on_it(dice_photos_dir: Path) -> None:
    for missing in MISSING_DICE:
        photo = rows_of_set(dice_photos_dir, missing.set_name)[missing.image]
        x0, y0, x1, y1 = missing.box
        assert x1 <= photo["width"] and y1 <= photo["height"]
        centre = ((x0 + x1) / 2, (y0 + y1) / 2)
        for die in photo["dice"]:  # no labelled die is centred on it: it is another die
            bx0, by0, bx1, by1 = die["box"]
            assert max(abs((bx0 + bx1) / 2 - centre[0]), abs((by0 + by1) / 2 - centre[1])) > (x1 - x0) / 2
        assert fixed_row(missing.set_name, photo)["dice"][-1] == missing.as_label()
