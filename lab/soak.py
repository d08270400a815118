"""The power-cut soak: whole games in the real service, killed with SIGKILL at moments spread
over the game, restarted, and checked event by event after every kill.

    python -m lab.soak --kills 1000          (prints a summary; exit 1 on any failure)

The game (lab.soak_game) is a two-player Cacho game of about 65 events with throws,
dice turned over, corrections, a score undone and scored again, and cross-outs. It is
rendered once as a synthetic camera session and played by `cubilete run` (replay camera,
reader, tracker, state machine, event log), with the simulated player (lab.autoplayer)
pressing the buttons in every run: it looks at the screen and the dice, as the players
would after a restart. `--scripted-buttons` replays the presses of a rehearsal blind
instead (as the old soak did).

First an uninterrupted run plays the game: the reference, event by event, and the session
time at which each event was recorded. Then games are played in one state directory that
keeps every game, so the log grows for the whole soak, and with a small WAL auto-checkpoint
(16 pages) every game passes several checkpoints. For each game a number of kill moments
are drawn uniformly over the game's session time; each run is started on the session from
where the last one left off, and killed with SIGKILL when the replay reaches the next
moment: the simulated player reports the replay's session time ("session t=..." every
0.25 s of it), so a slow or loaded machine only makes the kills come later on the wall
clock, never earlier in the game. (With `--scripted-buttons` there are no such reports: the
kills are aimed by the uninterrupted run's wall-clock time line, counted from READY.)
After every kill:

- `PRAGMA integrity_check` on a copy of the log (the copy, so that the check does not
  checkpoint the hot WAL the next start must recover);
- nothing moved aside by the service (no `*.corrupt-*` file);
- every event the service confirmed (the "recorded game=... seq=..." line it writes after
  the commit, before the screen shows it) is in the log;
- the game's events so far are, one by one, the first events of the reference.

A killed run that recorded nothing though the replay went STUCK_S past the session time at
which the reference recorded the next event (how far it went as the service reported it) is
a stuck game: a divergence, and the game ends there. The last run of a game is not killed:
the game must end with exactly the reference's events. Every divergence is printed the
moment it is found (game, run, the first differing event: expected against got), so a
soak's log explains itself. The exit status is 0 only with no event lost, no integrity
failure, nothing moved aside, no divergence and the reference game played to its end.
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Sequence

from firmware.eventlog import DB_NAME, EventLog
from lab.demo import session_config
from lab.scripted_game import make_scripted_session, render_session, write_button_script
from lab.soak_game import CONFIG, SOAK_GAME, SOAK_SEED
from lab.soak_log import LogCheck, check_log, describe_difference, finished, wal_checkpoint_sequence
from lab.soak_service import Run, Timeline, run_service, trimmed_session

MIN_GAME_EVENTS = 40
STUCK_S = 10.0  # a restarted game that records nothing this long after its next event was due is stuck
QUIET_S = 1.0  # a restart on an empty tray waits this long after hands and motion (their shadows fade)


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


# -- the soak -----------------------------------------------------------------------------------------


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
    reference_t: Sequence[float] = ()  # the session time at which the uninterrupted run recorded each event
    empty_tray_t: Sequence[float] = ()  # session times at which the tray is empty and still (the truth)
    busy: Sequence[tuple[float, float]] = ()  # (start, end) of hands in view and things moving (the truth)
    log: Any = None  # where each divergence is printed as it is found
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
        result = self.result
        result.games += 1
        number = result.games
        here = self.work / f"game{number}"
        here.mkdir(parents=True, exist_ok=True)
        before = check_log(self.state_dir, here / "check")
        if before.games and before.games[-1][1] is None:
            self._abandon(before.games[-1][0])  # a game that went astray: the players abandon it
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
            target = moments.pop(0) if moments else None
            recorded_before = len(log.events.get(game_id, [])) if restart > 1 and game_id else 0
            run = run_service(part, self.state_dir, replay, player=self._player(part, games_before),
                              buttons=buttons, config_text=self.config_text, **self._kill(target, resume_after))
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
                recorded = len(log.events.get(game_id, []))
                shutil.rmtree(part / "session", ignore_errors=True)
                if self._stuck(recorded_before, recorded, run.reached):
                    kind = self.reference[recorded]["type"] if recorded < len(self.reference) else "end"
                    self._diverged(f"game {number}, run {restart}: stuck before event {recorded} ({kind}), due at"
                                   f" session {self.reference_t[recorded]:.1f} s: the replay reached"
                                   f" {run.reached:.1f} s and nothing was recorded")
                    return
                resume_after = self._tray_cleared_meanwhile(resume_after, recorded)
                continue
            if run.code != 0:
                self._diverged(f"game {number}, run {restart}: the service exited with {run.code}")
            shutil.rmtree(part / "session", ignore_errors=True)
            break
        story = log.events.get(game_id, []) if game_id else []
        ended = dict(log.games).get(game_id) if game_id else None
        result.games_finished += finished(story) and ended is not None
        if story == self.reference and ended is not None:
            result.games_as_reference += 1
        else:
            self._diverged(
                f"game {number}: ended with {len(story)} events ({'closed' if ended else 'not closed'}), the"
                f" uninterrupted run had {len(self.reference)}; {describe_difference(story, self.reference)}")

    def _diverged(self, text: str) -> None:
        self.result.diverged.append(text)
        if self.log:
            print(f"DIVERGED {text}", file=self.log, flush=True)

    def _kill(self, target: float | None, resume_after: float) -> dict[str, float | None]:
        """How run_service kills this run: when the replay reaches the session time `target`
        (the simulated player reports it), or, with a button script (no reports), when the
        uninterrupted run's time line says it should have."""
        if target is None:
            return {}
        if self.player_steps is not None:
            return {"kill_at": target}
        return {"kill_after_ready": self.timeline(target) - self.timeline(max(resume_after, 0.0))}

    def _stuck(self, before: int, after: int, reached: float | None) -> bool:
        """A run that recorded nothing though the replay (as far as the service itself said it
        got, in session time) went well past the moment the uninterrupted run recorded its next
        event: the game is stuck there (the rest of the game's kills would only hit it again).
        With no report of how far the replay got (a button script) nothing is judged stuck here;
        the game's end is still compared with the reference."""
        if after != before or after >= len(self.reference_t) or reached is None:
            return False
        return reached > self.reference_t[after] + STUCK_S

    def _tray_cleared_meanwhile(self, after: float, recorded: int) -> float:
        """Where the replay starts again: after the last recorded event, or, when the tray is
        cleared before the next event is due, from a moment the tray lies empty with no hand
        in view (the players picked up the dice while the device restarted). A restart with
        the dice still lying there is played as it is; this only spares the tracker a start
        on a tray it must learn with dice or a hand on it when nothing happens before the
        tray is empty anyway (see the soak's report: the tracker's start is a known weakness)."""
        if recorded >= len(self.reference_t):
            return after
        next_due = self.reference_t[recorded]
        for empty in sorted((t for t in self.empty_tray_t if after < t < next_due), reverse=True):
            quiet = self._quiet_from(empty)
            if quiet < next_due - 1.0:
                return quiet
        return after

    def _quiet_from(self, t: float) -> float:
        """The first moment from t with no hand in view and nothing moving for a while around it."""
        moved = True
        while moved:
            moved = False
            for start, end in self.busy:
                if start - 0.5 < t < end + QUIET_S:
                    t, moved = end + QUIET_S, True
        return t

    def _abandon(self, game_id: str) -> None:
        with EventLog.open(self.state_dir) as log:
            log.end_game(game_id)

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
            self._diverged(f"{where}: {len(log.games) - games_before} games started, not one")
        game_id = log.games[games_before][0] if len(log.games) > games_before else None
        story = log.events.get(game_id, []) if game_id else []
        if run.killed:
            result.kill_positions.append(len(story) / max(1, len(self.reference)))
            result.events_compared += len(story)
            wrong = describe_difference(story, self.reference)
            if wrong:
                self._diverged(f"{where}, {len(story)} events in the log: {wrong}")
        return game_id

    def _wal(self, clean_exit: bool) -> None:
        """Count WAL checkpoints: the header's sequence grows at each restart of the WAL after
        one, and starts from 0 in a new WAL file (after a clean close checkpointed and removed it)."""
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


def rendered(folder: Path, steps: list[dict[str, Any]], seed: int, render: Any,
             config: Any) -> tuple[Path, dict[str, Any]]:
    """The game's session, rendered once per game script and seed in a kept --work folder."""
    key = json.dumps({"steps": steps, "seed": seed}, sort_keys=True)
    index = folder / "session" / "session.json"
    if (folder / "made-from.json").exists() and index.exists() \
            and (folder / "made-from.json").read_text(encoding="utf-8") == key:
        return folder / "session", json.loads(index.read_text(encoding="utf-8"))["truth"]
    session, truth = render(folder, steps, seed, config)
    (folder / "made-from.json").write_text(key, encoding="utf-8")
    return session, truth


def run_soak(kills: int, work: Path, seed: int = 1, game: Sequence[dict[str, Any]] | None = None,
             kills_per_game: tuple[int, int] = (15, 25), simulated: bool = True, config_text: str = CONFIG,
             session_seed: int = SOAK_SEED, log: Any = None) -> SoakResult:
    """Kill the service `kills` times over as many games as that takes (see the module)."""
    started = time.monotonic()
    result = SoakResult()
    rng = random.Random(seed)
    work.mkdir(parents=True, exist_ok=True)
    steps = list(game or SOAK_GAME)
    presses: Sequence[tuple[float, str, str]] = ()
    if simulated:
        session, truth = rendered(work / "script", steps, session_seed, render_session, session_config())
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
        buttons = write_button_script(reference_dir / "buttons.txt", presses)
    run = run_service(reference_dir, reference_dir / "state", session, player=player, buttons=buttons,
                      kill_after_ready=None, config_text=config_text)
    reference_log = check_log(reference_dir / "state", reference_dir / "check")
    reference = reference_log.events[reference_log.games[-1][0]] if reference_log.games else []
    result.reference_events = len(reference)
    result.reference_kinds = dict(Counter(event["type"] for event in reference))
    result.reference_finished = finished(reference) and reference_log.games[-1][1] is not None
    wall = max((w for w, _ in run.timeline), default=0.0)
    result.reference_wall_s = wall
    if log:
        print(f"reference run: {len(reference)} events, {duration:.0f} s of session in {wall:.1f} s after READY,"
              f" exit {run.code}", file=log, flush=True)
    if not result.reference_finished:
        result.diverged.append(f"the uninterrupted run did not finish the game (exit {run.code})")
        result.seconds = time.monotonic() - started
        return result
    empty = [float(s["t_stop"]) for s in truth["settles"] if s.get("expect") == "tray_empty"]
    soak = Soak(work, session, duration, reference, Timeline(run.timeline, duration, wall), rng, result,
                steps if simulated else None, presses, config_text, [t for *_, t in run.confirmed], empty,
                [(float(a), float(b)) for a, b in truth.get("hands", []) + truth.get("motion", [])], log)
    barren = 0  # games in a row in which no kill landed before the game ended
    while result.kills < kills:
        planned = min(kills - result.kills, rng.randint(*kills_per_game))
        before = result.kills
        soak.play_game(planned)
        if log:
            print(f"game {result.games}: {result.kills - before} kills, {result.kills}/{kills} so far;"
                  f" {len(result.lost_events)} lost, {len(result.integrity_failures)} integrity,"
                  f" {len(result.diverged)} diverged, {result.games_as_reference}/{result.games} as the"
                  f" reference", file=log, flush=True)
        barren = barren + 1 if result.kills == before else 0
        if barren >= 5:  # the kill moments keep landing after the game's end: something is wrong
            result.diverged.append(f"games {result.games - 4} to {result.games}: no kill landed")
            break
    result.log_bytes = sum(p.stat().st_size for p in soak.state_dir.glob(f"{DB_NAME}*"))
    result.seconds = time.monotonic() - started
    return result


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m lab.soak", description=__doc__.split("\n\n")[0])
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
