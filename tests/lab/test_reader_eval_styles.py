"""lab.reader_eval.styles: the bench's synthetic scenes counted die style by die style."""

from __future__ import annotations

import numpy as np
import pytest

from lab.reader_eval import styles
from lab.reader_eval.evaluate import LabelledDie
from lab.synth.spec import DIE_STYLES
from vision.reading import DieReading, Reading

LABELS = [LabelledDie(3, (10, 10, 30, 30)), LabelledDie(5, (50, 10, 70, 30)),
          LabelledDie(2, (90, 10, 110, 30)), LabelledDie(6, (130, 10, 150, 30), ignore=True)]
STYLES = ["opaque", "translucent", "translucent", "marbled"]


def reading_of(*dice: tuple[int, float, float]) -> Reading:
    return Reading(tuple(DieReading(value, (x, 20.0), 20.0, 0.0, confidence) for value, x, confidence in dice))


def test_a_scene_is_counted_by_style(monkeypatch: pytest.MonkeyPatch) -> None:
    # die 1 right and sure, die 2 read 6 surely, die 3 right but unsure, the ignored die read wrong
    read = reading_of((3, 20.0, 0.99), (6, 60.0, 0.97), (2, 100.0, 0.5), (1, 140.0, 0.99))
    monkeypatch.setattr(styles, "read_dice", lambda image, expected: read)
    tallies = styles.tally_scene(np.zeros((40, 160, 3), np.uint8), LABELS, STYLES, 3)
    assert tallies["opaque"] == styles.StyleTally(dice=1, right=1, right_sure=1, sure_wrong=0)
    assert tallies["translucent"] == styles.StyleTally(dice=2, right=1, right_sure=0, sure_wrong=1)
    assert "marbled" not in tallies  # its only die is ignored, as in the bench


def test_a_missed_die_counts_as_a_die_not_read(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(styles, "read_dice", lambda image, expected: reading_of((3, 20.0, 0.99)))
    tallies = styles.tally_scene(np.zeros((40, 160, 3), np.uint8), LABELS, STYLES, None)
    assert tallies["translucent"] == styles.StyleTally(dice=2)


def test_the_bench_scenes_carry_their_dice_styles() -> None:
    image, labels, die_styles = styles.scene_image(1, 0, "unseen")
    assert image.shape == (480, 640, 3)
    assert len(labels) == len(die_styles) > 0
    assert set(die_styles) <= set(DIE_STYLES)


def test_the_table_gives_shares_of_each_style() -> None:
    table = styles.format_table({"opaque": styles.StyleTally(dice=4, right=3, right_sure=2, sure_wrong=1)})
    assert "opaque" in table and "75.00%" in table and "50.00%" in table
