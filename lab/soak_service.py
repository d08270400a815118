"""The soak's runs of the real service: `cubilete run` on a replayed session with the
simulated player (or a button script), killed with SIGKILL when the replay reaches a given
session time (or, with a button script, a given wall time after it said READY), its journal
lines read as they come (a "recorded game=... seq=..." line is a confirmed event, a
"session t=..." line of the simulated player how far the replay got).
"""

from __future__ import annotations

import bisect
import json
import os
import re
import signal
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Sequence

from lab.soak_game import CONFIG

RECORDED = re.compile(r"recorded game=(\S+) seq=(\d+) type=(\S+) t=([-0-9.]+)")
PROGRESS = re.compile(r"session t=([-0-9.]+)")
READY = "ready:"
WAL_AUTOCHECKPOINT = 16  # pages (64 kB): a game of ~63 events grows the WAL to ~250 kB, so passes several
RUN_TIMEOUT_S = 600.0


@dataclass
class Run:
    confirmed: list[tuple[str, int, str, float]]  # (game_id, seq, type, frame t)
    killed: bool
    code: int | None
    stderr: str
    ready_s: float | None  # wall seconds from start to READY (None: never ready)
    timeline: list[tuple[float, float]] = field(default_factory=list)  # (wall s after READY, session t)
    reached: float | None = None  # the last session time the service reported (None: it reports none)


def trimmed_session(source: Path, target: Path, after: float) -> Path:
    """A session folder with the frames of `source` later than `after` (hard links)."""
    index = json.loads((source / "session.json").read_text(encoding="utf-8"))
    frames = [f for f in index["frames"] if f["t"] > after]
    if not frames:
        frames = index["frames"][-1:]
    (target / "frames").mkdir(parents=True, exist_ok=True)
    for frame in frames:
        link = target / frame["file"]
        if not link.exists():
            try:
                os.link(source / frame["file"], link)
            except OSError:
                link.write_bytes((source / frame["file"]).read_bytes())
    index["frames"] = frames
    (target / "session.json").write_text(json.dumps(index), encoding="utf-8")
    return target


class StderrWatch:
    """The service's stderr, line by line with the wall time each came, in a thread."""

    def __init__(self, stream: Any, copy: Path, kill_at: float | None = None) -> None:
        self.lines: list[tuple[float, str]] = []
        self.ready = threading.Event()
        self.reached: float | None = None  # the last session time the service reported
        self.at_kill = threading.Event()  # the service reported a session time >= kill_at
        self._kill_at = kill_at
        self._copy = copy
        self._thread = threading.Thread(target=self._read, args=(stream,), daemon=True)
        self._thread.start()

    def _read(self, stream: Any) -> None:
        with open(self._copy, "w", encoding="utf-8") as copy:
            for line in stream:
                self.lines.append((time.monotonic(), line))
                copy.write(line)
                if READY in line:
                    self.ready.set()
                progress = PROGRESS.search(line)
                if progress:
                    t = float(progress[1])
                    self.reached = t if self.reached is None else max(self.reached, t)
                    if self._kill_at is not None and t >= self._kill_at:
                        self.at_kill.set()

    def join(self) -> None:
        self._thread.join(timeout=30)


def run_service(work: Path, state_dir: Path, session: Path, *, player: Path | None, buttons: Path | None,
                kill_at: float | None = None, kill_after_ready: float | None = None, config_text: str = CONFIG,
                wal_autocheckpoint: int | None = WAL_AUTOCHECKPOINT) -> Run:
    """`cubilete run` on a replayed session; SIGKILL when the simulated player reports that the
    replay reached session time `kill_at`, or (a button script: no such reports)
    `kill_after_ready` wall seconds after READY. Neither: the run goes to the session's end."""
    config = work / "soak.toml"
    config.write_text(config_text.format(language="es"), encoding="utf-8")
    presses = ["--player", str(player)] if player is not None else ["--buttons", f"script:{buttons}"]
    command = [sys.executable, "-m", "cli.main", "run", "--config", str(config),
               "--camera", f"replay:{session}", *presses, "--display", "dummy",
               "--state-dir", str(state_dir), "--socket", str(work / "control.sock"), "--exit-at-end"]
    if wal_autocheckpoint is not None:
        command += ["--wal-autocheckpoint", str(wal_autocheckpoint)]
    started = time.monotonic()
    proc = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                            errors="replace")
    watch = StderrWatch(proc.stderr, work / "run.err", kill_at)
    killed = False
    deadline = started + RUN_TIMEOUT_S
    if kill_at is not None or kill_after_ready is not None:
        while not watch.ready.wait(0.05):
            if proc.poll() is not None or time.monotonic() > deadline:
                break
        if proc.poll() is None and watch.ready.is_set():
            if kill_at is not None:
                # however slowly the replay goes: the moment is a moment of the game, not of the wall
                while not watch.at_kill.wait(0.05):
                    if proc.poll() is not None or time.monotonic() > deadline:
                        break
            else:
                time.sleep(max(0.0, kill_after_ready or 0.0))
            if proc.poll() is None and (kill_at is None or watch.at_kill.is_set()):
                proc.send_signal(signal.SIGKILL)
                killed = True
    try:
        proc.wait(timeout=max(1.0, deadline - time.monotonic()))
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
    watch.join()
    ready_at = next((at for at, line in watch.lines if READY in line), None)
    confirmed, timeline = [], []
    for at, line in watch.lines:
        found = RECORDED.search(line)
        if found:
            confirmed.append((found[1], int(found[2]), found[3], float(found[4])))
            if ready_at is not None:
                timeline.append((at - ready_at, float(found[4])))
    return Run(confirmed, killed, proc.returncode, "".join(line for _, line in watch.lines),
               None if ready_at is None else ready_at - started, timeline, watch.reached)


class Timeline:
    """Wall seconds after READY at which the uninterrupted run reached each session second."""

    def __init__(self, points: Sequence[tuple[float, float]], duration: float, wall: float) -> None:
        pairs = sorted({(t, w) for w, t in points} | {(0.0, 0.0), (duration, wall)})
        self.t = [t for t, _ in pairs]
        self.wall = [w for _, w in pairs]

    def __call__(self, t: float) -> float:
        k = bisect.bisect_right(self.t, t)
        if k <= 0:
            return self.wall[0]
        if k >= len(self.t):
            return self.wall[-1]
        t0, t1, w0, w1 = self.t[k - 1], self.t[k], self.wall[k - 1], self.wall[k]
        return w0 + (w1 - w0) * (t - t0) / (t1 - t0) if t1 > t0 else w0
