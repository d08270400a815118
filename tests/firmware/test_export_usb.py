"""The USB export job: started, mounted, exported, synced, unmounted, and only then "done",
reported over the real control socket; and the message format between exporter and service."""

from __future__ import annotations

import json
import socket
from collections.abc import Iterator
from pathlib import Path

import pytest

from firmware.config import Config, ExportConfig
from firmware.export import notify
from firmware.export.usbjob import run_request, run_usb_export
from hardware.usb import FakeUsbStorage, mount_options
from tests.firmware.export_support import memory_tmp_path, make_state


tmp_path = pytest.fixture(memory_tmp_path)  # fsync-heavy tests: see export_support
module_tmp = pytest.fixture(scope="module")(memory_tmp_path)


@pytest.fixture(scope="module")
def seed(module_tmp: Path) -> Path:
    path = module_tmp / "usb" / "state"
    make_state(path, 2)
    return path


@pytest.fixture
def state(seed: Path, tmp_path: Path) -> Path:
    import shutil

    shutil.copytree(seed, tmp_path / "state")
    return tmp_path / "state"


@pytest.fixture
def service(tmp_path: Path) -> Iterator[tuple[socket.socket, Config]]:
    """The main service's end: the control socket bound as the service binds it."""
    path = tmp_path / "run" / "control.sock"
    path.parent.mkdir()
    sock = notify.bind_control_socket(path)
    sock.setblocking(True)
    sock.settimeout(2)
    yield sock, Config(export=ExportConfig(socket=str(path)))
    sock.close()


def received(sock: socket.socket) -> list[notify.ExportMessage]:
    messages = []
    sock.settimeout(0.2)
    try:
        while True:
            messages.append(notify.parse_message(sock.recv(notify.MAX_DATAGRAM)))
    except (TimeoutError, socket.timeout):
        return messages


def test_done_is_reported_only_after_the_stick_is_unmounted(
        state: Path, tmp_path: Path, service: tuple[socket.socket, Config]) -> None:
    sock, config = service
    stick = FakeUsbStorage(tmp_path / "stick")
    code = run_usb_export("/dev/sda1", config, state_dir=str(state), all_games=False,
                          device_name="bar", quiet=True, storage=stick)
    assert code == 0
    assert stick.calls == ["mount", "sync", "unmount"] and not stick.mounted
    messages = received(sock)
    assert [m.type for m in messages][0] == notify.STARTED
    assert messages[-1].type == notify.DONE
    assert messages[-1].games == 2 and messages[-1].safe_to_remove and messages[-1].device == "sda1"
    assert messages[-1].bytes > 0
    assert (tmp_path / "stick" / "CUBILETE" / "bar" / "games.csv").is_file()


def test_an_unsupported_file_system_is_refused_with_a_message(
        state: Path, tmp_path: Path, service: tuple[socket.socket, Config],
        capsys: pytest.CaptureFixture[str]) -> None:
    sock, config = service
    stick = FakeUsbStorage(tmp_path / "stick", filesystem="ntfs")
    assert run_usb_export("sda1", config, state_dir=str(state), all_games=False, device_name="bar",
                          storage=stick) == 1
    last = received(sock)[-1]
    assert last.type == notify.FAILED and "ntfs" in last.message and "FAT32" in last.message
    assert last.safe_to_remove
    assert not (tmp_path / "stick").exists()
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "ntfs" in err


def test_a_failed_unmount_is_never_reported_as_safe(
        state: Path, tmp_path: Path, service: tuple[socket.socket, Config]) -> None:
    sock, config = service
    stick = FakeUsbStorage(tmp_path / "stick", unmount_error="could not unmount the stick (busy)")
    assert run_usb_export("sda1", config, state_dir=str(state), all_games=False, device_name="bar",
                          quiet=True, storage=stick) == 1
    last = received(sock)[-1]
    assert last.type == notify.FAILED and not last.safe_to_remove and "unmount" in last.message
    assert last.games == 2  # written and recorded, but the screen must not say "safe to remove"


def test_an_export_error_still_syncs_and_unmounts(
        state: Path, tmp_path: Path, service: tuple[socket.socket, Config]) -> None:
    sock, config = service
    (tmp_path / "stick").mkdir()
    (tmp_path / "stick" / "CUBILETE").write_text("a file where our folder goes")
    stick = FakeUsbStorage(tmp_path / "stick")
    assert run_usb_export("sda1", config, state_dir=str(state), all_games=False, device_name="bar",
                          quiet=True, storage=stick) == 1
    assert stick.calls == ["mount", "sync", "unmount"]
    last = received(sock)[-1]
    assert last.type == notify.FAILED and "not a folder" in last.message and last.safe_to_remove


def test_no_listening_service_does_not_stop_the_export(state: Path, tmp_path: Path) -> None:
    config = Config(export=ExportConfig(socket=str(tmp_path / "nobody.sock")))
    stick = FakeUsbStorage(tmp_path / "stick")
    assert run_usb_export("sda1", config, state_dir=str(state), all_games=False, device_name="bar",
                          quiet=True, storage=stick) == 0


def test_messages_round_trip_and_bad_ones_are_refused() -> None:
    for message in (notify.started("sda1"), notify.progress("sda1", 3, 12),
                    notify.done("sda1", 12, 4096), notify.failed("sdb1", "the stick is full\n(x)", 3, False)):
        data = message.to_datagram()
        assert len(data) <= notify.MAX_DATAGRAM
        assert notify.parse_message(data) == message
    assert json.loads(notify.done("sda1", 1, 2).to_datagram()) == {
        "v": 1, "type": "usb_export_done", "device": "sda1", "games": 1, "bytes": 2, "safe_to_remove": True}
    long = notify.failed("sda1", "x" * 10000)
    assert len(long.to_datagram()) <= notify.MAX_DATAGRAM
    for bad in (b"{", b"[]", b'{"v":2,"type":"usb_export_done","device":"a"}',
                b'{"v":1,"type":"reboot","device":"a"}', b'{"v":1,"type":"usb_export_done","device":"a","games":-1}'):
        with pytest.raises(ValueError):
            notify.parse_message(bad)


def test_a_stale_socket_is_replaced_but_nothing_else(tmp_path: Path) -> None:
    path = tmp_path / "control.sock"
    notify.bind_control_socket(path).close()
    sock = notify.bind_control_socket(path)
    assert (path.stat().st_mode & 0o777) == 0o600
    sock.close()
    other = tmp_path / "file"
    other.write_text("x")
    with pytest.raises(OSError):
        notify.bind_control_socket(other)
    assert other.read_text() == "x"


def test_the_menu_request_runs_an_export_of_everything(tmp_path: Path) -> None:
    runtime = tmp_path / "run"
    runtime.mkdir()
    notify.request_export(runtime, "sdb1")
    request = notify.take_request(runtime)
    assert request == notify.ExportRequest("sdb1", True)
    assert notify.take_request(runtime) is None
    with pytest.raises(ValueError):
        notify.request_export(runtime, "../../etc")
    (runtime / notify.REQUEST_FILE).write_text('{"v":1,"device":"mmcblk0p2","all":true}')
    with pytest.raises(ValueError):
        notify.take_request(runtime)
    # a request for a device that is not a USB stick ends in one line, nothing mounted
    (runtime / notify.REQUEST_FILE).write_text('{"v":1,"device":"sdz9","all":true}')
    config = Config(export=ExportConfig(socket=str(tmp_path / "nobody.sock")))
    assert run_request(str(runtime), config, state_dir=str(tmp_path), device_name="bar", quiet=True) == 1


def test_fat_and_exfat_files_belong_to_the_exporter() -> None:
    assert "uid=999,gid=996" in mount_options("vfat", 999, 996)
    assert "uid=999,gid=996" in mount_options("exfat", 999, 996)
    assert "uid" not in mount_options("ext4", 999, 996)


def test_a_stick_pulled_mid_export_stops_it_cleanly(state: Path, tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """systemd stops the unit (BindsTo=dev-sda1.device) with SIGTERM when the stick goes."""
    import os
    import signal

    from firmware.export import usbjob

    monkeypatch.setattr(usbjob, "PROGRESS_INTERVAL", 0.0)  # a progress message per game

    sent: list[notify.ExportMessage] = []

    def service(message: notify.ExportMessage) -> bool:
        sent.append(message)
        if message.type == notify.PROGRESS and message.done == 1:
            os.kill(os.getpid(), signal.SIGTERM)
        return True

    config = Config(export=ExportConfig(socket=str(tmp_path / "unused.sock")))
    stick = FakeUsbStorage(tmp_path / "stick")
    previous = signal.getsignal(signal.SIGTERM)
    code = run_usb_export("sda1", config, state_dir=str(state), all_games=False, device_name="bar",
                          quiet=True, storage=stick, send=service)
    assert code == 1
    assert signal.getsignal(signal.SIGTERM) == previous
    assert sent[-1].type == notify.FAILED and "stopped" in sent[-1].message
    assert stick.calls[-1] == "unmount"
    # the game finished before the signal is recorded; the other goes out next time
    from firmware.export import exported_game_ids

    assert len(exported_game_ids(state)) == 1
    assert run_usb_export("sda1", config, state_dir=str(state), all_games=False, device_name="bar",
                          quiet=True, storage=FakeUsbStorage(tmp_path / "stick"), send=lambda m: True) == 0
    assert len(exported_game_ids(state)) == 2
