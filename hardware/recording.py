"""Recorded sessions: camera frames with their times, written to a folder and replayed.

A session is a folder:

    session.json          {"version": 1, "fps": 30.0, "width": 640, "height": 480,
                           "frames": [{"file": "frames/000000.jpg", "t": 0.0}, ...],
                           "truth": {...} (optional ground truth), "meta": {...} (optional)}
    frames/000000.jpg     one JPEG per frame (the default: small, seekable, robust), or
    video.mp4             one video file, the frames then being {"index": i, "t": ...}

`t` is seconds from the start of the session, increasing. A replay yields `Frame(t, image)`
(BGR uint8) at the recorded pace (`realtime=True`) or as fast as it can decode.
Any problem with a session (missing folder, bad JSON, missing or undecodable frame) raises
`SessionError` with a message that says what and where.
"""

from __future__ import annotations

import json
import os
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterator

import cv2
import numpy as np

from hardware.files import write_atomically

SESSION_FILE = "session.json"
FRAMES_DIR = "frames"
VIDEO_FILE = "video.mp4"
FORMAT_VERSION = 1


class SessionError(Exception):
    """A session folder that cannot be read; the message says what is wrong."""


@dataclass(frozen=True)
class Frame:
    """One frame: seconds from the start of the session and the BGR uint8 image."""

    t: float
    image: np.ndarray


@dataclass(frozen=True)
class FrameRef:
    """Where one frame of a session is stored: a file of the folder or an index in the video."""

    t: float
    file: str | None = None
    index: int | None = None


@dataclass
class Session:
    """The index of a recorded session (the frames themselves are decoded on demand)."""

    path: Path
    fps: float
    frames: list[FrameRef]
    width: int | None = None
    height: int | None = None
    video: str | None = None
    truth: dict[str, Any] | None = None
    meta: dict[str, Any] = field(default_factory=dict)

    @property
    def duration(self) -> float:
        return self.frames[-1].t - self.frames[0].t if self.frames else 0.0

    def __len__(self) -> int:
        return len(self.frames)


def open_session(path: str | Path) -> Session:
    """Read and check a session's index. Raises SessionError."""
    folder = Path(path)
    if not folder.is_dir():
        raise SessionError(f"{folder}: no such session folder")
    index_path = folder / SESSION_FILE
    try:
        data = json.loads(index_path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise SessionError(f"{folder}: not a session ({SESSION_FILE} is missing)") from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
        raise SessionError(f"{index_path}: unreadable ({error})") from None
    return _parse_index(folder, data)


def _parse_index(folder: Path, data: Any) -> Session:
    where = folder / SESSION_FILE
    if not isinstance(data, dict):
        raise SessionError(f"{where}: expected a JSON object")
    if data.get("version") != FORMAT_VERSION:
        raise SessionError(f"{where}: unsupported version {data.get('version')!r} (expected {FORMAT_VERSION})")
    fps = data.get("fps")
    if not isinstance(fps, (int, float)) or not 0 < fps <= 1000:
        raise SessionError(f"{where}: 'fps' must be a number in (0, 1000], got {fps!r}")
    raw_frames = data.get("frames")
    if not isinstance(raw_frames, list) or not raw_frames:
        raise SessionError(f"{where}: 'frames' must be a non-empty list")
    video = data.get("video")
    if video is not None and (not isinstance(video, str) or not _inside(folder, video)):
        raise SessionError(f"{where}: 'video' must be a file name inside the session folder")
    if video is not None and not (folder / video).is_file():
        raise SessionError(f"{where}: the video {video} is missing")
    frames: list[FrameRef] = []
    previous_t = float("-inf")
    for number, raw in enumerate(raw_frames):
        frames.append(_parse_frame(folder, where, number, raw, video is not None))
        if frames[-1].t < previous_t:
            raise SessionError(f"{where}: frame {number} goes back in time ({frames[-1].t} < {previous_t})")
        previous_t = frames[-1].t
    truth = data.get("truth")
    meta = data.get("meta") or {}
    return Session(
        path=folder, fps=float(fps), frames=frames,
        width=data.get("width"), height=data.get("height"), video=video,
        truth=truth if isinstance(truth, dict) else None,
        meta=meta if isinstance(meta, dict) else {},
    )


def _parse_frame(folder: Path, where: Path, number: int, raw: Any, in_video: bool) -> FrameRef:
    if not isinstance(raw, dict) or not isinstance(raw.get("t"), (int, float)):
        raise SessionError(f"{where}: frame {number} needs a time 't' in seconds")
    t = float(raw["t"])
    if in_video:
        index = raw.get("index", number)
        if not isinstance(index, int) or index < 0:
            raise SessionError(f"{where}: frame {number} has a bad video index {index!r}")
        return FrameRef(t, index=index)
    name = raw.get("file")
    if not isinstance(name, str) or not _inside(folder, name):
        raise SessionError(f"{where}: frame {number} needs a 'file' inside the session folder")
    if not (folder / name).is_file():
        raise SessionError(f"{folder}: frame {number} ({name}) is missing")
    return FrameRef(t, file=name)


def _inside(folder: Path, name: str) -> bool:
    """A relative path that stays inside the folder (no absolute paths, no '..')."""
    candidate = Path(name)
    return not candidate.is_absolute() and ".." not in candidate.parts and name.strip() != ""


def read_frames(session: Session) -> Iterator[Frame]:
    """Decode the session's frames in order, as fast as possible."""
    if session.video is None:
        for ref in session.frames:
            assert ref.file is not None
            image = cv2.imread(str(session.path / ref.file), cv2.IMREAD_COLOR)
            if image is None:
                raise SessionError(f"{session.path}: frame {ref.file} cannot be decoded")
            yield Frame(ref.t, image)
        return
    capture = cv2.VideoCapture(str(session.path / session.video))
    try:
        if not capture.isOpened():
            raise SessionError(f"{session.path}: the video {session.video} cannot be opened")
        position = 0
        for ref in session.frames:
            assert ref.index is not None
            if ref.index < position:
                raise SessionError(f"{session.path}: video frame indices must increase")
            image = None
            while position <= ref.index:
                ok, image = capture.read()
                if not ok:
                    raise SessionError(f"{session.path}: the video ends before frame {ref.index}")
                position += 1
            yield Frame(ref.t, image)
    finally:
        capture.release()


class ReplaySource:
    """A recorded session played back as a stream of frames.

    realtime=True sleeps so that frame k comes out at its recorded time after the first one
    (a camera's pace); realtime=False yields frames as fast as they decode. `fps` (optional)
    drops frames so no more than that many per second of session time come out, as from a
    slower camera. `sleep` and `clock` are injectable for tests.
    """

    def __init__(self, path: str | Path, realtime: bool = False, fps: float | None = None, *,
                 clock: Callable[[], float] = time.monotonic,
                 sleep: Callable[[float], None] = time.sleep) -> None:
        if fps is not None and fps <= 0:
            raise ValueError(f"fps must be positive, got {fps}")
        self.session = open_session(path)
        self.realtime = realtime
        self.fps = fps
        self._clock = clock
        self._sleep = sleep

    def __iter__(self) -> Iterator[Frame]:
        start_wall: float | None = None
        start_t = self.session.frames[0].t
        next_t = float("-inf")
        period = 1.0 / self.fps if self.fps else 0.0
        for frame in read_frames(self.session):
            if frame.t < next_t - 1e-6:
                continue
            if period:
                next_t = (frame.t if next_t == float("-inf") else next_t) + period
                if next_t <= frame.t:
                    next_t = frame.t + period
            if self.realtime:
                if start_wall is None:
                    start_wall = self._clock()
                delay = (frame.t - start_t) - (self._clock() - start_wall)
                if delay > 0:
                    self._sleep(delay)
            yield frame


class SessionWriter:
    """Write a session folder frame by frame; `close()` writes session.json last.

    kind "jpeg" (default) writes frames/NNNNNN.jpg; kind "video" writes video.mp4 (MPEG-4
    part 2, which every OpenCV build with FFmpeg reads) plus the frame times. The index is
    written atomically, so a folder with a session.json is always a whole session.
    """

    def __init__(self, path: str | Path, fps: float, *, kind: str = "jpeg", jpeg_quality: int = 90,
                 meta: dict[str, Any] | None = None) -> None:
        if kind not in ("jpeg", "video"):
            raise ValueError(f"kind must be 'jpeg' or 'video', got {kind!r}")
        if fps <= 0:
            raise ValueError(f"fps must be positive, got {fps}")
        self.path = Path(path)
        self.fps = float(fps)
        self.kind = kind
        self.jpeg_quality = int(jpeg_quality)
        self.meta = dict(meta or {})
        self.truth: dict[str, Any] | None = None
        self._frames: list[dict[str, Any]] = []
        self._size: tuple[int, int] | None = None
        self._video: Any = None
        self._last_t = float("-inf")
        (self.path / FRAMES_DIR if kind == "jpeg" else self.path).mkdir(parents=True, exist_ok=True)

    def write(self, image: np.ndarray, t: float) -> None:
        if t < self._last_t:
            raise ValueError(f"frame times must not go back ({t} after {self._last_t})")
        height, width = image.shape[:2]
        if self._size is None:
            self._size = (width, height)
        elif self._size != (width, height):
            raise ValueError(f"every frame must be {self._size[0]}x{self._size[1]}, got {width}x{height}")
        number = len(self._frames)
        if self.kind == "jpeg":
            name = f"{FRAMES_DIR}/{number:06d}.jpg"
            ok, data = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, self.jpeg_quality])
            if not ok:
                raise SessionError(f"frame {number} could not be encoded")
            (self.path / name).write_bytes(data.tobytes())
            self._frames.append({"file": name, "t": round(float(t), 6)})
        else:
            if self._video is None:
                self._video = cv2.VideoWriter(str(self.path / VIDEO_FILE), cv2.VideoWriter_fourcc(*"mp4v"),
                                              self.fps, (width, height))
                if not self._video.isOpened():
                    raise SessionError("this OpenCV build cannot write MPEG-4 video; use kind='jpeg'")
            self._video.write(image)
            self._frames.append({"index": number, "t": round(float(t), 6)})
        self._last_t = t

    def close(self) -> Path:
        if self._video is not None:
            self._video.release()
            self._video = None
        if not self._frames:
            raise SessionError(f"{self.path}: a session needs at least one frame")
        index: dict[str, Any] = {"version": FORMAT_VERSION, "fps": self.fps}
        if self._size is not None:
            index["width"], index["height"] = self._size
        if self.kind == "video":
            index["video"] = VIDEO_FILE
        index["frames"] = self._frames
        if self.truth is not None:
            index["truth"] = self.truth
        if self.meta:
            index["meta"] = self.meta
        target = self.path / SESSION_FILE
        # Recorded for the lab and the tests: whole or not at all, no need to survive a power cut.
        write_atomically(target, json.dumps(index, separators=(",", ":")).encode("utf-8"), sync=False)
        return self.path

    def __enter__(self) -> "SessionWriter":
        return self

    def __exit__(self, kind: Any, *_: Any) -> None:
        if kind is None:
            self.close()
        elif self._video is not None:
            self._video.release()
