"""The privileged steps of a USB export, and nothing else: mount the stick before the export,
sync, unmount and report after it. `cubilete-export@.service` runs them as root outside its
sandbox (ExecStartPre=+ and ExecStopPost=+); the files are written in between by `cubilete
export --stick RUNTIME_DIR`, as the cubilete user with no capability at all.

    python -m firmware.export.mountstep mount (--device sda1 | --request /run/cubilete) --user cubilete RUNTIME_DIR
    python -m firmware.export.mountstep unmount RUNTIME_DIR

In RUNTIME_DIR (the unit's RuntimeDirectory, the writer's): `stick/` is the mount point,
`job.json` says which stick and whether every game goes ({"device": "sda1", "all": false},
written here), `result.json` what the writer did ({"games": 3, "bytes": 4096, "error": null},
read here as untrusted: a small JSON object of counts and one line). Nothing on the stick
is read by these steps; on ext4 the top folder is created and handed to the writer.

"Done, safe to remove" is sent only by `unmount`, after the stick is unmounted and only
when the writer said it finished; any other end is "failed" with what went wrong.
"""

from __future__ import annotations

import argparse
import json
import os
import pwd
import stat
import sys
from pathlib import Path
from typing import Any, Sequence

from firmware.config import load_config
from firmware.export import notify
from hardware.files import write_atomically
from hardware.usb import UsbError, UsbPartition

JOB_FILE = "job.json"
RESULT_FILE = "result.json"
MOUNT_POINT = "stick"
MAX_RESULT_BYTES = 4096
TOP_FOLDER = "CUBILETE"  # firmware.export.exporter.TOP_FOLDER, not imported: root runs as little as it can


def write_json(folder: Path, name: str, data: dict[str, Any], owner: tuple[int, int] | None = None) -> None:
    """A small file, whole or not at all, never through a link."""
    write_atomically(folder / name, json.dumps(data).encode(), owner=owner)


def read_json(folder: Path, name: str) -> dict[str, Any] | None:
    """A small JSON object written by another process; None when absent or not one."""
    try:
        fd = os.open(folder / name, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError:
        return None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None
        raw = os.read(fd, MAX_RESULT_BYTES + 1)
    finally:
        os.close(fd)
    if len(raw) > MAX_RESULT_BYTES:
        return None
    try:
        data = json.loads(raw)
    except ValueError:
        return None
    return data if isinstance(data, dict) else None


def writer_result(runtime: Path) -> tuple[int, int, str | None] | None:
    """(games, bytes, error or None) as the writer left them; None when it left nothing valid."""
    data = read_json(runtime, RESULT_FILE)
    if data is None:
        return None
    games, written, error = data.get("games"), data.get("bytes"), data.get("error")
    for number in (games, written):
        if not isinstance(number, int) or isinstance(number, bool) or number < 0:
            return None
    if error is not None and not isinstance(error, str):
        return None
    return games, written, None if error is None else " ".join(error.splitlines())[:300]


def _socket(config_path: str | None) -> str:
    return load_config(config_path)[0].export.socket


def mount(runtime: Path, device: str | None, request_dir: str | None, user: str, config_path: str | None) -> int:
    socket_path = _socket(config_path)
    all_games = False
    try:
        if request_dir is not None:
            request = notify.take_request(request_dir)
            if request is None:
                raise UsbError("no export was asked for")
            device, all_games = request.device, request.all_games
        assert device is not None
        account = pwd.getpwnam(user)
        name = os.path.basename(device)
        write_json(runtime, JOB_FILE, {"device": name, "all": all_games})
        notify.send(socket_path, notify.started(name))
        stick = UsbPartition(name, runtime / MOUNT_POINT, uid=account.pw_uid, gid=account.pw_gid)
        stick.mount()
        stick.give_folder(TOP_FOLDER)
    except (UsbError, ValueError, KeyError, OSError) as error:
        message = str(error) if isinstance(error, (UsbError, ValueError)) else f"cannot mount the stick: {error}"
        try:
            write_json(runtime, RESULT_FILE, {"games": 0, "bytes": 0, "error": message})
        except OSError:
            pass
        print(f"cubilete export: error: {message}", file=sys.stderr)
        return 1
    return 0


def unmount(runtime: Path, config_path: str | None) -> int:
    socket_path = _socket(config_path)
    job = read_json(runtime, JOB_FILE) or {}
    name = str(job.get("device", ""))
    if not notify.DEVICE_NAME.match(name):
        return 0  # nothing was mounted: the mount step failed before it knew which stick
    stick = UsbPartition(name, runtime / MOUNT_POINT)
    sync_error = None
    try:
        stick.sync()
    except UsbError as error:
        sync_error = str(error)
    try:
        stick.unmount()
        unmounted, unmount_error = True, None
    except UsbError as error:
        unmounted, unmount_error = False, str(error)
    result = writer_result(runtime)
    games, written = (result[0], result[1]) if result else (0, 0)
    error = result[2] if result else "the export stopped before it finished (was the stick pulled out?)"
    error = error or sync_error or unmount_error
    if error is None:
        notify.send(socket_path, notify.done(name, games, written))
        print(f"exported {games} game{'s' if games != 1 else ''} ({written / 1e6:.1f} MB) to {name};"
              " stick unmounted, safe to remove")
        return 0
    notify.send(socket_path, notify.failed(name, error, games=games, safe_to_remove=unmounted))
    print(f"cubilete export: error: {error}", file=sys.stderr)
    return 1


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m firmware.export.mountstep", description=__doc__.split("\n\n")[0])
    steps = parser.add_subparsers(dest="step", required=True)
    mounting = steps.add_parser("mount")
    which = mounting.add_mutually_exclusive_group(required=True)
    which.add_argument("--device", help="the stick's partition, e.g. sda1")
    which.add_argument("--request", metavar="DIR", help="the service's runtime folder holding its export request")
    mounting.add_argument("--user", required=True, help="who writes the files (the unit's User=)")
    for step in (mounting, steps.add_parser("unmount")):
        step.add_argument("--config", help="config file (for the control socket's path)")
        step.add_argument("runtime", type=Path, metavar="RUNTIME_DIR")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if args.step == "mount":
        return mount(args.runtime, args.device, args.request, args.user, args.config)
    return unmount(args.runtime, args.config)


if __name__ == "__main__":
    sys.exit(main())
