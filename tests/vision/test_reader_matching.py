"""How the bench matches predicted dice to labelled dice."""

from __future__ import annotations

import json

from lab.reader_eval.evaluate import LabelledDie, format_summary, load_manifest, match_photo, summarise
from vision.reading import DieReading, Reading


def die(value: int, x: float, y: float, confidence: float = 0.99) -> DieReading:
    return DieReading(value, (x, y), 40.0, 0.0, confidence)


LABELS = [LabelledDie(5, (0, 0, 40, 40)), LabelledDie(2, (100, 0, 140, 40)), LabelledDie(6, (200, 0, 240, 40), ignore=True)]


def test_a_perfect_reading_is_exactly_right() -> None:
    result = match_photo(LABELS, Reading((die(5, 21, 19), die(2, 118, 22))))
    assert result.exact and result.right == 2 and not result.extras


def test_wrong_values_misses_and_extras_are_counted_apart() -> None:
    result = match_photo(LABELS, Reading((die(6, 20, 20, 0.95), die(3, 400, 400, 0.4))))
    assert result.wrong == [(5, 6, 0.95)]
    assert result.misses == [2]
    assert result.extras == [(3, 0.4)]
    assert result.sure_wrong == 1 and not result.exact
    assert result.sure_mistakes == [(5, 6, (20, 20))]  # where, to look at: the label may be the wrong one


def test_a_die_read_wrong_but_unsure_is_no_sure_mistake() -> None:
    result = match_photo(LABELS, Reading((die(6, 20, 20, 0.89), die(2, 120, 20))))
    assert result.wrong == [(5, 6, 0.89)] and result.sure_wrong == 0 and result.sure_mistakes == []


def test_a_centre_outside_half_the_side_does_not_match() -> None:
    result = match_photo(LABELS[:1], Reading((die(5, 20, 41),)))
    assert result.misses == [5] and len(result.extras) == 1


def test_matching_is_one_to_one_nearest_first() -> None:
    labels = [LabelledDie(1, (0, 0, 40, 40)), LabelledDie(2, (30, 0, 70, 40))]
    result = match_photo(labels, Reading((die(2, 48, 20),)))
    assert result.right == 1 and result.misses == [1]


def test_ignored_dice_count_neither_way() -> None:
    with_it = match_photo(LABELS, Reading((die(5, 20, 20), die(2, 120, 20), die(1, 220, 20))))
    without = match_photo(LABELS, Reading((die(5, 20, 20), die(2, 120, 20))))
    assert with_it.exact and without.exact
    assert summarise([with_it]).dice == 2


def test_manifest_split_filter(tmp_path) -> None:
    rows = [
        {"image": "a.jpg", "split": "train", "dice": [{"value": 3, "box": [0, 0, 10, 10]}]},
        {"image": "b.jpg", "split": "test", "dice": []},
    ]
    path = tmp_path / "manifest.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    assert [p.image for p in load_manifest(path, "test")] == ["b.jpg"]
    assert load_manifest(path)[0].dice[0].value == 3


def test_an_unsure_die_counts_by_its_value_and_is_reported_unsure_beside_it() -> None:
    result = match_photo(LABELS, Reading((die(5, 20, 20, 0.6), die(3, 120, 20, 0.7))))
    summary = summarise([result])
    assert summary.right == 1 and summary.wrong == 1  # the unsure 5 is right, the unsure 3 wrong
    assert summary.sure_right == 0 and summary.sure_wrong == 0  # neither was scored without asking
    assert summary.unsure_dice == 2
    assert "right and sure:       0/2" in format_summary(summary)


def test_the_held_out_split_is_every_tenth_train_photo(tmp_path) -> None:
    import json

    from lab.reader_eval.evaluate import HELD_OUT, load_manifest

    rows = [{"image": f"{i}.jpg", "split": "test" if i % 3 == 0 else "train", "dice": []} for i in range(60)]
    (tmp_path / "manifest.jsonl").write_text("\n".join(json.dumps(r) for r in rows))
    train = [r["image"] for r in rows if r["split"] == "train"]
    held = [p.image for p in load_manifest(tmp_path / "manifest.jsonl", HELD_OUT)]
    assert held == [train[9], train[19], train[29], train[39]]
