"""The throw tracker learns the dice' size only from dice read surely."""

from __future__ import annotations

import numpy as np

from vision.reading import DieReading, Reading
from vision.tracker import ThrowTracker


def still_tray_read_as(*dice: DieReading) -> ThrowTracker:
    tracker = ThrowTracker(dice_count=5, reader=lambda image, expected: Reading(dice))
    tray = np.full((480, 640, 3), 90, np.uint8)
    for frame in range(30):
        tracker.feed(tray, frame / 30)
    return tracker


def test_a_phantom_die_does_not_set_the_die_size() -> None:
    speck = DieReading(6, (343.0, 471.0), 10.7, 30.0, 0.54, (3,), cocked=True)
    assert still_tray_read_as(speck).detector.die_size is None


def test_dice_read_surely_set_the_die_size() -> None:
    dice = [DieReading(v, (100.0 * v, 200.0), 50.0 + v, 0.0, 0.99) for v in (1, 2, 3)]
    assert still_tray_read_as(*dice).detector.die_size == 52.0
