"""A simulated player for scripted games: it looks at the screen and at the dice as they really
lie (the synthetic session's truth) and presses the buttons as a careful person would.

It answers the device's questions truthfully (an unsure die, a die that may have been
thrown or held, a die turned over), corrects a die the reader got wrong through the turn
menu, picks the box the game script says (a box the dice do not score is crossed out),
confirms a winning throw, and closes the final table. A game script step may also ask for what players do by mistake:

    {"throw": [...], "score": "threes", "undo": true}   score, undo that score, score again
    {"throw": [...], "fumble": 2}                       correct die 3 (left to right) to a
                                                        wrong value, then correct it back

Everything it decides comes from the screen, the truth and the game's recorded events, never
from what it remembers having pressed, so after a restart (the soak's SIGKILLs) it carries
on from what the device shows, as a person would. Every press is kept with its session
time, so the run can be replayed exactly with `ScriptedButtons` (`cubilete run --buttons
script:FILE`): the demo does that.

It is a `ButtonSource` (events() / close()) fed by the service it plays on.
"""

from __future__ import annotations

import itertools
import logging
import math
from dataclasses import dataclass, field
from typing import Any, Callable, Sequence

from engine import score_options
from firmware.appliance import corrections, menus, play
from hardware.buttons import Press

log = logging.getLogger("lab.autoplayer")

REACT_S = 0.6  # a person looks at the screen this long after the dice stop
PRESS_GAP_S = 0.15  # and presses no faster than this
READ_S = 0.4  # a new screen (another mode, a new event) is read this long before a press
FINAL_TABLE_S = 2.5  # the final table is looked at a while before it is closed
PROGRESS_EVERY_S = 0.25  # session seconds between two "session t=" lines (the soak aims its kills by them)


@dataclass
class TruthPlayer:
    """game: the game script (steps with "throw" and an optional "score": category id).
    truth: the session's truth (lab.sessions.synth). service: returns the running Service."""

    game: Sequence[dict[str, Any]]
    truth: dict[str, Any]
    service: Callable[[], Any]
    games_before: int = 0  # games already in the log: this player starts the next one, once
    presses: list[tuple[float, str, str]] = field(default_factory=list)
    _next_t: float = 0.0
    _started: bool = False
    _closed_games: int = 0
    _fixing: bool = False
    _undoing: bool = False
    _fumbling: tuple[int, int] | None = None  # (display position, wrong value) being entered
    _turn_cache: tuple[tuple[str, int], list[dict[str, Any]]] = (("", -1), [])
    _seen: tuple[str, int] = ("", -1)  # the screen being read: mode and events recorded
    _seen_since: float = 0.0
    _next_progress_t: float = float("-inf")

    def __post_init__(self) -> None:
        # Each throw or turn-over of the script comes to rest once: pair the two.
        settles = [s for s in self.truth["settles"]
                   if s.get("step") in ("Throw", "TurnOver") and s.get("expect") == "settled"]
        steps = [s for s in self.game if "throw" in s or "turn" in s]
        self._throws = list(zip(settles, steps))

    # -- ButtonSource ----------------------------------------------------------------------------

    def events(self) -> list[Press]:
        service = self.service()
        if service is None:
            return []
        t = service.frame_t
        self._progress(t)
        app = service.app
        seen = (type(app.mode).__name__, app.session.events if app.session is not None else -1)
        if seen != self._seen:
            self._seen, self._seen_since = seen, t
        reading_time = FINAL_TABLE_S if seen[0] == "GameOver" else READ_S
        if t < self._next_t or app.busy or t - self._seen_since < reading_time:
            return []
        press = self._decide(app, t)
        if press is None:
            return []
        button, kind = press
        self._next_t = t + PRESS_GAP_S
        self.presses.append((round(t, 4), button, kind))
        return [Press(button, kind, t)]

    def close(self) -> None:
        pass

    def _progress(self, t: float) -> None:
        """Say how far the replay got, in session time, every PROGRESS_EVERY_S: the soak kills
        the service when the replay (not the wall clock) reaches a moment, and judges a game
        stuck by how far past its due event the replay really went, so a slow machine only
        delays the kills."""
        if t >= self._next_progress_t:
            log.info("session t=%.3f", t)
            self._next_progress_t = t + PROGRESS_EVERY_S

    def script(self) -> str:
        """The presses made, as a ScriptedButtons file (session times)."""
        return "".join(f"{t:.4f} {button} {kind}\n" for t, button, kind in self.presses)

    # -- what the dice really show ----------------------------------------------------------------------

    def _tray(self, t: float) -> list[dict[str, Any]]:
        """The dice on the tray at session time t (the last settled scene before t)."""
        dice: list[dict[str, Any]] = []
        for record in self.truth["settles"]:
            if record["t_stop"] <= t:
                dice = record["dice"]
        return dice

    def _true_die(self, t: float, center: tuple[float, float] | None) -> dict[str, Any] | None:
        if center is None:
            return None
        tray = self._tray(t)
        if not tray:
            return None
        return min(tray, key=lambda d: math.dist(center, d["center"]))

    def _current_step(self, t: float) -> tuple[dict[str, Any], dict[str, Any]] | None:
        """The scripted throw (or turn-over) whose dice lie on the tray now, once a person has
        looked at them."""
        current = None
        for settle, step in self._throws:
            if settle["t_stop"] + REACT_S <= t:
                current = (settle, step)
        return current

    # -- deciding -------------------------------------------------------------------------------------

    def _decide(self, app: Any, t: float) -> tuple[str, str] | None:
        mode = app.mode
        if app.covered:
            return "ok", "short"
        if isinstance(mode, menus.MainMenu):
            # One game per session: started once, and not again after a restart.
            if app.session is None and not self._started and len(app.log.games()) == self.games_before:
                self._started = True
                return "ok", "short"
            return None
        if isinstance(mode, menus.NewGameMenu):
            last = len(mode.items(app)) - 1
            return ("ok", "short") if mode.selected == last else ("prev", "short")
        if isinstance(mode, corrections.ConfirmDice):
            return self._confirm_die(app, mode, t)
        if isinstance(mode, (corrections.AskThrown, corrections.ConfirmTurned)):
            return self._yes_no(mode, t)
        if isinstance(mode, corrections.CorrectDie):
            return self._correct(app, mode, t)
        if isinstance(mode, play.TurnMenu):
            return self._turn_menu(app, mode)
        if isinstance(mode, play.UndoConfirm):
            if self._undoing:
                self._undoing = False
                return "ok", "long"  # an undo is confirmed by holding OK
            return "prev", "short"
        if isinstance(mode, play.PickConfirm):
            wanted = self._wanted(app, t)
            return ("ok", "short") if wanted == mode.option.category else ("prev", "short")
        if isinstance(mode, play.TurnMode):
            return self._turn(app, mode, t)
        if isinstance(mode, play.WinConfirm):
            # The winning throw: confirmed when the dice are what lies there; a misread die
            # is corrected first, through the turn menu.
            if self._misread(app, t) is not None:
                self._fixing = True
                return "ok", "long"
            return "ok", "short"
        if isinstance(mode, play.GameOver):
            self._closed_games += 1
            return "ok", "short"
        return None

    def _value_press(self, choice: Any, value: int) -> tuple[str, str]:
        values = choice.values()
        target = values.index(value) if value in values else len(values)  # "other"
        if choice.selected == target:
            return "ok", "short"
        return "next", "short"

    def _confirm_die(self, app: Any, mode: Any, t: float) -> tuple[str, str] | None:
        index = mode._current(app)
        if index is None:
            return None
        truth = self._matched(app, t).get(index)
        value = truth["value"] if truth else app.session.state.turn.dice[index]
        return self._value_press(mode._choice(app, index), value)

    def _yes_no(self, mode: Any, t: float) -> tuple[str, str]:
        r = mode.dice[min(mode.asked, len(mode.dice) - 1)]
        truth = self._true_die(t, mode.seen.reading.dice[r].center)
        moved = truth["moved"] if truth else "thrown"
        yes = moved == ("turned" if isinstance(mode, corrections.ConfirmTurned) else "thrown")
        target = 0 if yes else 1
        return ("ok", "short") if mode.selected == target else ("next", "short")

    def _matched(self, app: Any, t: float) -> dict[int, dict[str, Any]]:
        """Each recorded die (engine index) paired with the real die it is, as a person would
        pair them: the pairing that puts every die nearest its counterpart overall."""
        session = app.session
        tray = self._tray(t)
        indices = [i for i, die in enumerate(session.throw.dice) if die.center is not None]
        if len(tray) != len(indices) or len(indices) > 6:
            return {i: d for i in indices if (d := self._true_die(t, session.throw.dice[i].center))}
        best = min(itertools.permutations(tray),
                   key=lambda order: sum(math.dist(session.throw.dice[i].center, d["center"])
                                         for i, d in zip(indices, order)))
        return dict(zip(indices, best))

    def _misread(self, app: Any, t: float) -> tuple[int, int] | None:
        """(display position, true value) of a recorded die that is not what lies there."""
        session = app.session
        current = self._current_step(t)
        seen_at = session.throw.t
        if current is None or seen_at is None or seen_at < current[0]["t_stop"]:
            return None  # the screen does not show the throw on the tray yet
        matched = self._matched(app, t)
        for position, index in enumerate(session.display_order):
            truth = matched.get(index)
            if truth is not None and truth["value"] != session.state.turn.dice[index]:
                return position, truth["value"]
        return None

    def _correct(self, app: Any, mode: Any, t: float) -> tuple[str, str] | None:
        wrong = self._fumbling or self._misread(app, t)
        if wrong is None:
            self._fixing = False
            return "ok", "long"
        position, value = wrong
        if mode.choice is not None and self._fumbling is not None:
            press = self._value_press(mode.choice, value)
            if press == ("ok", "short"):
                self._fumbling = None  # this press records the wrong value
            return press
        if mode.choice is None:
            return ("ok", "short") if mode.position == position else ("next", "short")
        return self._value_press(mode.choice, value)

    def _turn_menu(self, app: Any, mode: Any) -> tuple[str, str]:
        actions = [action for _, action in mode._items(app)]
        if self._undoing:
            wanted = "undo"
        elif self._fixing or self._fumbling is not None:
            wanted = "correct"
        else:
            return "ok", "long"
        target = actions.index(wanted) if wanted in actions else actions.index("back")
        if wanted not in actions:
            self._undoing, self._fumbling = False, None
        return ("ok", "short") if mode.selected == target else ("next", "short")

    def _wanted(self, app: Any, t: float) -> str | None:
        """The box the script fills after the throw on the tray, if the screen shows that throw."""
        current = self._current_step(t)
        session = app.session
        if current is None or session is None or session.state.turn.throw_number == 0:
            return None
        settle, step = current
        if sorted(d["value"] for d in settle["dice"]) != sorted(session.state.turn.dice):
            return None
        return step.get("score")

    def _turn(self, app: Any, mode: Any, t: float) -> tuple[str, str] | None:
        session = app.session
        if self._undo_due(app, t):
            self._undoing = True
            return "ok", "long"
        if session.state.turn.throw_number == 0:
            return None
        if self._misread(app, t) is not None:
            self._fixing = True
            return "ok", "long"
        fumble = self._fumble_due(app, t)
        if fumble is not None:
            self._fumbling = fumble
            return "ok", "long"
        wanted = self._wanted(app, t)
        if wanted is None:
            return None
        categories = [o.category for o in score_options(session.state)]
        if wanted not in categories:
            return None
        target = categories.index(wanted)
        return ("ok", "short") if mode.selected == target else ("next", "short")

    # -- the mistakes the script asks for, judged from the recorded events -------------------------

    def _since_last_throw(self, app: Any) -> list[dict[str, Any]]:
        """The current game's events after its last throw (read once per recorded event)."""
        session = app.session
        key = (session.game_id, session.events)
        if self._turn_cache[0] != key:
            events = [stored.event for stored in app.log.events(session.game_id)]
            throws = [i for i, event in enumerate(events) if event["type"] == "throw"]
            self._turn_cache = (key, events[throws[-1] + 1:] if throws else [])
        return self._turn_cache[1]

    def _undo_due(self, app: Any, t: float) -> bool:
        """The box of a step marked "undo" was filled and has not been undone yet."""
        current = self._current_step(t)
        if current is None or not current[1].get("undo") or app.session.state.finished:
            return False
        kinds = [event["type"] for event in self._since_last_throw(app)]
        return "turn_undone" not in kinds and bool({"category_scored", "category_scratched"} & set(kinds))

    def _fumble_due(self, app: Any, t: float) -> tuple[int, int] | None:
        """(position, wrong value) for a step marked "fumble" whose throw is on the screen and
        has no correction recorded yet."""
        current = self._current_step(t)
        session = app.session
        if current is None or "fumble" not in current[1] or session.throw.t is None:
            return None
        if session.throw.t < current[0]["t_stop"]:
            return None  # the screen does not show this throw yet
        if any(event["type"] == "reading_corrected" for event in self._since_last_throw(app)):
            return None
        position = int(current[1]["fumble"])
        value = session.state.turn.dice[session.display_order[position]]
        return position, value % 6 + 1
