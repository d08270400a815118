"""Pure scoring: what the dice of a turn are worth in each category, and whether served.

These functions read the `Rules` data and a `Turn`; they know no game by name.
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.rules import Category, FixedPoints, Rules, SheetWin, ThrowWin
from engine.sheet import Sheet
from engine.state import ThrowRecord, Turn


def throw_is_served(rules: Rules, turn: Turn) -> bool:
    """The last throw, as thrown, counts as served (first throw / de mano)."""
    if not turn.throws or rules.served == "never":
        return False
    if rules.served == "first_throw":
        return turn.throw_number == 1
    return turn.all_dice_thrown


def category_is_served(rules: Rules, category: Category, turn: Turn) -> bool:
    """The category, made with the dice showing, counts as served (de mano).

    A combination that needs a turned die is not served when the rules say turning breaks
    it; one the dice made as thrown stays served even if a die was turned afterwards."""
    if not throw_is_served(rules, turn):
        return False
    if not turn.turned or rules.turn_over is None or not rules.turn_over.breaks_served:
        return True
    return category.qualifies(turn.thrown_values)


@dataclass(frozen=True)
class CategoryResult:
    category: Category
    qualifies: bool
    points: int
    served: bool  # the points are the served (de mano) value
    joker: bool = False  # the points are the joker's


def score_category(rules: Rules, category: Category, turn: Turn, sheet: Sheet | None = None) -> CategoryResult:
    """What filling `category` with the turn's dice would score. `sheet` is the player's
    column (for categories that depend on another box, and the joker); None means every
    box is open."""
    dice = turn.dice
    if sheet is not None and joker_active(rules, dice, sheet):
        joker_points = rules.joker.points_for(category.id)
        if joker_points is not None:
            return CategoryResult(category, True, joker_points, False, joker=True)
    qualifies = category.qualifies(dice)
    if category.later_throws_only and turn.throw_number <= 1:
        qualifies = False
    if category.needs_positive is not None:
        other = None if sheet is None else sheet.points(category.needs_positive)
        qualifies = qualifies and other is not None and other > 0
    if not qualifies:
        return CategoryResult(category, False, 0, False)
    served = category_is_served(rules, category, turn)
    uses_served_value = served and isinstance(category.points, FixedPoints) and category.points.has_served_value
    return CategoryResult(category, True, category.points(dice, served), uses_served_value)


def score_turn(rules: Rules, turn: Turn, sheet: Sheet | None = None) -> tuple[CategoryResult, ...]:
    """Every category of the game, in sheet order, scored with the turn's dice."""
    return tuple(score_category(rules, category, turn, sheet) for category in rules.categories)


def best_open_points(rules: Rules, turn: Turn, sheet: Sheet) -> int:
    """The most the dice showing score in a box the player may fill now (0 if none)."""
    return max((r.points for r in score_turn(rules, turn, sheet)
                if sheet.is_open(r.category.id)
                and (r.category.opens_after is None or not sheet.is_open(r.category.opens_after))), default=0)


def face_box(rules: Rules, face: int) -> str | None:
    """The box that counts dice of this face (ones ... sixes), if the game has one."""
    return next((c.id for c in rules.categories if c.face == face), None)


def joker_active(rules: Rules, dice: tuple[int, ...], sheet: Sheet) -> bool:
    """The dice are a joker: the joker's dice, with its box and the matching face box filled."""
    joker = rules.joker
    if joker is None or not joker.dice(dice) or sheet.is_open(joker.box):
        return False
    matching = face_box(rules, dice[0])
    return matching is None or not sheet.is_open(matching)


def joker_boxes(rules: Rules, turn: Turn, sheet: Sheet) -> frozenset[str] | None:
    """The open boxes a forced joker lets the player fill with the dice showing, or None when
    the joker rule puts no limit on them (no joker, not its dice, its box open, or a free
    joker)."""
    joker = rules.joker
    if joker is None or not joker.forced or not joker.dice(turn.dice) or sheet.is_open(joker.box):
        return None
    matching = face_box(rules, turn.dice[0])
    if matching is not None and sheet.is_open(matching):
        return frozenset({matching})
    open_boxes = [c for c in rules.categories if sheet.is_open(c.id)]
    lower = frozenset(c.id for c in open_boxes if c.face is None)
    return lower or frozenset(c.id for c in open_boxes)


def extra_bonus(rules: Rules, turn: Turn, sheet: Sheet) -> int:
    """What filling any box with the dice showing earns besides the box (a yahtzee bonus)."""
    bonus = rules.extra_bonus
    return 0 if bonus is None else bonus.earned(turn.dice, sheet)


def second_turn_improves(rules: Rules, turn: Turn, sheet: Sheet, die: int) -> bool:
    """Turning `die` over as the second die raises the best score the player can fill."""
    after = Turn(turn.player, turn.throws, turn.turned + (die,))
    return best_open_points(rules, after, sheet) > best_open_points(rules, turn, sheet)


def throw_win(rules: Rules, turn: Turn, sheet: Sheet) -> ThrowWin | None:
    """The instant win made by the last throw as thrown, if any (turned dice never count)."""
    served = throw_is_served(rules, turn)
    for rule in rules.instant_wins:
        if isinstance(rule, ThrowWin) and rule.made(turn.thrown_values, served, sheet):
            return rule
    return None


def throw_win_box(rules: Rules, rule_id: str, sheet: Sheet) -> str | None:
    """The box a win made by a throw is written in: the first open one of its boxes; None
    when it has none open (or no boxes at all)."""
    for rule in rules.instant_wins:
        if isinstance(rule, ThrowWin) and rule.id == rule_id:
            return next((box for box in rule.boxes if sheet.is_open(box)), None)
    return None


def sheet_win(rules: Rules, sheet: Sheet) -> SheetWin | None:
    """The instant win the player's sheet makes, if any (checked after every fill)."""
    for rule in rules.instant_wins:
        if isinstance(rule, SheetWin) and rule.made(sheet):
            return rule
    return None


def turn_over_required(rules: Rules, turn: Turn) -> bool:
    """A die must still be turned over before a box may be filled (cacho, 2 throws)."""
    spec = rules.turn_over
    if spec is None or not spec.required or turn.turned or turn.throw_number < spec.from_throw:
        return False
    return not (turn.all_dice_thrown and spec.exempt(turn.thrown_values))


def hypothetical_turn(values: tuple[int, ...], throw: int = 1, held: int = 0) -> Turn:
    """A turn whose throw number `throw` left `values` with `held` dice kept from before
    (the first `held` dice): what `cubilete score` scores."""
    everything = tuple(range(len(values)))
    earlier = tuple(ThrowRecord(values, everything) for _ in range(throw - 1))
    last = ThrowRecord(values, everything[held:])
    return Turn(player=0, throws=earlier + (last,))
