"""The event log keeps every committed event through crashes and survives a corrupt file."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from firmware.eventlog import DB_NAME, EventLog, EventLogError

STARTED = {"type": "game_started", "v": 1, "game": "generala", "players": ["P1", "P2"]}


def throw(values: list[int]) -> dict:
    return {"type": "throw", "v": 1, "dice": values}


def test_events_come_back_in_order_with_reading_and_snapshot(tmp_path: Path) -> None:
    with EventLog.open(tmp_path) as log:
        game_id = log.begin_game(STARTED)
        first = log.append(game_id, throw([1, 2, 3, 4, 5]), reading={"dice": [], "moved": []},
                           snapshot_jpeg=b"\xff\xd8jpeg\xff\xd9")
        second = log.append(game_id, {"type": "category_scored", "v": 1, "category": "straight"})
    assert (first.seq, second.seq) == (1, 2)
    assert (tmp_path / first.snapshot).read_bytes() == b"\xff\xd8jpeg\xff\xd9"

    with EventLog.open(tmp_path) as log:
        events = log.events(game_id)
        assert [e.seq for e in events] == [0, 1, 2]
        assert events[0].event == STARTED
        assert events[1].reading == {"dice": [], "moved": []}
        assert events[1].snapshot == first.snapshot
        assert events[2].snapshot is None
        assert log.unfinished().game_id == game_id
        assert log.games()[0].game == "generala"


def test_database_is_wal_with_full_sync(tmp_path: Path) -> None:
    EventLog.open(tmp_path).close()
    conn = sqlite3.connect(tmp_path / DB_NAME)
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    conn.close()


def test_ended_game_is_not_unfinished_and_refuses_more_events(tmp_path: Path) -> None:
    with EventLog.open(tmp_path) as log:
        old = log.begin_game(STARTED)
        log.end_game(old)
        assert log.unfinished() is None
        with pytest.raises(EventLogError):
            log.append(old, throw([1, 1, 1, 1, 1]))
        newer = log.begin_game(STARTED)
        assert log.unfinished().game_id == newer
        assert log.game(old).ended_at is not None


def test_reader_sees_the_writers_events_while_it_is_open(tmp_path: Path) -> None:
    writer = EventLog.open(tmp_path)
    game_id = writer.begin_game(STARTED)
    reader = EventLog.open_readonly(tmp_path)
    writer.append(game_id, throw([6, 6, 6, 6, 6]))
    assert len(reader.events(game_id)) == 2
    with pytest.raises(EventLogError):
        reader.append(game_id, throw([1, 1, 1, 1, 1]))
    reader.close()
    writer.close()


_WRITER = """
import sys
from firmware.eventlog import EventLog
log = EventLog.open(sys.argv[1])
game_id = log.begin_game({"type": "game_started", "v": 1, "game": "generala"})
print(game_id, flush=True)
for n in range(10_000):
    stored = log.append(game_id, {"type": "throw", "v": 1, "n": n})
    print(stored.seq, flush=True)
"""


def test_every_event_returned_before_a_sigkill_is_there_after(tmp_path: Path) -> None:
    proc = subprocess.Popen([sys.executable, "-c", _WRITER, str(tmp_path)],
                            stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    game_id = proc.stdout.readline().strip()
    confirmed = [int(proc.stdout.readline()) for _ in range(25)]
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    proc.stdout.close()

    with EventLog.open(tmp_path) as log:
        assert log.notice is None
        stored = {e.seq for e in log.events(game_id)}
    assert set(confirmed) <= stored
    assert stored == set(range(len(stored)))  # no holes


def test_garbage_database_is_moved_aside_and_a_fresh_log_started(tmp_path: Path) -> None:
    (tmp_path / DB_NAME).write_bytes(b"this is not a database at all" * 100)
    log = EventLog.open(tmp_path)
    assert log.notice is not None and "moved aside" in log.notice
    assert log.moved_aside is not None and log.moved_aside.exists()
    assert log.moved_aside.read_bytes().startswith(b"this is not")
    game_id = log.begin_game(STARTED)
    assert len(log.events(game_id)) == 1
    log.close()
    # Opening again finds the fresh log healthy: no loop of moving aside.
    with EventLog.open(tmp_path) as again:
        assert again.notice is None
        assert again.unfinished().game_id == game_id


def test_damaged_pages_fail_the_quick_check_and_are_moved_aside(tmp_path: Path) -> None:
    with EventLog.open(tmp_path) as log:
        game_id = log.begin_game(STARTED)
        for n in range(300):
            log.append(game_id, throw([n % 6 + 1] * 5), reading={"pad": "x" * 200})
    db = tmp_path / DB_NAME
    data = bytearray(db.read_bytes())
    page = 4096
    for offset in range(2 * page, len(data) - page, page):  # keep the header page
        data[offset:offset + 64] = b"\xa5" * 64
    db.write_bytes(bytes(data))

    with EventLog.open(tmp_path) as log:
        assert log.notice is not None
        assert log.games() == []
    assert len(list(tmp_path.glob(f"{DB_NAME}.corrupt-*"))) == 1
