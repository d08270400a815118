"""What the display needs: what the current player may do now, and every box they may fill
with its points and why, best first."""

from __future__ import annotations

from dataclasses import dataclass

from engine import events
from engine.fold import apply
from engine.rules import Category, Rules
from engine.scoring import (
    extra_bonus, hypothetical_turn, joker_boxes, score_category, score_turn, second_turn_improves, sheet_win,
    throw_is_served, throw_win, throw_win_box, turn_over_required,
)
from engine.sheet import Mark
from engine.state import GameState

# Reasons (stable ids; the display translates them).
SERVED = "served"                      # the served value of a first-throw combination
DE_MANO = "de_mano"                    # cacho: made by a throw of all five dice
DE_HUEVO = "de_huevo"                  # cacho: made otherwise (held or turned dice)
SCRATCH = "scratch"                    # the dice do not qualify: filling it scores 0
TURN_REQUIRED = "turn_required"        # a die must be turned over first
NO_CROSSING_OUT = "crossing_out_not_allowed"  # cacho: another open box scores, so no 0 here
INSTANT_WIN = "instant_win"            # filling this box wins the game at once
JOKER = "joker"                        # yahtzee: the joker's points (five of a face as full house ...)
JOKER_BOX = "joker_box"                # yahtzee: the joker sends these dice to another box
EXTRA_BONUS = "extra_bonus"            # yahtzee: filling any box with these dice earns the bonus


@dataclass(frozen=True)
class ScoreOption:
    """A box the player may fill. The names are the box's, or what the dice make where the
    box is named by them (poker dice's hand). `bonus` is earned besides the box's points
    (a yahtzee bonus, on its own line of the sheet)."""

    category: str
    name_en: str
    name_es: str
    points: int
    reasons: tuple[str, ...]
    allowed: bool  # False: shown for information, the fill would be refused now
    bonus: int = 0


@dataclass(frozen=True)
class TurnActions:
    """What the current player may do next.

    rethrowable: the dice the next throw may include (all of them for the first throw;
    must_throw_all says the next throw must be of all dice). turnable: the dice that may be
    turned over now. may_cross_out: a box may be filled with 0 now. bank: spare throws
    (goldene-fuenfzig), counted in max_throws. may_correct / may_undo_throw: the current
    throw's reading may be corrected / the throw taken back; may_undo: the last filled box
    may be taken back."""

    player: int
    finished: bool
    throw_number: int
    max_throws: int
    may_throw: bool
    must_throw_all: bool
    rethrowable: tuple[int, ...]
    must_turn: bool
    may_turn: bool
    turnable: tuple[int, ...]
    may_fill: bool
    may_cross_out: bool
    bank: int
    may_correct: bool
    may_undo_throw: bool
    may_undo: bool


def turn_actions(state: GameState) -> TurnActions:
    rules, turn = state.rules, state.turn
    finished = state.finished
    spec = rules.turn_over
    thrown = turn.throw_number > 0
    may_throw = not finished and turn.throw_number < state.max_throws and not turn.turned
    if not may_throw:
        rethrowable: tuple[int, ...] = ()
    elif not thrown:
        rethrowable = tuple(range(rules.dice))
    else:
        locked = turn.locked if rules.held_dice_locked else frozenset()
        rethrowable = tuple(i for i in range(rules.dice) if i not in locked)
    may_turn = (not finished and spec is not None and turn.throw_number >= spec.from_throw
                and len(turn.turned) < spec.max_dice)
    sheet = state.sheets[turn.player]
    turnable = tuple(i for i in range(rules.dice) if i not in turn.turned
                     and (not turn.turned or second_turn_improves(rules, turn, sheet, i))) if may_turn else ()
    may_turn = bool(turnable)
    must_turn = not finished and thrown and turn_over_required(rules, turn)
    may_fill = not finished and thrown and not must_turn
    options = score_options(state) if may_fill else []
    throw_may_change = thrown and (not finished or (state.instant_win is not None and state.instant_win.open))
    return TurnActions(
        player=turn.player, finished=finished, throw_number=turn.throw_number, max_throws=state.max_throws,
        may_throw=may_throw, must_throw_all=may_throw and not thrown, rethrowable=rethrowable,
        must_turn=must_turn, may_turn=may_turn, turnable=turnable, may_fill=may_fill,
        may_cross_out=rules.match is None and any(o.allowed and o.points == 0 for o in options),
        bank=state.banks[turn.player] if rules.spare_throw_bank else 0,
        may_correct=throw_may_change, may_undo_throw=throw_may_change,
        may_undo=state.undo_point is not None,
    )


def score_options(state: GameState) -> list[ScoreOption]:
    """Every box the current player may fill with the dice showing, best first.

    Empty before the first throw and once the game is over. A box that opens only after
    another (cacho's second grande) is left out until then. When a die must be turned over
    first, the options are listed with allowed=False and the reason turn_required; boxes the
    joker does not allow have allowed=False and the reason joker_box. In a match (poker
    dice) the one option is the hand, which is never a scratch."""
    rules, turn = state.rules, state.turn
    if state.finished or not turn.throws:
        return []
    sheet = state.sheets[turn.player]
    must_turn = turn_over_required(rules, turn)
    joker_allows = joker_boxes(rules, turn, sheet)
    bonus = extra_bonus(rules, turn, sheet)
    results = [r for r in score_turn(rules, turn, sheet)
               if sheet.is_open(r.category.id)
               and (r.category.opens_after is None or not sheet.is_open(r.category.opens_after))]
    anything_scores = any(r.points > 0 for r in results)
    options = []
    for r in results:
        reasons: list[str] = []
        if r.qualifies and r.served:
            reasons.append(DE_MANO if rules.de_mano else SERVED)
        elif r.qualifies and rules.de_mano and _has_served_value(r.category):
            reasons.append(DE_HUEVO)
        if r.joker:
            reasons.append(JOKER)
        if r.points == 0 and rules.match is None:
            reasons.append(SCRATCH)
        if bonus:
            reasons.append(EXTRA_BONUS)
        allowed = True
        if must_turn:
            reasons.append(TURN_REQUIRED)
            allowed = False
        if r.points == 0 and rules.cross_out_only_when_nothing_scores and anything_scores:
            reasons.append(NO_CROSSING_OUT)
            allowed = False
        if joker_allows is not None and r.category.id not in joker_allows:
            reasons.append(JOKER_BOX)
            allowed = False
        mark = Mark(r.points, r.points == 0, r.served, turn.throw_number, bonus)
        if sheet_win(rules, sheet.with_mark(r.category.id, mark)) is not None:
            reasons.append(INSTANT_WIN)
        name_en, name_es = (r.category.name_en, r.category.name_es) if r.category.describe is None \
            else r.category.describe(turn.dice)
        options.append(ScoreOption(r.category.id, name_en, name_es, r.points, tuple(reasons), allowed, bonus))
    order = {c: i for i, c in enumerate(rules.category_ids)}
    options.sort(key=lambda o: (not o.allowed, INSTANT_WIN not in o.reasons, -o.points, order[o.category]))
    return options


def win_option(state: GameState) -> ScoreOption | None:
    """The box an instant win made by the last throw is written in, with its points, while
    the players have not confirmed it (category_scored of that box confirms it). None when
    there is no such win, or it has no open box (General's big general, a generala servida
    with the generala box filled): then there is nothing to write, the game is simply won."""
    win = state.instant_win
    if win is None or not win.open:
        return None
    rules, turn = state.rules, state.turn
    sheet = state.sheets[win.player]
    box = throw_win_box(rules, win.rule, sheet)
    if box is None:
        return None
    category = rules.category(box)
    result = score_category(rules, category, turn, sheet)
    reasons = ((DE_MANO if rules.de_mano else SERVED),) if result.served else ()
    return ScoreOption(box, category.name_en, category.name_es, result.points, reasons + (INSTANT_WIN,), True)


@dataclass(frozen=True)
class TurnChoice:
    """Turning `die` over would show `value`, leaving `dice`, whose best box is `best`."""

    die: int
    value: int
    dice: tuple[int, ...]
    best: ScoreOption | None


def turn_choices(state: GameState) -> list[TurnChoice]:
    """For each die that may be turned over now, what it would give; best first (cacho)."""
    choices = []
    for die in turn_actions(state).turnable:
        value = 7 - state.turn.dice[die]
        after = apply(state, events.die_turned(state.turn.player, die, value))
        allowed = [o for o in score_options(after) if o.allowed]
        choices.append(TurnChoice(die, value, after.turn.dice, allowed[0] if allowed else None))
    choices.sort(key=lambda c: -(c.best.points if c.best else 0))
    return choices


def _has_served_value(category: Category) -> bool:
    return getattr(category.points, "has_served_value", False)


@dataclass(frozen=True)
class RollScore:
    """What `cubilete score` prints: the dice scored in every category as if all were open."""

    served: bool
    instant_win: bool
    points: tuple[tuple[str, int], ...]


def score_roll(rules: Rules, dice: tuple[int, ...], throw: int = 1, held: int = 0) -> RollScore:
    """Score dice shown by throw number `throw` with `held` dice kept from earlier throws,
    every box open (so a box that needs another to hold points scores 0)."""
    turn = hypothetical_turn(tuple(dice), throw, held)
    empty = rules.empty_sheet()
    results = score_turn(rules, turn, empty)
    return RollScore(
        served=throw_is_served(rules, turn),
        instant_win=throw_win(rules, turn, empty) is not None,
        points=tuple((r.category.id, r.points) for r in results),
    )


