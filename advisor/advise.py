"""Advice for the player whose turn it is: every choice open now (keep some dice and throw
the rest, fill a box, turn dice over first in cacho) with the expected final total of the
player's sheet if they take it and play optimally afterwards, best first.

What a fill scores, what it earns and which boxes may be filled now is the engine's
(`engine.score_options`, applying the fill); the future comes from the game's table of V
and the turn's remaining throws worked out for this one position (`advisor.solver`).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from itertools import combinations
from pathlib import Path
from typing import Literal

import engine
from advisor.model import GameModel, NotASheetGame
from advisor.solver import Rows, TurnSolver
from advisor.tables import Table, get_table
from engine import events as ev

Action = Literal["throw", "keep", "fill"]


@dataclass(frozen=True)
class Choice:
    """One thing the player may do now.

    throw: the turn's first throw, of every die. keep: keep `keep` (dice values) and throw
    the dice `rethrow` (die indices, as the throw event's `thrown`). fill: fill `category`
    for `points` (and `bonus` on its line), after turning over the dice `turn` (indices,
    in order; cacho). expected: the sheet's expected final total after this choice."""

    action: Action
    expected: float
    keep: tuple[int, ...] = ()
    rethrow: tuple[int, ...] = ()
    turn: tuple[int, ...] = ()
    category: str | None = None
    name_en: str = ""
    name_es: str = ""
    points: int = 0
    bonus: int = 0

    def text(self, dice: tuple[int, ...] = (), language: str = "en") -> str:
        """A short line: "keep 6 6 6", "fill Full house 25", "turn 6 over, fill Straight 20"."""
        spanish = language == "es"
        if self.action == "throw":
            return "tirar todos los dados" if spanish else "throw all the dice"
        if self.action == "keep":
            if not self.keep:
                return "volver a tirar todos" if spanish else "throw all again"
            kept = " ".join(map(str, self.keep))
            return f"guardar {kept}" if spanish else f"keep {kept}"
        name = self.name_es if spanish else self.name_en
        words = f"{'anotar' if spanish else 'fill'} {name} {self.points}"
        if self.bonus:
            words += f" +{self.bonus}"
        if self.turn:
            faces = " ".join(str(dice[i]) for i in self.turn) if dice else " ".join(f"#{i + 1}" for i in self.turn)
            words = f"{'girar' if spanish else 'turn'} {faces}, {words}"
        return words


@dataclass(frozen=True)
class Advice:
    """The choices open to `player` after throw `throw` (0: before the first) showing `dice`,
    best first; `total` is the sheet's total now."""

    player: int
    throw: int
    dice: tuple[int, ...]
    total: int
    choices: tuple[Choice, ...]

    @property
    def best(self) -> Choice:
        return self.choices[0]


@lru_cache(maxsize=8)
def turn_solver(model: GameModel) -> TurnSolver:
    return TurnSolver(model)


def prepare(table: Table) -> None:
    """Build everything advice needs besides the table (the rules' score tables, the joker's
    and cacho's turning tables, the turn solver's index maps: up to a second here, once per
    game and options), so that the first advice of a game is as quick as the others."""
    model = table.model
    _ = model.tables, model.joker_allowed, model.joker_active, model.turn_outcomes  # reading them builds them
    turn_solver(model)


def table_for(state: engine.GameState, state_dir: str | Path | None = None) -> Table:
    """The game's table (solved and cached in the state directory if it must be)."""
    if state.rules.match is not None:
        raise NotASheetGame(f"{state.game.id} has no score sheet: there is nothing to advise")
    return get_table(state.game.id, dict(state.options), state_dir)


def advise(state: engine.GameState, table: Table | None = None, state_dir: str | Path | None = None,
           top: int | None = None) -> Advice:
    """Every choice open to the current player, best first (the first `top` of them)."""
    if state.finished:
        raise ValueError("the game is over: there is nothing to advise")
    table = table or table_for(state, state_dir)
    turn, player = state.turn, state.turn.player
    sheet = state.sheets[player]
    position = table.model.position(sheet, state.banks[player])
    if turn.throw_number == 0:
        everything = tuple(range(state.rules.dice))
        choices = [Choice("throw", sheet.total + table.value(position), rethrow=everything)]
    else:
        choices = _fills(state, table, ())
        actions = engine.turn_actions(state)
        if actions.may_throw:
            choices += _keeps(state, table, actions.rethrowable)
    choices.sort(key=lambda c: (-c.expected, len(c.turn)))  # on a tie, fewer dice to turn
    return Advice(player, turn.throw_number, turn.dice, sheet.total, tuple(choices[:top] if top else choices))


def _fills(state: engine.GameState, table: Table, turned: tuple[int, ...]) -> list[Choice]:
    """Filling each allowed box now, and after turning each die that may be turned."""
    player = state.turn.player
    model = table.model
    choices = []
    for option in engine.score_options(state):
        if not option.allowed:
            continue
        after = engine.apply(state, ev.category_scored(player, option.category, option.points))
        sheet = after.sheets[player]
        expected = sheet.total + table.value(model.position(sheet, after.banks[player]))
        choices.append(Choice("fill", expected, turn=turned, category=option.category, name_en=option.name_en,
                              name_es=option.name_es, points=option.points, bonus=option.bonus))
    for die in engine.turn_actions(state).turnable:
        after = engine.apply(state, ev.die_turned(player, die, 7 - state.turn.dice[die]))
        choices += _fills(after, table, turned + (die,))
    return choices


def _keeps(state: engine.GameState, table: Table, rethrowable: tuple[int, ...]) -> list[Choice]:
    """Keeping each distinct set of dice and throwing the rest (at least one die)."""
    turn, player = state.turn, state.turn.player
    model = table.model
    position = model.position(state.sheets[player], state.banks[player])
    stages = turn_solver(model).run(Rows.one(position.open_boxes, position.flags, position.progress, position.bank),
                                    table.flat, until=turn.throw_number + 1)
    keep_values = stages[turn.throw_number + 1][0]
    total = state.sheets[player].total
    seen: dict[tuple[int, ...], Choice] = {}
    for size in range(1, len(rethrowable) + 1):
        for thrown in combinations(rethrowable, size):
            kept = tuple(sorted(v for i, v in enumerate(turn.dice) if i not in thrown))
            if kept not in seen:
                value = total + float(keep_values[model.space.index[kept]])
                seen[kept] = Choice("keep", value, keep=kept, rethrow=thrown)
    return list(seen.values())


def best_choice(state: engine.GameState, table: Table | None = None, state_dir: str | Path | None = None) -> Choice:
    """What an optimal solitaire player does now (the practice opponent's move)."""
    return advise(state, table, state_dir).best
