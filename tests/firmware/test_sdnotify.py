"""The systemd notify client talks to a real UNIX datagram socket, path or abstract."""

from __future__ import annotations

import os
import socket
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from firmware import sdnotify


@pytest.fixture
def listener(tmp_path: Path) -> Iterator[tuple[socket.socket, str]]:
    path = tmp_path / "notify.sock"
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.bind(str(path))
    sock.settimeout(2)
    yield sock, str(path)
    sock.close()


@pytest.fixture
def abstract_listener() -> Iterator[tuple[socket.socket, str]]:
    name = f"cubilete-test-{uuid.uuid4().hex}"
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.bind(b"\0" + name.encode())
    sock.settimeout(2)
    yield sock, "@" + name
    sock.close()


def test_sends_each_state_as_one_datagram(listener: tuple[socket.socket, str]) -> None:
    sock, path = listener
    env = {"NOTIFY_SOCKET": path}
    for state in (sdnotify.READY, sdnotify.WATCHDOG, "STATUS=reading dice", sdnotify.STOPPING):
        assert sdnotify.notify(state, env) is True
        assert sock.recv(4096).decode() == state


def test_abstract_socket_names_start_with_at(abstract_listener: tuple[socket.socket, str]) -> None:
    sock, name = abstract_listener
    assert sdnotify.notify("READY=1", {"NOTIFY_SOCKET": name}) is True
    assert sock.recv(4096) == b"READY=1"


def test_helpers_use_the_environment(
    listener: tuple[socket.socket, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    sock, path = listener
    monkeypatch.setenv("NOTIFY_SOCKET", path)
    assert sdnotify.ready("camera and display up")
    assert sock.recv(4096) == b"READY=1\nSTATUS=camera and display up"
    assert sdnotify.watchdog()
    assert sock.recv(4096) == b"WATCHDOG=1"
    assert sdnotify.status("two lines\nbecome one")
    assert sock.recv(4096) == b"STATUS=two lines become one"
    assert sdnotify.stopping()
    assert sock.recv(4096) == b"STOPPING=1"


def test_unset_socket_is_a_quiet_no_op(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("NOTIFY_SOCKET", raising=False)
    assert sdnotify.ready() is False
    assert sdnotify.notify("READY=1", {}) is False
    assert sdnotify.notify("READY=1", {"NOTIFY_SOCKET": "relative/path"}) is False


def test_a_vanished_socket_does_not_raise(tmp_path: Path) -> None:
    assert sdnotify.notify("WATCHDOG=1", {"NOTIFY_SOCKET": str(tmp_path / "gone.sock")}) is False


def test_watchdog_interval_is_half_the_timeout() -> None:
    env = {"WATCHDOG_USEC": "30000000", "WATCHDOG_PID": str(os.getpid())}
    assert sdnotify.watchdog_timeout(env) == 30.0
    assert sdnotify.watchdog_interval(env) == 15.0
    assert sdnotify.watchdog_interval({"WATCHDOG_USEC": "2000000"}) == 1.0


@pytest.mark.parametrize(
    "env",
    [
        {},
        {"WATCHDOG_USEC": "0"},
        {"WATCHDOG_USEC": "soon"},
        {"WATCHDOG_USEC": "30000000", "WATCHDOG_PID": "1"},
        {"WATCHDOG_USEC": "30000000", "WATCHDOG_PID": "x"},
    ],
)
def test_watchdog_is_off_unless_meant_for_this_process(env: dict[str, str]) -> None:
    assert sdnotify.watchdog_interval(env) is None
