"""`cubilete demo --practice`: a whole Generala of a scripted person against the device's own
seat, through the real reader and tracker on the on-demand tray and the real appliance. The
person throws the device's dice and sets aside what its screen says; the log shows that the
device kept what it asked for and filled the boxes the advisor chose, to the end of the game
(about 2 min on one core of a 2-core machine, the longest test; marked slow, so it starts first)."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

import engine
from advisor.opponent import device_move
from advisor.tables import find
from firmware.appliance.practice import DEVICE_NAME, kept_values
from firmware.eventlog import EventLog
from lab.demo import run_demo


@pytest.mark.slow
def test_a_practice_game_against_the_device_plays_to_the_end(tmp_path: Path) -> None:
    out = io.StringIO()
    state_dir, export = tmp_path / "state", tmp_path / "export"
    result = run_demo(state_dir, export, practice=True, language="en", out=out)
    assert result.finished, out.getvalue()[-3000:]
    assert DEVICE_NAME in result.table and "winner" in result.table

    with EventLog.open(state_dir) as log:
        record = log.games()[-1]
        events = [e.event for e in log.events(record.game_id)]
    assert events[0]["players"] == ["P1", DEVICE_NAME] and events[0]["device_seats"] == [1]
    table = find("generala")
    state = engine.start(events[0])
    kept = fills = 0
    for event in events[1:]:
        if event.get("player") == 1 and event["type"] != "reading_corrected":
            choice = device_move(state, table).choice
            if event["type"] == "throw" and state.turn.throw_number:
                assert kept_values(event) == choice.keep, (event, choice)  # it kept what the screen said
                kept += 1
            elif event["type"] in ("category_scored", "category_scratched"):
                assert (event["category"], event.get("points", 0)) == (choice.category, choice.points)
                fills += 1
        state = engine.apply(state, event)
    assert state.finished and kept > 0 and fills > 0
    assert state.instant_win is not None or all(sheet.is_full for sheet in state.sheets)
    for player, name in enumerate(state.players):
        assert f"{name:<8} {state.totals[player]:>4}" in result.table

    games = list((export / "CUBILETE" / "demo").glob("*/events.jsonl"))
    assert len(games) == 1
    exported = [json.loads(line)["event"] for line in games[0].read_text(encoding="utf-8").splitlines()]
    assert exported == events
