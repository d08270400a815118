"""The event log: every game event, committed to SQLite before the screen confirms it.

One writer (the service) opens `<state_dir>/cubilete.db` with `EventLog.open`; the exporter
reads it at the same time with `EventLog.open_readonly` (WAL allows that). Journal mode WAL
with synchronous=FULL means an event is on disk once `append` returns, so a power cut never
loses a score the players saw confirmed.

At open, `PRAGMA quick_check` runs. A database that fails it (or is not a database at all)
is renamed aside with a UTC timestamp, a message says where it went, and a fresh log is
started: the service must come up, not crash-loop on a bad file. Only damage does that: a
log that cannot be opened or written because the card is full, read-only, or the files
belong to another user is healthy and is never touched; `open` raises `StorageUnavailable`
(saying which of those it is) and the service shows it and tries again. At open the log is
first proved writable (a scratch file of PROBE_BYTES written and removed, the files ours to
write, then a write rolled back), so a full or read-only card is found before a game starts,
not at its first score, and before SQLite touches the files.

Throw snapshots (JPEG) are written beside the database under
`snapshots/<game_id>/<seq>.jpg`, atomically (temporary file, fsync, rename, fsync of the
folder), before the event that refers to them is committed.

The schema is section 6 of the contracts between the parts.
"""

from __future__ import annotations

import errno
import json
import logging
import os
import secrets
import sqlite3
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Iterator

from hardware.files import sync_folder, write_atomically

log = logging.getLogger(__name__)

DB_NAME = "cubilete.db"
SNAPSHOT_DIR = "snapshots"
SCHEMA_VERSION = 1
PROBE_NAME = ".write-probe"
PROBE_BYTES = 64 * 1024  # room for a few events (and their WAL frames) at least
# SQLite's primary result codes that mean the file itself is damaged.
DAMAGE_CODES = (sqlite3.SQLITE_CORRUPT, sqlite3.SQLITE_NOTADB)
FULL_CODES = (sqlite3.SQLITE_FULL,)
NOT_WRITABLE_CODES = (sqlite3.SQLITE_READONLY, sqlite3.SQLITE_CANTOPEN, sqlite3.SQLITE_PERM, sqlite3.SQLITE_AUTH)

_SCHEMA = """
CREATE TABLE IF NOT EXISTS games (
  game_id    TEXT PRIMARY KEY,
  game       TEXT NOT NULL,
  started_at TEXT NOT NULL,
  ended_at   TEXT
);
CREATE TABLE IF NOT EXISTS events (
  game_id  TEXT NOT NULL REFERENCES games(game_id),
  seq      INTEGER NOT NULL,
  at       TEXT NOT NULL,
  event    TEXT NOT NULL,
  reading  TEXT,
  snapshot TEXT,
  PRIMARY KEY (game_id, seq)
);
"""


class EventLogError(Exception):
    """The log cannot be used: a read-only log written to, an unknown game, a finished game."""


class StorageUnavailable(EventLogError):
    """A healthy log that cannot be used now; nothing was moved or changed.

    kind: "full" (no space left), "not_writable" (read-only card, files or folder of another
    user) or "error" (an I/O error: a failing card).
    """

    def __init__(self, kind: str, message: str) -> None:
        super().__init__(message)
        self.kind = kind


def storage_problem(error: BaseException, where: Path) -> StorageUnavailable:
    """What an error of SQLite or the OS says about the storage (never "damaged")."""
    kind = "error"
    if isinstance(error, sqlite3.Error):
        code = (getattr(error, "sqlite_errorcode", None) or 0) & 0xFF
        if code in FULL_CODES:
            kind = "full"
        elif code in NOT_WRITABLE_CODES:
            kind = "not_writable"
    elif isinstance(error, OSError):
        if error.errno in (errno.ENOSPC, errno.EDQUOT):
            kind = "full"
        elif error.errno in (errno.EROFS, errno.EACCES, errno.EPERM, errno.ENOTDIR, errno.EEXIST, errno.EISDIR):
            kind = "not_writable"
    if kind == "error" and _no_space(where):
        kind = "full"
    return StorageUnavailable(kind, f"{where}: {error}")


def is_damage(error: BaseException) -> bool:
    """True for an error that means the database file is damaged (not merely unusable now)."""
    return isinstance(error, sqlite3.DatabaseError) and \
        ((getattr(error, "sqlite_errorcode", None) or 0) & 0xFF) in DAMAGE_CODES


def _no_space(where: Path) -> bool:
    try:
        info = os.statvfs(where if where.is_dir() else where.parent)
    except OSError:
        return False
    return info.f_bavail * info.f_frsize < PROBE_BYTES


@dataclass(frozen=True)
class GameRecord:
    game_id: str
    game: str  # engine game id, e.g. "generala"
    started_at: str  # ISO 8601 UTC
    ended_at: str | None  # None while unfinished


@dataclass(frozen=True)
class StoredEvent:
    seq: int  # 0 is game_started
    at: str  # ISO 8601 UTC
    event: dict[str, Any]  # the engine event
    reading: dict[str, Any] | None  # throws: the reader's raw result plus tracker info
    snapshot: str | None  # throws: JPEG path relative to the state dir


def utc_now_iso() -> str:
    """Now as ISO 8601 UTC with milliseconds, e.g. 2026-11-22T07:20:49.123Z."""
    now = datetime.now(timezone.utc)
    return now.strftime("%Y-%m-%dT%H:%M:%S.") + f"{now.microsecond // 1000:03d}Z"


def new_game_id() -> str:
    """A unique id that sorts by start time and is safe as a folder name on FAT sticks."""
    return datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%SZ") + "-" + secrets.token_hex(3)


def _is_healthy(db_path: Path) -> str | None:
    """None when the database passes `PRAGMA quick_check`, else what is wrong with it.
    StorageUnavailable when it cannot even be checked (full, not ours, an I/O error)."""
    try:
        conn = sqlite3.connect(db_path, isolation_level=None)
        try:
            rows = conn.execute("PRAGMA quick_check").fetchall()
        finally:
            conn.close()
    except sqlite3.Error as error:
        if is_damage(error):
            return str(error)
        raise storage_problem(error, db_path) from error
    if rows == [("ok",)]:
        return None
    return "; ".join(str(row[0]) for row in rows[:3])


def _connect_writer(db_path: Path) -> sqlite3.Connection:
    """The writer's connection; nothing is written to a log that already has the schema."""
    conn = sqlite3.connect(db_path, isolation_level=None)
    try:
        if conn.execute("PRAGMA journal_mode").fetchone()[0] != "wal":
            conn.execute("PRAGMA journal_mode=WAL")
        conn.execute("PRAGMA synchronous=FULL")
        conn.execute("PRAGMA foreign_keys=ON")
        tables = {row[0] for row in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        if not {"games", "events"} <= tables:
            conn.executescript(_SCHEMA)
        if conn.execute("PRAGMA user_version").fetchone()[0] != SCHEMA_VERSION:
            conn.execute(f"PRAGMA user_version={SCHEMA_VERSION}")
    except sqlite3.Error:
        conn.close()
        raise
    return conn


def _prove_folder_writable(state_dir: Path) -> None:
    """Raise StorageUnavailable unless a scratch file of PROBE_BYTES can be written and
    synced in the state folder, and the log's files are ours to write. Done before SQLite
    opens anything, so that a log on a card that cannot take it is not touched at all (not
    even checkpointed)."""
    probe = state_dir / PROBE_NAME
    try:
        fd = os.open(probe, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
        try:
            if os.write(fd, bytes(PROBE_BYTES)) < PROBE_BYTES:
                raise OSError(errno.ENOSPC, "no space for the write probe")
            os.fsync(fd)
        finally:
            os.close(fd)
    except OSError as error:
        raise storage_problem(error, state_dir) from error
    finally:
        try:
            probe.unlink()
        except OSError:
            pass
    for suffix in ("", "-wal", "-shm"):
        part = state_dir / (DB_NAME + suffix)
        if part.exists() and not os.access(part, os.R_OK | os.W_OK):
            raise StorageUnavailable("not_writable", f"{part}: not writable by this user (uid {os.geteuid()})")


def _prove_writable(conn: sqlite3.Connection, db_path: Path) -> None:
    """Raise StorageUnavailable unless SQLite can write the log: a file it could only open
    read-only refuses the first page changed (rolled back here, so nothing is written)."""
    try:
        conn.execute("BEGIN IMMEDIATE")
        try:
            conn.execute(f"PRAGMA user_version={SCHEMA_VERSION}")
        finally:
            conn.execute("ROLLBACK")
    except sqlite3.Error as error:
        raise storage_problem(error, db_path) from error


def _move_aside(db_path: Path) -> Path:
    """Rename a bad database (and its WAL and shared-memory files) with a UTC timestamp."""
    stamp = datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%SZ")
    target = db_path.with_name(f"{db_path.name}.corrupt-{stamp}")
    n = 1
    while target.exists():
        n += 1
        target = db_path.with_name(f"{db_path.name}.corrupt-{stamp}-{n}")
    for suffix in ("-wal", "-shm", ""):
        part = db_path.with_name(db_path.name + suffix)
        if part.exists():
            os.replace(part, target.with_name(target.name + suffix))
    sync_folder(db_path.parent)
    return target


class EventLog:
    """The game events of one state directory. Use `open` (the writer) or `open_readonly`."""

    def __init__(self, state_dir: Path, conn: sqlite3.Connection, readonly: bool,
                 notice: str | None = None, moved_aside: Path | None = None) -> None:
        self.state_dir = state_dir
        self._conn = conn
        self._readonly = readonly
        # Set when a corrupt database was moved aside at open: shown on the screen.
        self.notice = notice
        self.moved_aside = moved_aside

    # -- opening ---------------------------------------------------------------------------

    @classmethod
    def open(cls, state_dir: str | os.PathLike[str], wal_autocheckpoint: int | None = None) -> "EventLog":
        """Open (or create) the log for writing. A damaged file is moved aside and a fresh
        log started, with `notice` saying so. StorageUnavailable (nothing touched) when the
        storage is full, not writable or failing. `wal_autocheckpoint` (pages, SQLite's
        default 1000) is for the soak, which wants many checkpoints in a short game."""
        state_dir = Path(state_dir)
        try:
            state_dir.mkdir(parents=True, exist_ok=True)
        except OSError as error:
            raise storage_problem(error, state_dir) from error
        _prove_folder_writable(state_dir)
        db_path = state_dir / DB_NAME
        problem = _is_healthy(db_path) if db_path.exists() else None
        conn = None
        if problem is None:
            try:
                conn = _connect_writer(db_path)
            except sqlite3.Error as error:
                if not is_damage(error):  # damage quick_check did not see moves it aside below
                    raise storage_problem(error, db_path) from error
                problem = str(error)
        notice = moved = None
        if problem is not None:
            try:
                moved = _move_aside(db_path)
            except OSError as error:
                raise storage_problem(error, db_path) from error
            notice = (f"event log {db_path} failed its integrity check ({problem}); "
                      f"moved aside to {moved.name}, starting a new log")
            log.error(notice)
            try:
                conn = _connect_writer(db_path)
            except sqlite3.Error as error:
                raise storage_problem(error, db_path) from error
        assert conn is not None
        try:
            _prove_writable(conn, db_path)
        except StorageUnavailable:
            conn.close()
            raise
        if wal_autocheckpoint is not None:
            conn.execute(f"PRAGMA wal_autocheckpoint={int(wal_autocheckpoint)}")
        return cls(state_dir, conn, readonly=False, notice=notice, moved_aside=moved)

    @classmethod
    def open_readonly(cls, state_dir: str | os.PathLike[str]) -> "EventLog":
        """Open the log for reading while the service may be writing (the exporter)."""
        state_dir = Path(state_dir)
        db_path = state_dir / DB_NAME
        if not db_path.exists():
            raise EventLogError(f"no event log at {db_path}")
        conn = sqlite3.connect(f"{db_path.resolve().as_uri()}?mode=ro", uri=True,
                               isolation_level=None)
        return cls(state_dir, conn, readonly=True)

    def close(self) -> None:
        """Close the log; for the writer, checkpoint the WAL into the database first."""
        if not self._readonly:
            try:
                self._conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            except sqlite3.Error as error:  # a checkpoint is an optimisation, never required
                log.warning("event log checkpoint failed: %s", error)
        self._conn.close()

    def __enter__(self) -> "EventLog":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- writing ---------------------------------------------------------------------------

    def _writable(self) -> None:
        if self._readonly:
            raise EventLogError("this event log was opened read-only")

    def _transaction(self) -> "_Transaction":
        self._writable()
        return _Transaction(self._conn)

    def begin_game(self, started_event: dict[str, Any], game_id: str | None = None) -> str:
        """Record a new game with its game_started event as seq 0; returns its game_id."""
        game = str(started_event.get("game") or started_event.get("game_id") or "")
        if not game:
            raise EventLogError("the game_started event names no game")
        game_id = game_id or new_game_id()
        at = utc_now_iso()
        with self._transaction() as conn:
            conn.execute("INSERT INTO games (game_id, game, started_at) VALUES (?, ?, ?)",
                         (game_id, game, at))
            conn.execute("INSERT INTO events (game_id, seq, at, event) VALUES (?, 0, ?, ?)",
                         (game_id, at, _dumps(started_event)))
        return game_id

    def append(self, game_id: str, event: dict[str, Any], reading: dict[str, Any] | None = None,
               snapshot_jpeg: bytes | None = None) -> StoredEvent:
        """Append an event; it is committed (on disk) when this returns."""
        at = utc_now_iso()
        with self._transaction() as conn:
            row = conn.execute("SELECT ended_at FROM games WHERE game_id = ?",
                               (game_id,)).fetchone()
            if row is None:
                raise EventLogError(f"no game {game_id!r} in the log")
            if row[0] is not None:
                raise EventLogError(f"game {game_id!r} has ended")
            seq = conn.execute("SELECT COALESCE(MAX(seq), -1) + 1 FROM events WHERE game_id = ?",
                               (game_id,)).fetchone()[0]
            snapshot = None
            if snapshot_jpeg is not None:
                snapshot = f"{SNAPSHOT_DIR}/{game_id}/{seq:06d}.jpg"
                # Written before the commit: a crash in between leaves an unreferenced file
                # that the next append of this seq replaces.
                (self.state_dir / snapshot).parent.mkdir(parents=True, exist_ok=True)
                write_atomically(self.state_dir / snapshot, snapshot_jpeg)
            conn.execute(
                "INSERT INTO events (game_id, seq, at, event, reading, snapshot)"
                " VALUES (?, ?, ?, ?, ?, ?)",
                (game_id, seq, at, _dumps(event),
                 None if reading is None else _dumps(reading), snapshot))
        return StoredEvent(seq, at, event, reading, snapshot)

    def end_game(self, game_id: str) -> None:
        """Mark a game ended (finished, or abandoned for a new one)."""
        with self._transaction() as conn:
            conn.execute("UPDATE games SET ended_at = ? WHERE game_id = ? AND ended_at IS NULL",
                         (utc_now_iso(), game_id))

    def forget_snapshot(self, game_id: str, seq: int) -> None:
        """Record that an event's snapshot was deleted by retention."""
        with self._transaction() as conn:
            conn.execute("UPDATE events SET snapshot = NULL WHERE game_id = ? AND seq = ?",
                         (game_id, seq))

    # -- reading ---------------------------------------------------------------------------

    def games(self) -> list[GameRecord]:
        """Every game, oldest first."""
        rows = self._conn.execute(
            "SELECT game_id, game, started_at, ended_at FROM games ORDER BY rowid").fetchall()
        return [GameRecord(*row) for row in rows]

    def game(self, game_id: str) -> GameRecord | None:
        row = self._conn.execute(
            "SELECT game_id, game, started_at, ended_at FROM games WHERE game_id = ?",
            (game_id,)).fetchone()
        return None if row is None else GameRecord(*row)

    def unfinished(self) -> GameRecord | None:
        """The most recently started game that has not ended, if any."""
        row = self._conn.execute(
            "SELECT game_id, game, started_at, ended_at FROM games WHERE ended_at IS NULL"
            " ORDER BY rowid DESC LIMIT 1").fetchone()
        return None if row is None else GameRecord(*row)

    def events(self, game_id: str) -> list[StoredEvent]:
        """A game's events in order."""
        return list(self.iter_events(game_id))

    def iter_events(self, game_id: str) -> Iterator[StoredEvent]:
        rows = self._conn.execute(
            "SELECT seq, at, event, reading, snapshot FROM events WHERE game_id = ? ORDER BY seq",
            (game_id,))
        for seq, at, event, reading, snapshot in rows:
            yield StoredEvent(seq, at, json.loads(event),
                              None if reading is None else json.loads(reading), snapshot)

    def snapshots(self) -> list[tuple[str, int, str]]:
        """(game_id, seq, relative path) of every event that has a snapshot, oldest first."""
        rows = self._conn.execute(
            "SELECT e.game_id, e.seq, e.snapshot FROM events e JOIN games g USING (game_id)"
            " WHERE e.snapshot IS NOT NULL ORDER BY g.rowid, e.seq").fetchall()
        return [(g, s, p) for g, s, p in rows]


class _Transaction:
    """BEGIN IMMEDIATE ... COMMIT, rolled back on any error."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self._conn = conn

    def __enter__(self) -> sqlite3.Connection:
        self._conn.execute("BEGIN IMMEDIATE")
        return self._conn

    def __exit__(self, exc_type: object, *exc: object) -> None:
        if exc_type is None:
            self._conn.execute("COMMIT")
        else:
            self._conn.execute("ROLLBACK")


def _dumps(value: dict[str, Any]) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))
