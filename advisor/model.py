"""A sheet game as the solver sees it, read from the engine's `Rules` and scored by the engine.

Between turns a player's position is (open boxes, flags, progress, bank):
- open boxes: a bit per box of the sheet, set while the box is open;
- flags: a bit per tracked box (one another rule looks at: the yahtzee box for the yahtzee
  bonus, generala for double generala), set once it holds points;
- progress: the points in the boxes of the threshold bonus (Yahtzee's upper boxes), capped
  at the threshold;
- bank: spare throws banked (goldene-fuenfzig).
Nothing else on the sheet changes what the dice can score later.

What the dice score is asked of the engine once per roll and context (first throw, a later
throw of all the dice, a later throw with dice held) and per variant of the tracked boxes
(`points`). What the solver does with those points follows the same rules data: which boxes
are fillable (open, opens_after, the joker, crossing out), the bonus lines, turning dice
over (cacho). Instant wins are not played: a combination that would win at once scores its
box and the game goes on (GAMES.md: the advisor counts an instant win as its box's points).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np

from advisor.dice_space import DiceSpace
from engine import Rules
from engine.rules import Category
from engine.scoring import (
    extra_bonus, face_box, hypothetical_turn, joker_active, joker_boxes, score_category, turn_over_required,
)
from engine.sheet import Mark, Sheet
from engine.state import Turn

FIRST, LATER_ALL, LATER_HELD = 0, 1, 2  # the contexts a roll is scored in
CONTEXT_TURNS = {FIRST: (1, 0), LATER_ALL: (2, 0), LATER_HELD: (2, 1)}  # (throw, dice held)


class NotASheetGame(ValueError):
    """The game has no score sheet to play well (poker dice), or rules the solver lacks."""


@dataclass(frozen=True)
class Position:
    """A player's position between turns, as the solver indexes it."""

    open_boxes: int
    flags: int = 0
    progress: int = 0
    bank: int = 0


@dataclass(frozen=True)
class ScoreTable:
    """What some outcomes score: points[variant, outcome, box] as the engine says, the bonus
    any fill earns extra[variant, outcome], and the points again as codes[variant, outcome,
    box] into values[box], the box's distinct points (the solver works per distinct value).
    joker_codes[joker roll, box] codes the joker's points."""

    points: np.ndarray
    extra: np.ndarray
    values: tuple[np.ndarray, ...]
    codes: np.ndarray
    joker_codes: np.ndarray


def score_table(points: np.ndarray, extra: np.ndarray, joker_points: np.ndarray | None = None) -> ScoreTable:
    boxes = points.shape[2]
    joker = np.zeros((0, boxes), dtype=np.int64) if joker_points is None else joker_points
    values = tuple(np.unique(np.concatenate([points[:, :, c].ravel(), joker[:, c]])) for c in range(boxes))
    codes = np.stack([np.searchsorted(values[c], points[:, :, c]) for c in range(boxes)], axis=2)
    joker_codes = np.stack([np.searchsorted(values[c], joker[:, c]) for c in range(boxes)], axis=1) \
        if len(joker) else np.zeros((0, boxes), dtype=np.int64)
    return ScoreTable(points, extra, values, codes, joker_codes)


@dataclass(frozen=True)
class TurnOutcomes:
    """Cacho: every way of turning dice over after a throw from `from_throw` on. An outcome
    j comes from parent = s * rolls + roll (s: 0 the throw was of all the dice, 1 dice were
    held); kind 0 turns nothing (allowed unless a turn is required), 1 one die, 2 a second
    die after outcome first[j] (allowed only if that raises the best open points)."""

    parent: np.ndarray
    kind: np.ndarray
    first: np.ndarray
    no_turn_allowed: np.ndarray
    table: ScoreTable


class GameModel:
    """The solver's view of one game with one set of options."""

    def __init__(self, rules: Rules) -> None:
        if rules.match is not None:
            raise NotASheetGame("a match of rounds has no score sheet to play")
        if len(rules.threshold_bonuses) > 1:
            raise NotASheetGame("the solver plays at most one threshold bonus")
        if rules.spare_throw_bank and rules.held_dice_locked:
            raise NotASheetGame("the solver does not play spare throws with held dice locked")
        self.rules = rules
        self.space = DiceSpace(rules.dice)
        self.categories: tuple[Category, ...] = rules.categories
        self.boxes = len(self.categories)
        self.box_index = {c.id: i for i, c in enumerate(self.categories)}
        threshold = rules.threshold_bonuses[0] if rules.threshold_bonuses else None
        self.threshold = threshold.threshold if threshold else 0
        self.threshold_bonus = threshold.bonus if threshold else 0
        self.progress_boxes = np.array([threshold is not None and c.id in threshold.boxes for c in self.categories])
        tracked = {c.needs_positive for c in self.categories if c.needs_positive}
        if rules.extra_bonus is not None:
            tracked.add(rules.extra_bonus.box)
        self.tracked: tuple[str, ...] = tuple(sorted(tracked, key=self.box_index.__getitem__))
        self.flag_bit = {box: 1 << i for i, box in enumerate(self.tracked)}
        self.flag_of_box = np.array([self.flag_bit.get(c.id, 0) for c in self.categories])
        self.opens_after = np.array([-1 if c.opens_after is None else self.box_index[c.opens_after]
                                     for c in self.categories])
        self.joker_box = -1 if rules.joker is None else self.box_index[rules.joker.box]
        self.max_bank = (rules.throws - 1) * (self.boxes - 1) if rules.spare_throw_bank else 0

    # --- dimensions of the table ------------------------------------------------------------

    @property
    def open_sets(self) -> int:
        return 1 << self.boxes

    @property
    def flag_values(self) -> int:
        return 1 << len(self.tracked)

    @property
    def progress_values(self) -> int:
        return self.threshold + 1

    @property
    def bank_values(self) -> int:
        return self.max_bank + 1

    @property
    def shape(self) -> tuple[int, int, int, int]:
        return (self.open_sets, self.flag_values, self.progress_values, self.bank_values)

    def flat_index(self, open_boxes, flags, progress, bank):
        return ((open_boxes * self.flag_values + flags) * self.progress_values + progress) * self.bank_values + bank

    # --- the variants of the sheet that change what dice score ----------------------------

    @property
    def variants(self) -> int:
        """Variant = joker box filled (0/1) x flags."""
        return 2 * self.flag_values if self.joker_box >= 0 else self.flag_values

    def variant(self, open_boxes, flags):
        """The variant index of positions (arrays or ints)."""
        if self.joker_box < 0:
            return flags
        joker_filled = 1 - ((open_boxes >> self.joker_box) & 1)
        return joker_filled * self.flag_values + flags

    def variant_sheet(self, variant: int) -> Sheet:
        """A sheet that scores like every position of this variant: all boxes open but the
        tracked boxes holding points and the joker box if filled."""
        joker_filled, flags = divmod(variant, self.flag_values) if self.joker_box >= 0 else (0, variant)
        sheet = self.rules.empty_sheet()
        for box, bit in self.flag_bit.items():
            if flags & bit:
                sheet = sheet.with_mark(box, Mark(points=self._positive_points(box)))
        if joker_filled and sheet.is_open(self.rules.joker.box):
            sheet = sheet.with_mark(self.rules.joker.box, Mark(points=0, scratched=True))
        return sheet

    def _positive_points(self, box: str) -> int:
        category = self.rules.category(box)
        return max(category.points(roll, False) for roll in self.space.rolls if category.qualifies(roll)) or 1

    # --- what every roll scores --------------------------------------------------------------

    @cached_property
    def points(self) -> np.ndarray:
        """points[context, variant, roll, box]: the engine's points for the roll in the box."""
        table = np.zeros((3, self.variants, len(self.space.rolls), self.boxes), dtype=np.int64)
        sheets = [self.variant_sheet(v) for v in range(self.variants)]
        for context, (throw, held) in CONTEXT_TURNS.items():
            for r, roll in enumerate(self.space.rolls):
                turn = hypothetical_turn(roll, throw, held)
                for v, sheet in enumerate(sheets):
                    for c, category in enumerate(self.categories):
                        table[context, v, r, c] = score_category(self.rules, category, turn, sheet).points
        return table

    @cached_property
    def extra(self) -> np.ndarray:
        """extra[variant, roll]: the bonus any fill with the roll earns (a yahtzee bonus)."""
        table = np.zeros((self.variants, len(self.space.rolls)), dtype=np.int64)
        for v in range(self.variants):
            sheet = self.variant_sheet(v)
            for r, roll in enumerate(self.space.rolls):
                table[v, r] = extra_bonus(self.rules, hypothetical_turn(roll), sheet)
        return table

    @cached_property
    def tables(self) -> tuple[ScoreTable, ScoreTable, ScoreTable]:
        """The score tables of the contexts FIRST, LATER_ALL, LATER_HELD."""
        joker = self.joker_points if self.joker_box >= 0 else None
        return tuple(score_table(self.points[context], self.extra, joker) for context in (FIRST, LATER_ALL, LATER_HELD))

    @cached_property
    def contexts_alike(self) -> bool:
        """Every context scores alike (no served values, no later-throws-only box)."""
        return bool((self.points == self.points[FIRST]).all())

    # --- the joker --------------------------------------------------------------------------

    @cached_property
    def joker_rolls(self) -> np.ndarray:
        """For each roll, its index among the rolls the joker applies to, or -1."""
        index = np.full(len(self.space.rolls), -1)
        if self.rules.joker is not None:
            hits = [r for r, roll in enumerate(self.space.rolls) if self.rules.joker.dice(roll)]
            index[hits] = np.arange(len(hits))
        return index

    @cached_property
    def joker_allowed(self) -> np.ndarray:
        """joker_allowed[open boxes, joker roll, box]: the box may take that roll under a
        forced joker (the engine's joker_boxes on a sheet with those boxes open)."""
        table = np.ones((self.open_sets, len(self._joker_roll_values), self.boxes), dtype=bool)
        for open_boxes, sheet in self._joker_sheets():
            for j, roll in enumerate(self._joker_roll_values):
                allowed = joker_boxes(self.rules, hypothetical_turn(roll), sheet)
                if allowed is not None:
                    table[open_boxes, j] = [c.id in allowed for c in self.categories]
        return table

    @cached_property
    def joker_active(self) -> np.ndarray:
        """joker_active[open boxes, joker roll]: the roll is a joker on such a sheet (its box
        and the matching face box filled), scoring joker_points."""
        table = np.zeros((self.open_sets, len(self._joker_roll_values)), dtype=bool)
        for open_boxes, sheet in self._joker_sheets():
            table[open_boxes] = [joker_active(self.rules, roll, sheet) for roll in self._joker_roll_values]
        return table

    @cached_property
    def joker_points(self) -> np.ndarray:
        """joker_points[joker roll, box]: what the roll scores in each box as a joker."""
        table = np.zeros((len(self._joker_roll_values), self.boxes), dtype=np.int64)
        for j, roll in enumerate(self._joker_roll_values):
            sheet = self.rules.empty_sheet()
            for box in (self.rules.joker.box, face_box(self.rules, roll[0])):
                if box is not None:
                    sheet = sheet.with_mark(box, Mark(points=0, scratched=True))
            turn = hypothetical_turn(roll)
            table[j] = [score_category(self.rules, c, turn, sheet).points for c in self.categories]
        return table

    @cached_property
    def _joker_roll_values(self) -> list[tuple[int, ...]]:
        return [self.space.rolls[r] for r in np.flatnonzero(self.joker_rolls >= 0)]

    def _joker_sheets(self):
        """Every open-box set with the joker box filled, with a sheet of it."""
        if self.joker_box < 0:
            return
        if not self.contexts_alike:
            raise NotASheetGame("the solver plays the joker only where no throw scores differently")
        for open_boxes in range(self.open_sets):
            if not (open_boxes >> self.joker_box) & 1:
                yield open_boxes, self.sheet_of(open_boxes)

    def sheet_of(self, open_boxes: int) -> Sheet:
        """A sheet with exactly these boxes open (the filled ones crossed out)."""
        sheet = self.rules.empty_sheet()
        for c, category in enumerate(self.categories):
            if not (open_boxes >> c) & 1:
                sheet = sheet.with_mark(category.id, Mark(points=0, scratched=True))
        return sheet

    # --- turning dice over (cacho) ------------------------------------------------------------

    @cached_property
    def turn_outcomes(self) -> TurnOutcomes | None:
        spec = self.rules.turn_over
        if spec is None:
            return None
        if self.joker_box >= 0:
            raise NotASheetGame("the solver does not play the joker with dice turned over")
        sheets = [self.variant_sheet(v) for v in range(self.variants)]
        rows: list[tuple[int, int, int, bool, Turn]] = []  # parent, kind, first, no turn allowed, turn
        rolls = self.space.rolls
        for held in (0, 1):
            for r, roll in enumerate(rolls):
                parent = held * len(rolls) + r
                turn = hypothetical_turn(roll, spec.from_throw, held)
                rows.append((parent, 0, -1, not turn_over_required(self.rules, turn), turn))
                for i in _first_die_of_each_face(roll):
                    once = Turn(0, turn.throws, (i,))
                    first = len(rows)
                    rows.append((parent, 1, -1, True, once))
                    if spec.max_dice >= 2:
                        for j in _first_die_of_each_face(roll, skip=i):
                            rows.append((parent, 2, first, True, Turn(0, turn.throws, (i, j))))
        points = np.zeros((self.variants, len(rows), self.boxes), dtype=np.int64)
        extra = np.zeros((self.variants, len(rows)), dtype=np.int64)
        for v, sheet in enumerate(sheets):
            for o, (*_, turn) in enumerate(rows):
                for c, category in enumerate(self.categories):
                    points[v, o, c] = score_category(self.rules, category, turn, sheet).points
                extra[v, o] = extra_bonus(self.rules, turn, sheet)
        return TurnOutcomes(
            parent=np.array([row[0] for row in rows]), kind=np.array([row[1] for row in rows]),
            first=np.array([row[2] for row in rows]), no_turn_allowed=np.array([row[3] for row in rows]),
            table=score_table(points, extra))

    # --- which positions can happen ------------------------------------------------------------

    @cached_property
    def reachable(self) -> np.ndarray:
        """reachable[open boxes, flags, progress, bank]: a position some game can reach."""
        ok = np.zeros(self.shape, dtype=bool)
        progress_ok = self._reachable_progress()
        filled_counts = np.array([self.boxes - bin(o).count("1") for o in range(self.open_sets)])
        tracked_bits = np.array([self.flag_bit[box] for box in self.tracked], dtype=np.int64)
        tracked_boxes = np.array([self.box_index[box] for box in self.tracked], dtype=np.int64)
        for open_boxes in range(self.open_sets):
            allowed_flags = 0
            for bit, box in zip(tracked_bits, tracked_boxes):
                if not (open_boxes >> box) & 1:
                    allowed_flags |= int(bit)
            flags = [f for f in range(self.flag_values) if f & ~allowed_flags == 0]
            banks = min(self.max_bank, (self.rules.throws - 1) * filled_counts[open_boxes]) + 1
            filled_progress = self._progress_key(open_boxes)
            for f in flags:
                ok[open_boxes, f, :, :banks] = progress_ok[filled_progress][:, None]
        return ok

    def _progress_key(self, open_boxes: int) -> int:
        """The filled threshold boxes as a bit set over those boxes."""
        key = 0
        for i, c in enumerate(np.flatnonzero(self.progress_boxes)):
            if not (open_boxes >> int(c)) & 1:
                key |= 1 << i
        return key

    def _reachable_progress(self) -> np.ndarray:
        """For each set of filled threshold boxes, the capped totals they can hold."""
        boxes = np.flatnonzero(self.progress_boxes)
        table = np.zeros((1 << len(boxes), self.progress_values), dtype=bool)
        table[0, 0] = True
        values = [np.unique(self.points[:, :, :, c]) for c in boxes]
        for key in range(1, 1 << len(boxes)):
            low = key & -key
            i = low.bit_length() - 1
            before = np.flatnonzero(table[key ^ low])
            totals = np.minimum(self.threshold, (before[:, None] + values[i][None, :]).ravel())
            table[key, totals] = True
        return table

    # --- a sheet as a position -------------------------------------------------------------

    def position(self, sheet: Sheet, bank: int = 0) -> Position:
        open_boxes = sum(1 << c for c, category in enumerate(self.categories) if sheet.is_open(category.id))
        flags = sum(bit for box, bit in self.flag_bit.items() if (sheet.points(box) or 0) > 0)
        progress = 0
        if self.rules.threshold_bonuses:
            progress = min(self.threshold, self.rules.threshold_bonuses[0].progress(sheet))
        return Position(open_boxes, flags, progress, min(bank, self.max_bank))


def _first_die_of_each_face(roll: tuple[int, ...], skip: int = -1) -> list[int]:
    """One die index per distinct face of the roll (dice of a face are interchangeable)."""
    seen: dict[int, int] = {}
    for i, value in enumerate(roll):
        if i != skip and value not in seen:
            seen[value] = i
    return list(seen.values())
