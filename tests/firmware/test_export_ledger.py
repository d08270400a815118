"""The export ledger: what was exported, what is new, what retention may delete."""

from __future__ import annotations

import json
from pathlib import Path

from firmware.export import LEDGER_FILE, Ledger, LedgerEntry, exported_game_ids


def entry(events: int, ended_at: str | None) -> LedgerEntry:
    return LedgerEntry(folder="f", events=events, ended_at=ended_at,
                       exported_at="2026-01-01T00:00:00Z", row={"game_id": "x"})


def test_no_ledger_means_nothing_exported(tmp_path: Path) -> None:
    assert exported_game_ids(tmp_path) == set()
    assert Ledger.load(tmp_path).games == {}


def test_only_games_exported_after_they_ended_may_be_deleted(tmp_path: Path) -> None:
    ledger = Ledger({"done": entry(40, "2026-01-01T01:00:00Z"), "playing": entry(7, None)})
    ledger.save(tmp_path)
    assert exported_game_ids(tmp_path) == {"done"}
    assert Ledger.load(tmp_path) == ledger


def test_a_game_is_new_until_exported_in_its_current_state() -> None:
    ledger = Ledger({"done": entry(40, "t"), "playing": entry(7, None)})
    assert ledger.needs_export("never", 3, None)
    assert not ledger.needs_export("done", 40, "t")
    assert ledger.needs_export("playing", 9, None)
    assert ledger.needs_export("playing", 7, "t")
    assert not ledger.needs_export("playing", 7, None)


def test_a_damaged_ledger_protects_every_game_from_retention(tmp_path: Path) -> None:
    (tmp_path / LEDGER_FILE).write_text("{not json")
    assert exported_game_ids(tmp_path) == set()
    (tmp_path / LEDGER_FILE).write_text(json.dumps({"version": 99, "games": {}}))
    assert exported_game_ids(tmp_path) == set()


def test_saving_leaves_no_temporary_file(tmp_path: Path) -> None:
    Ledger({"a": entry(1, "t")}).save(tmp_path)
    assert sorted(p.name for p in tmp_path.iterdir()) == [LEDGER_FILE]
