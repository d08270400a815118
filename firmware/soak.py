"""The power-cut soak: scripted games in the real service, killed with SIGKILL at random
moments, restarted, checked.

    python -m firmware.soak --kills 200          (the full soak; prints a summary)

Each cycle plays the scripted demo game in `cubilete run` (replay camera, reader, tracker,
scripted buttons, a fresh state directory). The service logs a line for every event it
records, right after the commit and before the screen shows it ("recorded game=... seq=...
type=... t=..."), so a line seen is a score the players saw confirmed. A run is killed with
SIGKILL after a random time; then:

- the event log must open cleanly (no corruption, nothing moved aside) and hold every
  event a line confirmed;
- the service is restarted where the world was: the replay continues after the frame of
  the last confirmed event and the button script after it too (a restart cannot rewind the
  players), and the service replays its log to land where it was.

The last run of a cycle is not killed: the game must go on to its end and record exactly
the events of an uninterrupted reference run of the same session.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Sequence

from firmware.scripted_game import GAME_CONFIG

RECORDED = re.compile(r"recorded game=(\S+) seq=(\d+) type=(\S+) t=([-0-9.]+)")


@dataclass
class Run:
    confirmed: list[tuple[str, int, str, float]]  # (game_id, seq, type, frame t)
    killed: bool
    code: int
    stderr: str


@dataclass
class SoakResult:
    kills: int = 0
    kills_mid_game: int = 0  # kills with a game under way in the log
    confirmed_checked: int = 0  # confirmed events found in the log after a kill
    runs: int = 0
    games: int = 0
    games_finished: int = 0  # played to their end after the kills
    games_as_reference: int = 0
    lost_events: list[str] = field(default_factory=list)
    damaged_logs: list[str] = field(default_factory=list)
    diverged: list[str] = field(default_factory=list)
    reference_events: int = 0
    reference_finished: bool = False  # the uninterrupted run played the game to its end
    seconds: float = 0.0

    @property
    def ok(self) -> bool:
        return (self.reference_finished and not self.lost_events and not self.damaged_logs
                and self.games_as_reference == self.games)

    def summary(self) -> str:
        lines = [f"soak: {self.kills} SIGKILLs ({self.kills_mid_game} with a game under way) in {self.runs} "
                 f"runs of `cubilete run` over {self.games} games in {self.seconds:.0f} s",
                 f"  confirmed events checked in the log after a kill: {self.confirmed_checked}",
                 f"  the uninterrupted run: {self.reference_events} events, game "
                 f"{'played to its end' if self.reference_finished else 'NOT FINISHED'}",
                 f"  confirmed events lost: {len(self.lost_events)}",
                 f"  event logs damaged or moved aside: {len(self.damaged_logs)}",
                 f"  games played to their end after the kills: {self.games_finished}/{self.games}",
                 f"  games that went on to the end exactly as the uninterrupted run: "
                 f"{self.games_as_reference}/{self.games}"]
        lines += [f"  LOST {x}" for x in self.lost_events[:10]]
        lines += [f"  DAMAGED {x}" for x in self.damaged_logs[:10]]
        lines += [f"  DIVERGED {x}" for x in self.diverged[:10]]
        return "\n".join(lines)


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


def run_service(work: Path, state_dir: Path, session: Path, buttons: Path | None,
                kill_after: float | None, timeout: float = 300.0, player: Path | None = None) -> Run:
    """`cubilete run` on a replayed session with scripted presses (or the simulated player)."""
    config = work / "soak.toml"
    config.write_text(GAME_CONFIG.format(language="es"), encoding="utf-8")
    presses = ["--player", str(player)] if player is not None else ["--buttons", f"script:{buttons}"]
    command = [sys.executable, "-m", "firmware.cli", "run", "--config", str(config),
               "--camera", f"replay:{session}", *presses, "--display", "dummy",
               "--state-dir", str(state_dir), "--socket", str(work / "control.sock"), "--exit-at-end"]
    err_path = work / "run.err"
    with open(err_path, "w", encoding="utf-8") as err:
        proc = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=err)
        killed = False
        try:
            proc.wait(timeout=kill_after if kill_after is not None else timeout)
        except subprocess.TimeoutExpired:
            if kill_after is None:
                proc.kill()
                proc.wait()
                raise
            os.kill(proc.pid, signal.SIGKILL)
            proc.wait()
            killed = True
    stderr = err_path.read_text(encoding="utf-8", errors="replace")
    confirmed = [(m[1], int(m[2]), m[3], float(m[4])) for m in RECORDED.finditer(stderr)]
    return Run(confirmed, killed, proc.returncode, stderr)


def log_events(state_dir: Path) -> tuple[list[tuple[str, int, dict[str, Any]]], str | None]:
    """Every stored event as (game_id, seq, event), and what is wrong with the log if anything."""
    from firmware.eventlog import DB_NAME, EventLog

    if not (state_dir / DB_NAME).exists():
        return [], None
    log = EventLog.open(state_dir)
    try:
        if log.notice:
            return [], log.notice
        rows = [(g.game_id, e.seq, e.event) for g in log.games() for e in log.events(g.game_id)]
    finally:
        log.close()
    return rows, None


def game_story(rows: Sequence[tuple[str, int, dict[str, Any]]]) -> list[dict[str, Any]]:
    """The events of the last game without what a run adds by itself (ids, times)."""
    if not rows:
        return []
    last = rows[-1][0]
    return [event for game_id, _, event in rows if game_id == last]


def _finished(events: Sequence[dict[str, Any]]) -> bool:
    import engine

    try:
        return bool(events) and engine.replay(events).finished
    except engine.RuleError:
        return False


def soak_cycle(work: Path, session: Path, presses: Sequence[tuple[float, str, str]], kills: int,
               reference: list[dict[str, Any]], rng: random.Random, result: SoakResult,
               kill_window: tuple[float, float], player: Path | None = None) -> None:
    from firmware.scripted_game import write_button_script

    state_dir = work / "state"
    resume_after = float("-inf")
    done_kills = 0
    stalled = 0
    result.games += 1
    restart = 0
    while True:
        restart += 1
        part = work / f"part{restart}"
        replay = trimmed_session(session, part / "session", resume_after)
        buttons = write_button_script(part / "buttons.txt", presses, after=resume_after)
        kill_after = rng.uniform(*kill_window) if done_kills < kills and stalled < 8 else None
        run = run_service(work, state_dir, replay, buttons, kill_after, player=player)
        result.runs += 1
        rows, damage = log_events(state_dir)
        if damage is not None:
            result.damaged_logs.append(f"game {result.games}, run {restart}: {damage}")
            return
        stored = {(g, s): e["type"] for g, s, e in rows}
        for game_id, seq, kind, _ in run.confirmed:
            if stored.get((game_id, seq)) != kind:
                result.lost_events.append(f"game {result.games}, run {restart}: {kind} seq {seq} of {game_id}")
        if run.killed:
            done_kills += 1
            result.kills += 1
            result.kills_mid_game += bool(rows)
            result.confirmed_checked += sum(stored.get((g, q)) == k for g, q, k, _ in run.confirmed)
            if run.confirmed:
                resume_after = max(resume_after, run.confirmed[-1][3])
                stalled = 0
            else:
                stalled += 1
            continue
        if run.code != 0:
            result.diverged.append(f"game {result.games}: the service exited with {run.code}")
        break
    story = game_story(rows)
    result.games_finished += _finished(story)
    if story == reference:
        result.games_as_reference += 1
    else:
        result.diverged.append(f"game {result.games}: {len(story)} events, the uninterrupted run had "
                               f"{len(reference)}; first difference at event "
                               f"{next((i for i, (a, b) in enumerate(zip(story, reference)) if a != b), min(len(story), len(reference)))}")


def run_soak(kills: int, work: Path, seed: int = 1, game: Sequence[dict[str, Any]] | None = None,
             kills_per_game: tuple[int, int] = (3, 8), kill_window: tuple[float, float] | None = None,
             scripted: Any = None, log: Any = None, simulated: bool = False) -> SoakResult:
    """Kill the service `kills` times over as many scripted games as that takes. Kills come
    at a uniformly random time within `kill_window` seconds of each start (by default from
    0.2 s to the length of an uninterrupted run: start-up, play and shut-down alike).

    The presses are the button script a rehearsal recorded, replayed blind by
    ScriptedButtons; with `simulated` the simulated player presses in every run instead,
    looking at the screen, as players would after a restart."""
    from firmware.demo import DEMO_GAME, DEMO_SEED, session_config
    from firmware.scripted_game import make_scripted_session

    started = time.monotonic()
    result = SoakResult()
    rng = random.Random(seed)
    work.mkdir(parents=True, exist_ok=True)
    if scripted is None:
        scripted = make_scripted_session(work / "script", list(game or DEMO_GAME), DEMO_SEED, session_config())
    player = None
    if simulated:
        player = work / "game.json"
        player.write_text(json.dumps(list(game or DEMO_GAME)), encoding="utf-8")
    reference_dir = work / "reference"
    reference_dir.mkdir(exist_ok=True)
    began = time.monotonic()
    run = run_service(reference_dir, reference_dir / "state", scripted.session, scripted.buttons, None,
                      player=player)
    length = time.monotonic() - began
    kill_window = kill_window or (0.2, length)
    reference = game_story(log_events(reference_dir / "state")[0])
    result.reference_events = len(reference)
    result.reference_finished = _finished(reference)
    if log:
        print(f"reference run: {len(reference)} events in {length:.1f} s, exit {run.code}", file=log, flush=True)
    cycle = 0
    while result.kills < kills:
        cycle += 1
        here = work / f"game{cycle}"
        here.mkdir(exist_ok=True)
        planned = min(kills - result.kills, rng.randint(*kills_per_game))
        soak_cycle(here, scripted.session, scripted.presses, planned, reference, rng, result, kill_window,
                   player)
        if log:
            print(f"game {cycle}: {result.kills}/{kills} kills so far, "
                  f"{len(result.lost_events)} lost, {len(result.damaged_logs)} damaged, "
                  f"{result.games_as_reference}/{result.games} as the reference", file=log, flush=True)
    result.seconds = time.monotonic() - started
    return result


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m firmware.soak", description=__doc__.split("\n\n")[0])
    parser.add_argument("--kills", type=int, default=200)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--work", help="keep the sessions, logs and state here")
    parser.add_argument("--simulated-player", action="store_true",
                        help="the simulated player presses in every run (instead of the rehearsed script)")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="cubilete-soak-") as temporary:
        result = run_soak(args.kills, Path(args.work or temporary), seed=args.seed, log=sys.stdout,
                          simulated=args.simulated_player)
    print(result.summary())
    return 0 if result.ok else 1


if __name__ == "__main__":
    sys.exit(main())
