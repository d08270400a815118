"""Optimal solitaire play by dynamic programming over positions (open boxes, flags, progress,
bank; `advisor.model`), maximising the expected final total.

V(position) is the expected points still to come from the start of a turn, bonus lines
included; V = 0 once every box is filled. A turn is worked out backwards over its throws:

- fill_t(roll): the best box for the roll shown by throw t: its points, the bonuses it
  earns, plus V of the position it leaves (turning dice over first, in cacho);
- E_t(roll) = max(fill_t(roll), best keep): what the roll is worth after throw t;
- K_t(keep) = the average of E_t over the dice thrown to complete `keep`: what keeping it
  before throw t is worth. Kept dice are multisets, so K over every keep of 0 .. n - 1 dice
  comes from adding one die at a time, and "the best keep of a roll" from taking one die
  at a time away;
- with held dice locked (Generala), a turn after its second throw is (locked dice, the
  dice thrown), and a keep must contain the locked dice;
- V = the average of E_1 over the first throw.

Positions with the same number of open boxes only need positions with fewer, so they are
solved a level at a time, many at once (`chunk` rows of numpy arrays).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Callable

import numpy as np

from advisor.dice_space import multisets_of, probability, without
from advisor.model import GameModel, ScoreTable

NEG = -1e18  # a choice that is not allowed


@dataclass(frozen=True)
class Rows:
    """Positions solved together, one per row."""

    open_boxes: np.ndarray
    flags: np.ndarray
    progress: np.ndarray
    bank: np.ndarray

    def __len__(self) -> int:
        return len(self.open_boxes)

    @classmethod
    def one(cls, open_boxes: int, flags: int = 0, progress: int = 0, bank: int = 0) -> "Rows":
        return cls(*(np.array([value], dtype=np.int64) for value in (open_boxes, flags, progress, bank)))


class TurnSolver:
    """The stages of a turn for rows of positions, given V of the positions after it."""

    def __init__(self, model: GameModel) -> None:
        self.model = model
        space = model.space
        self.n = space.n
        self.rolls = len(space.rolls)
        self.multisets = len(space.multisets)
        self.levels = [space.of_size(size) for size in range(self.n + 1)]
        self.add = space.add
        self.take = space.take
        self.probabilities = space.roll_probabilities
        if model.rules.held_dice_locked:
            self._build_locked()
        outcomes = model.turn_outcomes
        if outcomes is not None:
            self.parent_starts = np.flatnonzero(np.r_[True, outcomes.parent[1:] != outcomes.parent[:-1]])

    # --- the stages ---------------------------------------------------------------------------

    def run(self, rows: Rows, values: np.ndarray, until: int = 1) -> dict:
        """Stage values from the last throw down to throw `until`: result[t] is K_t (keep
        values before throw t, shape rows x multisets; for locked games only keeps of fewer
        than n dice are meaningful) for t >= 2; when until is 1, result["E1"] is E_1 (rows x
        rolls) and result["start"] the expected points from the start of the turn."""
        model = self.model
        throws = np.full(len(rows), model.rules.throws) + (rows.bank if model.max_bank else 0)
        last = int(throws.max())
        result: dict = {}
        fills: dict = {}
        keep_next = None
        for t in range(last, until - 1, -1):
            fill_all, fill_held = self._fills(rows, values, t, fills)
            more = (t < throws)[:, None]
            if t == 1:
                best = fill_all if keep_next is None else np.where(
                    more, np.maximum(fill_all, self.best_keep(keep_next)), fill_all)
                result["start"] = best @ self.probabilities
                result["E1"] = best
                break
            if model.rules.held_dice_locked:
                keep = self._locked_keep_values(fill_all, fill_held, keep_next, more)
            else:
                if keep_next is not None:
                    continuing = self.best_keep(keep_next)
                    fill_all = np.where(more, np.maximum(fill_all, continuing), fill_all)
                    fill_held = np.where(more, np.maximum(fill_held, continuing), fill_held)
                keep = self.keep_values(fill_all, fill_held)
            result[t] = keep
            keep_next = keep
        return result

    def keep_values(self, after_all: np.ndarray, after_held: np.ndarray) -> np.ndarray:
        """K over every multiset: the mean over one more die, down from the full rolls; the
        empty keep (all dice thrown) from the rolls of a throw of all the dice."""
        keep = np.empty((after_held.shape[0], self.multisets))
        keep[:, self.levels[self.n]] = after_held
        for size in range(self.n - 1, -1, -1):
            index = self.levels[size]
            keep[:, index] = keep[:, self.add[index]].mean(axis=2)
        keep[:, 0] = after_all @ self.probabilities
        return keep

    def best_keep(self, keep: np.ndarray) -> np.ndarray:
        """For each roll, the best K over the multisets it may keep (all but every die)."""
        best = np.empty_like(keep)
        best[:, 0] = keep[:, 0]
        for size in range(1, self.n):
            index = self.levels[size]
            best[:, index] = np.maximum(keep[:, index], best[:, self.take[index, :size]].max(axis=2))
        return best[:, self.take[self.levels[self.n], :self.n]].max(axis=2)

    # --- filling a box ------------------------------------------------------------------------------

    def _fills(self, rows: Rows, values: np.ndarray, t: int, cache: dict) -> tuple[np.ndarray, np.ndarray]:
        """fill_t for rolls of a throw of all the dice and for rolls with dice held."""
        model = self.model
        spec = model.rules.turn_over
        turning = spec is not None and t >= spec.from_throw
        if model.max_bank:
            cache.clear()  # the bank after a fill depends on t: nothing to reuse, and memory to spare
        key = (0 if model.contexts_alike else min(t, 2), turning)
        if key not in cache:
            first, later_all, later_held = model.tables
            if turning:
                cache[key] = self._fill_turning(rows, values, t)
            elif t == 1:
                fill = self.fill(rows, values, t, first)
                cache[key] = (fill, fill)
            elif model.contexts_alike:
                fill = self.fill(rows, values, t, later_held)
                cache[key] = (fill, fill)
            else:
                cache[key] = (self.fill(rows, values, t, later_all), self.fill(rows, values, t, later_held))
        return cache[key]

    def fill(self, rows: Rows, values: np.ndarray, t: int, table: ScoreTable,
             best_open: np.ndarray | None = None) -> np.ndarray:
        """The best fill for each row and outcome of the table: the box's points, the bonuses
        earned, and V of the position left, worked out once per distinct points of the box.
        best_open, if given, receives the most points any fillable open box would score
        (cacho's second turn)."""
        model = self.model
        count, outcomes = len(rows), table.codes.shape[1]
        variant = model.variant(rows.open_boxes, rows.flags)
        one_variant = table.codes.shape[0] == 1
        bank = np.clip(rows.bank + model.rules.throws - t, 0, model.max_bank) if model.max_bank else rows.bank
        best = np.full((count, outcomes), NEG)
        best_scoring = np.full((count, outcomes), NEG) if model.rules.cross_out_only_when_nothing_scores else None
        jokers = np.flatnonzero(model.joker_rolls >= 0) if outcomes == self.rolls else np.array([], dtype=np.int64)
        if jokers.size:
            joker_allowed = model.joker_allowed[rows.open_boxes]
            joker_active = model.joker_active[rows.open_boxes]
        progress = rows.progress[:, None]

        def spread(per_value: np.ndarray, c: int) -> np.ndarray:
            """Per distinct value (rows x values) to per outcome (rows x outcomes)."""
            codes = table.codes[:, :, c]
            spread_out = per_value[:, codes[0]] if one_variant else np.take_along_axis(per_value, codes[variant], axis=1)
            if jokers.size:
                as_joker = per_value[:, table.joker_codes[:, c]]
                spread_out[:, jokers] = np.where(joker_active, as_joker, spread_out[:, jokers])
            return spread_out

        for c in range(model.boxes):
            open_c = ((rows.open_boxes >> c) & 1).astype(bool)
            if model.opens_after[c] >= 0:
                open_c &= ~((rows.open_boxes >> model.opens_after[c]) & 1).astype(bool)
            if not open_c.any():
                continue
            points = table.values[c][None, :]
            after, reward = progress, 0
            if model.progress_boxes[c]:
                after = np.minimum(progress + points, model.threshold)
                reward = np.where((progress < model.threshold) & (after >= model.threshold), model.threshold_bonus, 0)
            flags = rows.flags[:, None]
            if model.flag_of_box[c]:
                flags = np.where(points > 0, flags | model.flag_of_box[c], flags)
            index = model.flat_index((rows.open_boxes - (1 << c))[:, None], flags, after, bank[:, None])
            per_value = np.where(open_c[:, None], points + reward + values[index], NEG)
            value = spread(per_value, c)
            if jokers.size:
                value[:, jokers] = np.where(joker_allowed[:, :, c], value[:, jokers], NEG)
            np.maximum(best, value, out=best)
            if best_scoring is not None:
                np.maximum(best_scoring, spread(np.where(points > 0, per_value, NEG), c), out=best_scoring)
            if best_open is not None:
                np.maximum(best_open, spread(np.where(open_c[:, None], points, 0), c), out=best_open)
        if best_scoring is not None:
            best = np.where(best_scoring > NEG / 2, best_scoring, best)
        extra = table.extra[0][None, :] if one_variant else table.extra[variant]
        return best + extra

    def _fill_turning(self, rows: Rows, values: np.ndarray, t: int) -> tuple[np.ndarray, np.ndarray]:
        """Cacho after a throw from `from_throw` on: the best of every way of turning dice
        over (none, one, a second that raises the best open points), then filling."""
        outcomes = self.model.turn_outcomes
        best_open = np.zeros((len(rows), len(outcomes.parent)))
        value = self.fill(rows, values, t, outcomes.table, best_open=best_open)
        valid = np.ones_like(value, dtype=bool)
        none, second = outcomes.kind == 0, outcomes.kind == 2
        valid[:, none] = outcomes.no_turn_allowed[none]
        valid[:, second] = best_open[:, second] > best_open[:, outcomes.first[second]]
        per_parent = np.maximum.reduceat(np.where(valid, value, NEG), self.parent_starts, axis=1)
        return per_parent[:, :self.rolls], per_parent[:, self.rolls:]

    # --- held dice locked (Generala's reglamento) -------------------------------------------------

    def _build_locked(self) -> None:
        """Index maps for turns whose state is (locked dice k, dice thrown o): every pair,
        and every (k, s) with s a proper part of some o, for the best keep containing k."""
        space = self.model.space
        n = self.n
        pairs, pair_children = [], []
        grid: dict[tuple[int, tuple[int, ...]], int] = {}
        grid_rows: list[tuple[int, int, list]] = []  # multiset index of k + s, |s|, children
        keeps = [m for m in space.multisets if len(m) < n]
        for k in keeps:
            for size in range(n - len(k)):
                for s in multisets_of(size):
                    grid[(space.index[k], s)] = len(grid)
        for (k_index, s), _ in grid.items():
            k = space.multisets[k_index]
            children = [grid[(k_index, without(s, f))] for f in sorted(set(s))]
            grid_rows.append((space.index[tuple(sorted(k + s))], len(s), children))
        for k in keeps:
            for o in multisets_of(n - len(k)):
                pairs.append((space.index[k], space.roll_index[tuple(sorted(k + o))],
                              probability(o), len(k) == 0))
                pair_children.append([grid[(space.index[k], without(o, f))] for f in sorted(set(o))])
        self.pair_keep = np.array([p[0] for p in pairs])
        self.pair_roll = np.array([p[1] for p in pairs])
        self.pair_probability = np.array([p[2] for p in pairs])
        self.pair_all_dice = np.array([p[3] for p in pairs])
        self.pair_children = _padded(pair_children)
        self.pair_starts = np.flatnonzero(np.r_[True, self.pair_keep[1:] != self.pair_keep[:-1]])
        self.locked_keeps = self.pair_keep[self.pair_starts]
        self.grid_multiset = np.array([g[0] for g in grid_rows])
        self.grid_levels = [np.array([i for i, g in enumerate(grid_rows) if g[1] == size], dtype=np.int64)
                            for size in range(n)]
        self.grid_children = _padded([g[2] or [i] for i, g in enumerate(grid_rows)])

    def _locked_keep_values(self, fill_all: np.ndarray, fill_held: np.ndarray, keep_next: np.ndarray | None,
                            more: np.ndarray) -> np.ndarray:
        value = np.where(self.pair_all_dice[None, :], fill_all[:, self.pair_roll], fill_held[:, self.pair_roll])
        if keep_next is not None:
            grid = np.empty((value.shape[0], len(self.grid_multiset)))
            for size, index in enumerate(self.grid_levels):
                base = keep_next[:, self.grid_multiset[index]]
                if size:
                    base = np.maximum(base, grid[:, self.grid_children[index]].max(axis=2))
                grid[:, index] = base
            value = np.where(more, np.maximum(value, grid[:, self.pair_children].max(axis=2)), value)
        keep = np.full((value.shape[0], self.multisets), NEG)
        keep[:, self.locked_keeps] = np.add.reduceat(value * self.pair_probability, self.pair_starts, axis=1)
        return keep


# --- the whole game --------------------------------------------------------------------------------


def solve(model: GameModel, chunk: int = 128, report: Callable[[int, int, float], None] | None = None,
          within: int | None = None) -> np.ndarray:
    """V for every position (unreachable ones 0), shape model.shape, float64. `within`:
    only positions whose open boxes are among these (a bit set; the others stay 0)."""
    values = np.zeros(int(np.prod(model.shape)))
    solver = TurnSolver(model)
    reachable = model.reachable
    popcount = np.array([bin(o).count("1") for o in range(model.open_sets)])
    inside = np.ones(model.open_sets, dtype=bool) if within is None else (np.arange(model.open_sets) & ~within) == 0
    started = time.perf_counter()
    for level in range(1, model.boxes + 1):
        open_sets = np.flatnonzero((popcount == level) & inside)
        which, flags, progress, bank = np.nonzero(reachable[open_sets])
        open_boxes = open_sets[which]
        for begin in range(0, len(open_boxes), chunk):
            part = slice(begin, begin + chunk)
            rows = Rows(open_boxes[part], flags[part], progress[part], bank[part])
            start = solver.run(rows, values)["start"]
            values[model.flat_index(rows.open_boxes, rows.flags, rows.progress, rows.bank)] = start
        if report is not None:
            report(level, len(open_boxes), time.perf_counter() - started)
    return values.reshape(model.shape)


def _padded(lists: list[list[int]]) -> np.ndarray:
    """Lists of indices as a rectangle, short lists padded with their first entry."""
    width = max(len(entry) for entry in lists)
    return np.array([entry + [entry[0]] * (width - len(entry)) for entry in lists], dtype=np.int64)
