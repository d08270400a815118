"""One USB export: tell the service it started, mount the stick privately, export, sync,
unmount, and only then report "done".

`cubilete-export@<dev>.service` splits this in three processes (see firmware.export.mountstep):
the privileged mount, then `run_stick_export` writing the files as the cubilete user with
no capability (it reports progress and leaves its result for the last step), then the
privileged sync, unmount and report. `run_usb_export` does all of it in one process, for a
run by hand as root (`cubilete export --device sda1`) and the tests.

Every outcome reaches the service as one message (`notify.py`) and stderr (the journal)
as one line; the exit code is 0 only for a completed export with the stick unmounted.
"""

from __future__ import annotations

import os
import signal
import sys
import time
from collections.abc import Callable
from pathlib import Path
from types import FrameType
from typing import Any

from firmware.export import notify
from firmware.export.exporter import PartialExport, device_locale, export_games
from firmware.export.mountstep import JOB_FILE, MOUNT_POINT, RESULT_FILE, read_json, write_json
from firmware.export.safewrite import ExportError
from hardware.usb import UsbError, UsbPartition, UsbStorage

PROG = "cubilete export"
PROGRESS_INTERVAL = 0.5


class Stopped(Exception):
    """systemd stopped the export: the stick's device went away (BindsTo=) or a shutdown."""


def default_mountpoint() -> Path:
    """<runtime folder>/stick: the unit's runtime folder, or /run/cubilete-export/manual."""
    runtime = os.environ.get("RUNTIME_DIRECTORY", "/run/cubilete-export/manual").split(":")[0]
    return Path(runtime) / MOUNT_POINT


def run_usb_export(device: str, config: Any, *, state_dir: str, all_games: bool, device_name: str,
                   quiet: bool = False, storage: UsbStorage | None = None,
                   send: Callable[[notify.ExportMessage], bool] | None = None) -> int:
    """Export to the stick `device` ("/dev/sda1" or "sda1"); returns the exit code."""
    stick = storage or UsbPartition(device, default_mountpoint())
    socket_path = config.export.socket
    post = send or (lambda message: notify.send(socket_path, message))
    name = stick.name
    previous = signal.signal(signal.SIGTERM, _stop)
    try:
        post(notify.started(name))
        games, error, written = _mount_and_export(stick, state_dir, all_games, device_name, config, post)
        unmounted, unmount_error = _sync_and_unmount(stick)
    finally:
        signal.signal(signal.SIGTERM, previous)

    if error is None and unmount_error is not None:
        error = unmount_error
    if error is None:
        post(notify.done(name, games, written))
        if not quiet:
            print(f"exported {games} game{'s' if games != 1 else ''} ({written / 1e6:.1f} MB) to {name};"
                  " stick unmounted, safe to remove")
        return 0
    post(notify.failed(name, error, games=games, safe_to_remove=unmounted))
    print(f"{PROG}: error: {error}", file=sys.stderr)
    return 1


def _stop(signum: int, frame: FrameType | None) -> None:
    raise Stopped("the export was stopped (was the stick pulled out?)")


def _mount_and_export(stick: UsbStorage, state_dir: str, all_games: bool, device_name: str, config: Any,
                      post: Callable[[notify.ExportMessage], bool]) -> tuple[int, str | None, int]:
    """(games exported, error or None, bytes written)."""
    try:
        root = stick.mount()
    except (UsbError, Stopped) as error:
        return 0, str(error), 0
    except OSError as error:
        return 0, f"cannot mount the stick: {error.strerror or error}", 0
    return _export(root, stick.name, state_dir, all_games, device_name, config, post)


def _export(root: Path, name: str, state_dir: str, all_games: bool, device_name: str, config: Any,
            post: Callable[[notify.ExportMessage], bool]) -> tuple[int, str | None, int]:
    """Export onto the mounted stick: (games written and read back, error or None, bytes)."""
    last = 0.0

    def report(done: int, total: int) -> None:
        nonlocal last
        if time.monotonic() - last >= PROGRESS_INTERVAL or done == total:
            last = time.monotonic()
            post(notify.progress(name, done, total))

    try:
        result = export_games(state_dir, root, device_name, all_games=all_games,
                              byte_cap=config.export.byte_cap_mb * 1_000_000,
                              include_snapshots=config.export.include_snapshots,
                              locale=device_locale(config, state_dir), progress=report)
    except PartialExport as error:
        return error.games, str(error), 0
    except (ExportError, Stopped) as error:
        return 0, str(error), 0
    except Exception as error:  # one line on the screen, never a dead unit without a word
        return 0, f"unexpected {type(error).__name__}: {error}", 0
    return result.games, None, result.bytes_written


def _sync_and_unmount(stick: UsbStorage) -> tuple[bool, str | None]:
    """(unmounted, error): the stick is safe to remove only when unmounted is True."""
    error: str | None = None
    try:
        stick.sync()
    except (UsbError, Stopped) as problem:
        error = str(problem)
    try:
        stick.unmount()
    except (UsbError, Stopped) as problem:
        return False, error or str(problem)
    return True, error


def run_request(runtime_dir: str, config: Any, *, state_dir: str, device_name: str, quiet: bool = False) -> int:
    """The menu's "export all": take the service's request file and run that export."""
    try:
        request = notify.take_request(runtime_dir)
    except (ValueError, OSError) as error:
        print(f"{PROG}: error: {error}", file=sys.stderr)
        return 1
    if request is None:
        return 0  # the path unit fired for the deletion of a request
    return run_usb_export(f"/dev/{request.device}", config, state_dir=state_dir,
                          all_games=request.all_games, device_name=device_name, quiet=quiet)


def run_stick_export(runtime_dir: str, config: Any, *, state_dir: str, device_name: str, quiet: bool = False) -> int:
    """The unprivileged middle step: export onto the stick the mount step mounted at
    RUNTIME_DIR/stick (which and how: RUNTIME_DIR/job.json), report progress, and leave the
    result in RUNTIME_DIR/result.json for the unmount step, which alone may say "done"."""
    runtime = Path(runtime_dir)
    job = read_json(runtime, JOB_FILE) or {}
    name = str(job.get("device", ""))
    if not notify.DEVICE_NAME.match(name):
        print(f"{PROG}: error: {runtime / JOB_FILE} names no stick (was it mounted?)", file=sys.stderr)
        return 1
    socket_path = config.export.socket

    def post(message: notify.ExportMessage) -> bool:
        return notify.send(socket_path, message)

    previous = signal.signal(signal.SIGTERM, _stop)
    try:
        games, error, written = _export(runtime / MOUNT_POINT, name, state_dir, job.get("all") is True,
                                         device_name, config, post)
    finally:
        signal.signal(signal.SIGTERM, previous)
    write_json(runtime, RESULT_FILE, {"games": games, "bytes": written, "error": error})
    if error is not None:
        print(f"{PROG}: error: {error}", file=sys.stderr)
        return 1
    if not quiet:
        print(f"wrote and read back {games} game{'s' if games != 1 else ''} ({written / 1e6:.1f} MB) on {name}")
    return 0
