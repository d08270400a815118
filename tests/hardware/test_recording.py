"""Recorded sessions: the folder format written and read back, replay pace, bad folders, and
the seeded synthetic session generator."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from hardware.recording import ReplaySource, SessionError, SessionWriter, open_session, read_frames
from lab.sessions.script import parse_script
from lab.sessions.synth import SessionConfig, synthesize


def frames(count: int) -> list[np.ndarray]:
    return [np.full((48, 64, 3), 20 * k, np.uint8) for k in range(count)]


def write(folder: Path, kind: str = "jpeg", times: tuple[float, ...] = (0.0, 0.1, 0.2, 0.5)) -> Path:
    with SessionWriter(folder, fps=10, kind=kind) as writer:
        for image, t in zip(frames(len(times)), times):
            writer.write(image, t)
    return folder


@pytest.mark.parametrize("kind", ["jpeg", "video"])
def test_a_written_session_reads_back_with_its_times_and_frames(tmp_path: Path, kind: str) -> None:
    session = open_session(write(tmp_path / "s", kind))
    assert (session.fps, session.width, session.height, len(session)) == (10.0, 64, 48, 4)
    replayed = list(read_frames(session))
    assert [f.t for f in replayed] == [0.0, 0.1, 0.2, 0.5]
    for frame, original in zip(replayed, frames(4)):
        assert frame.image.shape == (48, 64, 3)
        assert abs(float(frame.image.mean()) - float(original.mean())) < 6  # lossy, close


def test_realtime_replay_waits_for_each_frame_s_recorded_time(tmp_path: Path) -> None:
    now = [100.0]
    slept: list[float] = []

    def sleep(seconds: float) -> None:
        slept.append(round(seconds, 6))
        now[0] += seconds

    source = ReplaySource(write(tmp_path / "s"), realtime=True, clock=lambda: now[0], sleep=sleep)
    assert [f.t for f in source] == [0.0, 0.1, 0.2, 0.5]
    assert slept == [0.1, 0.1, 0.3]
    assert [f.t for f in ReplaySource(tmp_path / "s", realtime=False, sleep=sleep)] == [0.0, 0.1, 0.2, 0.5]


def test_an_fps_limit_drops_frames_like_a_slower_camera(tmp_path: Path) -> None:
    assert [f.t for f in ReplaySource(write(tmp_path / "s"), fps=5)] == [0.0, 0.2, 0.5]


def test_broken_sessions_say_what_is_wrong(tmp_path: Path) -> None:
    with pytest.raises(SessionError, match="no such session folder"):
        open_session(tmp_path / "missing")
    folder = write(tmp_path / "s")
    index = json.loads((folder / "session.json").read_text())
    index["frames"][2]["t"] = 0.05
    (folder / "session.json").write_text(json.dumps(index))
    with pytest.raises(SessionError, match="goes back in time"):
        open_session(folder)
    index["frames"][2] = {"file": "../../etc/passwd", "t": 0.3}
    (folder / "session.json").write_text(json.dumps(index))
    with pytest.raises(SessionError):
        list(read_frames(open_session(folder)))


def test_frame_times_may_not_go_back_when_writing(tmp_path: Path) -> None:
    writer = SessionWriter(tmp_path / "s", fps=10)
    writer.write(frames(1)[0], 1.0)
    with pytest.raises(ValueError, match="must not go back"):
        writer.write(frames(1)[0], 0.5)


def test_the_generator_is_deterministic_for_a_seed_and_labels_every_settle() -> None:
    script = parse_script([{"throw": [3, 5, 2, 6, 1]}, {"throw": [None, None, 4, None, None]}, {"turn": [0]}])
    config = SessionConfig(width=320, height=240, dice_px=(24.0, 34.0))
    one = synthesize(script, np.random.default_rng(9), config)
    two = synthesize(script, np.random.default_rng(9), config)
    assert one.truth == two.truth and one.times == two.times
    first_one, first_two = next(one.frames()), next(two.frames())
    assert np.array_equal(first_one.image, first_two.image)
    settled = [s for s in one.truth["settles"] if s["expect"] == "settled"]
    assert [sorted(d["value"] for d in s["dice"]) for s in settled] == [[1, 2, 3, 5, 6], [1, 3, 4, 5, 6],
                                                                        [1, 4, 4, 5, 6]]
    assert sorted(d["moved"] for d in settled[1]["dice"]) == ["held"] * 4 + ["thrown"]
    assert sorted(d["moved"] for d in settled[2]["dice"]) == ["held"] * 4 + ["turned"]
