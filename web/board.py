"""What the scoreboard shows, as plain JSON-ready data, folded from the log by the engine.

`BoardBuilder.build()` reads the log (`web.logreader`) and returns the board: the current
game (its sheet, whose turn, the last throw's dice and snapshot, the options being chosen
between, totals, the settlement so far), the day's finished games and the dice fairness
figures. Every number comes from the engine (`engine.start`/`apply`, `engine.score_options`,
`engine.settlement`, `engine.fairness`), exactly as the device's own screens and the exported
sheets get them. Finished games never change, so each is folded once and remembered.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from datetime import datetime, timezone
from decimal import Decimal
from typing import Any, Callable, Sequence

import engine
from engine import fairness as dice_fairness
from engine.advice import DE_MANO, INSTANT_WIN, SCRATCH, SERVED
from firmware.eventlog import GameRecord, StoredEvent
from firmware.localformat import MoneyStyle, format_money, game_day
from web.logreader import LogReader, LogUnavailable
from web.texts import texts

# The fairness figures pool the first throws of at most this many of the latest games.
FAIRNESS_GAMES = 1000
OPTIONS_SHOWN = 8


@dataclass
class Folded:
    """A game folded as far as the rules accept its events."""

    state: engine.GameState | None
    problem: str | None
    last_throw: dict[str, Any] | None


def fold(events: Sequence[StoredEvent]) -> Folded:
    """The state after the events the rules accept (the first refused one is the problem),
    and the last throw: its event number, player, dice showing, held dice, snapshot."""
    if not events:
        return Folded(None, "no events", None)
    try:
        state = engine.start(events[0].event)
    except engine.RuleError as error:
        return Folded(None, f"{type(error).__name__}: {error}", None)
    turn_throws: list[StoredEvent] = []  # this turn's throws, undone ones taken off
    before_fills: list[tuple[list[StoredEvent], dict[str, Any] | None]] = []
    last: dict[str, Any] | None = None
    for stored in events[1:]:
        try:
            after = engine.apply(state, stored.event)
        except engine.RuleError as error:
            return Folded(state, f"{stored.seq}: {stored.event.get('type')}: {error}", last)
        kind = stored.event.get("type")
        if kind == engine.events.THROW:
            turn_throws.append(stored)
        elif kind == engine.events.THROW_UNDONE and turn_throws:
            turn_throws.pop()
        elif kind in (engine.events.CATEGORY_SCORED, engine.events.CATEGORY_SCRATCHED):
            before_fills.append((turn_throws, last))
            if last is not None:
                last = {**last, "filled": str(stored.event.get("category"))}
            turn_throws = []
        elif kind == engine.events.TURN_UNDONE and before_fills:
            turn_throws, last = before_fills.pop()
        if kind in (engine.events.THROW, engine.events.THROW_UNDONE, engine.events.READING_CORRECTED,
                    engine.events.DIE_TURNED):
            last = _throw_shown(after, turn_throws) if turn_throws else None
        state = after
    return Folded(state, None, last)


def _throw_shown(state: engine.GameState, throws: list[StoredEvent]) -> dict[str, Any]:
    newest = throws[-1]
    return {"seq": newest.seq, "player": state.turn.player, "throw": state.turn.throw_number,
            "dice": list(state.turn.dice), "held": list(state.turn.held),
            "snapshot": newest.snapshot is not None, "filled": None}


def if_ended_now(state: engine.GameState) -> engine.GameState | None:
    """The game as if every open box were crossed out now (the totals do not change), so
    that the engine's settlement says who would pay whom; None for a match of rounds."""
    if state.finished:
        return state
    if state.match is not None:
        return None
    crossed = engine.Mark(0, scratched=True)
    sheets = tuple(engine.Sheet(s.categories, tuple(crossed if m is None else m for m in s.marks), s.lines)
                   for s in state.sheets)
    return dataclasses.replace(state, sheets=sheets)


class BoardBuilder:
    """Builds the board from the log; remembers what finished games give."""

    def __init__(self, reader: LogReader, language: str = "es", device_name: str = "cubilete",
                 money: MoneyStyle = MoneyStyle(), now: Callable[[], datetime] | None = None) -> None:
        self.reader = reader
        self.language = language
        self.words = texts(language)
        self.device_name = device_name
        self.money = money
        self._now = now or (lambda: datetime.now(timezone.utc))
        self._finished: dict[str, tuple[dict[str, Any], list[tuple[int, ...]]]] = {}

    def build(self) -> dict[str, Any]:
        board: dict[str, Any] = {"lang": self.language, "t": self.words, "device": self.device_name,
                                 "log": True, "game": None, "today": [], "fairness": None}
        try:
            games = self.reader.games()
            current = self._current(games)
            wanted = [g.game_id for g in games[-FAIRNESS_GAMES:]
                      if g.ended_at is not None and g.game_id not in self._finished]
            if current is not None and current.game_id not in wanted:
                wanted.append(current.game_id)
            games, events = self.reader.read(wanted)
        except LogUnavailable:
            board["log"] = False
            return board
        current = self._current(games)
        for record in games:
            if record.game_id in events and record.ended_at is not None:
                folded = fold(events[record.game_id])
                self._finished[record.game_id] = (self._summary(record, folded),
                                                  dice_fairness.first_throws(e.event for e in events[record.game_id]))
        throws: list[tuple[int, ...]] = []
        for record in games[-FAIRNESS_GAMES:]:
            if record.game_id in self._finished:
                throws += self._finished[record.game_id][1]
        if current is not None:
            if current.ended_at is None:
                throws += dice_fairness.first_throws(e.event for e in events[current.game_id])
            board["game"] = self._game(current, events[current.game_id] if current.game_id in events
                                       else None)
        # today: the games that ended on this game day (a bar's day runs past midnight)
        day = game_day(self._now())
        board["today"] = [self._finished[g.game_id][0] for g in reversed(games)
                          if g.ended_at is not None and g.game_id in self._finished
                          and game_day(_parse(g.ended_at)) == day and self._finished[g.game_id][0]["finished"]]
        board["fairness"] = self._fairness(throws) if throws else None
        return board

    # -- parts ----------------------------------------------------------------------------

    @staticmethod
    def _current(games: list[GameRecord]) -> GameRecord | None:
        """The game being played, else the last one played."""
        unfinished = [g for g in games if g.ended_at is None]
        if unfinished:
            return unfinished[-1]
        return games[-1] if games else None

    def _name(self, thing: Any) -> str:
        return thing.name_es if self.language == "es" else thing.name_en

    def _game(self, record: GameRecord, events: list[StoredEvent] | None) -> dict[str, Any]:
        if events is None:  # a finished game remembered: its summary has the sheet
            events = self.reader.events(record.game_id)
        folded = fold(events)
        game = self._summary(record, folded)
        state = folded.state
        if state is None:
            return game
        turn = state.turn
        game.update({
            "current": None if state.finished else turn.player,
            "throw": turn.throw_number, "max_throws": state.max_throws,
            "round": state.round, "rounds": state.rounds, "match": state.match is not None,
            "options": [] if state.finished else self._options(state),
        })
        last = folded.last_throw
        if last is not None:
            last = {**last, "player_name": state.players[last["player"]],
                    "snapshot": f"/snapshot/{record.game_id}/{last['seq']}" if last["snapshot"] else None,
                    "filled": None if last["filled"] is None else self._category_name(state, last["filled"])}
        game["last_throw"] = last
        return game

    def _summary(self, record: GameRecord, folded: Folded) -> dict[str, Any]:
        state = folded.state
        summary: dict[str, Any] = {"id": record.game_id, "game": record.game, "started_at": record.started_at,
                                   "ended_at": record.ended_at, "problem": folded.problem, "finished": False,
                                   "players": [], "categories": [], "sheet": [], "lines": [], "totals": [],
                                   "winners": [], "instant_win": None, "settlement": None, "current": None,
                                   "last_throw": None, "options": []}
        if state is None:
            return summary
        rules = state.rules
        summary.update({
            "game": self._name(state.game),
            "players": list(state.players),
            "finished": state.finished,
            "categories": [{"id": c.id, "name": self._name(c)} for c in rules.categories],
            "sheet": [[_cell(sheet[c.id]) for sheet in state.sheets] for c in rules.categories],
            "lines": [{"name": self._name(line), "values": [sheet.line_points[i][1] for sheet in state.sheets]}
                      for i, line in enumerate(rules.bonuses)],
            "totals": list(state.totals),
            "winners": [state.players[p] for p in engine.winners(state)],
            "settlement": self._settlement(state),
        })
        if rules.spare_throw_bank:
            summary["lines"].append({"name": self.words["bank"], "values": list(state.banks)})
        if state.instant_win is not None:
            summary["instant_win"] = f"{self._name(state.instant_win)} ({state.players[state.instant_win.player]})"
        return summary

    def _category_name(self, state: engine.GameState, category: str) -> str:
        try:
            return self._name(state.rules.category(category))
        except (KeyError, ValueError, StopIteration):
            return category

    def _options(self, state: engine.GameState) -> list[dict[str, Any]]:
        tags = {SERVED: "served", DE_MANO: "de_mano", INSTANT_WIN: "instant_win", SCRATCH: "scratch"}
        shown = []
        for option in engine.score_options(state):
            if not option.allowed:
                continue
            shown.append({"category": option.category, "name": self._name(option), "points": option.points,
                          "tags": [self.words[tags[r]] for r in option.reasons if r in tags]})
        return shown[:OPTIONS_SHOWN]

    def _settlement(self, state: engine.GameState) -> dict[str, Any] | None:
        ended = if_ended_now(state)
        if ended is None or len(state.players) < 2:
            return None
        lines = [self._payment(p, state) for p in engine.settlement(ended)]
        return {"final": state.finished, "lines": lines}

    def _payment(self, payment: engine.Payment, state: engine.GameState) -> str:
        points = payment.points
        point_text = str(points.numerator) if points.denominator == 1 else f"{float(points):.2f}"
        in_points = self.words["point"] if point_text == "1" else self.words["points"].format(n=point_text)
        if state.stake is not None and state.stake != Decimal(0):
            amount = f"{format_money(payment.amount, self.money, self.language)} ({in_points})"
        else:
            amount = in_points
        return self.words["pays"].format(payers=" & ".join(state.players[i] for i in payment.payers),
                                         payees=" & ".join(state.players[i] for i in payment.payees),
                                         amount=amount)

    def _fairness(self, throws: list[tuple[int, ...]]) -> dict[str, Any]:
        result = dice_fairness.fairness(throws)
        return {"throws": result.throws, "counts": list(result.counts), "expected": round(result.expected, 1),
                "chi_square": round(result.chi_square, 2), "p_value": round(result.p_value, 4),
                "warning": result.warning,
                "line": self.words["fairness_line"].format(throws=result.throws, chi=result.chi_square,
                                                           p=result.p_value),
                "verdict": self.words["fairness_warning" if result.warning else "fairness_ok"]}


def _cell(mark: engine.Mark | None) -> dict[str, Any] | None:
    if mark is None:
        return None
    return {"p": mark.points, "x": mark.scratched, "s": mark.served}


def _parse(stamp: str) -> datetime:
    return datetime.fromisoformat(stamp.replace("Z", "+00:00"))
