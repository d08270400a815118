"""Snapshot retention: old and over-cap snapshots of exported games go; nothing else does."""

from __future__ import annotations

import os
import time
from pathlib import Path

from firmware.eventlog import EventLog
from firmware.retention import prune_snapshots

DAY = 86_400
MB = 1024 * 1024


def game_with_snapshots(log: EventLog, n: int, size: int, age_days: float, end: bool = True) -> str:
    game_id = log.begin_game({"type": "game_started", "v": 1, "game": "generala"})
    for _ in range(n):
        stored = log.append(game_id, {"type": "throw", "v": 1}, reading={"dice": []},
                            snapshot_jpeg=b"\xff" * size)
        stamp = time.time() - age_days * DAY
        os.utime(log.state_dir / stored.snapshot, (stamp, stamp))
    if end:
        log.end_game(game_id)
    return game_id


def snapshot_files(log: EventLog, game_id: str) -> list[str]:
    return [e.snapshot for e in log.events(game_id) if e.snapshot]


def test_old_snapshots_of_exported_games_go_and_unexported_ones_stay(tmp_path: Path) -> None:
    with EventLog.open(tmp_path) as log:
        exported_old = game_with_snapshots(log, 3, 1000, age_days=40)
        unexported_old = game_with_snapshots(log, 3, 1000, age_days=40)
        exported_new = game_with_snapshots(log, 3, 1000, age_days=1)
        result = prune_snapshots(log, {exported_old, exported_new}, retention_days=30, cap_mb=100)
        assert result.deleted == 3
        assert snapshot_files(log, exported_old) == []
        assert not (tmp_path / "snapshots" / exported_old).exists()
        assert len(snapshot_files(log, unexported_old)) == 3
        assert len(snapshot_files(log, exported_new)) == 3
        # Events are never deleted, only their snapshot files.
        assert len(log.events(exported_old)) == 4


def test_disk_cap_deletes_oldest_exported_first_and_never_unexported(tmp_path: Path) -> None:
    with EventLog.open(tmp_path) as log:
        oldest = game_with_snapshots(log, 4, MB // 2, age_days=3)
        unexported = game_with_snapshots(log, 4, MB // 2, age_days=2)
        newest = game_with_snapshots(log, 4, MB // 2, age_days=1)
        result = prune_snapshots(log, {oldest, newest}, retention_days=30, cap_mb=4)
        # 6 MB of snapshots under a 4 MB cap: the 4 of the oldest exported game go.
        assert snapshot_files(log, oldest) == []
        assert len(snapshot_files(log, unexported)) == 4
        assert len(snapshot_files(log, newest)) == 4
        assert result.kept_bytes == 4 * MB and not result.over_cap_unexported

        result = prune_snapshots(log, set(), retention_days=30, cap_mb=1)
        assert result.deleted == 0 and result.over_cap_unexported


def test_uncommitted_snapshot_of_an_ended_game_is_cleaned_up(tmp_path: Path) -> None:
    with EventLog.open(tmp_path) as log:
        game_id = game_with_snapshots(log, 1, 100, age_days=0)
        orphan = tmp_path / "snapshots" / game_id / "000099.jpg"
        orphan.write_bytes(b"never committed")
        foreign = tmp_path / "snapshots" / "a-game-from-an-old-log" / "000001.jpg"
        foreign.parent.mkdir()
        foreign.write_bytes(b"kept")
        prune_snapshots(log, set(), retention_days=30, cap_mb=100)
        assert not orphan.exists()
        assert foreign.exists()
        assert len(snapshot_files(log, game_id)) == 1
