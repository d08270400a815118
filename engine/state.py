"""The state of a game: immutable values produced by folding its events (`engine.fold`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any, Literal, Mapping

from engine.dice import opposite
from engine.rules import GameDef, Rules
from engine.sheet import Sheet


@dataclass(frozen=True)
class ThrowRecord:
    """One throw: every die's value as thrown (held dice keep theirs) and the dice thrown.
    `corrected` says a reading_corrected event replaced the camera's values."""

    values: tuple[int, ...]
    thrown: tuple[int, ...]
    corrected: bool = False

    @property
    def all_dice(self) -> bool:
        return len(self.thrown) == len(self.values)


@dataclass(frozen=True)
class Turn:
    """The current player's turn so far: throws in order and the dice turned over since the
    last throw. Dice are indices 0..n-1, stable within the turn."""

    player: int
    throws: tuple[ThrowRecord, ...] = ()
    turned: tuple[int, ...] = ()

    @property
    def throw_number(self) -> int:
        """Throws made so far this turn (0 before the first)."""
        return len(self.throws)

    @property
    def last_throw(self) -> ThrowRecord | None:
        return self.throws[-1] if self.throws else None

    @property
    def thrown_values(self) -> tuple[int, ...]:
        """The dice as the last throw left them, before any die was turned over."""
        return self.throws[-1].values if self.throws else ()

    @property
    def dice(self) -> tuple[int, ...]:
        """The dice showing now: the last throw with the turned dice on their opposite face."""
        return tuple(opposite(v) if i in self.turned else v for i, v in enumerate(self.thrown_values))

    @property
    def held(self) -> tuple[int, ...]:
        """Dice not thrown in the last throw (kept from earlier throws)."""
        if not self.throws:
            return ()
        last = self.throws[-1]
        return tuple(i for i in range(len(last.values)) if i not in last.thrown)

    @property
    def all_dice_thrown(self) -> bool:
        """The last throw was of all the dice (no die held)."""
        return bool(self.throws) and self.throws[-1].all_dice

    @property
    def locked(self) -> frozenset[int]:
        """Dice set aside in a later throw of this turn (for held_dice_locked)."""
        return frozenset(i for record in self.throws[1:]
                         for i in range(len(record.values)) if i not in record.thrown)


@dataclass(frozen=True)
class InstantWin:
    """A game won at once. `at` is "throw" (made by the dice of a throw: big general,
    generala servida, dormida) or "fill" (made by the sheet after a box was filled).
    `box`: the box a win made by a throw was written in when the players confirmed it
    (category_scored); None until then, and for a win with no box."""

    player: int
    rule: str
    name_en: str
    name_es: str
    at: Literal["throw", "fill"]
    box: str | None = None

    @property
    def open(self) -> bool:
        """Made by a throw and not written in its box yet: the throw may still be corrected
        or taken back, and the win confirmed in its box."""
        return self.at == "throw" and self.box is None


@dataclass(frozen=True)
class MatchState:
    """Where a match of rounds stands (poker dice; `engine.match` plays it).

    round: the round being played, from 1. round_winners: the winner of each round so far.
    contenders: who plays this round (or play-off), in the order they play. hands: the dice
    each player stood on this round (None: not yet, or not playing). throw_limit: the most
    throws a player may take now (set by the round's first player, or a play-off's).
    last_hands: the hands of the round or play-off decided last, to show who won with what."""

    round: int
    round_winners: tuple[int, ...]
    contenders: tuple[int, ...]
    hands: tuple[tuple[int, ...] | None, ...]
    throw_limit: int | None = None
    play_off: bool = False
    last_hands: tuple[tuple[int, ...] | None, ...] = ()

    def wins(self, players: int) -> tuple[int, ...]:
        return tuple(self.round_winners.count(p) for p in range(players))


@dataclass(frozen=True)
class GameState:
    """A game after some events. Never mutated: `engine.apply` returns a new state.

    players are in play order; `turn.player` is whose turn it is. `sheets[p]` is player p's
    column (a mark per category, None while open); `banks[p]` is p's spare throws
    (goldene-fuenfzig; always 0 elsewhere). `match` is where a match of rounds stands (poker
    dice; None for sheet games), whose sheets hold only the current round's hands.
    `undo_point` is the state just before the last box was filled (what turn_undone returns
    to). `device_seats` are the players the device itself plays (the practice opponent); the
    rules ignore it."""

    game: GameDef
    options: Mapping[str, Any]
    rules: Rules
    players: tuple[str, ...]
    sheets: tuple[Sheet, ...]
    turn: Turn
    banks: tuple[int, ...]
    stake: Decimal | None = None
    partnerships: tuple[tuple[int, ...], ...] | None = None
    instant_win: InstantWin | None = None
    match: MatchState | None = None
    device_seats: tuple[int, ...] = ()
    undo_point: "GameState | None" = field(default=None, repr=False)

    def __copy__(self) -> "GameState":
        return self  # immutable

    def __deepcopy__(self, memo: dict) -> "GameState":
        return self

    @property
    def current_player(self) -> int:
        return self.turn.player

    @property
    def finished(self) -> bool:
        if self.instant_win is not None:
            return True
        if self.match is not None and self.rules.match is not None:
            return max(self.totals) >= self.rules.match.rounds_to_win
        return all(sheet.is_full for sheet in self.sheets)

    @property
    def round(self) -> int:
        """The round being played, from 1 (the current player's filled boxes + 1)."""
        if self.match is not None:
            return self.match.round
        return self.sheets[self.turn.player].filled_count + 1

    @property
    def rounds(self) -> int:
        """The rounds of the game; for a match, the rounds a player must win."""
        if self.rules.match is not None:
            return self.rules.match.rounds_to_win
        return len(self.rules.categories)

    @property
    def totals(self) -> tuple[int, ...]:
        """Each player's total: the sheet's points, bonus lines included; in a match, the
        rounds won."""
        if self.match is not None:
            return self.match.wins(len(self.players))
        return tuple(sheet.total for sheet in self.sheets)

    def scores(self, player: int) -> dict[str, int | None]:
        """Player's points per category, None where open."""
        return {c: (None if m is None else m.points) for c, m in self.sheets[player].items()}

    @property
    def max_throws(self) -> int:
        """Throws the current player may take this turn, spare throws from the bank included;
        in a match, no more than the round's first player took."""
        if self.match is not None and self.match.throw_limit is not None:
            return self.match.throw_limit
        bank = self.banks[self.turn.player] if self.rules.spare_throw_bank else 0
        return self.rules.throws + bank

    @property
    def winners(self) -> tuple[int, ...]:
        """The winning players once finished (ties share; with partnerships, the whole side)."""
        return winners(self)


# Who won: here beside the state they read, so that engine.settlement (who pays whom) imports
# the state one way.


def sides(state: GameState) -> tuple[tuple[int, ...], ...]:
    """Who wins and pays together: the partnerships, or each player alone."""
    if state.partnerships is not None:
        return state.partnerships
    return tuple((p,) for p in range(len(state.players)))


def side_total(state: GameState, side: tuple[int, ...]) -> int:
    """The side's points (bonus lines included), or rounds won in a match."""
    totals = state.totals
    return sum(totals[p] for p in side)


def winning_sides(state: GameState) -> tuple[tuple[int, ...], ...]:
    if state.instant_win is not None:
        return tuple(side for side in sides(state) if state.instant_win.player in side)
    best = max(side_total(state, side) for side in sides(state))
    return tuple(side for side in sides(state) if side_total(state, side) == best)


def winners(state: GameState) -> tuple[int, ...]:
    """The players who won (the whole winning side in partnerships); () while playing."""
    if not state.finished:
        return ()
    return tuple(sorted(p for side in winning_sides(state) for p in side))
