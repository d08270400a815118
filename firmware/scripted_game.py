"""A game played by script: what the players throw (a synthetic camera session made by
vision.session_synth) and which buttons they press after each throw (a button script).

The demo, the soak test and `cubilete bench appliance` all run the real service on such a
game: the session replays through the reader and the tracker as a camera would deliver it,
and the presses follow the session's clock (see `cubilete run`), so the game plays the same
at any speed.

A game script is a list of steps, each a session step (vision.session_script's JSON form)
with the presses that follow it:

    {"throw": [2, 3, 4, 5, 6], "press": ["ok", "ok", "ok"]}
    {"clear": true}

Presses go `PRESS_DELAY_S` after the throw's dice stop (the tracker needs about half a
second to see them still and read them twice), `PRESS_GAP_S` apart; "OK" is a long press
of ok. `MENU_PRESSES` at the start take the menu to a new game.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Sequence

PRESS_DELAY_S = 0.9
PRESS_GAP_S = 0.12
# Main menu: New game; then the last item of the new-game menu (Start).
MENU_PRESSES = ("ok", "prev", "ok")
MENU_START_S = 0.2


class GameScriptError(ValueError):
    """The script cannot be played as written (presses that do not fit before the next move)."""


@dataclass(frozen=True)
class ScriptedSession:
    session: Path  # the session folder
    buttons: Path  # the button script ("TIME BUTTON KIND" lines, session time)
    presses: tuple[tuple[float, str, str], ...]
    duration: float


def session_steps(game: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{k: v for k, v in step.items() if k != "press"} for step in game]


def press_times(game: Sequence[dict[str, Any]], truth: dict[str, Any],
                menu: Sequence[str] = MENU_PRESSES) -> list[tuple[float, str, str]]:
    """When each press happens, in session time, from the session's truth."""
    presses = [(round(MENU_START_S + i * PRESS_GAP_S, 3), *_button(name)) for i, name in enumerate(menu)]
    throw_settles = [s for s in truth["settles"] if s.get("step") == "Throw" and s.get("expect") == "settled"]
    throws = [step for step in game if "throw" in step]
    if len(throws) != len(throw_settles):
        raise GameScriptError(f"{len(throws)} throws in the script, {len(throw_settles)} in the session")
    for step, settle in zip(throws, throw_settles):
        names = step.get("press", [])
        t = float(settle["t_stop"]) + PRESS_DELAY_S
        for name in names:
            presses.append((round(t, 3), *_button(name)))
            t += PRESS_GAP_S
        if names and t > float(settle["t_next"]):
            raise GameScriptError(f"the presses after {step} end at {t:.2f} s, after the next move "
                                  f"({settle['t_next']:.2f} s): add a pause step")
    return presses


def _button(name: str) -> tuple[str, str]:
    if name == "OK":
        return "ok", "long"
    if name not in ("ok", "prev", "next"):
        raise GameScriptError(f"unknown press {name!r}: ok, prev, next or OK (long)")
    return name, "short"


def write_button_script(path: Path, presses: Sequence[tuple[float, str, str]], after: float = float("-inf")) -> Path:
    """The presses later than `after` (session seconds) as a script file for ScriptedButtons."""
    lines = [f"{t:.3f} {button} {kind}" for t, button, kind in presses if t > after]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def make_scripted_session(folder: Path, game: Sequence[dict[str, Any]], seed: int,
                          config: Any = None) -> ScriptedSession:
    """Render the session (seeded, so always the same) and its button script into `folder`."""
    import numpy as np

    from vision.session_script import parse_script
    from vision.session_synth import SessionConfig, generate_session

    config = config or SessionConfig()
    session = generate_session(folder / "session", parse_script(session_steps(game)),
                               np.random.default_rng(seed), config)
    truth = json.loads((folder / "session" / "session.json").read_text(encoding="utf-8"))["truth"]
    presses = press_times(game, truth)
    buttons = write_button_script(folder / "buttons.txt", presses)
    return ScriptedSession(Path(session.path), buttons, tuple(presses), float(truth["duration"]))
