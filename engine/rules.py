"""The vocabulary a game definition is written in: categories, points, instant wins, options.

A `GameDef` names a game and its house-rule options; `GameDef.rules(options)` gives the
`Rules` the engine plays by: plain data plus pure predicates from `engine.dice`. The turn
and game logic (`engine.fold`) reads only these fields, so a new game is a new definition.

Besides the boxes, a game may have bonus lines (`ThresholdBonus`, `ExtraBonus`), a joker
rule (`Joker`) and, instead of a score sheet, a match of rounds (`Match`, poker dice).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property, lru_cache
from typing import Any, Callable, Literal, Mapping

from engine import dice as d
from engine.errors import BadOptionValue, UnknownOption
from engine.sheet import Sheet

# --- points ------------------------------------------------------------------------------


@dataclass(frozen=True)
class FacePoints:
    """The face value times the number of dice showing it."""

    face: int

    def __call__(self, dice: d.Dice, served: bool) -> int:
        return self.face * d.count_of(self.face, dice)


@dataclass(frozen=True)
class FixedPoints:
    """A fixed value, higher when the combination is served (first throw, de mano)."""

    points: int
    served_points: int | None = None

    def __call__(self, dice: d.Dice, served: bool) -> int:
        return self.served_points if served and self.served_points is not None else self.points

    @property
    def has_served_value(self) -> bool:
        return self.served_points is not None and self.served_points != self.points


@dataclass(frozen=True)
class DiceTotal:
    """The total of all the dice."""

    def __call__(self, dice: d.Dice, served: bool) -> int:
        return d.pip_total(dice)


@dataclass(frozen=True)
class KindTotal:
    """The total of the n matching dice (Yacht 1938 four of a kind: 3-3-3-3-3 scores 12)."""

    n: int

    def __call__(self, dice: d.Dice, served: bool) -> int:
        return d.largest_group_total(dice, self.n)


@dataclass(frozen=True)
class HighestKindTotal:
    """n times the highest face shown by at least n dice (Yatzy's one pair, three and four of a
    kind: 6-6-5-5-1 scores 12 as a pair)."""

    n: int

    def __call__(self, dice: d.Dice, served: bool) -> int:
        return d.highest_kind_total(dice, self.n)


@dataclass(frozen=True)
class TwoPairsTotal:
    """The four dice of two pairs of different faces (Yatzy: 6-6-5-5-1 scores 22); with
    `single_pair`, a lone pair scores its two dice."""

    single_pair: bool = False

    def __call__(self, dice: d.Dice, served: bool) -> int:
        return d.two_pairs_total(dice, self.single_pair)


@dataclass(frozen=True)
class HandRank:
    """A hand's rank as its points: poker dice's 0 (nothing) to 7 (five of a kind)."""

    rank: Callable[[d.Dice], int]

    def __call__(self, dice: d.Dice, served: bool) -> int:
        return self.rank(dice)


Points = FacePoints | FixedPoints | DiceTotal | KindTotal | HighestKindTotal | TwoPairsTotal | HandRank


# --- categories ------------------------------------------------------------------------


@dataclass(frozen=True)
class Category:
    """One box of the score sheet.

    `qualifies` is a pure predicate of the dice; `points` scores qualifying dice. The extra
    conditions are data the engine checks against the turn and the player's sheet:
    `later_throws_only` (General's small general: not on the first throw),
    `needs_positive` (double generala: another category already holds a positive score),
    `opens_after` (the second grande box opens once the first is filled).
    `describe` names what the dice make when the box's name depends on them (poker dice's
    one box, the hand: "Full house"): dice -> (name_en, name_es).
    """

    id: str
    name_en: str
    name_es: str
    qualifies: d.Predicate
    points: Points
    later_throws_only: bool = False
    needs_positive: str | None = None
    opens_after: str | None = None
    describe: Callable[[d.Dice], tuple[str, str]] | None = None

    @property
    def face(self) -> int | None:
        return self.points.face if isinstance(self.points, FacePoints) else None


def face_categories(names: Mapping[int, tuple[str, str]], order: tuple[int, ...] = d.FACES) -> tuple[Category, ...]:
    """Ones ... sixes: always qualify, score face x count. names: face -> (id, name_en, name_es)
    is given per game because the games call them differently (aces, balas, ...)."""
    return tuple(
        Category(names[face][0], names[face][1], names[face][2], d.always, FacePoints(face))
        for face in order
    )


# --- bonus lines and the joker ---------------------------------------------------------------


@dataclass(frozen=True)
class ThresholdBonus:
    """A bonus line: `bonus` points once the boxes `boxes` hold `threshold` or more in all
    (Yahtzee's upper bonus: 35 when ones ... sixes total 63)."""

    id: str
    name_en: str
    name_es: str
    boxes: tuple[str, ...]
    threshold: int
    bonus: int

    def progress(self, sheet: Sheet) -> int:
        return sum(sheet.points(box) or 0 for box in self.boxes)

    def points(self, sheet: Sheet) -> int:
        return self.bonus if self.progress(sheet) >= self.threshold else 0


@dataclass(frozen=True)
class ExtraBonus:
    """A bonus earned by the dice whatever box is filled with them: `bonus` for dice that make
    `dice` once `box` holds points (Yahtzee: 100 for each further five of a face once the
    yahtzee box holds 50, none when it holds 0). The fill's mark keeps it; this line adds
    them up."""

    id: str
    name_en: str
    name_es: str
    box: str
    dice: d.Predicate
    bonus: int

    def earned(self, dice: d.Dice, sheet: Sheet) -> int:
        return self.bonus if self.dice(dice) and (sheet.points(self.box) or 0) > 0 else 0

    def points(self, sheet: Sheet) -> int:
        return sum(mark.bonus for mark in sheet.marks if mark is not None)


Bonus = ThresholdBonus | ExtraBonus


@dataclass(frozen=True)
class Joker:
    """Yahtzee's joker rule, for dice that make `dice` once `box` is filled (with points or 0).

    The dice are a joker once the matching face box is filled too: the boxes in `points`
    then qualify with those fixed points (full house 25, small and large straight 30 and
    40). `forced`: the matching face box must be filled if it is open; otherwise any open
    box that is not a face box; if none is open, an open face box (scratched). Not forced:
    any open box."""

    box: str
    dice: d.Predicate
    points: tuple[tuple[str, int], ...]
    forced: bool = True

    def points_for(self, category_id: str) -> int | None:
        return dict(self.points).get(category_id)


# --- a match of rounds instead of a sheet (poker dice) ------------------------------------------


@dataclass(frozen=True)
class Match:
    """A game of rounds with no score sheet. The game's one box is the hand a player stands
    on; once every player of the round has stood, the best hand by `strength` (compared as
    tuples) wins the round. Equal best hands play off between them with `play_off_throws`
    throws each. Rounds are led in turn (round r by player r - 1, counting round the table);
    `leader_sets_throws`: no one may take more throws than the round's first player took.
    The first player to win `rounds_to_win` rounds wins the game."""

    rounds_to_win: int
    strength: Callable[[d.Dice], tuple[int, ...]]
    play_off_throws: int = 1
    leader_sets_throws: bool = True


# --- instant wins --------------------------------------------------------------------------


@dataclass(frozen=True)
class ThrowWin:
    """An instant win made by the dice of one served throw (big general, generala servida,
    dormida); `unless` says when the player's sheet cancels it. Checked after each throw
    and each correction of a throw; never on dice turned over. `boxes`: where the win is
    written on the sheet once the players confirm it (the first open one: generala, a
    grande); none, or none open, and the win has no box (General's big general)."""

    id: str
    name_en: str
    name_es: str
    dice: d.Predicate
    unless: Callable[[Sheet], bool] | None = None
    boxes: tuple[str, ...] = ()

    def made(self, dice: d.Dice, served: bool, sheet: Sheet) -> bool:
        return served and self.dice(dice) and not (self.unless is not None and self.unless(sheet))


@dataclass(frozen=True)
class SheetWin:
    """An instant win made by a player's sheet (panza de oro); checked after every fill."""

    id: str
    name_en: str
    name_es: str
    sheet: Callable[[Sheet], bool]

    def made(self, sheet: Sheet) -> bool:
        return self.sheet(sheet)


InstantWinRule = ThrowWin | SheetWin


# --- turning dice over (cacho) --------------------------------------------------------------


@dataclass(frozen=True)
class TurnOver:
    """Turning a die to its opposite face (7 - v) after a throw from `from_throw` on.

    `required`: at least one die must be turned before filling a box after throw
    `from_throw`, unless that throw was of all the dice and `exempt` holds for them.
    At most `max_dice` dice, each once; no throw after a die has been turned.
    `breaks_served`: a combination that needs a turned die is not served (de huevo).
    """

    required: bool
    exempt: d.Predicate
    from_throw: int = 2
    max_dice: int = 2
    breaks_served: bool = True


# --- options -------------------------------------------------------------------------------

OptionValue = bool | int | str

_TRUE_WORDS = {"true", "on", "yes", "1"}
_FALSE_WORDS = {"false", "off", "no", "0"}


@dataclass(frozen=True)
class OptionDef:
    key: str
    default: OptionValue
    allowed: tuple[OptionValue, ...]
    description: str

    def check(self, value: Any) -> OptionValue:
        """The value if allowed (JSON values: true/false, numbers, strings), else BadOptionValue."""
        for allowed in self.allowed:
            if type(value) is type(allowed) and value == allowed:
                return allowed
        raise BadOptionValue(
            f"option {self.key}={value!r} is not allowed; allowed: {self.allowed_text()}"
        )

    def parse(self, text: str) -> OptionValue:
        """The value written on a command line (true/false, on/off, numbers, words)."""
        word = text.strip().lower()
        for allowed in self.allowed:
            if isinstance(allowed, bool):
                if (allowed and word in _TRUE_WORDS) or (not allowed and word in _FALSE_WORDS):
                    return allowed
            elif str(allowed).lower() == word:
                return allowed
        raise BadOptionValue(f"option {self.key}={text} is not allowed; allowed: {self.allowed_text()}")

    def allowed_text(self) -> str:
        return ", ".join(_show(v) for v in self.allowed)


def _show(value: OptionValue) -> str:
    return ("true" if value else "false") if isinstance(value, bool) else str(value)


# --- the rules a game is played by -------------------------------------------------------------

ServedRule = Literal["first_throw", "all_dice", "never"]
RollOffRule = Literal["hand_rank", "pip_total"]
StakeRule = Literal["point", "game"]


@dataclass(frozen=True)
class Rules:
    """Everything the engine needs to play one game with one set of options.

    served: "first_throw" (General, Generala: made on the turn's first throw),
    "all_dice" (cacho: any throw of all the dice, de mano) or "never" (no served values).
    de_mano: served values are called de mano, and the others de huevo (cacho).
    stake_per: the stake of game_started is per "point" of margin, or per "game" won
    (poker dice's stake per match).
    instant_win_points: what each losing side owes after an instant win, in points.
    """

    dice: int
    throws: int
    categories: tuple[Category, ...]
    served: ServedRule = "first_throw"
    de_mano: bool = False
    instant_wins: tuple[InstantWinRule, ...] = ()
    held_dice_locked: bool = False
    turn_over: TurnOver | None = None
    cross_out_only_when_nothing_scores: bool = False
    spare_throw_bank: bool = False
    roll_off: RollOffRule = "pip_total"
    partnerships: bool = False
    bonuses: tuple[Bonus, ...] = ()
    joker: Joker | None = None
    match: Match | None = None
    stake_per: StakeRule = "point"
    instant_win_points: int = 50  # what each loser owes after an instant win (GAMES.md)

    @cached_property
    def category_ids(self) -> tuple[str, ...]:
        return tuple(c.id for c in self.categories)

    @cached_property
    def extra_bonus(self) -> ExtraBonus | None:
        return next((b for b in self.bonuses if isinstance(b, ExtraBonus)), None)

    @cached_property
    def threshold_bonuses(self) -> tuple[ThresholdBonus, ...]:
        return tuple(b for b in self.bonuses if isinstance(b, ThresholdBonus))

    def empty_sheet(self) -> Sheet:
        return Sheet.empty(self.category_ids, self.bonuses)

    def category(self, category_id: str) -> Category:
        for category in self.categories:
            if category.id == category_id:
                return category
        raise KeyError(category_id)


@dataclass(frozen=True)
class GameDef:
    """A game: its names, its house-rule options and how they shape its `Rules`."""

    id: str
    name_en: str
    name_es: str
    options: tuple[OptionDef, ...]
    build: Callable[[Mapping[str, OptionValue]], Rules] = field(repr=False)
    note: str = ""

    def option(self, key: str) -> OptionDef:
        for option in self.options:
            if option.key == key:
                return option
        known = ", ".join(o.key for o in self.options) or "none"
        raise UnknownOption(f"{self.id} has no option {key!r} (its options: {known})")

    def resolve_options(self, options: Mapping[str, Any] | None = None) -> dict[str, OptionValue]:
        """Every option of the game with its value: the given ones checked, defaults for the rest."""
        given = dict(options or {})
        resolved = {o.key: o.default for o in self.options}
        for key, value in given.items():
            resolved[key] = self.option(key).check(value)
        return resolved

    def rules(self, options: Mapping[str, Any] | None = None) -> Rules:
        """The rules for these options (checked, defaults filled in). The same options give
        the very same Rules object, so states built from equal events compare equal."""
        return _built_rules(self, tuple(sorted(self.resolve_options(options).items())))

    @cached_property
    def default_rules(self) -> Rules:
        return self.rules()

    @property
    def dice(self) -> int:
        return self.default_rules.dice

    @property
    def throws(self) -> int:
        return self.default_rules.throws

    @property
    def categories(self) -> tuple[Category, ...]:
        return self.default_rules.categories


@lru_cache(maxsize=None)
def _built_rules(game: GameDef, options: tuple[tuple[str, OptionValue], ...]) -> Rules:
    return game.build(dict(options))


@dataclass(frozen=True)
class Preset:
    """A named set of options of a game (yacht-1938 is yacht with rules=1938)."""

    id: str
    game: str
    options: Mapping[str, OptionValue]
    name_en: str
    name_es: str
