"""A game played by script: what the players throw (a synthetic camera session made by
lab.sessions.synth) and the buttons they press (a button script on the session's clock).

The demo, the soak test and `cubilete bench appliance` run the real service on such a game:
the session replays through the reader and tracker as a camera would deliver it, and the
presses follow the session's clock (see `cubilete run`), so a game plays the same at any
speed and on every run.

A game script is a list of session steps (lab.sessions.script's JSON form); a throw may
say which box the player fills after it:

    {"throw": [2, 3, 4, 5, 6], "score": "straight"}
    {"clear": true}

The presses are not written by hand: a simulated player (lab.autoplayer) plays the
session on the real service, answering the device's questions with what the dice really
show; its presses are saved as a button script that `ScriptedButtons` replays exactly
(the soak and the benchmark rehearse once, then replay the script).
"""

from __future__ import annotations

import json
import shutil
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Sequence

import numpy as np

from firmware.config import config_from_dict
from firmware.service import FrameClock, Service
from hardware.camera import Backoff, ReplayCamera, ResilientCamera
from hardware.display import NullDisplay
from lab.autoplayer import TruthPlayer
from lab.sessions.script import parse_script
from lab.sessions.synth import SessionConfig, generate_session
from vision.tracker import ThrowTracker

GAME_CONFIG = """\
[device]
name = "demo"
language = "{language}"
currency = "$"
[game]
game = "generala"
players = 2
order = "fixed"
stake_per_point = 0.5
"""


@dataclass(frozen=True)
class ScriptedSession:
    session: Path  # the session folder
    truth: dict[str, Any]
    buttons: Path  # the button script ("TIME BUTTON KIND" lines, session time)
    presses: tuple[tuple[float, str, str], ...]
    duration: float


def game_config(language: str = "es", text: str = GAME_CONFIG) -> Any:
    config, problems = config_from_dict(tomllib.loads(text.format(language=language)))
    assert not problems, problems
    return config


def session_steps(game: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{k: v for k, v in step.items() if k != "score"} for step in game]


def write_button_script(path: Path, presses: Sequence[tuple[float, str, str]], after: float = float("-inf")) -> Path:
    """The presses later than `after` (session seconds) as a script file for ScriptedButtons."""
    lines = [f"{t:.4f} {button} {kind}" for t, button, kind in presses if t > after]
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def replay_service(session: Path, state_dir: Path, buttons: Any, display: Any, language: str = "es",
                   realtime: bool = False, config_text: str = GAME_CONFIG) -> Any:
    """The real service on a replayed session, with these buttons and display (not started)."""
    camera = ResilientCamera(lambda: ReplayCamera(session, realtime=realtime), backoff=Backoff(initial=0.1))
    return Service(game_config(language, config_text), [], state_dir, camera, display, buttons, ThrowTracker(),
                   control_socket=str(state_dir / "control.sock"), exit_at_end=True)


def render_session(folder: Path, game: Sequence[dict[str, Any]], seed: int,
                   config: Any = None) -> tuple[Path, dict[str, Any]]:
    """Render the game's session (seeded, so always the same) into `folder`/session."""
    session = generate_session(folder / "session", parse_script(session_steps(game)),
                               np.random.default_rng(seed), config or SessionConfig())
    truth = session.truth or json.loads((folder / "session" / "session.json").read_text("utf-8"))["truth"]
    return Path(session.path), truth


def play_session(session: Path, truth: dict[str, Any], game: Sequence[dict[str, Any]], state_dir: Path,
                 display: Any, language: str = "es", config_text: str = GAME_CONFIG) -> Any:
    """The simulated player plays the session on the real service; returns the player (its
    presses) once the replay has ended."""
    clock = FrameClock()
    player = TruthPlayer(game, truth, lambda: clock.service)
    service = replay_service(session, state_dir, player, display, language, config_text=config_text)
    clock.service = service
    service.run()
    return player


def make_scripted_session(folder: Path, game: Sequence[dict[str, Any]], seed: int,
                          config: Any = None, config_text: str = GAME_CONFIG) -> ScriptedSession:
    """Render the session, let the simulated player play it once on the real service (a
    rehearsal, with no screen) and keep its presses as the button script."""
    session, truth = render_session(folder, game, seed, config)
    rehearsal = folder / "rehearsal"
    shutil.rmtree(rehearsal, ignore_errors=True)
    player = play_session(session, truth, game, rehearsal, NullDisplay(), config_text=config_text)
    shutil.rmtree(rehearsal, ignore_errors=True)
    buttons = write_button_script(folder / "buttons.txt", player.presses)
    return ScriptedSession(session, truth, buttons, tuple(player.presses), float(truth["duration"]))
