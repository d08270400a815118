"""The practice opponent's play: what the device does on a turn of a seat it plays itself.

With the game's table (shipped, or solved ahead on the device) it takes the advisor's best
choice: optimal solitaire play. Without one it never solves in the middle of a turn (minutes
for the games with an upper bonus on a Pi); it plays a simple greedy policy instead, and the
screen says so:

- before the first throw: throw every die;
- when a die must be turned over before a box is filled (cacho): turn the die that gives
  the best box, and fill that box;
- after a throw with throws left: fill the best box now if it wins at once or scores
  MADE_HAND points or more (a full house, a straight, five of a face in most sheets);
  otherwise keep the dice of the face it has most of (the higher face on a tie) and throw
  the others again (dice the rules keep aside stay kept);
- otherwise (no throw left, or nothing left to throw again): fill the box that scores most
  now, the engine's first allowed option (an instant win first, then the most points, then
  the sheet's order: with nothing scoring it crosses out the first open box).

Either way the move is a `Choice` of `advisor.advise`, so the device shows and plays both
alike: "throw", "keep" (values kept, dice indices thrown) or "fill" (after turning `turn`).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

import engine
from advisor.advise import Choice, best_choice
from advisor.tables import Table
from engine.advice import INSTANT_WIN

MADE_HAND = 25


@dataclass(frozen=True)
class Move:
    """What the device does now; `optimal`: the advisor's choice (False: the greedy policy)."""

    choice: Choice
    optimal: bool


def device_move(state: engine.GameState, table: Table | None) -> Move:
    """The device's move for the current player of a sheet game that is not over."""
    if table is not None:
        return Move(best_choice(state, table), optimal=True)
    return Move(greedy_choice(state), optimal=False)


def greedy_choice(state: engine.GameState) -> Choice:
    """The simple policy of the module docstring. `expected` is the sheet's total once the
    box it would fill now is filled (no table, so nothing is known of the future)."""
    if state.finished:
        raise ValueError("the game is over: there is no move to make")
    turn = state.turn
    total = state.sheets[turn.player].total
    if turn.throw_number == 0:
        return Choice("throw", float(total), rethrow=tuple(range(state.rules.dice)))
    actions = engine.turn_actions(state)
    if actions.must_turn:
        return _turn_and_fill(state, total)
    allowed = [o for o in engine.score_options(state) if o.allowed]
    best = allowed[0] if allowed else None
    made = best is not None and (best.points >= MADE_HAND or INSTANT_WIN in best.reasons)
    if actions.may_throw and not made:
        face = max(Counter(turn.dice).items(), key=lambda item: (item[1], item[0]))[0]
        rethrow = tuple(i for i in actions.rethrowable if turn.dice[i] != face)
        if rethrow:
            kept = tuple(sorted(v for i, v in enumerate(turn.dice) if i not in rethrow))
            return Choice("keep", float(total), keep=kept, rethrow=rethrow)
    if best is None:
        return _turn_and_fill(state, total)
    return _fill(best, total)


def _fill(option: engine.ScoreOption, total: int, turn: tuple[int, ...] = ()) -> Choice:
    return Choice("fill", float(total + option.points + option.bonus), turn=turn, category=option.category,
                  name_en=option.name_en, name_es=option.name_es, points=option.points, bonus=option.bonus)


def _turn_and_fill(state: engine.GameState, total: int) -> Choice:
    """Turn over the die that gives the best box (cacho), and fill that box."""
    for choice in engine.turn_choices(state):
        if choice.best is not None:
            return _fill(choice.best, total, turn=(choice.die,))
    raise ValueError(f"no box may be filled now in {state.game.id}, turning a die or not")
