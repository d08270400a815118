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


def settled_reading(*readings: Reading):
    """The reading a still tray settles with when successive reads give `readings` in turn."""
    from vision.tracker_events import ThrowSettled

    answers = iter(readings)
    last = [readings[-1]]

    def reader(image, expected):
        last[0] = next(answers, last[0])
        return last[0]

    tracker = ThrowTracker(dice_count=2, reader=reader)
    tray = np.full((480, 640, 3), 90, np.uint8)
    for frame in range(40):
        for event in tracker.feed(tray, frame / 30):
            if isinstance(event, ThrowSettled):
                return event.reading
    raise AssertionError("no throw settled")


def test_a_throw_is_read_from_two_frames_and_their_confidences_combined() -> None:
    sure = Reading((DieReading(5, (100.0, 100.0), 50.0, 0.0, 0.99), DieReading(2, (300.0, 100.0), 50.0, 0.0, 0.99)))
    doubtful = Reading((DieReading(5, (101.0, 100.0), 50.0, 0.0, 0.7, (6,)),
                        DieReading(2, (300.0, 101.0), 50.0, 0.0, 0.98)))
    reading = settled_reading(sure, doubtful)
    assert reading.values == (5, 2)
    assert reading.dice[0].confidence == 0.845 and 6 in reading.dice[0].alternatives
    assert not reading.dice[0].sure and reading.dice[1].sure
    assert [(p.kind, p.die) for p in reading.problems] == [("unsure", 0)]


def test_dice_that_read_differently_in_two_frames_are_asked_about() -> None:
    five = Reading((DieReading(5, (100.0, 100.0), 50.0, 0.0, 0.99),))
    six = Reading((DieReading(6, (100.0, 100.0), 50.0, 0.0, 0.99),))
    reading = settled_reading(five, six)
    assert not reading.dice[0].sure
    assert {5, 6} <= {reading.dice[0].value, *reading.dice[0].alternatives}
