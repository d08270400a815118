"""The stored reading of a throw (firmware.appliance.session.StoredReading): the JSON of the
logs written so far parses, and what is written now is that same JSON."""

from __future__ import annotations

import json

from firmware.appliance.session import StoredReading, throw_view_from_reading
from vision.reading import DieReading, Problem, Reading

# One line of a game's events.jsonl as the device wrote it before the stored reading was typed
# (the demo's game, seq 4: two fives held, three dice thrown), verbatim.
LOGGED_LINE = (
    '{"game_id":"20261125T165119Z-f3b59b","seq":4,"at":"2026-11-25T16:51:22.779Z","event":{"type":"throw","v":1,'
    '"player":1,"values":[5,4,5,1,5],"thrown":[1,2,3]},"reading":{"dice":[{"value":5,"center":[115.6,141.3],'
    '"size":55.2,"angle":37.4,"confidence":1.0,"alternatives":[],"cocked":false},{"value":5,"center":[423.6,157.5],'
    '"size":55.6,"angle":11.4,"confidence":1.0,"alternatives":[],"cocked":false},{"value":5,"center":[324.2,213.1],'
    '"size":56.6,"angle":69.8,"confidence":1.0,"alternatives":[],"cocked":false},{"value":1,"center":[475.1,240.2],'
    '"size":57.4,"angle":10.9,"confidence":1.0,"alternatives":[],"cocked":false},{"value":4,"center":[262.6,363.4],'
    '"size":60.3,"angle":16.2,"confidence":1.0,"alternatives":[],"cocked":false}],"problems":[],"problem_details":[],'
    '"moved":["held","held","thrown","thrown","thrown"],"index":[0,4,2,3,1],"t":19.797,"previous":[0,1,3,null,null],'
    '"expected":5},"snapshot":"snapshots/000004.jpg"}'
)

# A throw with a die the reader was unsure of, in the same format (the reader's problem, the
# appliance's index), as the appliance wrote it from a tracker event.
UNSURE = {
    "dice": [
        {"value": 2, "center": [100.0, 80.0], "size": 40.0, "angle": 0.0, "confidence": 0.99, "alternatives": [],
         "cocked": False},
        {"value": 5, "center": [220.0, 90.0], "size": 41.0, "angle": 3.0, "confidence": 0.62, "alternatives": [6],
         "cocked": False},
    ],
    "problems": ["die at (220, 90) unsure: 5 or 6"],
    "problem_details": [{"kind": "unsure", "message": "die at (220, 90) unsure: 5 or 6", "die": 1}],
    "moved": ["thrown", "thrown"], "index": [1, 0], "t": 3.5, "previous": [None, None], "expected": 2,
}


def test_a_reading_logged_before_the_type_parses_and_is_written_back_byte_for_byte() -> None:
    stored_json = json.loads(LOGGED_LINE)["reading"]
    stored = StoredReading.from_json(stored_json)
    assert stored is not None
    assert [d.value for d in stored.reading.dice] == [5, 5, 5, 1, 4]
    assert stored.moved == ("held", "held", "thrown", "thrown", "thrown")
    assert stored.index == (0, 4, 2, 3, 1) and stored.t == 19.797
    assert stored.previous == (0, 1, 3, None, None) and stored.expected == 5
    assert json.dumps(stored.to_json(), separators=(",", ":")) == json.dumps(stored_json, separators=(",", ":"))
    view = throw_view_from_reading(stored, 5)
    assert view.confirmed and view.t == 19.797
    assert view.dice[4].center == (423.6, 157.5) and view.dice[1].center == (262.6, 363.4)


def test_an_unsure_die_is_unsure_on_the_engine_die_it_was_linked_to() -> None:
    stored = StoredReading.from_json(UNSURE)
    assert stored is not None and stored.to_json() == UNSURE
    view = throw_view_from_reading(stored, 2)
    assert not view.confirmed
    assert view.dice[0].unsure and view.dice[0].alternatives == (6,) and not view.dice[1].unsure


def test_a_reading_without_the_appliances_index_says_nothing_of_the_dice() -> None:
    assert StoredReading.from_json({"dice": [], "moved": []}) is None
    view = throw_view_from_reading(None, 5)
    assert view.confirmed and len(view.dice) == 5


def test_a_throw_not_from_the_tracker_is_stored_without_the_trackers_facts() -> None:
    reading = Reading((DieReading(3, (10.0, 20.0), 30.0, 0.0, 0.95),), (Problem("count", "expected 5, found 1"),))
    stored = StoredReading(reading, ("new",), (0,), 1.25)
    data = stored.to_json()
    assert list(data) == ["dice", "problems", "problem_details", "moved", "index", "t"]
    assert StoredReading.from_json(data) == stored
