"""Camera sources: the Pi camera, USB webcams and video files, recorded sessions, and a fake.

Every source delivers `Frame(t, image)` with `t` in monotonic seconds and `image` a BGR uint8
array, the order OpenCV and the reader expect. A source is opened with `start()`, read with
`read()` (raises `CameraError`; `EndOfStream` when a finite source is exhausted) and released
with `close()`. The "manual" spec is no camera (`ManualCamera`: the players enter the dice by
hand). `ResilientCamera` wraps a source factory for the service: a camera that fails
or disappears is reported and reopened with bounded exponential back-off, and its `read()`
never raises, so the camera can never take the service down.

picamera2 and cv2 are imported inside the adapters that need them; nothing here requires
them on a development machine.
"""

from __future__ import annotations

import logging
import sys
import time
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator, Mapping, Protocol, Sequence

import cv2
import numpy as np

from hardware.camera_spec import CameraSpec, parse_camera_spec
from hardware.recording import ReplaySource

log = logging.getLogger("cubilete.camera")

Clock = Callable[[], float]


class CameraError(Exception):
    """The camera could not be opened or delivered no frame; the message says why."""


class EndOfStream(CameraError):
    """A finite source (a video file, a recorded session, a fake's frames) has no more frames."""


@dataclass(frozen=True)
class Frame:
    """One camera frame: monotonic time in seconds and the BGR uint8 image."""

    t: float
    image: np.ndarray


class Camera(Protocol):
    """What every camera source offers."""

    description: str

    def start(self) -> None: ...

    def read(self) -> Frame: ...

    def close(self) -> None: ...


class CameraFeed(Protocol):
    """What the service reads: a camera kept going (ResilientCamera). `read()` gives a frame,
    or None while there is none (lost and waiting to retry, or a finite source ended), and
    never raises; `status` says which."""

    @property
    def status(self) -> "CameraStatus": ...

    def read(self) -> Frame | None: ...

    def seconds_until_retry(self) -> float: ...

    def close(self) -> None: ...


@dataclass(frozen=True)
class CameraSettings:
    """How to capture. None for a control means: let the camera settle, then lock its value.

    resolution: (width, height) of the frames delivered.
    lock_controls: after `settle_s` of automatic exposure / white balance, freeze exposure,
        gain, white balance and focus so the dice look the same all evening (pip colour
        thresholds drift otherwise). False leaves the camera automatic.
    exposure_us, analogue_gain, colour_gains (red, blue), lens_position (dioptres): fixed
        values from a calibration; they are applied as given instead of the settled ones.
    frame_timeout_s: a camera that delivers no frame for this long is treated as lost.
    """

    resolution: tuple[int, int] = (640, 480)
    fps: float = 30.0
    lock_controls: bool = True
    settle_s: float = 2.0
    exposure_us: int | None = None
    analogue_gain: float | None = None
    colour_gains: tuple[float, float] | None = None
    lens_position: float | None = None
    frame_timeout_s: float = 2.0

    @classmethod
    def from_mapping(cls, values: Mapping[str, Any]) -> "CameraSettings":
        """Settings from a config section; unknown keys are ignored (the config validates)."""
        known = {f for f in cls.__dataclass_fields__}
        kwargs = {k: v for k, v in values.items() if k in known}
        for key in ("resolution", "colour_gains"):
            if kwargs.get(key) is not None:
                kwargs[key] = tuple(kwargs[key])
        return cls(**kwargs)


# --- the Raspberry Pi camera --------------------------------------------------------------


class PiCamera:
    """A Raspberry Pi camera through picamera2 (installed by apt on the Pi, never by pip).

    picamera2 names formats after the libcamera/DRM fourcc, which lists components from the
    most significant byte: its "RGB888" arrays hold B, G, R in memory order, which is exactly
    OpenCV's BGR, so frames need no conversion.
    """

    def __init__(self, settings: CameraSettings = CameraSettings(), index: int = 0,
                 clock: Clock = time.monotonic) -> None:
        self.settings = settings
        self.index = index
        self.clock = clock
        self.description = f"Pi camera {index}"
        self.locked_controls: dict[str, Any] = {}
        self._camera: Any = None

    def start(self) -> None:
        try:
            from picamera2 import Picamera2  # noqa: PLC0415 (only on the Pi)
        except ImportError as error:
            raise CameraError(
                "picamera2 is not installed (Raspberry Pi OS: sudo apt install python3-picamera2, "
                "and make the venv with --system-site-packages)") from error
        try:
            camera = Picamera2(self.index)
            self._camera = camera
            config = camera.create_video_configuration(
                main={"size": tuple(self.settings.resolution), "format": "RGB888"},
                controls={"FrameRate": float(self.settings.fps)},
            )
            camera.configure(config)
            camera.start()
            if self.settings.lock_controls:
                self._lock(camera)
        except CameraError:
            self.close()
            raise
        except Exception as error:  # picamera2/libcamera raise many kinds (RuntimeError, IndexError...)
            self.close()
            raise CameraError(f"{self.description}: {error}") from error

    def _lock(self, camera: Any) -> None:
        s = self.settings
        fixed = (s.exposure_us, s.analogue_gain, s.colour_gains)
        if any(value is None for value in fixed):
            time.sleep(s.settle_s)
        metadata = camera.capture_metadata()
        controls: dict[str, Any] = {
            "AeEnable": False,
            "AwbEnable": False,
            "ExposureTime": int(s.exposure_us if s.exposure_us is not None else metadata["ExposureTime"]),
            "AnalogueGain": float(s.analogue_gain if s.analogue_gain is not None else metadata["AnalogueGain"]),
            "ColourGains": tuple(s.colour_gains if s.colour_gains is not None else metadata["ColourGains"]),
        }
        if "AfMode" in getattr(camera, "camera_controls", {}):
            lens = s.lens_position if s.lens_position is not None else metadata.get("LensPosition")
            if lens is not None:
                controls["AfMode"] = 0  # libcamera AfModeManual
                controls["LensPosition"] = float(lens)
        camera.set_controls(controls)
        self.locked_controls = controls
        log.info("%s: controls locked at %s", self.description, controls)

    def read(self) -> Frame:
        if self._camera is None:
            raise CameraError(f"{self.description} is not started")
        try:
            job = self._camera.capture_array("main", wait=False)
            image = self._camera.wait(job, timeout=self.settings.frame_timeout_s)
        except TimeoutError as error:
            raise CameraError(f"{self.description}: no frame for {self.settings.frame_timeout_s:g} s") from error
        except Exception as error:
            raise CameraError(f"{self.description}: {error}") from error
        return Frame(self.clock(), np.ascontiguousarray(image[:, :, :3]))

    def close(self) -> None:
        camera, self._camera = self._camera, None
        if camera is not None:
            try:
                camera.close()
            except Exception as error:
                log.warning("%s: error while closing: %s", self.description, error)


# --- USB webcams and video files through OpenCV ---------------------------------------------


class OpenCVCamera:
    """A USB webcam (`source` an index or a /dev/video path) or a video file, via cv2.VideoCapture.

    A webcam gets the resolution and frame rate asked for and, when `lock_controls`, its
    auto exposure, white balance and focus are switched off after settling (best effort: UVC
    cameras accept different subsets; what was accepted is logged). A video file ends with
    `EndOfStream`.
    """

    def __init__(self, source: int | str, settings: CameraSettings = CameraSettings(),
                 clock: Clock = time.monotonic) -> None:
        self.source = source
        self.settings = settings
        self.clock = clock
        self.is_file = isinstance(source, str) and not source.startswith("/dev/") and Path(source).is_file()
        self.description = f"video file {source}" if self.is_file else f"USB camera {source}"
        self._capture: Any = None

    def start(self) -> None:
        if isinstance(self.source, str) and not self.is_file and not self.source.startswith("/dev/"):
            raise CameraError(f"{self.description}: no such file or device")
        capture = cv2.VideoCapture(self.source, cv2.CAP_V4L2) if not self.is_file and _on_linux() \
            else cv2.VideoCapture(self.source)
        if not capture.isOpened():
            capture.release()
            raise CameraError(f"{self.description}: cannot open")
        self._capture = capture
        if not self.is_file:
            width, height = self.settings.resolution
            capture.set(cv2.CAP_PROP_FRAME_WIDTH, width)
            capture.set(cv2.CAP_PROP_FRAME_HEIGHT, height)
            capture.set(cv2.CAP_PROP_FPS, self.settings.fps)
            if self.settings.lock_controls:
                self._lock(cv2, capture)

    def _lock(self, cv2: Any, capture: Any) -> None:
        s = self.settings
        deadline = time.monotonic() + s.settle_s
        while time.monotonic() < deadline:
            capture.grab()
        exposure = s.exposure_us / 100.0 if s.exposure_us is not None else capture.get(cv2.CAP_PROP_EXPOSURE)
        # V4L2 manual exposure is 1 in OpenCV's CAP_PROP_AUTO_EXPOSURE (3 is aperture priority).
        accepted = {
            "auto_exposure_off": capture.set(cv2.CAP_PROP_AUTO_EXPOSURE, 1),
            "exposure": capture.set(cv2.CAP_PROP_EXPOSURE, exposure),
            "auto_wb_off": capture.set(cv2.CAP_PROP_AUTO_WB, 0),
            "autofocus_off": capture.set(cv2.CAP_PROP_AUTOFOCUS, 0),
        }
        log.info("%s: locking controls, accepted %s", self.description, accepted)

    def read(self) -> Frame:
        if self._capture is None:
            raise CameraError(f"{self.description} is not started")
        ok, image = self._capture.read()
        if not ok or image is None:
            if self.is_file:
                raise EndOfStream(f"{self.description}: end of video")
            raise CameraError(f"{self.description}: no frame (unplugged?)")
        if image.ndim == 2:
            image = np.repeat(image[:, :, None], 3, axis=2)
        return Frame(self.clock(), image)

    def close(self) -> None:
        capture, self._capture = self._capture, None
        if capture is not None:
            capture.release()


def _on_linux() -> bool:
    return sys.platform.startswith("linux")


# --- recorded sessions ----------------------------------------------------------------------


class ReplayCamera:
    """A recorded session (see hardware.recording) replayed as a camera.

    realtime=True paces frames by their recorded times; otherwise frames come as fast as
    they are read. fps drops frames as a slower camera would. Frame times are the recorded
    session times (seconds from the start of the recording), so a replay is deterministic.
    """

    def __init__(self, path: str | Path, realtime: bool = False, fps: float | None = None) -> None:
        self.path = Path(path)
        self.realtime = realtime
        self.fps = fps
        self.description = f"replay of {self.path}"
        self._frames: Iterator[Any] | None = None

    def start(self) -> None:
        if not self.path.is_dir():
            raise CameraError(f"{self.description}: no such session folder")
        try:
            self._frames = iter(ReplaySource(self.path, realtime=self.realtime, fps=self.fps))
        except Exception as error:
            raise CameraError(f"{self.description}: {error}") from error

    def read(self) -> Frame:
        if self._frames is None:
            raise CameraError(f"{self.description} is not started")
        try:
            frame = next(self._frames)
        except StopIteration:
            raise EndOfStream(f"{self.description}: end of session") from None
        except Exception as error:
            raise CameraError(f"{self.description}: {error}") from error
        return Frame(float(frame.t), frame.image)

    def close(self) -> None:
        frames, self._frames = self._frames, None
        close = getattr(frames, "close", None)
        if close is not None:
            close()


# --- the fake -------------------------------------------------------------------------------


class FakeCamera:
    """A camera for tests and demos: it delivers the given images (or a grey tray), and can be
    unplugged and plugged back like a real one.

    frames: images (BGR arrays) or Frames; without frames it delivers a plain grey image.
    loop: start again at the first image when they run out (otherwise `EndOfStream`).
    fps: frame times advance by 1/fps from 0 when no clock is given, so tests are exact.
    """

    def __init__(self, frames: Iterable[np.ndarray | Frame] | None = None, *, loop: bool = False,
                 fps: float = 30.0, size: tuple[int, int] = (640, 480), clock: Clock | None = None) -> None:
        self._items: Sequence[np.ndarray | Frame] = list(frames) if frames is not None else []
        self.loop = loop
        self.fps = fps
        self.size = size
        self.clock = clock
        self.description = "fake camera"
        self.started = False
        self.plugged = True
        self.reads = 0
        self.starts = 0
        self._index = 0

    def unplug(self) -> None:
        """From now on start() and read() fail, as with a camera pulled out."""
        self.plugged = False

    def plug(self) -> None:
        self.plugged = True

    def start(self) -> None:
        if not self.plugged:
            raise CameraError(f"{self.description}: not connected")
        self.started = True
        self.starts += 1

    def read(self) -> Frame:
        if not self.plugged:
            self.started = False
            raise CameraError(f"{self.description}: not connected")
        if not self.started:
            raise CameraError(f"{self.description} is not started")
        t = self.clock() if self.clock is not None else self.reads / self.fps
        self.reads += 1
        if not self._items:
            width, height = self.size
            return Frame(t, np.full((height, width, 3), 96, np.uint8))
        if self._index >= len(self._items):
            if not self.loop:
                raise EndOfStream(f"{self.description}: no more frames")
            self._index = 0
        item = self._items[self._index]
        self._index += 1
        return item if isinstance(item, Frame) else Frame(t, item)

    def close(self) -> None:
        self.started = False


# --- resilience -----------------------------------------------------------------------------


@dataclass(frozen=True)
class Backoff:
    """Bounded exponential back-off: initial, initial*factor, ... never more than maximum."""

    initial: float = 0.5
    factor: float = 2.0
    maximum: float = 30.0

    def delay(self, failures: int) -> float:
        """The wait after the `failures`-th consecutive failure (1-based)."""
        return min(self.maximum, self.initial * self.factor ** max(0, failures - 1))


@dataclass(frozen=True)
class CameraStatus:
    """state: "starting" | "ok" | "lost" | "ended" | "closed", or "manual" (`ManualCamera`: no
    camera, by choice).

    message: the last error (for the screen and the journal); failures: consecutive failed
    attempts; retry_at: monotonic time of the next attempt while lost.
    """

    state: str = "starting"
    message: str = ""
    failures: int = 0
    retry_at: float | None = None


class ResilientCamera:
    """Keeps a camera going: opens it, reopens it with back-off after any failure, reports.

    `read()` returns a Frame, or None when there is none to give (camera lost and waiting to
    retry, or the source ended); it never raises. `status` says which, and `on_status` is
    called on every change of state (and each failed retry) so the service can show the
    camera-lost screen and write the journal.
    """

    def __init__(self, factory: Callable[[], Camera], *, backoff: Backoff = Backoff(),
                 clock: Clock = time.monotonic,
                 on_status: Callable[[CameraStatus], None] | None = None) -> None:
        self.factory = factory
        self.backoff = backoff
        self.clock = clock
        self.on_status = on_status
        self.status = CameraStatus()
        self._camera: Camera | None = None

    @property
    def ok(self) -> bool:
        return self.status.state == "ok"

    def read(self) -> Frame | None:
        if self.status.state in ("ended", "closed"):
            return None
        if self._camera is None and not self._open():
            return None
        assert self._camera is not None
        try:
            frame = self._camera.read()
        except EndOfStream as error:
            self._drop()
            self._report(CameraStatus("ended", str(error)))
            return None
        except Exception as error:  # any failure of a camera is reported, never raised
            self._fail(error)
            return None
        if self.status.state != "ok":
            self._report(CameraStatus("ok"))
        return frame

    def seconds_until_retry(self) -> float:
        """How long the main loop may sleep before the next attempt is due (0 if due now)."""
        if self.status.retry_at is None:
            return 0.0
        return max(0.0, self.status.retry_at - self.clock())

    def _open(self) -> bool:
        if self.status.retry_at is not None and self.clock() < self.status.retry_at:
            return False
        camera: Camera | None = None
        try:
            camera = self.factory()
            camera.start()
        except Exception as error:
            if camera is not None:
                _close_quietly(camera)
            self._fail(error)
            return False
        self._camera = camera
        log.info("camera opened: %s", getattr(camera, "description", camera))
        return True

    def _fail(self, error: BaseException) -> None:
        self._drop()
        failures = self.status.failures + 1
        delay = self.backoff.delay(failures)
        message = str(error) or type(error).__name__
        log.warning("camera failed (%d in a row): %s; retrying in %.1f s", failures, message, delay)
        self._report(CameraStatus("lost", message, failures, self.clock() + delay))

    def _drop(self) -> None:
        camera, self._camera = self._camera, None
        if camera is not None:
            _close_quietly(camera)

    def _report(self, status: CameraStatus) -> None:
        if status.state == "ok" and self.status.state == "lost":
            log.info("camera back after %d failed attempts", self.status.failures)
        self.status = status
        if self.on_status is not None:
            self.on_status(status)

    def close(self) -> None:
        self._drop()
        self.status = replace(self.status, state="closed", retry_at=None)


def _close_quietly(camera: Camera) -> None:
    try:
        camera.close()
    except Exception as error:
        log.warning("error while closing the camera: %s", error)


# --- specs ----------------------------------------------------------------------------------


def open_camera(spec: str | CameraSpec, settings: CameraSettings = CameraSettings()) -> Camera:
    """The camera a spec names, not yet started. Raises ValueError for a bad spec (and for
    "manual", which names no camera)."""
    parsed = parse_camera_spec(spec) if isinstance(spec, str) else spec
    if parsed.kind == "manual":
        raise ValueError('"manual" is no camera (dice entered by hand); this needs a camera')
    if parsed.kind == "picamera":
        return PiCamera(settings, index=int(parsed.target or 0))
    if parsed.kind in ("usb", "video"):
        assert parsed.target is not None
        return OpenCVCamera(parsed.target, settings)
    if parsed.kind == "replay":
        return ReplayCamera(str(parsed.target), realtime=parsed.realtime)
    width, height = settings.resolution
    return FakeCamera(size=(width, height), clock=time.monotonic)


def open_resilient_camera(spec: str | CameraSpec, settings: CameraSettings = CameraSettings(), *,
                          backoff: Backoff = Backoff(),
                          on_status: Callable[[CameraStatus], None] | None = None) -> ResilientCamera:
    """The service's camera: the spec's camera behind `ResilientCamera`. Raises ValueError for a bad spec."""
    parsed = parse_camera_spec(spec) if isinstance(spec, str) else spec
    return ResilientCamera(lambda: open_camera(parsed, settings), backoff=backoff, on_status=on_status)


# --- no camera -------------------------------------------------------------------------------


class ManualCamera:
    """The "manual" spec: no camera, by choice. The service's feed that never gives a frame and
    is never lost (no warning, no retries); every throw is entered with the buttons."""

    description = "no camera (dice entered by hand)"

    def __init__(self) -> None:
        self.status = CameraStatus("manual")

    def read(self) -> Frame | None:
        return None

    def seconds_until_retry(self) -> float:
        return 0.0

    def close(self) -> None:
        self.status = CameraStatus("closed")


def open_camera_feed(spec: str | CameraSpec, settings: CameraSettings = CameraSettings()) -> CameraFeed:
    """What the service reads for a spec: `ManualCamera` for "manual", else the spec's camera
    kept going by `ResilientCamera`. Raises ValueError for a bad spec."""
    parsed = parse_camera_spec(spec) if isinstance(spec, str) else spec
    if parsed.kind == "manual":
        return ManualCamera()
    return open_resilient_camera(parsed, settings)
