"""The game being played: the engine's state, the event log behind it, and what the camera
saw of the current throw.

Every change goes through `record`: the engine checks the event first (a RuleError leaves
everything as it was, nothing is written), then the event is committed to the log, and only
then does the state move on, so the screen never shows what the log does not hold.

Besides the engine's state, the appliance needs to know, for the current throw, where each
die lies on the tray (to number the dice left to right as the players see them) and which
dice the reader was unsure of and the players have not confirmed yet. Both are folded from
the log too (from each throw's stored reading), so a restart after a power cut lands on
the same question it was asking.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field, replace
from typing import Any, Mapping

import engine
from engine import GameState
from firmware.eventlog import EventLog, GameRecord, StoredEvent
from vision.reading import SURE_CONFIDENCE, Reading

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class DieSeen:
    """One die of the current throw as the camera saw it."""

    center: tuple[float, float] | None = None  # on the tray, in image pixels
    size: float = 0.0
    unsure: bool = False  # the reader was not sure (or the die is unconfirmed)
    alternatives: tuple[int, ...] = ()  # other values it could be, most likely first


@dataclass(frozen=True)
class ThrowView:
    """The current throw as seen: per engine die index. `confirmed` once the players have
    answered for every unsure die (a reading_corrected event)."""

    dice: tuple[DieSeen, ...] = ()
    confirmed: bool = True
    t: float | None = None  # when the tracker saw it settle (camera time)

    @property
    def unsure(self) -> tuple[int, ...]:
        """Engine die indices still waiting for the players, when not confirmed."""
        if self.confirmed:
            return ()
        return tuple(i for i, die in enumerate(self.dice) if die.unsure)

    def left_to_right(self, count: int) -> tuple[int, ...]:
        """Engine die indices in the order they lie on the tray, left to right."""
        def key(i: int) -> tuple[float, int]:
            die = self.dice[i] if i < len(self.dice) else DieSeen()
            return (die.center[0] if die.center else float(i) * 1e6, i)
        return tuple(sorted(range(count), key=key))


@dataclass(frozen=True)
class StoredReading:
    """What the event log keeps beside a throw event: the reader's result and how the
    appliance related it to the engine's dice.

    reading: the reader's result (vision.reading.Reading), as the tracker settled it.
    moved: per read die, "held" | "thrown" | "turned" | "ambiguous" | "new" (the tracker's).
    index: per read die, the engine die it is (None: not one of them).
    t: when the throw settled (session time).
    previous, expected: the tracker's facts (each die's index in its previous settle, the dice
        count it expected); absent (None) when the throw did not come from the tracker.

    The JSON is the reading's own (`dice`, `problems`, `problem_details`) with `moved`,
    `index`, `t`, `previous` and `expected` beside it, in that order: the format of every log
    written so far.
    """

    reading: Reading
    moved: tuple[str, ...]
    index: tuple[int | None, ...]
    t: float | None = None
    previous: tuple[int | None, ...] | None = None
    expected: int | None = None

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {**self.reading.to_json(), "moved": list(self.moved), "index": list(self.index)}
        if self.t is not None:
            data["t"] = self.t
        if self.previous is not None:
            data["previous"] = list(self.previous)
            data["expected"] = self.expected
        return data

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> "StoredReading | None":
        """The stored reading of a throw; None for one that says nothing of the engine's
        dice (no `index`: not written by the appliance)."""
        if "index" not in data:
            return None
        t, previous, expected = data.get("t"), data.get("previous"), data.get("expected")
        return cls(
            reading=Reading.from_json(dict(data)),
            moved=tuple(str(m) for m in data.get("moved") or ()),
            index=tuple(None if i is None else int(i) for i in data["index"]),
            t=None if t is None else float(t),
            previous=None if previous is None else tuple(None if p is None else int(p) for p in previous),
            expected=None if expected is None else int(expected),
        )


def throw_view_from_reading(stored: StoredReading | None, dice: int) -> ThrowView:
    """What a stored throw reading says about each engine die. Dice kept from the previous
    throw ("held") were confirmed then; thrown dice are unsure when the reader was."""
    if stored is None:
        return ThrowView(tuple(DieSeen() for _ in range(dice)), confirmed=True)
    seen = [DieSeen() for _ in range(dice)]
    unsure_dice = {p.die for p in stored.reading.problems if p.kind == "unsure"}
    for r, (reading_die, index) in enumerate(zip(stored.reading.dice, stored.index)):
        if index is None or not 0 <= index < dice:
            continue
        held = r < len(stored.moved) and stored.moved[r] == "held"
        unsure = not held and (r in unsure_dice or reading_die.confidence < SURE_CONFIDENCE)
        seen[index] = DieSeen(center=reading_die.center, size=reading_die.size, unsure=unsure,
                              alternatives=reading_die.alternatives)
    any_unsure = any(d.unsure for d in seen)
    return ThrowView(tuple(seen), confirmed=not any_unsure, t=stored.t)


@dataclass
class ThrowViews:
    """How each throw of the current turn was seen, folded from the events beside the
    engine's state: the last one is the current throw (throw_undone takes it back), and
    those of turns whose box was filled are kept for turn_undone. The appliance numbers the
    dice from it; the exported score sheet lists them in the same order."""

    dice: int
    views: list[ThrowView] = field(default_factory=list)
    filled: list[list[ThrowView]] = field(default_factory=list)

    @property
    def current(self) -> ThrowView:
        return self.views[-1] if self.views else ThrowView()

    def copy(self) -> "ThrowViews":
        return ThrowViews(self.dice, list(self.views), [list(v) for v in self.filled])

    def advance(self, event: Mapping[str, Any], reading: StoredReading | None) -> None:
        """Follow one event the engine accepted."""
        kind = event.get("type")
        if kind == "throw" and reading is None and event.get("source") == engine.events.SOURCE_HAND:
            self.views.append(self._view_by_hand())
        elif kind == "throw":
            self.views.append(throw_view_from_reading(reading, self.dice))
        elif kind == "throw_undone" and self.views:
            self.views.pop()
        elif kind == "reading_corrected" and self.views:
            self.views[-1] = replace(self.current, confirmed=True,
                                     dice=tuple(replace(d, unsure=False) for d in self.current.dice))
        elif kind in ("category_scored", "category_scratched"):
            self.filled.append(self.views)
            self.views = []
        elif kind == "turn_undone":
            self.views = self.filled.pop() if self.filled else []

    def _view_by_hand(self) -> ThrowView:
        """A throw entered by hand: confirmed by whoever entered it; the dice keep the places
        the last throw of the turn gave them, so they stay in the order the players know."""
        last = self.current.dice if self.views else ()
        kept = (tuple(replace(d, unsure=False) for d in last) if len(last) == self.dice
                else tuple(DieSeen() for _ in range(self.dice)))
        return ThrowView(kept, confirmed=True)


@dataclass
class GameSession:
    """One game: its id in the log, the engine state and the current throw as seen."""

    log: EventLog
    game_id: str
    state: GameState
    events: int = 0  # events in the log for this game
    _seen: ThrowViews | None = None  # how the throws of the turn were seen

    @property
    def seen(self) -> ThrowViews:
        if self._seen is None:
            self._seen = ThrowViews(self.state.rules.dice)
        return self._seen

    @property
    def throw(self) -> ThrowView:
        """The current throw as seen."""
        return self.seen.current

    # -- starting and resuming --------------------------------------------------------------

    @classmethod
    def start(cls, log: EventLog, started_event: dict[str, Any]) -> "GameSession":
        state = engine.start(started_event)
        game_id = log.begin_game(dict(started_event))
        return cls(log, game_id, state, events=1)

    @classmethod
    def resume(cls, log: EventLog, record: GameRecord) -> "GameSession":
        """Replay a game from the log (after a restart or a power cut)."""
        stored = log.events(record.game_id)
        session = cls(log, record.game_id, engine.start(stored[0].event), events=1)
        for event in stored[1:]:
            session._fold(event)
        return session

    def _fold(self, stored: StoredEvent) -> None:
        reading = StoredReading.from_json(stored.reading) if stored.reading is not None else None
        self.state = self._advance(stored.event, reading)
        self.events += 1

    def _advance(self, event: dict[str, Any], reading: StoredReading | None) -> GameState:
        """The state after `event` (raises RuleError), updating the throw view to match."""
        new_state = engine.apply(self.state, event)
        self.seen.advance(event, reading)
        return new_state

    # -- playing ------------------------------------------------------------------------------

    def check(self, event: dict[str, Any]) -> GameState:
        """The state `event` would lead to; raises RuleError. Records nothing."""
        return engine.apply(self.state, event)

    def record(self, event: dict[str, Any], reading: StoredReading | None = None,
               snapshot_jpeg: bytes | None = None) -> StoredEvent:
        """Check, commit, then apply; returns the event as committed. Raises RuleError (nothing
        written) for an illegal event."""
        saved = self.seen.copy()
        try:
            new_state = self._advance(event, reading)
            stored = self._append(event, reading, snapshot_jpeg)
        except Exception:
            self._seen = saved
            raise
        self.state = new_state
        self.events += 1
        return stored

    def _append(self, event: dict[str, Any], reading: StoredReading | None,
                snapshot_jpeg: bytes | None) -> StoredEvent:
        stored = reading.to_json() if reading is not None else None
        try:
            return self.log.append(self.game_id, event, reading=stored, snapshot_jpeg=snapshot_jpeg)
        except OSError as error:
            if snapshot_jpeg is None:
                raise
            # The picture could not be written (a full card): the score matters more.
            log.error("snapshot not written (%s); recording the event without it", error)
            return self.log.append(self.game_id, event, reading=stored)

    def end(self) -> None:
        """The players left the final table (or abandoned the game): close it in the log."""
        self.log.end_game(self.game_id)

    # -- what the screens need -------------------------------------------------------------------

    @property
    def pending_confirmation(self) -> tuple[int, ...]:
        """Engine die indices of the current throw the players must still confirm."""
        if self.state.turn.throw_number == 0:
            return ()
        return self.throw.unsure

    @property
    def display_order(self) -> tuple[int, ...]:
        """Engine die indices left to right on the tray (die 1 is the leftmost)."""
        return self.throw.left_to_right(self.state.rules.dice)

    def die_number(self, index: int) -> int:
        """The 1-based number players see for engine die `index`."""
        return self.display_order.index(index) + 1

    @property
    def player_name(self) -> str:
        return self.state.players[self.state.current_player]
