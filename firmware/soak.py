"""The power-cut soak: whole games in the real service, killed with SIGKILL at moments spread
over the game, restarted, and checked event by event after every kill.

    python -m firmware.soak --kills 1000          (prints a summary; exit 1 on any failure)

The game (firmware.soak_game) is a two-player Cacho game of about 65 events with throws,
dice turned over, corrections, a score undone and scored again, and cross-outs. It is
rendered once as a synthetic camera session and played by `cubilete run` (replay camera,
reader, tracker, state machine, event log), with the simulated player (firmware.autoplayer)
pressing the buttons in every run: it looks at the screen and the dice, as the players
would after a restart. `--scripted-buttons` replays the presses of a rehearsal blind
instead (as the old soak did).

First an uninterrupted run plays the game: the reference, event by event, and the time
line (wall seconds after READY for each session second) used to aim the kills. Then games
are played in one state directory that keeps every game, so the log grows for the whole
soak, and with a small WAL auto-checkpoint (64 pages) every game passes several
checkpoints. For each game a number of kill moments are drawn uniformly over the game's
session time; each run is started on the session from where the last one left off, and
killed with SIGKILL when the reference time line says the replay has reached the next
moment (counted from READY, so kills land in play, not in start-up). After every kill:

- `PRAGMA integrity_check` on a copy of the log (the copy, so that the check does not
  checkpoint the hot WAL the next start must recover);
- nothing moved aside by the service (no `*.corrupt-*` file);
- every event the service confirmed (the "recorded game=... seq=..." line it writes after
  the commit, before the screen shows it) is in the log;
- the game's events so far are, one by one, the first events of the reference.

The last run of a game is not killed: the game must end with exactly the reference's events.
The exit status is 0 only with no event lost, no integrity failure, nothing moved aside,
no divergence and the reference game played to its end.
"""

from __future__ import annotations

import argparse
import bisect
import json
import os
import random
import re
import shutil
import signal
import sqlite3
import struct
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Sequence

from firmware.soak_game import CONFIG, SOAK_GAME, SOAK_SEED

RECORDED = re.compile(r"recorded game=(\S+) seq=(\d+) type=(\S+) t=([-0-9.]+)")
READY = "ready:"
WAL_AUTOCHECKPOINT = 64  # pages: a checkpoint every 25 or so events
RUN_TIMEOUT_S = 600.0
MIN_GAME_EVENTS = 40


@dataclass
class Run:
    confirmed: list[tuple[str, int, str, float]]  # (game_id, seq, type, frame t)
    killed: bool
    code: int | None
    stderr: str
    ready_s: float | None  # wall seconds from start to READY (None: never ready)
    timeline: list[tuple[float, float]] = field(default_factory=list)  # (wall s after READY, session t)


@dataclass
class SoakResult:
    kills: int = 0
    kills_before_ready: int = 0
    kill_positions: list[float] = field(default_factory=list)  # events in the log / reference events
    runs: int = 0
    games: int = 0
    games_finished: int = 0
    games_as_reference: int = 0
    confirmed_checked: int = 0
    events_compared: int = 0
    integrity_checks: int = 0
    checkpoints: int = 0  # WAL restarts (after a checkpoint) seen between runs
    wal_peak_bytes: int = 0
    log_bytes: int = 0
    lost_events: list[str] = field(default_factory=list)
    integrity_failures: list[str] = field(default_factory=list)
    moved_aside: list[str] = field(default_factory=list)
    diverged: list[str] = field(default_factory=list)
    reference_events: int = 0
    reference_kinds: dict[str, int] = field(default_factory=dict)
    reference_finished: bool = False
    reference_wall_s: float = 0.0
    seconds: float = 0.0

    @property
    def ok(self) -> bool:
        return (self.reference_finished and not self.lost_events and not self.integrity_failures
                and not self.moved_aside and not self.diverged and self.games_as_reference == self.games)

    def summary(self) -> str:
        deciles = Counter(min(9, int(p * 10)) for p in self.kill_positions)
        spread = " ".join(f"{deciles.get(d, 0)}" for d in range(10))
        kinds = ", ".join(f"{kind} {n}" for kind, n in sorted(self.reference_kinds.items()))
        lines = [
            f"soak: {self.kills} SIGKILLs in {self.runs} runs of `cubilete run` over {self.games} games"
            f" in {self.seconds:.0f} s",
            f"  the game: {self.reference_events} events ({kinds}); uninterrupted run"
            f" {'played to its end' if self.reference_finished else 'NOT FINISHED'} in {self.reference_wall_s:.1f} s",
            f"  kills by tenth of the game (events in the log / the game's events): {spread}",
            f"  kills before the service was ready: {self.kills_before_ready}",
            f"  log: {self.log_bytes / 1e6:.1f} MB at the end, {self.checkpoints} WAL checkpoints seen between runs,"
            f" WAL up to {self.wal_peak_bytes / 1e3:.0f} kB",
            f"  integrity_check after every kill: {self.integrity_checks} run, {len(self.integrity_failures)} failed",
            f"  confirmed events checked after a kill: {self.confirmed_checked}, lost: {len(self.lost_events)}",
            f"  events compared with the uninterrupted game after a kill: {self.events_compared},"
            f" divergences: {len(self.diverged)}",
            f"  event logs moved aside: {len(self.moved_aside)}",
            f"  games played to their end: {self.games_finished}/{self.games},"
            f" exactly as the uninterrupted run: {self.games_as_reference}/{self.games}",
        ]
        lines += [f"  LOST {x}" for x in self.lost_events[:10]]
        lines += [f"  INTEGRITY {x}" for x in self.integrity_failures[:10]]
        lines += [f"  MOVED ASIDE {x}" for x in self.moved_aside[:10]]
        lines += [f"  DIVERGED {x}" for x in self.diverged[:10]]
        lines.append("soak: OK" if self.ok else "soak: FAILED")
        return "\n".join(lines)


# -- running the service ----------------------------------------------------------------------------


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

    def __init__(self, stream: Any, copy: Path) -> None:
        self.lines: list[tuple[float, str]] = []
        self.ready = threading.Event()
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

    def join(self) -> None:
        self._thread.join(timeout=30)


def run_service(work: Path, state_dir: Path, session: Path, *, player: Path | None, buttons: Path | None,
                kill_after_ready: float | None, config_text: str = CONFIG,
                wal_autocheckpoint: int | None = WAL_AUTOCHECKPOINT) -> Run:
    """`cubilete run` on a replayed session; SIGKILL `kill_after_ready` seconds after READY."""
    config = work / "soak.toml"
    config.write_text(config_text.format(language="es"), encoding="utf-8")
    presses = ["--player", str(player)] if player is not None else ["--buttons", f"script:{buttons}"]
    command = [sys.executable, "-m", "firmware.cli", "run", "--config", str(config),
               "--camera", f"replay:{session}", *presses, "--display", "dummy",
               "--state-dir", str(state_dir), "--socket", str(work / "control.sock"), "--exit-at-end"]
    if wal_autocheckpoint is not None:
        command += ["--wal-autocheckpoint", str(wal_autocheckpoint)]
    started = time.monotonic()
    proc = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                            errors="replace")
    watch = StderrWatch(proc.stderr, work / "run.err")
    killed = False
    deadline = started + RUN_TIMEOUT_S
    if kill_after_ready is not None:
        while not watch.ready.wait(0.05):
            if proc.poll() is not None or time.monotonic() > deadline:
                break
        if proc.poll() is None and watch.ready.is_set():
            time.sleep(max(0.0, kill_after_ready))
            if proc.poll() is None:
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
               None if ready_at is None else ready_at - started, timeline)


# -- checking the log -------------------------------------------------------------------------------


@dataclass
class LogCheck:
    integrity: str  # "ok" or what integrity_check said
    games: list[tuple[str, str | None]]  # (game_id, ended_at), oldest first
    events: dict[str, list[dict[str, Any]]]  # game_id -> events in order
    readings_t: dict[str, float]  # game_id -> frame time of its last throw with a reading


def check_log(state_dir: Path, scratch: Path) -> LogCheck:
    """Integrity and contents of the log as it lies after a kill, read from a copy so the
    next start finds the files exactly as the kill left them."""
    from firmware.eventlog import DB_NAME

    if scratch.exists():
        shutil.rmtree(scratch)
    scratch.mkdir(parents=True)
    for suffix in ("", "-wal"):
        part = state_dir / (DB_NAME + suffix)
        if part.exists():
            shutil.copyfile(part, scratch / (DB_NAME + suffix))
    if not (scratch / DB_NAME).exists():
        return LogCheck("ok", [], {}, {})
    conn = sqlite3.connect(scratch / DB_NAME, isolation_level=None)
    try:
        rows = conn.execute("PRAGMA integrity_check").fetchall()
        integrity = "ok" if rows == [("ok",)] else "; ".join(str(r[0]) for r in rows[:3])
        games = conn.execute("SELECT game_id, ended_at FROM games ORDER BY rowid").fetchall()
        events: dict[str, list[dict[str, Any]]] = {g: [] for g, _ in games}
        readings_t: dict[str, float] = {}
        for game_id, event, reading in conn.execute(
                "SELECT game_id, event, reading FROM events ORDER BY game_id, seq"):
            events[game_id].append(json.loads(event))
            if reading is not None:
                t = json.loads(reading).get("t")
                if t is not None:
                    readings_t[game_id] = max(readings_t.get(game_id, float("-inf")), float(t))
    except sqlite3.DatabaseError as error:
        return LogCheck(str(error), [], {}, {})
    finally:
        conn.close()
    return LogCheck(integrity, [(g, e) for g, e in games], events, readings_t)


def wal_checkpoint_sequence(state_dir: Path) -> int | None:
    """The WAL header's checkpoint sequence number (it grows at each restart of the WAL)."""
    from firmware.eventlog import DB_NAME

    try:
        with open(state_dir / f"{DB_NAME}-wal", "rb") as wal:
            header = wal.read(16)
    except OSError:
        return None
    return struct.unpack(">I", header[12:16])[0] if len(header) == 16 else None


def _finished(events: Sequence[dict[str, Any]]) -> bool:
    import engine

    try:
        return bool(events) and engine.replay(events).finished
    except engine.RuleError:
        return False


def first_difference(story: Sequence[dict[str, Any]], reference: Sequence[dict[str, Any]]) -> int | None:
    """The index of the first event that differs from the reference (None: a prefix of it)."""
    for index, (mine, theirs) in enumerate(zip(story, reference)):
        if mine != theirs:
            return index
    return None if len(story) <= len(reference) else len(reference)


# -- the soak -----------------------------------------------------------------------------------------


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


@dataclass
class Soak:
    work: Path
    session: Path
    duration: float
    reference: list[dict[str, Any]]
    timeline: Timeline
    rng: random.Random
    result: SoakResult
    player_steps: Sequence[dict[str, Any]] | None
    presses: Sequence[tuple[float, str, str]] = ()
    config_text: str = CONFIG
    _sequence: int | None = None  # the WAL's checkpoint sequence after the last run

    @property
    def state_dir(self) -> Path:
        return self.work / "state"

    def _player(self, folder: Path, games_before: int) -> Path | None:
        if self.player_steps is None:
            return None
        path = folder / "player.json"
        path.write_text(json.dumps({"steps": list(self.player_steps), "games_before": games_before}), "utf-8")
        return path

    def play_game(self, kills: int) -> None:
        from firmware.scripted_game import write_button_script

        result = self.result
        result.games += 1
        number = result.games
        here = self.work / f"game{number}"
        here.mkdir(parents=True, exist_ok=True)
        before = check_log(self.state_dir, here / "check")
        games_before = len(before.games)
        moments = sorted(self.rng.uniform(0.0, self.duration) for _ in range(kills))
        resume_after = float("-inf")
        restart = 0
        game_id: str | None = None
        while True:
            restart += 1
            part = here / f"run{restart}"
            replay = trimmed_session(self.session, part / "session", resume_after)
            buttons = None if self.player_steps is not None else write_button_script(
                part / "buttons.txt", self.presses, after=resume_after)
            while moments and moments[0] <= max(resume_after, 0.0):
                moments.pop(0)  # the replay is already past it
            delay = None
            if moments:
                target = moments.pop(0)
                delay = self.timeline(target) - self.timeline(max(resume_after, 0.0))
            run = run_service(part, self.state_dir, replay, player=self._player(part, games_before),
                              buttons=buttons, kill_after_ready=delay, config_text=self.config_text)
            result.runs += 1
            self._wal(clean_exit=not run.killed and run.code == 0)
            log = check_log(self.state_dir, here / "check")
            game_id = self._check(run, log, games_before, f"game {number}, run {restart}")
            if run.killed:
                result.kills += 1
                result.kills_before_ready += run.ready_s is None
                last_t = [t for *_, t in run.confirmed]
                if game_id is not None and game_id in log.readings_t:
                    last_t.append(log.readings_t[game_id])
                if last_t:
                    resume_after = max(resume_after, max(last_t))
                shutil.rmtree(part / "session", ignore_errors=True)
                continue
            if run.code != 0:
                result.diverged.append(f"game {number}, run {restart}: the service exited with {run.code}")
            shutil.rmtree(part / "session", ignore_errors=True)
            break
        story = log.events.get(game_id, []) if game_id else []
        ended = dict(log.games).get(game_id) if game_id else None
        result.games_finished += _finished(story) and ended is not None
        if story == self.reference and ended is not None:
            result.games_as_reference += 1
        else:
            result.diverged.append(
                f"game {number}: ended with {len(story)} events ({'closed' if ended else 'not closed'}), the"
                f" uninterrupted run had {len(self.reference)}; first difference at event"
                f" {first_difference(story, self.reference)}")

    def _check(self, run: Run, log: LogCheck, games_before: int, where: str) -> str | None:
        """The checks after a run; returns this game's id (None before it started)."""
        result = self.result
        result.integrity_checks += 1
        if log.integrity != "ok":
            result.integrity_failures.append(f"{where}: {log.integrity}")
        aside = sorted(p.name for p in self.state_dir.glob("*corrupt*"))
        if aside:
            result.moved_aside.append(f"{where}: {', '.join(aside)}")
        stored = {(g, seq): event["type"] for g, events in log.events.items() for seq, event in enumerate(events)}
        for game, seq, kind, _ in run.confirmed:
            if stored.get((game, seq)) != kind:
                result.lost_events.append(f"{where}: {kind} seq {seq} of {game}")
            elif run.killed:
                result.confirmed_checked += 1
        if len(log.games) > games_before + 1:
            result.diverged.append(f"{where}: {len(log.games) - games_before} games started, not one")
        game_id = log.games[games_before][0] if len(log.games) > games_before else None
        story = log.events.get(game_id, []) if game_id else []
        if run.killed:
            result.kill_positions.append(len(story) / max(1, len(self.reference)))
            result.events_compared += len(story)
            wrong = first_difference(story, self.reference)
            if wrong is not None:
                result.diverged.append(f"{where}: event {wrong} of {len(story)} is not the uninterrupted run's")
        return game_id

    def _wal(self, clean_exit: bool) -> None:
        """Count WAL checkpoints: the header's sequence grows at each restart of the WAL after
        one, and starts from 0 in a new WAL file (after a clean close checkpointed and removed it)."""
        from firmware.eventlog import DB_NAME

        wal = self.state_dir / f"{DB_NAME}-wal"
        size = wal.stat().st_size if wal.exists() else 0
        self.result.wal_peak_bytes = max(self.result.wal_peak_bytes, size)
        sequence = wal_checkpoint_sequence(self.state_dir)
        if sequence is None:
            self.result.checkpoints += clean_exit  # the checkpoint of the clean close
        else:
            previous = self._sequence or 0
            self.result.checkpoints += sequence - previous if sequence >= previous else sequence
        self._sequence = sequence


def run_soak(kills: int, work: Path, seed: int = 1, game: Sequence[dict[str, Any]] | None = None,
             kills_per_game: tuple[int, int] = (15, 25), simulated: bool = True, config_text: str = CONFIG,
             session_seed: int = SOAK_SEED, log: Any = None) -> SoakResult:
    """Kill the service `kills` times over as many games as that takes (see the module)."""
    from firmware.demo import session_config
    from firmware.scripted_game import make_scripted_session, render_session

    started = time.monotonic()
    result = SoakResult()
    rng = random.Random(seed)
    work.mkdir(parents=True, exist_ok=True)
    steps = list(game or SOAK_GAME)
    presses: Sequence[tuple[float, str, str]] = ()
    if simulated:
        session, truth = render_session(work / "script", steps, session_seed, session_config())
    else:
        scripted = make_scripted_session(work / "script", steps, session_seed, session_config(),
                                         config_text=config_text)
        session, truth, presses = scripted.session, scripted.truth, scripted.presses
    duration = float(truth["duration"])
    reference_dir = work / "reference"
    reference_dir.mkdir(exist_ok=True)
    player = None
    if simulated:
        player = reference_dir / "player.json"
        player.write_text(json.dumps({"steps": steps, "games_before": 0}), encoding="utf-8")
    buttons = None
    if not simulated:
        from firmware.scripted_game import write_button_script

        buttons = write_button_script(reference_dir / "buttons.txt", presses)
    run = run_service(reference_dir, reference_dir / "state", session, player=player, buttons=buttons,
                      kill_after_ready=None, config_text=config_text)
    reference_log = check_log(reference_dir / "state", reference_dir / "check")
    reference = reference_log.events[reference_log.games[-1][0]] if reference_log.games else []
    result.reference_events = len(reference)
    result.reference_kinds = dict(Counter(event["type"] for event in reference))
    result.reference_finished = _finished(reference) and reference_log.games[-1][1] is not None
    wall = max((w for w, _ in run.timeline), default=0.0)
    result.reference_wall_s = wall
    if log:
        print(f"reference run: {len(reference)} events, {duration:.0f} s of session in {wall:.1f} s after READY,"
              f" exit {run.code}", file=log, flush=True)
    if not result.reference_finished:
        result.diverged.append(f"the uninterrupted run did not finish the game (exit {run.code})")
        result.seconds = time.monotonic() - started
        return result
    soak = Soak(work, session, duration, reference, Timeline(run.timeline, duration, wall), rng, result,
                steps if simulated else None, presses, config_text)
    while result.kills < kills:
        planned = min(kills - result.kills, rng.randint(*kills_per_game))
        before = result.kills
        soak.play_game(planned)
        if log:
            print(f"game {result.games}: {result.kills - before} kills, {result.kills}/{kills} so far;"
                  f" {len(result.lost_events)} lost, {len(result.integrity_failures)} integrity,"
                  f" {len(result.diverged)} diverged, {result.games_as_reference}/{result.games} as the"
                  f" reference", file=log, flush=True)
        if result.kills == before:
            result.diverged.append(f"game {result.games}: no kill landed (the game ended first)")
            break
    from firmware.eventlog import DB_NAME

    result.log_bytes = sum(p.stat().st_size for p in soak.state_dir.glob(f"{DB_NAME}*"))
    result.seconds = time.monotonic() - started
    return result


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m firmware.soak", description=__doc__.split("\n\n")[0])
    parser.add_argument("--kills", type=int, default=200)
    parser.add_argument("--seed", type=int, default=1, help="seed of the kill moments")
    parser.add_argument("--kills-per-game", type=int, nargs=2, default=(15, 25), metavar=("MIN", "MAX"))
    parser.add_argument("--work", help="keep the session, logs and state here")
    player = parser.add_mutually_exclusive_group()
    player.add_argument("--simulated-player", dest="simulated", action="store_true", default=True,
                        help="the simulated player presses in every run, watching the screen (the default)")
    player.add_argument("--scripted-buttons", dest="simulated", action="store_false",
                        help="replay a rehearsal's presses blind in every run instead")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="cubilete-soak-") as temporary:
        result = run_soak(args.kills, Path(args.work or temporary), seed=args.seed,
                          kills_per_game=tuple(args.kills_per_game), simulated=args.simulated, log=sys.stdout)
    print(result.summary())
    if result.reference_events < MIN_GAME_EVENTS:
        print(f"soak: the game has {result.reference_events} events, fewer than {MIN_GAME_EVENTS}")
        return 1
    return 0 if result.ok else 1


if __name__ == "__main__":
    sys.exit(main())
