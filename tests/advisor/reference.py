"""A brute-force expectimax written apart from the solver: it plays a one-player game
through the engine itself (score_options and apply for fills, turn_actions for what may be
thrown or turned), throw by throw, and averages over every roll. Slow, so tests use it on
sheets with two or three boxes open.

Instant wins are played as their boxes' points (the advisor's rule), by clearing them after
each fill. Positions are memoised by open boxes, upper progress, boxes holding points and
bank, as in the solver; a turn by its throw number, the dice as a multiset, the dice kept
where held dice are locked, and whether all the dice were thrown where that serves (de mano).
"""

from __future__ import annotations

import dataclasses
from itertools import combinations, combinations_with_replacement
from math import factorial

import engine
from engine import events as ev
from engine.state import ThrowRecord, Turn


def probability(multiset: tuple[int, ...]) -> float:
    ways = factorial(len(multiset))
    for face in set(multiset):
        ways //= factorial(multiset.count(face))
    return ways / 6 ** len(multiset)


def rolls(size: int) -> list[tuple[int, ...]]:
    return list(combinations_with_replacement(range(1, 7), size))


class Reference:
    def __init__(self) -> None:
        self.turn_start: dict = {}
        self.after: dict = {}
        self.keep: dict = {}

    def position(self, state: engine.GameState) -> tuple:
        sheet = state.sheets[0]
        rules = state.rules
        progress = tuple(min(b.threshold, b.progress(sheet)) for b in rules.threshold_bonuses)
        positive = tuple((sheet.points(c) or 0) > 0 for c in rules.category_ids)
        return sheet.open_categories, progress, positive, state.banks[0]

    def value(self, state: engine.GameState) -> float:
        """Expected points still to come from the start of the player's turn."""
        if state.sheets[0].is_full:
            return 0.0
        key = self.position(state)
        if key not in self.turn_start:
            n = state.rules.dice
            self.turn_start[key] = sum(probability(r) * self.after_throw(state, 1, (), r) for r in rolls(n))
        return self.turn_start[key]

    def after_throw(self, state: engine.GameState, throw: int, kept: tuple[int, ...], new: tuple[int, ...]) -> float:
        """The best from here once throw `throw` kept `kept` and threw `new`."""
        locked = kept if state.rules.held_dice_locked and throw >= 2 else ()
        all_dice = not kept and state.rules.served == "all_dice"
        key = (self.position(state), throw, tuple(sorted(kept + new)), locked, all_dice)
        if key not in self.after:
            values = kept + new
            everything = tuple(range(len(values)))
            earlier = tuple(ThrowRecord(values, everything) for _ in range(throw - 1))
            last = ThrowRecord(values, everything[len(kept):])
            showing = dataclasses.replace(state, turn=Turn(0, earlier + (last,)), instant_win=None)
            self.after[key] = self.best(showing)
        return self.after[key]

    def best(self, state: engine.GameState) -> float:
        """The best of filling, turning a die over, or keeping some dice and throwing the rest."""
        sheet = state.sheets[0]
        best = float("-inf")
        for option in engine.score_options(state):
            if option.allowed:
                after = engine.apply(state, ev.category_scored(0, option.category, option.points))
                after = dataclasses.replace(after, instant_win=None)
                best = max(best, after.sheets[0].total - sheet.total + self.value(after))
        actions = engine.turn_actions(state)
        for die in actions.turnable:
            best = max(best, self.best(engine.apply(state, ev.die_turned(0, die, 7 - state.turn.dice[die]))))
        if actions.may_throw:
            dice = state.turn.dice
            for size in range(1, len(actions.rethrowable) + 1):
                for thrown in combinations(actions.rethrowable, size):
                    kept = tuple(sorted(v for i, v in enumerate(dice) if i not in thrown))
                    best = max(best, self.keep_value(state, kept))
        return best

    def keep_value(self, state: engine.GameState, kept: tuple[int, ...]) -> float:
        throw = state.turn.throw_number + 1
        key = (self.position(state), throw, kept)
        if key not in self.keep:
            self.keep[key] = sum(probability(o) * self.after_throw(state, throw, kept, o)
                                 for o in rolls(state.rules.dice - len(kept)))
        return self.keep[key]


def one_player(game: str, marks: dict[str, int], bank: int = 0, **options) -> engine.GameState:
    """A one-player game at the start of a turn with these boxes filled."""
    state = engine.replay([engine.new_game(game, ["solo"], options)])
    sheet = state.rules.empty_sheet()
    for box, points in marks.items():
        sheet = sheet.with_mark(box, engine.Mark(points=points, scratched=points == 0))
    return dataclasses.replace(state, sheets=(sheet,), banks=(bank,))
