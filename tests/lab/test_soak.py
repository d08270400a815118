"""The power-cut soak, short: a small game (a fumbled correction, a score undone, an instant
win) killed three times mid-game; every check of the full soak runs (integrity after every
kill, confirmed events, the game event by event against an uninterrupted run).
`python -m lab.soak --kills 1000` is the full soak over the Cacho game."""

from __future__ import annotations

import json
import os
import random
import re
import shutil
import signal
import subprocess
import threading
import time
from pathlib import Path
from typing import Any

import pytest

import lab.soak_service
from lab.demo import session_config
from lab.scripted_game import render_session
from lab.soak import STUCK_S, Soak, SoakResult, Timeline, rendered, run_soak
from lab.soak_game import MINI_CONFIG, MINI_GAME, SOAK_GAME, SOAK_SEED
from lab.soak_log import describe_difference, first_difference
from lab.soak_service import run_service

# The mini game's uninterrupted run (as measured): session time of each of its 8 events (game_started,
# throw, reading_corrected x2, category_scored, turn_undone, category_scored, throw).
MINI_REFERENCE_T = (1.3, 6.4, 8.4, 11.4, 12.5, 14.1, 15.2, 28.1)


@pytest.fixture(scope="module")
def mini_script(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The mini game's session, rendered once for this module (a soak's `script` folder)."""
    folder = tmp_path_factory.mktemp("mini") / "script"
    rendered(folder, list(MINI_GAME), SOAK_SEED, render_session, session_config())
    return folder


def soak_work(tmp_path: Path, script: Path) -> Path:
    """A soak's work folder that already holds the rendered session (hard links)."""
    shutil.copytree(script, tmp_path / "script", copy_function=os.link)
    return tmp_path


def test_a_few_sigkills_lose_nothing_and_the_game_goes_on(tmp_path: Path, mini_script: Path) -> None:
    result = run_soak(3, soak_work(tmp_path, mini_script), seed=7, game=MINI_GAME, kills_per_game=(3, 3),
                      config_text=MINI_CONFIG)
    summary = result.summary()
    assert result.kills == 3 and result.kills_before_ready == 0, summary
    assert result.reference_finished, summary
    kinds = result.reference_kinds
    assert kinds.get("turn_undone") == 1 and kinds.get("reading_corrected", 0) >= 2, summary
    assert result.integrity_checks == result.runs and not result.integrity_failures, summary
    assert result.lost_events == [] and result.moved_aside == [], summary
    assert result.events_compared > 0 and result.diverged == [], summary
    assert result.games_as_reference == result.games == 1, summary
    assert result.ok and summary.endswith("soak: OK")


def test_a_divergence_is_found_at_its_event() -> None:
    reference = [{"type": "game_started"}, {"type": "throw", "values": [1]}, {"type": "category_scored"}]
    assert first_difference(reference[:2], reference) is None
    assert first_difference([reference[0], {"type": "throw", "values": [2]}], reference) == 1
    assert first_difference(reference + [{"type": "throw"}], reference) == 3
    said = describe_difference([reference[0], {"type": "throw", "values": [2]}], reference)
    assert said == 'event 1: expected {"type": "throw", "values": [1]}, got {"type": "throw", "values": [2]}'
    assert describe_difference(reference[:1] + reference[1:], reference) == ""
    assert describe_difference(reference + [{"type": "throw"}], reference).endswith(
        'expected nothing (the end), got {"type": "throw"}')


class Moments(random.Random):
    """The kill moments a test asks for, in order."""

    def __init__(self, *moments: float) -> None:
        super().__init__(0)
        self._moments = list(moments)

    def uniform(self, a: float, b: float) -> float:
        return self._moments.pop(0)


class NeverStarts(Soak):
    """A game that is really stuck: the player waits for a game already in the log, so the
    service never records the game's first event while the replay runs on."""

    def _player(self, folder: Path, games_before: int) -> Path | None:
        path = folder / "player.json"
        path.write_text(json.dumps({"steps": list(MINI_GAME), "games_before": games_before + 1}), "utf-8")
        return path


def test_a_game_that_really_stalls_is_reported_stuck(tmp_path: Path, mini_script: Path) -> None:
    session = mini_script / "session"
    duration = json.loads((session / "session.json").read_text("utf-8"))["truth"]["duration"]
    reference = [{"type": "game_started"}] + [{"type": "throw"}] * (len(MINI_REFERENCE_T) - 1)
    kill_at = MINI_REFERENCE_T[0] + STUCK_S + 5.0
    result = SoakResult()
    soak = NeverStarts(tmp_path, session, duration, reference, Timeline([], duration, 1.0), Moments(kill_at),
                       result, list(MINI_GAME), config_text=MINI_CONFIG, reference_t=MINI_REFERENCE_T)
    soak.play_game(1)
    assert result.kills == result.runs == 1, result.summary()
    assert len(result.diverged) == 1, result.diverged
    found = re.fullmatch(r"game 1, run 1: stuck before event 0 \(game_started\), due at session 1\.3 s: the replay"
                         r" reached ([0-9.]+) s and nothing was recorded", result.diverged[0])
    assert found and float(found[1]) >= kill_at - 0.05, result.diverged
    assert not soak._stuck(0, 0, MINI_REFERENCE_T[0] + STUCK_S - 0.1)  # not yet STUCK_S past it
    assert not soak._stuck(0, 1, kill_at)  # something was recorded: it moves
    assert not soak._stuck(0, 0, None)  # no report of how far the replay got (a button script)


class Stalled(subprocess.Popen):  # type: ignore[type-arg]
    """The service as on a loaded machine: stopped for `STALL_S` now and then (SIGSTOP)."""

    STALL_S = 1.5
    EVERY_S = 0.5

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        threading.Thread(target=self._stall, daemon=True).start()

    def _stall(self) -> None:
        while self.poll() is None:
            time.sleep(self.EVERY_S)
            try:
                os.kill(self.pid, signal.SIGSTOP)
                time.sleep(self.STALL_S)
                os.kill(self.pid, signal.SIGCONT)
            except ProcessLookupError:
                return


def test_a_slow_replay_is_killed_late_on_the_wall_clock_not_early_in_the_game(
        tmp_path: Path, mini_script: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(lab.soak_service.subprocess, "Popen", Stalled)
    player = tmp_path / "player.json"
    player.write_text(json.dumps({"steps": list(MINI_GAME), "games_before": 0}), "utf-8")
    kill_at = MINI_REFERENCE_T[5] + 0.5  # after the score is undone
    run = run_service(tmp_path, tmp_path / "state", mini_script / "session", player=player, buttons=None,
                      kill_at=kill_at, config_text=MINI_CONFIG)
    assert run.killed and run.reached is not None and run.reached >= kill_at, run.stderr[-2000:]
    kinds = [kind for _, _, kind, _ in run.confirmed]
    assert kinds[:6] == ["game_started", "throw", "reading_corrected", "reading_corrected", "category_scored",
                         "turn_undone"], run.stderr[-2000:]


def test_kills_are_aimed_by_the_uninterrupted_run_s_time_line() -> None:
    line = Timeline([(1.0, 10.0), (3.0, 30.0)], duration=40.0, wall=4.0)
    assert line(0.0) == 0.0 and line(10.0) == 1.0 and line(20.0) == 2.0 and line(40.0) == 4.0


def test_the_soak_game_has_every_kind_of_event_the_issue_asks_for() -> None:
    keys = {key for step in SOAK_GAME for key in step}
    assert {"undo", "fumble", "turn", "throw"} <= keys
    scored = [step["score"] for step in SOAK_GAME if "score" in step]
    assert len(scored) == 22 and scored.count("grande_2") == 2  # 11 boxes each; the grandes crossed out
