"""The service: camera frames through the throw tracker into the state machine, buttons into
the state machine, the state machine's screen onto the display; systemd told how it goes.

One loop, one thread. Each pass: read a frame (the camera wrapper never raises; a lost
camera is retried with back-off and shown), feed it to the tracker, hand its events and
the button presses to the appliance, drain the control socket (USB export results), then
show the appliance's screen. READY=1 goes to systemd once the display and the first camera
attempt are done; WATCHDOG=1 from the loop; STATUS= when it changes. SIGTERM (or SIGINT)
ends the loop: STOPPING=1, the "stopped" screen, the event log closed (every event was
already committed when it was recorded).

Every settled throw that is recorded keeps the reader's raw result and a JPEG of the frame
(see firmware.eventlog); snapshot retention runs at start and hourly.
"""

from __future__ import annotations

import json
import logging
import resource
import signal
import socket
import sqlite3
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Callable, Protocol

import cv2
import numpy as np

from firmware import sdnotify
from firmware.appliance import (
    Appliance, ButtonsBack, ButtonsMissing, CameraBack, CameraLost, GameDefaults, Input, MotionSeen, ObjectOnTray,
    Prefs, ThrowSeen, Tick, TrayCleared, UsbExportDone, UsbExportFailed, UsbExportStarted,
)
from firmware.appliance.settings import load_prefs, save_prefs
from firmware.config import Config, ConfigProblem, WebConfig
from firmware.eventlog import EventLog, StorageUnavailable, storage_problem
from firmware.export import exported_game_ids, notify
from firmware.export.notify import bind_control_socket, request_export
from firmware.retention import prune_snapshots
from firmware.ui.catalogue import say
from firmware.ui.presenter import BurnInSettings, ScreenPresenter
from firmware.ui.screens import MessageScreen, stopped_screen
from hardware.buttons import ButtonSource, MissableButtons
from hardware.camera import CameraFeed, Frame, ManualCamera
from hardware.display import Display
from vision import tracker_events as te

log = logging.getLogger("cubilete.service")

RETENTION_EVERY_S = 3600.0
STATUS_EVERY_S = 1.0
IDLE_SLEEP_S = 0.05  # while the camera is lost: keep buttons and screen alive
STORAGE_RETRY_S = 5.0
FRAME_GAP_S = 1.0  # no frame for longer than this: the state machine's time runs on the wall clock
MEMORY_SAMPLE_FRAMES = 30  # the bench's peak anonymous memory is sampled this often (about once a second)


# -- settings changed on the device -----------------------------------------------------------------


MAX_CONFIG_NOTICES = 3
STORAGE_TITLES = {"full": "storage_full", "not_writable": "storage_not_writable"}


def notices_for(problems: list[ConfigProblem], eventlog: EventLog) -> tuple[MessageScreen, ...]:
    """Start-up messages for the screen (each also went to the journal): the first few
    config problems, each with its key and the value found."""
    notices = []
    if eventlog.notice:
        notices.append(MessageScreen(say("log_moved"), (say("log_moved_line"), say("new_log")), icon="warning"))
    for problem in problems[:MAX_CONFIG_NOTICES]:
        value = problem.value if problem.key else Path(str(problem.value)).name
        notices.append(MessageScreen(say("config_problem", key=problem.key or "file"),
                                     (say("config_defaults"), str(value)[:20]), icon="warning"))
    return tuple(notices)


def storage_screen(kind: str, error: str) -> MessageScreen:
    """Why nothing can be recorded: full, not writable, or another storage error; the log on
    the card is left as it is and opening it is retried."""
    title = say(STORAGE_TITLES.get(kind, "storage_error"))
    return MessageScreen(title, (error[-60:], say("storage_log_kept"), say("storage_retry")), icon="warning")


def scoreboard_url(web: WebConfig, hostname: str | None = None) -> str | None:
    """The address players open for the room's scoreboard, or None when it is not served.

    The game service has no network of its own (PrivateNetwork=yes), so it cannot see the
    device's address; listening everywhere, the scoreboard is found by the device's name
    over mDNS (Raspberry Pi OS runs avahi: NAME.local), else at the address it is bound to."""
    if not web.enabled:
        return None
    if web.bind in ("0.0.0.0", "::"):
        host = f"{hostname or socket.gethostname()}.local"
    else:
        host = f"[{web.bind}]" if ":" in web.bind else web.bind
    return f"http://{host}:{web.port}/"


def game_defaults(config: Config) -> GameDefaults:
    g = config.game
    return GameDefaults(game=g.game, players=g.players, names=g.names, order=g.order,
                        stake_per_point=g.stake_per_point, money=config.device.money_style(), options=dict(g.options),
                        tournament=g.tournament)


# -- tracker events into appliance inputs -----------------------------------------------------------


def jpeg_encoder(image: np.ndarray, quality: int) -> Callable[[], bytes | None]:
    def encode() -> bytes | None:
        ok, data = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, quality])
        return data.tobytes() if ok else None
    return encode


def translate(event: te.TrackerEvent, jpeg_quality: int) -> Input | None:
    """A vision.tracker event as an appliance input (None for those it does not need)."""
    if isinstance(event, te.ThrowSettled):
        snapshot = jpeg_encoder(event.frame, jpeg_quality) if event.frame is not None else None
        return ThrowSeen(event.reading, tuple(event.moved), tuple(event.previous), event.t, snapshot,
                         tracked=True, expected=event.expected)
    if isinstance(event, te.MotionStarted):
        return MotionSeen(event.t)
    if isinstance(event, te.ForeignObject):
        return ObjectOnTray(event.t) if event.still else MotionSeen(event.t, "hand")
    if isinstance(event, (te.TrayEmpty, te.DiceRemoved)):
        return TrayCleared(event.t)
    if isinstance(event, te.ReadingUnstable):
        return event
    return None


def export_input(data: bytes) -> Input | None:
    """A datagram from the USB exporter as an appliance input (ValueError if malformed)."""
    message = notify.parse_message(data)
    if message.type == notify.STARTED:
        return UsbExportStarted(message.device)
    if message.type == notify.DONE:
        return UsbExportDone(message.games, message.device)
    if message.type == notify.FAILED:
        return UsbExportFailed(message.message, message.safe_to_remove, message.device)
    return None  # progress: the "exporting" screen stays


# -- the loop ------------------------------------------------------------------------------------------


@dataclass
class Stats:
    """What `cubilete bench appliance` reads after a run (`cubilete run --stats-out FILE`)."""

    frames: int = 0
    tracker_failures: int = 0
    wall_s: float = 0.0  # the loop's wall time
    cpu_s: float = 0.0  # the process's CPU time during the loop
    peak_rss_mb: float = 0.0
    # Of it, pages of program files (cv2's library, the networks) mapped from the page cache:
    # how many depends on what the cache already holds, so the bench also prints the memory
    # the process itself allocated (anonymous), sampled every MEMORY_SAMPLE_FRAMES frames.
    file_rss_mb: float = 0.0
    peak_anon_mb: float = 0.0
    throws_shown: list[float] = field(default_factory=list)  # frame in -> options on screen, seconds
    settle_to_screen: list[float] = field(default_factory=list)  # event out of the tracker -> screen

    def write(self, path: Path) -> None:
        path.write_text(json.dumps(asdict(self)), encoding="utf-8")


def memory_mb(*fields: str) -> dict[str, float]:
    """Fields of /proc/self/status in MiB (VmHWM, RssAnon, RssFile); those it lacks are absent."""
    found: dict[str, float] = {}
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                name, _, value = line.partition(":")
                if name in fields:
                    found[name] = int(value.split()[0]) / 1024
    except (OSError, ValueError, IndexError):
        pass
    return found


def peak_rss_mb() -> float:
    """This process's peak resident memory in MiB: VmHWM from /proc (getrusage's ru_maxrss
    would also count the parent's memory at fork, which a child started by a big process
    inherits on Linux)."""
    return memory_mb("VmHWM").get("VmHWM") or resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


class Tracker(Protocol):
    """What the service needs of the throw tracker (vision.tracker.ThrowTracker)."""

    dice_count: int | None

    def feed(self, frame: np.ndarray, t: float) -> list[te.TrackerEvent]: ...


class FrameClock:
    """The time of the service's last camera frame: session time for a replayed session, so
    that scripted presses and the simulated player follow the replay's own clock and a game
    plays the same at any speed. 0.0 until the service is set (it is built after the buttons
    that read this clock). Without a camera ("manual") no frame ever comes: the service's
    scene time then, which runs with the wall clock."""

    def __init__(self, service: "Service | None" = None) -> None:
        self.service = service

    def __call__(self) -> float:
        if self.service is None:
            return 0.0
        return self.service.scene_time() if self.service.manual else self.service.frame_t


class Service:
    def __init__(self, config: Config, problems: list[ConfigProblem], state_dir: Path, camera: CameraFeed,
                 display: Display, buttons: ButtonSource, tracker: Tracker, *,
                 clock: Callable[[], float] = time.monotonic,
                 control_socket: str | None = None, exit_at_end: bool = False,
                 on_record: Callable[[str, int, str, float], None] | None = None,
                 tracker_factory: Callable[[], Tracker] | None = None, wal_autocheckpoint: int | None = None) -> None:
        # One OpenCV thread: a steady load beside the camera on a small Pi, and a replayed
        # session reads exactly the same every time.
        cv2.setNumThreads(1)
        self.config = config
        self.state_dir = state_dir
        self.camera = camera
        self.manual = isinstance(camera, ManualCamera)  # no camera: every throw entered by hand
        self.display = display
        self.buttons = buttons
        self.tracker = tracker
        self._new_tracker = tracker_factory or type(tracker)
        self.clock = clock
        self.exit_at_end = exit_at_end
        self.on_record = on_record
        self._wal_autocheckpoint = wal_autocheckpoint
        self.stats = Stats()
        self.frame_t = 0.0  # the time of the last frame (session time for a replay)
        self._frame_wall = clock()  # when it came, on the wall clock
        self._scene_t = 0.0
        self._stop = False
        for problem in problems:
            log.warning("config: %s", problem.message)
        self._problems = problems
        self._prefs = load_prefs(state_dir, config.device.language, config.display.contrast)
        burn_in = BurnInSettings.from_mapping({**asdict(config.display), "contrast": self._prefs.contrast})
        self.presenter = ScreenPresenter(display, self._prefs.language, burn_in, clock=clock)
        self.log: EventLog | None = None
        self.app: Appliance | None = None  # None while the state directory cannot be used
        self.storage_error = ""
        self.storage_kind = ""  # "full" | "not_writable" | "error" while storage_error is set
        self._open_storage()
        self.control_path = Path(control_socket or config.export.socket)
        self.control = self._bind_control(str(self.control_path))
        self._next_watchdog = 0.0
        self._watchdog_every = sdnotify.watchdog_interval()
        self._status = ""
        self._next_status = 0.0
        self._next_retention = 0.0

    # -- set-up helpers --------------------------------------------------------------------------------

    def _open_storage(self) -> bool:
        """Open the event log and start the state machine on it (resuming its game)."""
        try:
            self.log = EventLog.open(self.state_dir, wal_autocheckpoint=self._wal_autocheckpoint)
            self.app = Appliance(self.log, self._prefs, game_defaults(self.config),
                                 notices_for(self._problems, self.log), clock=self.scene_time,
                                 on_prefs=self._prefs_changed, on_usb_request=self._request_usb_export,
                                 on_record=self._recorded, scoreboard_url=scoreboard_url(self.config.web),
                                 manual_camera=self.manual)
        except (OSError, sqlite3.Error, StorageUnavailable) as error:
            problem = error if isinstance(error, StorageUnavailable) else storage_problem(error, self.state_dir)
            if str(problem) != self.storage_error:
                log.critical("cannot open the event log in %s (device.state_dir): %s (%s); the log is left as"
                             " it is, nothing can be recorded, retrying every %g s", self.state_dir, problem,
                             problem.kind, STORAGE_RETRY_S)
            if self.log is not None:
                self.log.close()
                self.log = None
            self.storage_error, self.storage_kind = str(problem), problem.kind
            return False
        self.storage_error = self.storage_kind = ""
        return True

    def _wait_for_storage(self) -> None:
        """No usable state directory (a missing or read-only card): say so on the screen and
        to systemd, keep the watchdog fed, and try again every few seconds. Scoring without
        a log would lose scores, so the game does not start until it works."""
        sdnotify.ready(f"storage failure: {self.storage_error}")
        next_try = self.clock() + STORAGE_RETRY_S
        while not self._stop and self.app is None:
            self.presenter.show(storage_screen(self.storage_kind, self.storage_error))
            self.buttons.events()
            now = self.clock()
            self._housekeeping(now, status=f"storage failure: {self.storage_error}")
            if now >= next_try:
                next_try = now + STORAGE_RETRY_S
                self._open_storage()
            time.sleep(IDLE_SLEEP_S * 4)

    def scene_time(self) -> float:
        """The state machine's clock: the camera's (a replay's own time, so a replayed game
        plays the same at any speed, and its messages last as long as they did), running
        on with the wall clock while no frame comes (a lost camera). Never goes back."""
        gap = self.clock() - self._frame_wall
        self._scene_t = max(self._scene_t, self.frame_t + (gap if gap > FRAME_GAP_S else 0.0))
        return self._scene_t

    def _bind_control(self, path: str) -> socket.socket | None:
        try:
            return bind_control_socket(path)
        except OSError as error:  # no runtime directory (a development run): no USB messages
            log.warning("control socket %s unavailable (%s); USB export results will not be shown", path, error)
            return None

    def _request_usb_export(self, device: str) -> None:
        """The menu's "copy all": a request file beside the control socket starts the exporter
        (cubilete-export-request.path); the service itself never mounts anything."""
        request_export(self.control_path.parent, device, all_games=True)

    def _prefs_changed(self, prefs: Prefs) -> None:
        self.presenter.set_language(prefs.language)
        self.presenter.settings = type(self.presenter.settings)(
            **{**asdict(self.presenter.settings), "contrast": prefs.contrast})
        self.presenter.activity()
        save_prefs(self.state_dir, prefs)

    # -- running ----------------------------------------------------------------------------------------

    def request_stop(self, *_: object) -> None:
        self._stop = True

    def install_signal_handlers(self) -> None:
        signal.signal(signal.SIGTERM, self.request_stop)
        signal.signal(signal.SIGINT, self.request_stop)

    def run(self) -> int:
        if self.app is None:
            self._wait_for_storage()
            if self.app is None:  # stopped while waiting
                self.shutdown()
                return 0
        self._show()
        self.step()  # the first camera attempt
        sdnotify.ready(self.app.status())
        log.info("ready: %s", self.app.status())
        wall, cpu = time.perf_counter(), time.process_time()
        try:
            while not self._stop:
                if not self.step():
                    break
        finally:
            self.stats.wall_s = time.perf_counter() - wall
            self.stats.cpu_s = time.process_time() - cpu
            self.stats.peak_rss_mb = peak_rss_mb()
            self.stats.file_rss_mb = memory_mb("RssFile").get("RssFile", 0.0)
            self._sample_memory()
            self.shutdown()
        return 0

    def _sample_memory(self) -> None:
        anon = memory_mb("RssAnon").get("RssAnon", 0.0)
        self.stats.peak_anon_mb = max(self.stats.peak_anon_mb, anon)

    def step(self) -> bool:
        """One pass of the loop; False when a finite camera source has ended (and we exit then)."""
        frame = self.camera.read()
        shown_after: float | None = None
        if frame is not None:
            self.stats.frames += 1
            if self.stats.frames % MEMORY_SAMPLE_FRAMES == 0:
                self._sample_memory()
            self.frame_t = frame.t
            self._frame_wall = self.clock()
            started = time.perf_counter()
            events = self._track(frame)
            decided = time.perf_counter()
            for event in events:
                log.debug("tracker: %s", event.describe())
                data = translate(event, self.config.storage.jpeg_quality)
                if data is not None:
                    self._handle(data)
                    self.presenter.activity()  # someone is at the tray: wake a dimmed screen
                    if isinstance(data, ThrowSeen):
                        shown_after = started
        else:
            if self.exit_at_end and self.camera.status.state == "ended":
                return False
            time.sleep(min(IDLE_SLEEP_S, max(0.0, self.camera.seconds_until_retry())) or IDLE_SLEEP_S)
        self._camera_status()
        self._buttons_status()
        for press in self.buttons.events():
            self._handle(press)
            self.presenter.activity()
        self._drain_control()
        now = self.clock()
        self._handle(Tick(self.scene_time()))
        self._show()
        if shown_after is not None:
            done = time.perf_counter()
            self.stats.throws_shown.append(done - shown_after)
            self.stats.settle_to_screen.append(done - decided)
        self._housekeeping(now)
        return True

    def _track(self, frame: Frame) -> list[te.TrackerEvent]:
        self.tracker.dice_count = self.app.expected_dice
        try:
            return self.tracker.feed(frame.image, frame.t)
        except Exception:
            # A bug in the vision code must not stop the scorer (nor crash-loop it under
            # systemd): log it, start a fresh tracker, and carry on with the next frame.
            self.stats.tracker_failures += 1
            if self.stats.tracker_failures <= 3:
                log.exception("the throw tracker failed on a frame; starting a fresh one")
            self.tracker = self._new_tracker()
            return []

    def _handle(self, data: Input) -> None:
        try:
            self.app.handle(data)
        except Exception:
            # A bug must not take the bar's scorer down, nor leave the screen out of step
            # with the log: start the machine afresh from the log, as after a restart.
            log.exception("the state machine failed on %r; resuming from the event log", type(data).__name__)
            self.app = Appliance(self.log, self.app.prefs, self.app.defaults, clock=self.scene_time,
                                 on_prefs=self._prefs_changed, on_usb_request=self._request_usb_export,
                                 on_record=self._recorded, scoreboard_url=self.app.scoreboard_url,
                                 manual_camera=self.manual)

    def _recorded(self, game_id: str, seq: int, kind: str) -> None:
        """The appliance committed an event: journal it (and tell on_record, the soak's and the
        tests' ear) with the time of the frame it came from."""
        log.info("recorded game=%s seq=%d type=%s t=%.3f", game_id, seq, kind, self.frame_t)
        if self.on_record is not None:
            self.on_record(game_id, seq, kind, self.frame_t)

    def _camera_status(self) -> None:
        status = self.camera.status
        if status.state == "lost":
            self._handle(CameraLost(status.message, self.camera.seconds_until_retry()))
        elif status.state == "ok" and not self.app.camera_ok:
            self._handle(CameraBack())

    def _buttons_status(self) -> None:
        """Buttons that cannot be read (hardware.buttons.ResilientButtons, NoButtons): the
        appliance scores by itself and says which pins they go on."""
        if not isinstance(self.buttons, MissableButtons):
            return  # scripted, keyboard or simulated presses: never missing
        missing = self.buttons.missing
        if missing and not self.app.buttons_missing:
            self._handle(ButtonsMissing(missing, tuple(self.config.buttons.layout_pins().values())))
        elif not missing and self.app.buttons_missing:
            self._handle(ButtonsBack())

    def _drain_control(self) -> None:
        if self.control is None:
            return
        while True:
            try:
                data = self.control.recv(8192)
            except (BlockingIOError, InterruptedError):
                return
            except OSError as error:
                log.warning("control socket: %s", error)
                return
            try:
                message = export_input(data)
            except ValueError as error:
                log.warning("control socket: dropped a message: %s", error)
                continue
            if message is not None:
                self._handle(message)

    def _show(self) -> None:
        self.presenter.show(self.app.screen())
        self.presenter.tick()

    def _housekeeping(self, now: float, status: str | None = None) -> None:
        if self._watchdog_every is not None and now >= self._next_watchdog:
            sdnotify.watchdog()
            self._next_watchdog = now + self._watchdog_every
        if status is not None or self.app is None:
            if status != self._status:
                sdnotify.status(status or "")
                self._status = status or ""
            return
        if now >= self._next_status:
            status = self.app.status()
            if status != self._status:
                sdnotify.status(status)
                self._status = status
            self._next_status = now + STATUS_EVERY_S
        if now >= self._next_retention:
            self._next_retention = now + RETENTION_EVERY_S
            self.retention()

    def retention(self) -> None:
        try:
            prune_snapshots(self.log, exported_game_ids(self.state_dir), self.config.storage.retention_days,
                            self.config.storage.disk_cap_mb)
        except OSError as error:  # retention must never stop the game
            log.warning("snapshot retention failed: %s", error)

    def shutdown(self) -> None:
        sdnotify.stopping("stopping")
        log.info("stopping")
        try:
            self.presenter.show(stopped_screen())
        except Exception as error:  # the display may be the reason we stop
            log.warning("cannot show the stopped screen: %s", error)
        if self.log is not None:
            self.log.close()
        for part in (self.camera, self.buttons):
            try:
                part.close()
            except Exception as error:
                log.warning("closing %s: %s", part, error)
        if self.control is not None:
            self.control.close()
        try:
            self.display.close()
        except Exception as error:
            log.warning("closing the display: %s", error)
