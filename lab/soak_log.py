"""The soak's look at the event log after a run: integrity, games and events, read from a
copy so that the next start finds the files exactly as the kill left them; and how a game
compares with the uninterrupted one.
"""

from __future__ import annotations

import json
import shutil
import sqlite3
import struct
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Sequence

import engine
from firmware.eventlog import DB_NAME


@dataclass
class LogCheck:
    integrity: str  # "ok" or what integrity_check said
    games: list[tuple[str, str | None]]  # (game_id, ended_at), oldest first
    events: dict[str, list[dict[str, Any]]]  # game_id -> events in order
    readings_t: dict[str, float]  # game_id -> frame time of its last throw with a reading


def check_log(state_dir: Path, scratch: Path) -> LogCheck:
    """Integrity and contents of the log as it lies after a kill, read from a copy so the
    next start finds the files exactly as the kill left them."""
    if scratch.exists():
        shutil.rmtree(scratch)
    scratch.mkdir(parents=True)
    for suffix in ("", "-wal"):
        part = state_dir / (DB_NAME + suffix)
        if part.exists():
            shutil.copyfile(part, scratch / (DB_NAME + suffix))
    if not (scratch / DB_NAME).exists():
        return LogCheck("ok", [], {}, {})
    conn = sqlite3.connect(scratch / DB_NAME, isolation_level=None)
    try:
        rows = conn.execute("PRAGMA integrity_check").fetchall()
        integrity = "ok" if rows == [("ok",)] else "; ".join(str(r[0]) for r in rows[:3])
        games = conn.execute("SELECT game_id, ended_at FROM games ORDER BY rowid").fetchall()
        events: dict[str, list[dict[str, Any]]] = {g: [] for g, _ in games}
        readings_t: dict[str, float] = {}
        for game_id, event, reading in conn.execute(
                "SELECT game_id, event, reading FROM events ORDER BY game_id, seq"):
            events[game_id].append(json.loads(event))
            if reading is not None:
                t = json.loads(reading).get("t")
                if t is not None:
                    readings_t[game_id] = max(readings_t.get(game_id, float("-inf")), float(t))
    except sqlite3.DatabaseError as error:
        return LogCheck(str(error), [], {}, {})
    finally:
        conn.close()
    return LogCheck(integrity, [(g, e) for g, e in games], events, readings_t)


def wal_checkpoint_sequence(state_dir: Path) -> int | None:
    """The WAL header's checkpoint sequence number (it grows at each restart of the WAL)."""
    try:
        with open(state_dir / f"{DB_NAME}-wal", "rb") as wal:
            header = wal.read(16)
    except OSError:
        return None
    return struct.unpack(">I", header[12:16])[0] if len(header) == 16 else None


def finished(events: Sequence[dict[str, Any]]) -> bool:
    try:
        return bool(events) and engine.replay(events).finished
    except engine.RuleError:
        return False


def first_difference(story: Sequence[dict[str, Any]], reference: Sequence[dict[str, Any]]) -> int | None:
    """The index of the first event that differs from the reference (None: a prefix of it)."""
    for index, (mine, theirs) in enumerate(zip(story, reference)):
        if mine != theirs:
            return index
    return None if len(story) <= len(reference) else len(reference)


def describe_difference(story: Sequence[dict[str, Any]], reference: Sequence[dict[str, Any]]) -> str:
    """The first event that differs from the reference, expected against got ("" when none)."""
    index = first_difference(story, reference)
    if index is None:
        return ""
    expected = json.dumps(reference[index], sort_keys=True) if index < len(reference) else "nothing (the end)"
    got = json.dumps(story[index], sort_keys=True) if index < len(story) else "nothing"
    return f"event {index}: expected {expected}, got {got}"
