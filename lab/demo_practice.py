"""`cubilete demo --practice`: a practice game, a person against the device, played to the end
by itself through the whole device.

The camera is the on-demand synthetic tray (lab.sessions.live.LiveTable): a throw's values
are drawn from the seed when it is thrown and rendered frame by frame through the real
reader and throw tracker into the service's state machine and event log. The person
(`PracticePlayer`, the service's button source) looks at the device's screen and at the
tray as someone at the bar would:

- it starts a Generala with "Cubilete plays" on (J1 against Cubilete, the config's stake);
- on its own turns it plays the simple policy of advisor.opponent (keep the face it has
  most of, stand on a made hand, fill the best box), picking the box with the buttons;
- on the device's turns it throws the device's dice, sets aside the dice the screen names
  ("Keep 6 6 6, throw") and throws the others, and presses OK when the screen shows
  the box the device fills ("OK: Cubilete scores");
- it answers the device's questions (an unsure die, a die that may have been thrown) from
  what the tray really shows, corrects a die the reader got wrong, and closes the final table.

Nothing waits for the wall clock: the frames come as fast as they are read.
"""

from __future__ import annotations

import logging
import math
import re
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

import numpy as np

from advisor.opponent import greedy_choice
from engine import score_options
from firmware.appliance import corrections, menus, play, practice
from firmware.service import FrameClock, Service
from firmware.ui.catalogue import text
from hardware.buttons import Press
from hardware.camera import Backoff, ResilientCamera
from hardware.display import TerminalDisplay
from lab.scripted_game import game_config
from lab.sessions.live import LIVE_CONFIG, DieInView, LiveTable
from vision.tracker import ThrowTracker

log = logging.getLogger("lab.demo_practice")

DEVICE_ITEM = f"{practice.DEVICE_NAME} plays"  # the new-game menu's item, in English
KEEP = re.compile(r"^Keep ([1-6](?: [1-6])*), throw$")
SETTLED_POLLS = 40  # polls with the dice still and nothing recorded: the throw was refused
MAX_POLLS = 60000  # a game that has not ended by then is stuck: stop and say so


@dataclass
class PracticePlayer:
    """The person at the tray and the buttons (a ButtonSource: events() / close())."""

    table: LiveTable
    clock: FrameClock
    presses: int = 0
    throws: int = 0
    device_throws: int = 0
    polls: int = 0
    started: bool = False
    over: bool = False
    stuck: str = ""
    _fixing: bool = False
    _thrown_at: tuple[int, int] | None = None  # (events recorded, polls) when the last throw was made
    _still: int = 0
    log: list[str] = field(default_factory=list)

    @property
    def service(self) -> Service:
        assert self.clock.service is not None
        return self.clock.service

    def events(self) -> list[Press]:
        if self.clock.service is None or self.service.app is None:
            return []
        self.polls += 1
        if self.polls > MAX_POLLS:
            self.stuck = f"no end after {MAX_POLLS} polls, at {type(self.service.app.mode).__name__}"
            self.service.request_stop()
            return []
        app = self.service.app
        if self.table.moving or app.busy:
            self._still = 0
            return []
        self._still += 1
        press = self._decide(app)
        if press is None:
            return []
        self.presses += 1
        return [Press(press[0], press[1], self.clock())]

    def close(self) -> None:
        pass

    # -- what the person does --------------------------------------------------------------------------

    def _decide(self, app: Any) -> tuple[str, str] | None:
        mode = app.mode
        if app.covered:
            return "ok", "short"
        if isinstance(mode, menus.MainMenu):
            if self.started:
                self.over = app.session is None
                self.service.request_stop()
                return None
            self.started = True
            return "ok", "short"
        if isinstance(mode, menus.NewGameMenu):
            return self._set_up(app, mode)
        if isinstance(mode, corrections.ConfirmDice):
            return self._confirm(app, mode)
        if isinstance(mode, (corrections.AskThrown, corrections.ConfirmTurned)):
            return self._yes_no(mode)
        if isinstance(mode, corrections.CorrectDie):
            return self._correct(app, mode)
        if isinstance(mode, play.TurnMenu):
            return self._turn_menu(app, mode)
        if isinstance(mode, play.PickConfirm):
            return "ok", "short"
        if isinstance(mode, play.GameOver):
            return "ok", "short"
        if isinstance(mode, (play.TurnMode, practice.DeviceTurn)):
            return self._turn(app, mode)
        return "ok", "long"  # a screen this person did not mean to open: back

    def _set_up(self, app: Any, mode: Any) -> tuple[str, str]:
        labels = [text(item.label, "en") for item in mode.items(app)]
        if not mode.device:
            target = labels.index(DEVICE_ITEM)
            if mode.selected != target:
                return "next", "short"
            return ("next", "short") if mode.editing else ("ok", "short")
        if mode.editing:
            return "ok", "short"
        return ("ok", "short") if labels[mode.selected] == "Start" else ("next", "short")

    def _turn(self, app: Any, mode: Any) -> tuple[str, str] | None:
        session = app.session
        state = session.state
        if self._thrown_at is not None:
            events, _ = self._thrown_at
            if session.events == events and self._still < SETTLED_POLLS:
                return None  # the throw is on its way to the record
            self._thrown_at = None
        if state.turn.throw_number and self._misread(app) is not None:
            self._fixing = True
            return "ok", "long"
        device = isinstance(mode, practice.DeviceTurn)
        if device:
            return self._device_turn(app, mode)
        choice = greedy_choice(state)
        if choice.action in ("throw", "keep"):
            self._throw(choice.keep if choice.action == "keep" else ())
            return None
        categories = [o.category for o in score_options(state)]
        target = categories.index(choice.category)
        return ("ok", "short") if mode.selected == target else ("next", "short")

    def _device_turn(self, app: Any, mode: Any) -> tuple[str, str] | None:
        """Do what the device's screen says."""
        screen = app.screen()
        said = text(screen.message, "en") if screen.message is not None else ""
        if said.startswith(f"Throw for {practice.DEVICE_NAME}") or said == "Throw them all again":
            self.device_throws += 1
            self._throw(())
            return None
        keep = KEEP.match(said)
        if keep:
            self.device_throws += 1
            self._throw(tuple(int(v) for v in keep.group(1).split()))
            return None
        if said.startswith("OK: "):
            return "ok", "short"
        return None  # a message covers the instruction for a moment

    def _throw(self, keep: tuple[int, ...]) -> None:
        """Set aside dice showing `keep` (those already aside first), throw the others."""
        session = self.service.app.session
        if session.state.turn.throw_number == 0:
            self.table.clear_aside()
        else:
            wanted = Counter(keep)
            dice = sorted(self.table.dice(), key=lambda d: not d.aside)
            chosen: set[int] = set()
            for die in dice:
                if wanted[die.value] > 0:
                    wanted[die.value] -= 1
                    chosen.add(die.die)
            for die in self.table.dice():
                if die.aside != (die.die in chosen):
                    self.table.toggle_aside(die.number)
        if self.table.throw() is None:
            return
        self.throws += 1
        self._thrown_at = (session.events, self.polls)
        self._still = 0

    # -- answering the device from what the tray shows ------------------------------------------------

    def _true_die(self, center: tuple[float, float] | None) -> DieInView | None:
        dice = self.table.dice()
        if center is None or not dice:
            return None
        return min(dice, key=lambda d: math.dist(center, d.center))

    def _misread(self, app: Any) -> tuple[int, int] | None:
        """(display position, true value) of a recorded die that is not what lies there."""
        session = app.session
        for position, index in enumerate(session.display_order):
            truth = self._true_die(session.throw.dice[index].center)
            if truth is not None and truth.value != session.state.turn.dice[index]:
                return position, truth.value
        return None

    def _confirm(self, app: Any, mode: Any) -> tuple[str, str] | None:
        index = mode._current(app)
        if index is None:
            return None
        truth = self._true_die(app.session.throw.dice[index].center)
        value = truth.value if truth else app.session.state.turn.dice[index]
        return _value_press(mode._choice(app, index), value)

    def _yes_no(self, mode: Any) -> tuple[str, str]:
        r = mode.dice[min(mode.asked, len(mode.dice) - 1)]
        truth = self._true_die(mode.seen.reading.dice[r].center)
        thrown = truth is not None and self.table.last_throw[truth.die] is not None
        yes = thrown if isinstance(mode, corrections.AskThrown) else False  # the demo never turns a die over
        return ("ok", "short") if mode.selected == (0 if yes else 1) else ("next", "short")

    def _turn_menu(self, app: Any, mode: Any) -> tuple[str, str]:
        actions = [action for _, action in mode._items(app)]
        wanted = "correct" if self._fixing and "correct" in actions else "back"
        return ("ok", "short") if actions[mode.selected] == wanted else ("next", "short")

    def _correct(self, app: Any, mode: Any) -> tuple[str, str]:
        wrong = self._misread(app)
        if wrong is None:
            self._fixing = False
            return "ok", "long"
        position, value = wrong
        if mode.choice is None:
            return ("ok", "short") if mode.position == position else ("next", "short")
        return _value_press(mode.choice, value)


def _value_press(choice: Any, value: int) -> tuple[str, str]:
    values = choice.values()
    target = values.index(value) if value in values else len(values)  # "other"
    return ("ok", "short") if choice.selected == target else ("next", "short")


def build_practice(state_dir: Path, language: str, out: TextIO, seed: int, display: Any = None) -> PracticePlayer:
    """The service on the on-demand tray with the scripted person as its buttons (not run:
    `player.service.run()`)."""
    table = LiveTable(np.random.default_rng(seed), LIVE_CONFIG, realtime=False)
    clock = FrameClock()
    player = PracticePlayer(table, clock)
    camera = ResilientCamera(lambda: table, backoff=Backoff(initial=0.1))
    clock.service = Service(game_config(language), [], state_dir, camera, display or TerminalDisplay(out), player,
                            ThrowTracker(), control_socket=str(state_dir / "control.sock"))
    return player


def play_practice(state_dir: Path, language: str, out: TextIO, seed: int) -> PracticePlayer:
    """Play the practice game to its end; the player says how it went."""
    print(f"A practice game: J1 against {practice.DEVICE_NAME}, the dice drawn from seed {seed} as they are "
          f"thrown; J1 throws {practice.DEVICE_NAME}'s dice and sets aside what its screen says.",
          file=out, flush=True)
    player = build_practice(state_dir, language, out, seed)
    player.service.run()
    if player.stuck:
        print(f"The practice game stopped: {player.stuck}", file=out)
    print(f"{player.throws} throws ({player.device_throws} of them for {practice.DEVICE_NAME}), "
          f"{player.presses} presses.", file=out)
    return player
