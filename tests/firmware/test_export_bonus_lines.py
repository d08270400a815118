"""An exported score sheet shows a game's bonus lines (Yahtzee's upper bonus and yahtzee
bonus) between the boxes and the total, in the device language."""

from __future__ import annotations

import engine
from engine import events as ev
from firmware.export.formats import scoresheet_rows
from firmware.export.summary import summarize


def yahtzee_events() -> list[dict]:
    log = [engine.new_game("yahtzee", ["Ana", "Beto"])]
    log += [ev.throw(0, [3, 3, 3, 3, 3]), ev.category_scored(0, "yahtzee", 50),
            ev.throw(1, [6, 6, 6, 6, 1]), ev.category_scored(1, "sixes", 24),
            ev.throw(0, [3, 3, 3, 3, 3]), ev.category_scored(0, "threes", 15)]
    return log


def test_bonus_lines_are_rows_of_the_sheet_and_count_in_the_total() -> None:
    summary = summarize("g1", "yahtzee", "2024-01-01T20:00:00", None, yahtzee_events(), language="en")
    rows = {row[0]: row[1:] for row in scoresheet_rows(summary)}
    assert rows["Upper bonus"] == ["0", "0"]
    assert rows["Yahtzee bonus"] == ["100", "0"]
    assert rows["Total"] == ["165", "24"]
    spanish = summarize("g1", "yahtzee", "2024-01-01T20:00:00", None, yahtzee_events(), language="es")
    assert "Bono Yahtzee" in {row[0] for row in scoresheet_rows(spanish)}
