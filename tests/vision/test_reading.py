"""The reading types round-trip through JSON, which is how throws are stored in the log."""

from vision.reading import DieReading, Problem, Reading


def test_reading_round_trips_through_json() -> None:
    reading = Reading(
        dice=(
            DieReading(5, (10.0, 20.5), 40.0, 12.0, 0.97),
            DieReading(6, (80.0, 20.0), 41.0, 3.0, 0.55, alternatives=(5,)),
        ),
        problems=(Problem("unsure", "die at (80, 20) unsure: 6 or 5", die=1),),
    )
    assert Reading.from_json(reading.to_json()) == reading
    assert reading.values == (5, 6)
    assert not reading.sure
