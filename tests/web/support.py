"""Recorded games for the scoreboard's tests: real event logs written by `firmware.eventlog`,
played by a seeded random player that always fills the engine's best allowed box."""

from __future__ import annotations

import io
import random
from pathlib import Path
from typing import Any

from PIL import Image

import engine
from firmware.eventlog import EventLog


def jpeg(seed: int) -> bytes:
    """A small JPEG standing in for a throw's snapshot."""
    image = Image.new("RGB", (64, 48), ((seed * 40) % 256, 120, 90))
    out = io.BytesIO()
    image.save(out, "JPEG", quality=70)
    return out.getvalue()


class Recorder:
    """Plays and records a game turn by turn in a state directory's log."""

    def __init__(self, state_dir: Path, game: str = "generala", players: tuple[str, ...] = ("Ana", "Beto"),
                 stake: str | None = "0.50", seed: int = 7) -> None:
        self.state_dir = state_dir
        self.random = random.Random(seed)
        started = engine.new_game(game, list(players), stake=stake)
        self.events: list[dict[str, Any]] = [started]
        with EventLog.open(state_dir) as log:
            self.game_id = log.begin_game(started)

    @property
    def state(self) -> engine.GameState:
        return engine.replay(self.events)

    def append(self, event: dict[str, Any], snapshot: bool = False) -> None:
        engine.apply(self.state, event)  # refuse what the rules refuse, before it is recorded
        with EventLog.open(self.state_dir) as log:
            log.append(self.game_id, event, snapshot_jpeg=jpeg(len(self.events)) if snapshot else None)
        self.events.append(event)

    def throw(self, values: list[int] | None = None) -> None:
        state = self.state
        count = state.rules.dice
        values = values or [self.random.randint(1, 6) for _ in range(count)]
        self.append(engine.events.throw(state.turn.player, values, range(count)), snapshot=True)

    def score_best(self) -> None:
        state = self.state
        option = next(o for o in engine.score_options(state) if o.allowed)
        self.append(engine.events.category_scored(state.turn.player, option.category))

    def turn(self) -> None:
        self.throw()
        self.score_best()

    def finish(self) -> None:
        while not self.state.finished:
            self.turn()
        with EventLog.open(self.state_dir) as log:
            log.end_game(self.game_id)
