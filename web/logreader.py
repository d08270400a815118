"""The event log, read-only: SQLite opened with `mode=ro` beside the game service's writer.

WAL lets this reader run while the service writes; nothing here ever writes to the log or
creates a file: while the service has the log open, SQLite uses the service's `-wal` and
`-shm` files (read-only where this user may not write them); when the service is stopped
and has removed them, a `mode=ro` connection would create them where it could (and cannot
open the log where it cannot), so the log is then read as `immutable`, nothing being able
to write it, one fresh connection per read until the service is back.

`token()` is cheap and changes whenever the log may have changed (SQLite's data_version and
the files' sizes and times), so the live loop polls it and re-reads only after a change.
"""

from __future__ import annotations

import json
import os
import re
import sqlite3
import stat
import threading
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator
from urllib.parse import quote

from firmware.eventlog import DB_NAME, SNAPSHOT_DIR, GameRecord, StoredEvent

# What a game id may look like in a URL (the log's own are 20260101T200000Z-a1b2c3).
GAME_ID = re.compile(r"^[0-9A-Za-z-]{1,64}$")
MAX_SNAPSHOT_BYTES = 8 * 1024 * 1024


class LogUnavailable(Exception):
    """No log to read (none yet, or it cannot be opened now)."""


class LogReader:
    """The games and events of a state directory, read-only. Safe to share between threads
    (one read at a time)."""

    def __init__(self, state_dir: str | os.PathLike[str]) -> None:
        self.state_dir = Path(state_dir)
        self.db_path = self.state_dir / DB_NAME
        self._conn: sqlite3.Connection | None = None
        self._opened: tuple[int | None, ...] = ()
        self._lock = threading.Lock()

    def close(self) -> None:
        with self._lock:
            self._drop()

    def _drop(self) -> None:
        if self._conn is not None:
            self._conn.close()
        self._conn = None
        self._opened = ()

    def _uri(self, immutable: bool) -> str:
        return f"file:{quote(str(self.db_path.resolve()))}?mode=ro" + ("&immutable=1" if immutable else "")

    def _connect(self, immutable: bool = False) -> sqlite3.Connection:
        conn = sqlite3.connect(self._uri(immutable), uri=True, isolation_level=None, check_same_thread=False)
        try:
            conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
        except sqlite3.Error:
            conn.close()
            raise
        return conn

    def _files(self) -> tuple[int | None, int | None, int | None]:
        """The inodes of the database, its WAL and its shared-memory file (None: absent)."""
        found: list[int | None] = []
        for suffix in ("", "-wal", "-shm"):
            try:
                found.append(os.stat(str(self.db_path) + suffix).st_ino)
            except OSError:
                found.append(None)
        return found[0], found[1], found[2]

    @contextmanager
    def _reading(self) -> Iterator[sqlite3.Connection]:
        """A connection inside one read transaction (a consistent view of the log).

        While the service has the log open (its WAL files exist) one connection is kept, and
        opened again when those files are new ones (the service restarted, or a damaged log
        was moved aside). Without WAL files nothing is writing: a fresh immutable connection
        per read, which creates no file even where this user could."""
        with self._lock:
            files = self._files()
            if files[0] is None:
                self._drop()
                raise LogUnavailable(f"no event log at {self.db_path}")
            transient = None in files
            if transient or files != self._opened:
                self._drop()
            try:
                if transient:
                    conn = self._connect(immutable=True)
                elif self._conn is None:
                    conn = self._conn = self._connect()
                    self._opened = files
                else:
                    conn = self._conn
            except sqlite3.Error as error:
                raise LogUnavailable(f"{self.db_path}: {error}") from error
            try:
                conn.execute("BEGIN")
                try:
                    yield conn
                finally:
                    conn.execute("COMMIT")
            except sqlite3.Error as error:
                self._drop()
                raise LogUnavailable(f"{self.db_path}: {error}") from error
            finally:
                if transient:
                    conn.close()

    def token(self) -> tuple[object, ...]:
        """Changes whenever the log may have changed."""
        parts: list[object] = []
        for suffix in ("", "-wal", "-shm"):
            try:
                info = os.stat(str(self.db_path) + suffix)
                parts.append((info.st_ino, info.st_size, info.st_mtime_ns))
            except OSError:
                parts.append(None)
        with self._lock:
            if self._conn is not None:
                try:
                    parts.append(self._conn.execute("PRAGMA data_version").fetchone()[0])
                except sqlite3.Error:
                    self._drop()
        return tuple(parts)

    def games(self) -> list[GameRecord]:
        with self._reading() as conn:
            rows = conn.execute("SELECT game_id, game, started_at, ended_at FROM games ORDER BY rowid").fetchall()
        return [GameRecord(*row) for row in rows]

    def read(self, game_ids: list[str]) -> tuple[list[GameRecord], dict[str, list[StoredEvent]]]:
        """Every game and the events of `game_ids`, from one consistent view of the log."""
        with self._reading() as conn:
            games = [GameRecord(*row) for row in conn.execute(
                "SELECT game_id, game, started_at, ended_at FROM games ORDER BY rowid")]
            events = {game_id: _events(conn, game_id) for game_id in game_ids}
        return games, events

    def events(self, game_id: str) -> list[StoredEvent]:
        with self._reading() as conn:
            return _events(conn, game_id)

    def snapshot(self, game_id: str, seq: int) -> bytes | None:
        """The JPEG of a throw by game id and event number; None unless the log names exactly
        the file the service writes for it (`snapshots/<game_id>/<seq>.jpg`) and it is a
        regular file of sensible size. No other path is ever opened."""
        if not GAME_ID.match(game_id) or not 0 <= seq < 10**6:
            return None
        with self._reading() as conn:
            row = conn.execute("SELECT snapshot FROM events WHERE game_id = ? AND seq = ?",
                               (game_id, seq)).fetchone()
        expected = f"{SNAPSHOT_DIR}/{game_id}/{seq:06d}.jpg"
        if row is None or row[0] != expected:
            return None
        try:
            fd = os.open(self.state_dir / expected, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
        except OSError:
            return None
        try:
            info = os.fstat(fd)
            if not stat.S_ISREG(info.st_mode) or info.st_size > MAX_SNAPSHOT_BYTES:
                return None
            with os.fdopen(fd, "rb", closefd=False) as file:
                return file.read(MAX_SNAPSHOT_BYTES + 1)[:MAX_SNAPSHOT_BYTES]
        finally:
            os.close(fd)


def _events(conn: sqlite3.Connection, game_id: str) -> list[StoredEvent]:
    rows = conn.execute("SELECT seq, at, event, snapshot FROM events WHERE game_id = ? ORDER BY seq", (game_id,))
    return [StoredEvent(seq, at, json.loads(event), None, snapshot) for seq, at, event, snapshot in rows]
