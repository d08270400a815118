"""The service loop with fake parts: frames through a tracker into the game, presses, the
screen, systemd notifications, USB export messages, a camera that goes away, SIGTERM."""

from __future__ import annotations

import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from firmware.config import Config, GameConfig
from firmware.eventlog import EventLog
from firmware.export import notify
from firmware.service import Service
from firmware.ui import render
from firmware.ui.screens import MessageScreen, TurnScreen, stopped_screen
from hardware.buttons import ScriptedButtons
from hardware.camera import Backoff, FakeCamera, ResilientCamera
from hardware.display import DummyDisplay
from vision.reading import DieReading, Reading
from vision.tracker_events import MotionStarted, ThrowSettled

FPS = 30.0


class FakeTracker:
    """Reports given tracker events at given frame numbers."""

    def __init__(self, script: dict[int, list[Any]] | None = None) -> None:
        self.script = script or {}
        self.dice_count: int | None = None
        self.frames = 0

    def feed(self, frame: np.ndarray, t: float) -> list[Any]:
        events = self.script.get(self.frames, [])
        self.frames += 1
        return events


def settled(values: list[int], t: float = 0.0) -> ThrowSettled:
    dice = tuple(DieReading(v, (60.0 + 60 * i, 100.0), 40.0, 0.0, 0.99) for i, v in enumerate(values))
    n = len(values)
    return ThrowSettled(t, Reading(dice), ("thrown",) * n, (None,) * n, n, np.zeros((48, 64, 3), np.uint8))


def make_service(tmp_path: Path, tracker: FakeTracker, presses: list[tuple[float, str, str]],
                 camera: Any = None, frames: int = 60, **kwargs: Any) -> Service:
    config = Config(game=GameConfig(order="fixed"))
    clock_holder: dict[str, Service] = {}
    buttons = ScriptedButtons(presses, clock=lambda: clock_holder["s"].frame_t if "s" in clock_holder else 0.0)
    buttons.start(0.0)
    if camera is None:
        camera = ResilientCamera(lambda: FakeCamera([np.zeros((48, 64, 3), np.uint8)] * frames))
    service = Service(config, [], tmp_path / "state", camera, DummyDisplay(), buttons, tracker,
                      control_socket=str(tmp_path / "control.sock"), exit_at_end=True, **kwargs)
    clock_holder["s"] = service
    return service


# Presses at session times: New game, Start (the last item), OK.
MENU_TO_GAME = [(0.1, "ok", "short"), (0.15, "prev", "short"), (0.2, "ok", "short")]


def test_a_throw_and_a_score_go_from_camera_and_buttons_to_the_log(tmp_path: Path) -> None:
    tracker = FakeTracker({10: [MotionStarted(10 / FPS)], 20: [settled([2, 3, 4, 5, 6], 20 / FPS)]})
    recorded: list[tuple[int, str]] = []
    service = make_service(tmp_path, tracker, MENU_TO_GAME + [(1.0, "ok", "short"), (1.1, "ok", "short")],
                           on_record=lambda game, seq, kind, t: recorded.append((seq, kind)))
    assert service.run() == 0
    assert recorded == [(0, "game_started"), (1, "throw"), (2, "category_scored")]
    with EventLog.open(tmp_path / "state") as log:
        events = log.events(log.unfinished().game_id)
        assert events[1].snapshot is not None and (tmp_path / "state" / events[1].snapshot).exists()
        assert events[1].reading["moved"] == ["thrown"] * 5
        assert events[2].event["category"] == "straight"
    assert len(service.stats.throws_shown) == 1
    assert tracker.dice_count == 5  # the tracker is told how many dice the game has


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="needs Linux's /proc")
def test_the_run_statistics_split_memory_into_program_files_and_allocated(tmp_path: Path) -> None:
    # The mapped program files depend on what the page cache holds: the same code measured
    # 115 or 149 MB peak RSS; what the service allocates does not (63 MB in both).
    service = make_service(tmp_path, FakeTracker(), [], frames=65)
    assert service.run() == 0
    stats = service.stats
    assert stats.frames == 65
    assert 0 < stats.peak_anon_mb < stats.peak_rss_mb and 0 < stats.file_rss_mb < stats.peak_rss_mb


def test_the_service_is_told_of_each_event_and_never_rereads_the_log(tmp_path: Path) -> None:
    tracker = FakeTracker({10: [MotionStarted(10 / FPS)], 20: [settled([2, 3, 4, 5, 6], 20 / FPS)]})
    recorded: list[tuple[int, str, float]] = []
    service = make_service(tmp_path, tracker, MENU_TO_GAME + [(1.0, "ok", "short"), (1.1, "ok", "short")],
                           on_record=lambda game, seq, kind, t: recorded.append((seq, kind, t)))
    assert service.log is not None
    reads: list[str] = []
    real_events = service.log.events
    service.log.events = lambda game_id: reads.append(game_id) or real_events(game_id)  # type: ignore[method-assign]
    service.run()
    assert [(seq, kind) for seq, kind, _ in recorded] == [(0, "game_started"), (1, "throw"), (2, "category_scored")]
    assert recorded[1][2] == pytest.approx(20 / FPS)  # the time of the frame the throw settled in
    assert reads == []


def test_sigterm_leaves_the_stopped_screen(tmp_path: Path) -> None:
    service = make_service(tmp_path, FakeTracker(), [], frames=10_000)
    service.request_stop()
    service.run()
    assert service.display.last_image.tobytes() == render(stopped_screen(), "es").tobytes()


def test_systemd_hears_ready_status_and_stopping(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "notify.sock"
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    listener.bind(str(path))
    listener.settimeout(1.0)
    monkeypatch.setenv("NOTIFY_SOCKET", str(path))
    monkeypatch.setenv("WATCHDOG_USEC", "2000000")
    monkeypatch.delenv("WATCHDOG_PID", raising=False)
    service = make_service(tmp_path, FakeTracker(), [], frames=5)
    service.run()
    messages = []
    listener.settimeout(0.2)
    try:
        while True:
            messages.append(listener.recv(4096).decode())
    except socket.timeout:
        pass
    listener.close()
    text = "\n".join(messages)
    assert "READY=1" in text and "WATCHDOG=1" in text and "STOPPING=1" in text
    assert "STATUS=MainMenu" in text


def test_usb_export_results_reach_the_screen(tmp_path: Path) -> None:
    service = make_service(tmp_path, FakeTracker(), [], frames=100)
    service.step()
    assert notify.send(tmp_path / "control.sock", notify.done("sda1", 4, 1000))
    service.step()
    screen = service.app.screen()
    assert isinstance(screen, MessageScreen) and screen.icon == "usb"
    sender = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sender.sendto(b"not json", str(tmp_path / "control.sock"))  # dropped, logged
    sender.close()
    service.step()
    service.shutdown()


def test_the_menu_export_request_lands_beside_the_control_socket(tmp_path: Path) -> None:
    service = make_service(tmp_path, FakeTracker(), [], frames=100)
    service.step()
    assert notify.send(tmp_path / "control.sock", notify.done("sda1", 4, 1000))
    service.step()
    service.app.request_usb_export()
    request = notify.take_request(tmp_path)
    assert request == notify.ExportRequest("sda1", all_games=True)
    service.shutdown()


def test_a_camera_that_fails_is_shown_and_retried(tmp_path: Path) -> None:
    fake = FakeCamera([np.zeros((48, 64, 3), np.uint8)], loop=True)
    camera = ResilientCamera(lambda: fake, backoff=Backoff(initial=0.0, maximum=0.0))
    service = make_service(tmp_path, FakeTracker(), MENU_TO_GAME, camera=camera)
    for _ in range(20):
        service.step()
    assert isinstance(service.app.screen(), TurnScreen)
    fake.unplug()
    service.step()
    assert service.app.screen().icon == "camera"
    fake.plug()
    service.step()
    service.step()
    assert isinstance(service.app.screen(), TurnScreen)
    service.shutdown()


def test_cubilete_run_stops_cleanly_on_sigterm(tmp_path: Path) -> None:
    proc = subprocess.Popen(
        [sys.executable, "-m", "cli.main", "run", "--camera", "fake", "--display", "dummy",
         "--buttons", "none", "--state-dir", str(tmp_path / "state"), "--socket", str(tmp_path / "c.sock")],
        stderr=subprocess.PIPE, text=True)
    assert proc.stderr is not None
    deadline = time.monotonic() + 30
    for line in proc.stderr:
        if "ready" in line or time.monotonic() > deadline:
            break
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=30)
    assert proc.returncode == 0
    assert "stopping" in err


def test_bad_camera_spec_is_a_usage_error(tmp_path: Path) -> None:
    from cli.main import main

    assert main(["run", "--camera", "webcam", "--state-dir", str(tmp_path)]) == 2


class BrokenTracker(FakeTracker):
    def feed(self, frame: np.ndarray, t: float) -> list[Any]:
        raise RuntimeError("a bug in the vision code")


def test_a_failing_tracker_does_not_stop_the_service(tmp_path: Path) -> None:
    service = make_service(tmp_path, BrokenTracker(), MENU_TO_GAME, frames=30)
    assert service.run() == 0
    assert service.stats.tracker_failures == 30
    assert isinstance(service.app.screen(), TurnScreen)  # the buttons still work


def test_an_unusable_state_directory_is_shown_and_retried_not_a_crash(tmp_path: Path) -> None:
    (tmp_path / "state").write_text("a file where the state folder should be")
    service = make_service(tmp_path, FakeTracker(), [], frames=10)
    assert service.app is None and service.storage_error
    service.request_stop()
    assert service.run() == 0
    assert service.display.last_image is not None  # the storage message was shown, then "stopped"
    (tmp_path / "state").unlink()
    assert service._open_storage() and service.app is not None


def test_an_event_that_cannot_be_stored_is_not_shown_as_recorded(tmp_path: Path) -> None:
    from firmware.appliance import Press
    from tests.firmware.appliance_support import new_app, seen, start_game

    app = new_app(tmp_path)
    start_game(app)
    app.handle(seen([2, 3, 4, 5, 6]))
    app.log.close()  # the storage goes away under the running game
    app.handle(Press("ok"))
    app.handle(Press("ok"))
    assert app.session.state.sheets[0]["straight"] is None
    assert getattr(app.flash_label, "en", "") == "Not saved! Storage"


def test_settings_changed_on_the_device_apply_at_once_and_survive_a_restart(tmp_path: Path) -> None:
    from firmware.appliance import Prefs

    service = make_service(tmp_path, FakeTracker(), [], frames=10)
    service.step()
    service.app.set_prefs(Prefs(language="en", contrast=64))
    service.step()
    assert service.display.contrast == 64 and service.presenter.lang == "en"
    service.shutdown()
    again = make_service(tmp_path, FakeTracker(), [], frames=10)
    assert again.app.prefs == Prefs(language="en", contrast=64)
    again.shutdown()
