"""Messages between the USB exporter and the main service.

The exporter (`cubilete-export@<dev>.service`) reports to the service over a UNIX datagram
socket that the service binds in its runtime directory (config `export.socket`, default
`/run/cubilete/control.sock`). Both run as the cubilete user; the socket is mode 0600.

Each message is one datagram of at most 4096 bytes: a UTF-8 JSON object with "v": 1, a
"type" and the device's kernel name ("device": "sda1"). Types, in the order they come:

    usb_export_started   {"v":1,"type":"usb_export_started","device":"sda1"}
    usb_export_progress  ... "done": 3, "total": 12            (games; at most 2 a second)
    usb_export_done      ... "games": 12, "bytes": 4718592, "safe_to_remove": true
                         sent only after the stick was synced and unmounted: the screen may
                         say "12 games exported, safe to remove"
    usb_export_failed    ... "message": "the stick is full (...)", "games": 3,
                         "safe_to_remove": true|false
                         one line for the screen; "games" were exported before the failure
                         and are recorded; safe_to_remove is false only when the stick could
                         not be unmounted (the screen should then say to wait, not to pull)

Unknown fields are ignored by `parse_message`; unknown types and malformed datagrams raise
ValueError (the service logs and drops them).

The other way, the service asks for "export every game" (the menu) by writing the request
file `<runtime dir>/export-request` with `request_export` ({"v":1,"device":"sda1",
"all":true}); `cubilete-export-request.path` sees it and starts the exporter, which
deletes the request and reports with the same messages.
"""

from __future__ import annotations

import json
import os
import re
import socket
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hardware.files import write_atomically

VERSION = 1
MAX_DATAGRAM = 4096
STARTED = "usb_export_started"
PROGRESS = "usb_export_progress"
DONE = "usb_export_done"
FAILED = "usb_export_failed"
TYPES = (STARTED, PROGRESS, DONE, FAILED)
REQUEST_FILE = "export-request"
DEVICE_NAME = re.compile(r"^sd[a-z]{1,3}[0-9]{0,3}$")


@dataclass(frozen=True)
class ExportMessage:
    type: str
    device: str
    games: int = 0
    bytes: int = 0
    done: int = 0
    total: int = 0
    message: str = ""
    safe_to_remove: bool = False

    def to_datagram(self) -> bytes:
        fields: dict[str, Any] = {"v": VERSION, "type": self.type, "device": self.device}
        if self.type == PROGRESS:
            fields.update(done=self.done, total=self.total)
        elif self.type == DONE:
            fields.update(games=self.games, bytes=self.bytes, safe_to_remove=self.safe_to_remove)
        elif self.type == FAILED:
            fields.update(message=self.message, games=self.games, safe_to_remove=self.safe_to_remove)
        data = json.dumps(fields, ensure_ascii=False, separators=(",", ":")).encode()
        if len(data) > MAX_DATAGRAM:
            return ExportMessage(self.type, self.device, self.games, self.bytes, self.done, self.total,
                                 self.message[:500], self.safe_to_remove).to_datagram()
        return data


def started(device: str) -> ExportMessage:
    return ExportMessage(STARTED, device)


def progress(device: str, done: int, total: int) -> ExportMessage:
    return ExportMessage(PROGRESS, device, done=done, total=total)


def done(device: str, games: int, bytes_written: int) -> ExportMessage:
    return ExportMessage(DONE, device, games=games, bytes=bytes_written, safe_to_remove=True)


def failed(device: str, message: str, games: int = 0, safe_to_remove: bool = True) -> ExportMessage:
    return ExportMessage(FAILED, device, games=games, message=" ".join(message.splitlines()),
                         safe_to_remove=safe_to_remove)


def parse_message(data: bytes) -> ExportMessage:
    """The message in a datagram; ValueError when it is not one."""
    if len(data) > MAX_DATAGRAM:
        raise ValueError("datagram too long")
    fields = json.loads(data.decode("utf-8"))
    if not isinstance(fields, dict) or fields.get("v") != VERSION:
        raise ValueError("not a version 1 export message")
    kind = fields.get("type")
    if kind not in TYPES:
        raise ValueError(f"unknown export message type {kind!r}")

    def number(key: str) -> int:
        value = fields.get(key, 0)
        if not isinstance(value, int) or isinstance(value, bool) or value < 0:
            raise ValueError(f"{key} must be a count")
        return value

    device = fields.get("device")
    message = fields.get("message", "")
    if not isinstance(device, str) or not isinstance(message, str):
        raise ValueError("device and message are text")
    return ExportMessage(kind, device, games=number("games"), bytes=number("bytes"),
                         done=number("done"), total=number("total"), message=message,
                         safe_to_remove=fields.get("safe_to_remove") is True)


def send(socket_path: str | os.PathLike[str], message: ExportMessage) -> bool:
    """Send to the service; False (never an exception) when it is not listening."""
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM | socket.SOCK_CLOEXEC) as sock:
            sock.settimeout(1.0)
            sock.sendto(message.to_datagram(), os.fspath(socket_path))
    except OSError:
        return False
    return True


def bind_control_socket(socket_path: str | os.PathLike[str]) -> socket.socket:
    """For the service: the non-blocking datagram socket the exporter sends to (mode 0600).

    A stale socket file left by a killed service is replaced; anything else at the path is
    refused.
    """
    path = Path(socket_path)
    try:
        if stat.S_ISSOCK(path.lstat().st_mode):
            path.unlink()
    except FileNotFoundError:
        pass
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM | socket.SOCK_CLOEXEC | socket.SOCK_NONBLOCK)
    old_umask = os.umask(0o177)
    try:
        sock.bind(str(path))
    except OSError:
        sock.close()
        raise
    finally:
        os.umask(old_umask)
    return sock


@dataclass(frozen=True)
class ExportRequest:
    device: str
    all_games: bool


def request_export(runtime_dir: str | os.PathLike[str], device: str, all_games: bool = True) -> Path:
    """For the service (menu "export all"): ask the exporter to export to the stick `device`."""
    if not DEVICE_NAME.match(device):
        raise ValueError(f"{device!r} is not a USB stick partition")
    folder = Path(runtime_dir)
    # The runtime folder is tmpfs: nothing to sync, it does not outlive a power cut anyway.
    write_atomically(folder / REQUEST_FILE, json.dumps({"v": VERSION, "device": device, "all": all_games}).encode(),
                     sync=False)
    return folder / REQUEST_FILE


def take_request(runtime_dir: str | os.PathLike[str]) -> ExportRequest | None:
    """For the exporter: read and delete the request; None when there is none."""
    path = Path(runtime_dir) / REQUEST_FILE
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
    except FileNotFoundError:
        return None
    try:
        raw = os.read(fd, 1024)
    finally:
        os.close(fd)
        path.unlink(missing_ok=True)
    try:
        fields = json.loads(raw)
        device = fields["device"]
        if fields.get("v") != VERSION or not isinstance(device, str) or not DEVICE_NAME.match(device):
            raise ValueError
    except (ValueError, KeyError, TypeError):
        raise ValueError("the export request is not valid") from None
    return ExportRequest(device, fields.get("all") is True)
