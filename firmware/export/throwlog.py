"""The score sheet's log of throws: every event of a game as a row people can check, with
the dice in the order they lay on the tray, each throw's snapshot, and the throw that
decided the game marked.

Dice order. The engine keeps each die at its index for the whole turn (a held die stays
die 2 even when the dice thrown again land left of it), and the reader lists dice in the
order it found them; the two orders agree with nothing on the table. The device numbers
the dice left to right as they lie (`ThrowViews`, folded from each throw's stored reading),
and so does this log: the "dice" (what the game recorded) and "camera" (what the reader
saw) columns list the same dice in the same order, die 1 the leftmost. A throw entered by
hand keeps the places of the turn's last throw, as on the device.

The deciding throw. After an instant win, the throw that made it. Otherwise the throw
behind the box after which the winner's total passed the best final total of everyone
else and stayed there (as the winning goal of a match: the one that put the winner ahead
for good); in a match of rounds, the winner's hand in the round that did it. A shared win
has no deciding throw.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping, Sequence

import engine
from engine.settlement import side_total, sides, winning_sides
from firmware.appliance.session import StoredReading, ThrowView, ThrowViews
from firmware.eventlog import StoredEvent
from vision.reading import SURE_CONFIDENCE, Reading


@dataclass(frozen=True)
class LogRow:
    """One event of the game as the sheet lists it. `dice`: the game's dice after it, left
    to right (empty when it has none); `camera`: what the reader read of the same dice in
    the same order ("5?" unsure), None when the camera read nothing (dice by hand, a
    correction); `die`: the number (from 1, left to right) of the die an event is about."""

    index: int  # in the game's events
    seq: int
    at: str
    player: int | None
    kind: str
    event: Mapping[str, Any]
    dice: tuple[int, ...] = ()
    camera: tuple[str, ...] | None = None
    camera_problems: int = 0
    die: int | None = None
    snapshot: str | None = None
    deciding: bool = False


@dataclass(frozen=True)
class Deciding:
    """The deciding throw: its event index, and why ("instant" win or "passed": the winner
    passed `passed` (the best final total of the others, held by `others`) with it)."""

    throw: int
    player: int
    why: str
    passed: int | None = None
    others: tuple[int, ...] = ()
    instant: engine.InstantWin | None = None


def throw_log(events: Sequence[StoredEvent], snapshot_names: Mapping[int, str]) -> tuple[list[LogRow], Deciding | None]:
    """The rows of every event after game_started, and the deciding throw (None while the
    game is unfinished, for a shared win, or when the rules refuse the log)."""
    fold = _Fold(events)
    deciding = fold.deciding()
    rows = []
    for index, stored in enumerate(events):
        if index == 0 or index not in fold.rows:
            continue
        row = fold.rows[index]
        rows.append(LogRow(**{**row.__dict__, "snapshot": snapshot_names.get(stored.seq),
                              "deciding": deciding is not None and deciding.throw == index}))
    return rows, deciding


class _Fold:
    """One pass over the events: the engine's state, how the dice lay, the boxes filled."""

    def __init__(self, events: Sequence[StoredEvent]) -> None:
        self.rows: dict[int, LogRow] = {}
        self.state: engine.GameState | None = None
        self.instant_at: int | None = None  # the event that made the instant win
        self.fills: list[tuple[int, int, int | None, tuple[int, ...]]] = []  # (event, player, throw, totals)
        self._throws: list[int] = []  # this turn's throws (event indices)
        self._turns: list[list[int]] = []  # the throws of filled turns (turn_undone)
        try:
            self.state = engine.start(events[0].event)
        except (engine.RuleError, IndexError, KeyError, TypeError, ValueError):
            self.state = None
        views = ThrowViews(self.state.rules.dice) if self.state else None
        for index, stored in enumerate(events[1:], start=1):
            if self.state is None or views is None:
                self.rows[index] = _raw_row(index, stored)
                continue
            reading = _stored_reading(stored)
            try:
                after = engine.apply(self.state, stored.event)
            except engine.RuleError:
                self.state, views = None, None  # the rules refuse the log from here: rows as recorded
                self.rows[index] = _raw_row(index, stored)
                continue
            views.advance(stored.event, reading)
            self._follow(index, stored.event, after)
            self.rows[index] = _row(index, stored, after, views.current, reading)
            self.state = after

    def _follow(self, index: int, event: Mapping[str, Any], after: engine.GameState) -> None:
        kind = event.get("type")
        if kind == "throw":
            self._throws.append(index)
        elif kind == "throw_undone" and self._throws:
            self._throws.pop()
        elif kind in ("category_scored", "category_scratched"):
            behind = self._throws[-1] if self._throws else None
            self.fills.append((index, int(event.get("player", -1)), behind, after.totals))
            self._turns.append(self._throws)
            self._throws = []
        elif kind == "turn_undone":
            if self.fills:
                self.fills.pop()
            self._throws = self._turns.pop() if self._turns else []
        if after.instant_win is None:
            self.instant_at = None
        elif self.instant_at is None:
            # made by this event: the throw it was (or whose dice it corrected or turned),
            # or the throw behind the box just filled
            if kind in ("category_scored", "category_scratched"):
                self.instant_at = self.fills[-1][2] if self.fills else None
            else:
                self.instant_at = self._throws[-1] if self._throws else None

    def deciding(self) -> Deciding | None:
        state = self.state
        if state is None or not state.finished:
            return None
        if state.instant_win is not None:
            if self.instant_at is None:
                return None
            return Deciding(self.instant_at, state.instant_win.player, "instant", instant=state.instant_win)
        won = winning_sides(state)
        if len(won) != 1:
            return None  # a shared win: nothing decided it
        side = won[0]
        others = [s for s in sides(state) if s != side]
        if not others:
            return None  # one player alone: no one to beat
        best = max(side_total(state, s) for s in others)
        holders = tuple(p for s in others if side_total(state, s) == best for p in s)
        for position, (_, player, _, totals) in enumerate(self.fills):
            if sum(totals[p] for p in side) > best:
                # the box that put the side ahead for good; a round of a match is decided by
                # whoever stands last: the winner's own hand of that round is the throw
                mine = [f for f in self.fills[:position + 1] if f[1] in side]
                if not mine or mine[-1][2] is None:
                    return None
                return Deciding(mine[-1][2], mine[-1][1], "passed", passed=best, others=holders)
        return None


def _stored_reading(stored: StoredEvent) -> StoredReading | None:
    if not isinstance(stored.reading, Mapping):
        return None
    try:
        return StoredReading.from_json(stored.reading)
    except (KeyError, TypeError, ValueError):
        return None


def _raw_row(index: int, stored: StoredEvent) -> LogRow:
    event = stored.event
    values = event.get("values")
    dice = tuple(v for v in values if isinstance(v, int)) if isinstance(values, list) else ()
    player = event.get("player")
    return LogRow(index=index, seq=stored.seq, at=stored.at, player=player if isinstance(player, int) else None,
                  kind=str(event.get("type")), event=event, dice=dice)


def _row(index: int, stored: StoredEvent, after: engine.GameState, view: ThrowView,
         reading: StoredReading | None) -> LogRow:
    event = stored.event
    kind = str(event.get("type"))
    order = view.left_to_right(after.rules.dice)
    row = _raw_row(index, stored)
    if kind in ("throw", "reading_corrected"):
        values = event.get("values", [])
        dice = tuple(values[i] for i in order if i < len(values))
        camera, problems = (None, 0)
        if kind == "throw" and event.get("source") != engine.events.SOURCE_HAND:
            if reading is not None:
                camera, problems = _camera(reading, order), len(reading.reading.problems)
            elif isinstance(stored.reading, Mapping):  # a reading kept without the engine's dice
                camera, problems = _camera_alone(stored.reading)
        return LogRow(**{**row.__dict__, "dice": dice, "camera": camera, "camera_problems": problems})
    if kind == "die_turned":
        die = int(event.get("die", -1))
        shown = tuple(after.turn.dice[i] for i in order if i < len(after.turn.dice))
        return LogRow(**{**row.__dict__, "dice": shown, "die": order.index(die) + 1 if die in order else None})
    return row


def _camera_alone(data: Mapping[str, Any]) -> tuple[tuple[str, ...] | None, int]:
    """The reader's values left to right, from a reading that does not say which die of
    the game each one is."""
    try:
        reading = Reading.from_json(dict(data))
    except (KeyError, TypeError, ValueError):
        return None, 0
    order = sorted(range(len(reading.dice)), key=lambda r: (reading.dice[r].center[0], r))
    unsure = {p.die for p in reading.problems if p.kind == "unsure"}
    return tuple(_die_text(reading, r, unsure) for r in order), len(reading.problems)


def _die_text(reading: Reading, r: int, unsure: set[int | None]) -> str:
    die = reading.dice[r]
    return f"{die.value}?" if (die.confidence < SURE_CONFIDENCE or die.cocked or r in unsure) else str(die.value)


def _camera(stored: StoredReading, order: tuple[int, ...]) -> tuple[str, ...]:
    """The reader's value of each die in `order` (engine indices), "?" after an unsure one;
    dice the reader saw that are none of the game's come last."""
    reading = stored.reading
    unsure = {p.die for p in reading.problems if p.kind == "unsure"}
    by_index: dict[int, str] = {}
    extra: list[str] = []
    for r in range(len(reading.dice)):
        text = _die_text(reading, r, unsure)
        index = stored.index[r] if r < len(stored.index) else None
        if index is None or index in by_index:
            extra.append(text)
        else:
            by_index[index] = text
    return tuple(by_index.get(i, "-") for i in order) + tuple(extra)
