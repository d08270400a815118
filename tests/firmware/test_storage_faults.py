"""Storage faults at start: a full card, a read-only card, log files of another user.

The log in each case is healthy (a game under way, the service killed mid-game so its WAL
is hot). The service must say what is wrong ("Storage full", "Storage read-only"),
retry, and leave the log exactly as it was: nothing moved aside, no event lost, and the
game resumes once the fault is gone. The real faults need root (a small tmpfs, a read-only
remount, a service run as another user); without root those cases skip and the same
outcomes are checked with faults SQLite reports the same way.
"""

from __future__ import annotations

import errno
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import numpy as np
import pytest

from firmware.config import Config
from firmware.eventlog import DB_NAME, EventLog, StorageUnavailable, is_damage, storage_problem
from firmware.service import Service
from hardware.buttons import NoButtons
from hardware.camera import FakeCamera, ResilientCamera
from hardware.display import DummyDisplay
from tests.conftest import PROJECT_ROOT

ROUNDS = 6  # 2 players x 6 rounds x (throw + score) + game_started = 25 events
EVENTS = 1 + 2 * ROUNDS * 2

RECORD_AND_DIE = f"""
import os, signal, sys
sys.path.insert(0, {str(PROJECT_ROOT)!r})
from firmware.eventlog import EventLog
from tests.firmware.export_support import record_game
log = EventLog.open(sys.argv[1])
record_game(log, ["Ana", "Beto"], rounds={ROUNDS}, end=False)
os.kill(os.getpid(), signal.SIGKILL)
"""


def record_then_sigkill(state: Path) -> None:
    """A game under way, the writer killed: the newest events are in the hot WAL."""
    subprocess.run([sys.executable, "-c", RECORD_AND_DIE, str(state)], check=False, timeout=60)
    assert (state / f"{DB_NAME}-wal").stat().st_size > 0


def log_files(state: Path) -> dict[str, bytes]:
    """The log as it lies on the card (the shared-memory index aside: SQLite rebuilds it)."""
    return {p.name: p.read_bytes() for p in sorted(state.iterdir())
            if p.is_file() and not p.name.endswith("-shm") and p.name != ".write-probe"}


def stored_events(state: Path) -> int:
    conn = sqlite3.connect(state / DB_NAME)
    try:
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        return conn.execute("SELECT COUNT(*) FROM events").fetchone()[0]
    finally:
        conn.close()


def start_service(state: Path, sockets: Path) -> Service:
    camera = ResilientCamera(lambda: FakeCamera([np.zeros((48, 64, 3), np.uint8)], loop=True))
    return Service(Config(), [], state, camera, DummyDisplay(), NoButtons(), object(),
                   control_socket=str(sockets / "control.sock"))


def assert_waits_and_touches_nothing(service: Service, state: Path, before: dict[str, bytes], kind: str,
                                     title: str) -> None:
    assert service.app is None and service.storage_kind == kind, service.storage_error
    for _ in range(3):  # the retries every few seconds
        assert not service._open_storage()
    from firmware.service import storage_screen

    assert storage_screen(service.storage_kind, service.storage_error).title.en == title
    assert log_files(state) == before  # nothing moved aside, nothing added, nothing written


def assert_resumes(service: Service) -> None:
    assert service._open_storage(), service.storage_error
    assert service.app.session is not None and service.app.session.events == EVENTS
    service.shutdown()


# -- real faults (root) ---------------------------------------------------------------------------

def can_mount() -> bool:
    return os.geteuid() == 0 and shutil.which("mount") is not None


needs_root = pytest.mark.skipif(not can_mount(), reason="needs root to mount a small tmpfs")


@contextmanager
def tmpfs(path: Path, size_kb: int) -> Iterator[Path]:
    path.mkdir()
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size_kb}k,mode=0755", "tmpfs", str(path)],
                          capture_output=True, text=True)
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {done.stderr.strip()}")
    try:
        yield path
    finally:
        subprocess.run(["umount", "-l", str(path)], check=False)


def fill(folder: Path) -> Path:
    filler = folder / "filler"
    with open(filler, "wb") as out:
        try:
            while True:
                out.write(b"\0" * 65536)
                out.flush()
        except OSError as error:
            assert error.errno == errno.ENOSPC
    return filler


@needs_root
def test_a_full_card_is_shown_and_retried_and_the_log_kept(tmp_path: Path) -> None:
    with tmpfs(tmp_path / "card", 4096) as card:
        state = card / "state"
        record_then_sigkill(state)
        filler = fill(card)
        before = log_files(state)
        service = start_service(state, tmp_path)
        assert_waits_and_touches_nothing(service, state, before, "full", "Storage full")
        filler.unlink()
        assert_resumes(service)
        assert stored_events(state) == EVENTS
        assert not list(state.glob("*corrupt*"))


@needs_root
def test_a_read_only_card_is_shown_and_retried_and_the_log_kept(tmp_path: Path) -> None:
    with tmpfs(tmp_path / "card", 4096) as card:
        state = card / "state"
        record_then_sigkill(state)
        subprocess.run(["mount", "-o", "remount,ro", str(card)], check=True)
        before = log_files(state)
        service = start_service(state, tmp_path)
        assert_waits_and_touches_nothing(service, state, before, "not_writable", "Storage read-only")
        subprocess.run(["mount", "-o", "remount,rw", str(card)], check=True)
        assert_resumes(service)
        assert stored_events(state) == EVENTS


@pytest.mark.skipif(os.geteuid() != 0 or shutil.which("setpriv") is None,
                    reason="needs root and setpriv to run the service as a user that does not own the log")
def test_log_files_of_another_user_are_shown_and_left_alone() -> None:
    # The service runs as nobody in its own folder; the log files were left by root (someone
    # ran `sudo cubilete run` by hand). The old code moved them aside as "corrupt".
    with tempfile.TemporaryDirectory(prefix="cubilete-owner-") as temporary:
        root = Path(temporary)
        root.chmod(0o755)
        state = root / "state"
        record_then_sigkill(state)
        os.chown(state, 65534, 65534)
        before = log_files(state)
        command = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", sys.executable, "-m",
                   "cli.main", "run", "--camera", "fake", "--display", "dummy", "--buttons", "none",
                   "--state-dir", str(state), "--socket", str(root / "control.sock")]
        proc = subprocess.Popen(command, cwd=PROJECT_ROOT, stderr=subprocess.PIPE, text=True,
                                env={**os.environ, "PYTHONPATH": str(PROJECT_ROOT)})
        assert proc.stderr is not None
        deadline = time.monotonic() + 60
        lines = []
        for line in proc.stderr:
            lines.append(line)
            if "cannot open the event log" in line or "ready:" in line or time.monotonic() > deadline:
                break
        time.sleep(6)  # past one retry
        proc.send_signal(signal.SIGTERM)
        _, rest = proc.communicate(timeout=30)
        text = "".join(lines) + rest
        assert proc.returncode == 0, text
        assert "(not_writable)" in text, text
        assert log_files(state) == before
        assert stored_events(state) == EVENTS
        shutil.chown(state, 0, 0)


# -- the same outcomes without root ---------------------------------------------------------------

def test_files_the_service_may_not_write_are_left_alone(tmp_path: Path) -> None:
    if os.geteuid() == 0:
        pytest.skip("root writes read-only files; the real case runs as another user above")
    state = tmp_path / "state"
    record_then_sigkill(state)
    for path in state.iterdir():
        path.chmod(0o444)
    state.chmod(0o555)
    try:
        before = log_files(state)
        service = start_service(state, tmp_path)
        assert_waits_and_touches_nothing(service, state, before, "not_writable", "Storage read-only")
    finally:
        state.chmod(0o755)
        for path in state.iterdir():
            path.chmod(0o644)
    assert stored_events(state) == EVENTS


@pytest.mark.parametrize("code, kind", [(sqlite3.SQLITE_FULL, "full"), (sqlite3.SQLITE_READONLY, "not_writable"),
                                        (sqlite3.SQLITE_CANTOPEN, "not_writable"), (sqlite3.SQLITE_IOERR, "error")])
def test_sqlite_errors_that_are_not_damage_never_move_the_log(code: int, kind: str, tmp_path: Path) -> None:
    error = sqlite3.OperationalError("simulated")
    error.sqlite_errorcode = code  # type: ignore[attr-defined]
    assert not is_damage(error)
    assert storage_problem(error, tmp_path).kind == kind


@pytest.mark.parametrize("code", [sqlite3.SQLITE_CORRUPT, sqlite3.SQLITE_NOTADB])
def test_only_damage_codes_are_damage(code: int) -> None:
    error = sqlite3.DatabaseError("simulated")
    error.sqlite_errorcode = code  # type: ignore[attr-defined]
    assert is_damage(error)


def test_a_storage_fault_is_raised_not_mistaken_for_damage(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    state = tmp_path / "state"
    record_then_sigkill(state)
    before = log_files(state)
    real_write = os.write

    def full(fd: int, data: bytes) -> int:  # the write probe meets a full card
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(os, "write", full)
    with pytest.raises(StorageUnavailable) as raised:
        EventLog.open(state)
    monkeypatch.setattr(os, "write", real_write)
    assert raised.value.kind == "full"
    assert log_files(state) == before
    with EventLog.open(state) as log:
        assert log.notice is None and len(log.events(log.unfinished().game_id)) == EVENTS
