"""Helpers for the state-machine tests: readings as the tracker would report them."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Sequence

import engine
from engine import events as ev
from firmware.appliance import Appliance, GameDefaults, Press, ThrowSeen, Tick
from firmware.eventlog import EventLog
from vision.reading import DieReading, Problem, Reading

SIZE = 40.0


def die(value: int, x: float, y: float = 100.0, confidence: float = 0.99,
        alternatives: Sequence[int] = (), cocked: bool = False) -> DieReading:
    return DieReading(value, (x, y), SIZE, 0.0, confidence, tuple(alternatives), cocked)


def seen(values: Sequence[int], moved: Sequence[str] | None = None, previous: Sequence[int | None] | None = None,
         xs: Sequence[float] | None = None, unsure: dict[int, Sequence[int]] | None = None,
         cocked: Sequence[int] = (), t: float = 0.0) -> ThrowSeen:
    """A settled throw: die r shows values[r] at x = xs[r] (default 60, 120, ...)."""
    xs = list(xs) if xs is not None else [60.0 + 60.0 * r for r in range(len(values))]
    unsure = unsure or {}
    dice = tuple(die(v, xs[r], confidence=0.55 if r in unsure else 0.99, alternatives=unsure.get(r, ()),
                     cocked=r in cocked) for r, v in enumerate(values))
    problems = tuple(Problem("unsure", f"die {r} unsure", r) for r in unsure)
    moved = tuple(moved) if moved is not None else ("thrown",) * len(values)
    previous = tuple(previous) if previous is not None else tuple(range(len(values)))
    return ThrowSeen(Reading(dice, problems), moved, previous, t=t, snapshot=lambda: b"\xff\xd8fake\xff\xd9")


def press(app: Appliance, *buttons: str) -> None:
    """Short presses by name; "OK" (capitals) is a long press of ok."""
    for name in buttons:
        if name == "OK":
            app.handle(Press("ok", "long"))
        else:
            app.handle(Press(name, "short"))


def later(app: Appliance, seconds: float = 60.0) -> None:
    """Let messages fade."""
    app.handle(Tick(app.now + seconds))


class Clock:
    def __init__(self) -> None:
        self.t = 1000.0

    def __call__(self) -> float:
        return self.t


def new_app(state_dir: Path, **defaults: object) -> Appliance:
    options = {"game": "generala", "players": 2, "order": "fixed"}
    options.update(defaults)
    return Appliance(EventLog.open(state_dir), defaults=GameDefaults(**options), clock=Clock())  # type: ignore[arg-type]


def start_game(app: Appliance) -> None:
    """From the main menu: New game, then the last item (Start)."""
    press(app, "ok", "prev", "ok")


def event_types(app: Appliance) -> list[str]:
    assert app.session is not None
    return [e.event["type"] for e in app.log.events(app.session.game_id)]


def record_games(log: EventLog, games: int, die: random.Random, loaded: bool = False) -> None:
    """Solitaire Crag games of first throws only (every box crossed out after one throw)."""
    faces = [1, 2, 3, 4, 5, 6] + ([6, 6] if loaded else [])
    for _ in range(games):
        start = engine.new_game("crag", ["Ana"])
        game_id = log.begin_game(start)
        state = engine.replay([start])
        for category in state.rules.category_ids:
            for event in (ev.throw(0, [die.choice(faces) for _ in range(3)]), ev.category_scratched(0, category)):
                state = engine.apply(state, event)
                log.append(game_id, event)
        log.end_game(game_id)
