"""Cameras: the fake, video files and recorded sessions, specs, and the resilience that keeps the
service alive when a camera fails, disappears or never was there."""

from __future__ import annotations

import importlib.util

import numpy as np
import pytest

from hardware.camera import (
    Backoff,
    CameraError,
    CameraSettings,
    CameraStatus,
    EndOfStream,
    FakeCamera,
    Frame,
    OpenCVCamera,
    PiCamera,
    ReplayCamera,
    ResilientCamera,
    open_camera,
    open_resilient_camera,
    parse_camera_spec,
)


class Clock:
    def __init__(self, t: float = 0.0) -> None:
        self.t = t

    def __call__(self) -> float:
        return self.t


def image(value: int, width: int = 64, height: int = 48) -> np.ndarray:
    return np.full((height, width, 3), value, np.uint8)


def test_the_fake_delivers_its_frames_in_order_with_exact_times():
    camera = FakeCamera([image(1), image(2)], fps=10)
    camera.start()
    first, second = camera.read(), camera.read()
    assert (first.t, int(first.image[0, 0, 0])) == (0.0, 1)
    assert (second.t, int(second.image[0, 0, 0])) == (0.1, 2)
    with pytest.raises(EndOfStream):
        camera.read()


def test_the_fake_without_frames_gives_a_grey_bgr_image_of_its_size():
    camera = FakeCamera(size=(320, 240))
    camera.start()
    frame = camera.read()
    assert frame.image.shape == (240, 320, 3) and frame.image.dtype == np.uint8


def test_an_unplugged_fake_fails_like_a_camera():
    camera = FakeCamera(loop=True)
    camera.start()
    camera.unplug()
    with pytest.raises(CameraError, match="not connected"):
        camera.read()
    with pytest.raises(CameraError):
        camera.start()


def test_backoff_grows_exponentially_and_is_bounded():
    backoff = Backoff(initial=0.5, factor=2.0, maximum=30.0)
    assert [backoff.delay(n) for n in range(1, 9)] == [0.5, 1, 2, 4, 8, 16, 30, 30]


def test_a_lost_camera_is_reported_retried_with_backoff_and_comes_back():
    clock = Clock()
    camera = FakeCamera(loop=True, clock=clock)
    statuses: list[CameraStatus] = []
    resilient = ResilientCamera(lambda: camera, backoff=Backoff(1.0, 2.0, 4.0), clock=clock,
                                on_status=statuses.append)
    assert isinstance(resilient.read(), Frame) and resilient.ok
    camera.unplug()
    assert resilient.read() is None
    assert resilient.status.state == "lost" and "not connected" in resilient.status.message
    assert resilient.seconds_until_retry() == 1.0
    starts = camera.starts
    clock.t = 0.5
    assert resilient.read() is None and camera.starts == starts  # waits out the back-off
    clock.t = 1.0
    assert resilient.read() is None and resilient.status.failures == 2
    assert resilient.seconds_until_retry() == 2.0
    for _ in range(5):  # still unplugged: the delay grows to the bound and stays there
        clock.t = resilient.status.retry_at
        resilient.read()
    assert resilient.seconds_until_retry() == 4.0
    camera.plug()
    clock.t = resilient.status.retry_at
    assert isinstance(resilient.read(), Frame)
    assert resilient.status == CameraStatus("ok")
    assert [s.state for s in statuses][:2] == ["ok", "lost"] and statuses[-1].state == "ok"


def test_no_exception_from_a_camera_escapes_the_resilient_camera():
    class Broken:
        description = "broken"

        def start(self) -> None:
            raise RuntimeError("libcamera said no")

        def read(self) -> Frame:
            raise AssertionError("never started")

        def close(self) -> None:
            raise OSError("and cannot close either")

    resilient = ResilientCamera(Broken, clock=Clock())
    assert resilient.read() is None
    assert resilient.status.state == "lost" and "libcamera said no" in resilient.status.message


def test_the_end_of_a_finite_source_is_reported_once_and_not_retried():
    resilient = ResilientCamera(lambda: FakeCamera([image(5)]), clock=Clock())
    assert resilient.read() is not None
    assert resilient.read() is None and resilient.status.state == "ended"
    assert resilient.read() is None and resilient.status.state == "ended"


def test_on_a_machine_without_picamera2_the_pi_camera_says_how_to_install_it():
    if importlib.util.find_spec("picamera2") is not None:
        pytest.skip("picamera2 is installed here (a Raspberry Pi): the missing-library path cannot happen")
    with pytest.raises(CameraError, match="apt install python3-picamera2"):
        PiCamera().start()
    resilient = open_resilient_camera("picamera")
    assert resilient.read() is None and resilient.status.state == "lost"


def test_a_missing_usb_camera_is_a_camera_error():
    camera = open_camera("usb:/dev/video-that-does-not-exist")
    with pytest.raises(CameraError):
        camera.start()


def test_a_video_file_is_read_as_bgr_frames_and_ends(tmp_path):
    import cv2

    path = tmp_path / "clip.avi"
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"MJPG"), 10, (64, 48))
    if not writer.isOpened():
        pytest.skip("this OpenCV build cannot write MJPG video")
    for _ in range(3):
        frame = np.zeros((48, 64, 3), np.uint8)
        frame[:, :, 2] = 200  # red in BGR
        writer.write(frame)
    writer.release()
    camera = open_camera(f"video:{path}")
    assert isinstance(camera, OpenCVCamera) and camera.is_file
    camera.start()
    frames = [camera.read() for _ in range(3)]
    assert all(f.image.shape == (48, 64, 3) for f in frames)
    blue, green, red = frames[0].image[24, 32]
    assert red > 150 and blue < 60 and green < 60
    with pytest.raises(EndOfStream):
        camera.read()
    camera.close()


def test_a_recorded_session_replays_with_its_recorded_times(tmp_path):
    from hardware.recording import SessionWriter

    with SessionWriter(tmp_path / "session", fps=10) as writer:
        for i in range(4):
            writer.write(image(40 * i), t=i * 0.1)
    camera = open_camera(f"replay:{tmp_path / 'session'}")
    assert isinstance(camera, ReplayCamera)
    camera.start()
    frames = [camera.read() for _ in range(4)]
    assert [round(f.t, 3) for f in frames] == [0.0, 0.1, 0.2, 0.3]
    assert abs(int(frames[2].image[0, 0, 0]) - 80) <= 3  # JPEG
    with pytest.raises(EndOfStream):
        camera.read()


def test_a_missing_session_folder_is_a_camera_error(tmp_path):
    with pytest.raises(CameraError, match="no such session"):
        ReplayCamera(tmp_path / "none").start()


@pytest.mark.parametrize("spec, kind, target, realtime", [
    ("picamera", "picamera", 0, False),
    ("picamera:1", "picamera", 1, False),
    ("usb:0", "usb", 0, False),
    ("usb:/dev/video2", "usb", "/dev/video2", False),
    ("video:/tmp/a.mp4", "video", "/tmp/a.mp4", False),
    ("replay:demo/session?realtime", "replay", "demo/session", True),
    ("replay:demo/session", "replay", "demo/session", False),
    ("fake", "fake", None, False),
])
def test_camera_specs(spec, kind, target, realtime):
    parsed = parse_camera_spec(spec)
    assert (parsed.kind, parsed.target, parsed.realtime) == (kind, target, realtime)


@pytest.mark.parametrize("spec", ["webcam", "usb", "usb:x", "replay:", "replay:d?fast", "fake:1", "picamera:a"])
def test_bad_camera_specs_say_what_is_allowed(spec):
    with pytest.raises(ValueError, match="camera spec"):
        parse_camera_spec(spec)


def test_settings_come_from_the_config_section():
    settings = CameraSettings.from_mapping({"resolution": [800, 600], "fps": 25.0, "colour_gains": [1.5, 2.0],
                                            "exposure_us": None, "unknown": 1})
    assert settings.resolution == (800, 600) and settings.colour_gains == (1.5, 2.0)
    assert settings.exposure_us is None and settings.fps == 25.0
