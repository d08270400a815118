"""A synthetic camera that waits for the players: the tray of lab.sessions.synth, played one
action at a time, when someone asks for it.

    table = LiveTable(np.random.default_rng(7))
    table.throw()            # pick up every die not set aside, throw them from the cup
    table.toggle_aside(2)    # the second die from the left stays on the tray next time
    frame = table.read()     # a camera frame (hardware.camera.Frame): the next one of the throw,
                             # or the still tray when nothing happens

The values a throw lands on are drawn from the seeded generator when the throw is asked for,
so a game played with the same seed and the same actions is the same game. Frames come at
`fps` while something moves and `still_fps` while nothing does; with `realtime` they are
paced by the wall clock (a person watching), otherwise they come as fast as they are read
(tests). The camera's faults of a synthetic session (exposure flicker and steps, rolling
bands, lamp drift, noise, motion blur) are kept; people's shadows walking past are left out,
since they would come at times nobody asked for.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, replace
from typing import Callable

import numpy as np

from hardware.camera import Frame
from lab.sessions.script import ClearTray, Throw
from lab.sessions.synth import SessionConfig, _Choreographer, _Faults, _Renderer, _Stage

LIVE_CONFIG = SessionConfig(still_fps=10.0, think_s=(0.0, 0.0), lead_in_s=0.5)
SETTLE_TAIL_S = 0.6  # frames of the still dice after an action, before the pace drops to still_fps
FAULTS_SPAN_S = 3600.0  # exposure steps are spread over this much of the game


@dataclass(frozen=True)
class DieInView:
    """A die on the tray as the players see it: its number left to right (1-based), value,
    where the camera sees its centre, and whether it is set aside for the next throw."""

    number: int
    die: int  # the physical die (0..n-1)
    value: int
    center: tuple[float, float]
    aside: bool


class LiveTable:
    """A camera (start / read / close) over a synthetic tray that changes only when asked."""

    description = "the demo's synthetic tray (on demand)"

    def __init__(self, rng: np.random.Generator, config: SessionConfig = LIVE_CONFIG, dice_count: int = 5, *,
                 realtime: bool = False, clock: Callable[[], float] = time.monotonic,
                 sleep: Callable[[float], None] = time.sleep) -> None:
        self.rng = rng
        self.config = config
        self.realtime = realtime
        self.clock = clock
        self.sleep = sleep
        self.stage = _Stage(rng, config, dice_count)
        self.choreographer = _Choreographer(self.stage, rng)
        faults = _Faults.random(rng, config, FAULTS_SPAN_S)
        self.renderer = _Renderer(self.stage, self.choreographer, replace(faults, shadows=()))
        self.aside: set[int] = set()
        self.t = 0.0  # the time of the last frame delivered
        self._pending: list[float] = []
        self._wall0: float | None = None
        self.throws = 0
        self.last_throw: tuple[int | None, ...] = ()  # what each die landed on (None: stayed)

    # -- what the players do ---------------------------------------------------------------------

    @property
    def moving(self) -> bool:
        """Frames of an action are still to come (the dice are in the air or settling)."""
        return bool(self._pending)

    def dice(self) -> list[DieInView]:
        """The dice on the tray, numbered left to right as the camera sees them."""
        lying = [(i, rest) for i, rest in enumerate(self.choreographer.rest) if rest is not None]
        seen = sorted(((self.stage.to_image(rest.center), i, rest.value) for i, rest in lying))
        return [DieInView(n, i, value, center, i in self.aside) for n, (center, i, value) in enumerate(seen, 1)]

    def toggle_aside(self, number: int) -> DieInView | None:
        """Set the die `number` (1-based, left to right) aside, or take it back; None if there
        is no such die on the tray."""
        dice = self.dice()
        if not 1 <= number <= len(dice):
            return None
        die = dice[number - 1].die
        self.aside ^= {die}
        return replace(dice[number - 1], aside=die in self.aside)

    def clear_aside(self) -> None:
        self.aside.clear()

    def throw(self) -> tuple[int | None, ...] | None:
        """Pick up the dice not set aside and throw them; returns what each die lands on (None:
        it stayed), or None when every die is set aside (nothing to throw)."""
        n = len(self.choreographer.rest)
        on_tray = {i for i, rest in enumerate(self.choreographer.rest) if rest is not None}
        kept = self.aside & on_tray
        if len(kept) == n:
            return None
        values = tuple(None if i in kept else int(self.rng.integers(1, 7)) for i in range(n))
        if not kept and on_tray:
            # Every die comes off the tray first, and the empty tray is seen for a moment.
            self._play(ClearTray(), pause=1.0)
        self._play(Throw(values, pause_s=0.2))
        self.throws += 1
        self.last_throw = values
        return values

    def _play(self, step: ClearTray | Throw, pause: float = 0.0) -> None:
        choreographer = self.choreographer
        start = max(choreographer.now, self.t + 1.0 / self.config.fps)
        choreographer.now = start
        choreographer.play(step)
        choreographer.now += pause
        period = 1.0 / self.config.fps
        first = self._pending[-1] if self._pending else self.t
        frames = int(math.ceil((choreographer.now + SETTLE_TAIL_S - first) / period))
        self._pending += [round(first + k * period, 6) for k in range(1, frames + 1)]

    # -- the camera ------------------------------------------------------------------------------

    def start(self) -> None:
        self._wall0 = None

    def read(self) -> Frame:
        t = self._pending.pop(0) if self._pending else round(self.t + 1.0 / (self.config.still_fps or self.config.fps), 6)
        if self.realtime:
            now = self.clock()
            if self._wall0 is None or now - (self._wall0 + self.t) > 1.0:
                self._wall0 = now - self.t  # the first frame, or rendering fell behind: no catching up
            wait = self._wall0 + t - now
            if wait > 0:
                self.sleep(wait)
        self.t = t
        return Frame(t, self.renderer.frame(t))

    def close(self) -> None:
        pass
