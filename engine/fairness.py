"""Are the dice fair? Per-face counts over first throws and Pearson's chi-square test.

Only the first throw of each turn counts: all the dice are thrown and none is held, so what
players keep cannot bias the faces. The dice of every throw are pooled (the camera does not
know one die from another). The test compares the counts with a fair die's (each face
1/6) on 5 degrees of freedom; the p-value is the chi-square distribution's upper tail,
written out for whole degrees of freedom (no scipy). The device warns when the test rejects
fairness at p < 0.001 with at least 600 throws behind it.

    first_throws(events)   the first throws of a game's events, corrections applied
    fairness(throws)       counts, statistic, p-value and whether to warn
    from_counts(n, counts) the same from n throws' counts per face (pooled, or kept)
"""

from __future__ import annotations

from dataclasses import dataclass
from math import erfc, exp, lgamma, log, sqrt
from typing import Iterable, Mapping, Sequence

from engine import events as ev
from engine.errors import RuleError
from engine.fold import apply, start
from engine.state import GameState

FACES = (1, 2, 3, 4, 5, 6)
WARN_BELOW_P = 0.001
WARN_FROM_THROWS = 600


@dataclass(frozen=True)
class Fairness:
    """The test over `throws` throws: counts[face - 1] dice showed each face."""

    throws: int
    counts: tuple[int, ...]
    chi_square: float
    p_value: float

    @property
    def dice(self) -> int:
        return sum(self.counts)

    @property
    def expected(self) -> float:
        """Dice per face a fair die would give."""
        return self.dice / len(FACES)

    @property
    def warning(self) -> bool:
        """Fairness rejected at p < 0.001 with at least 600 throws."""
        return self.throws >= WARN_FROM_THROWS and self.p_value < WARN_BELOW_P


def face_counts(throws: Iterable[Sequence[int]]) -> tuple[int, ...]:
    counts = [0] * len(FACES)
    for dice in throws:
        for value in dice:
            counts[value - 1] += 1
    return tuple(counts)


def chi_square_statistic(counts: Sequence[int]) -> float:
    """Pearson's statistic against equal chances per face (0 with no dice)."""
    total = sum(counts)
    if total == 0:
        return 0.0
    expected = total / len(counts)
    return sum((count - expected) ** 2 / expected for count in counts)


def chi_square_p_value(statistic: float, degrees: int) -> float:
    """P(X >= statistic) for X chi-square with whole `degrees` of freedom.

    With h = statistic / 2: for even degrees, e^-h times the sum of h^i / i! for i below
    degrees / 2; for odd degrees, erfc(sqrt(h)) plus e^-h times the sum of h^(i - 1/2) /
    Gamma(i + 1/2) for i from 1 to (degrees - 1) / 2. Terms are summed in logs so a large
    statistic gives a tiny p, never an overflow."""
    if degrees < 1:
        raise ValueError(f"degrees of freedom are 1 or more, not {degrees}")
    if statistic <= 0:
        return 1.0
    h = statistic / 2
    if degrees % 2 == 0:
        return min(1.0, sum(exp(-h + i * log(h) - lgamma(i + 1)) for i in range(degrees // 2)))
    tail = erfc(sqrt(h))
    tail += sum(exp(-h + (i - 0.5) * log(h) - lgamma(i + 0.5)) for i in range(1, (degrees - 1) // 2 + 1))
    return min(1.0, tail)


def fairness(throws: Iterable[Sequence[int]]) -> Fairness:
    """The test over these throws (each the dice values of one throw of all the dice)."""
    throws = list(throws)
    return from_counts(len(throws), face_counts(throws))


def from_counts(throws: int, counts: Sequence[int]) -> Fairness:
    """The test over `throws` throws whose dice showed counts[face - 1] of each face."""
    counts = tuple(counts)
    statistic = chi_square_statistic(counts)
    p_value = chi_square_p_value(statistic, len(FACES) - 1) if sum(counts) else 1.0
    return Fairness(throws, counts, statistic, p_value)


def first_throws(events: Iterable[Mapping]) -> list[tuple[int, ...]]:
    """The dice of every turn's first throw in a game's events, as corrected by the players.

    A throw taken back (throw_undone: one nobody made) does not count. Events the rules
    refuse are skipped. A turn taken back (turn_undone) keeps its throws: they were thrown;
    a correction or a taken-back throw after it changes nothing here (rare, and at most
    one throw)."""
    state: GameState | None = None
    firsts: list[tuple[int, ...]] = []
    current: int | None = None  # index in firsts of the current turn's first throw
    for event in events:
        try:
            after = start(event) if state is None else apply(state, event)
        except RuleError:
            continue
        kind = event.get("type")
        if kind == ev.THROW and after.turn.throw_number == 1:
            firsts.append(after.turn.thrown_values)
            current = len(firsts) - 1
        elif kind == ev.READING_CORRECTED and after.turn.throw_number == 1 and current is not None:
            firsts[current] = after.turn.thrown_values
        elif kind == ev.THROW_UNDONE and after.turn.throw_number == 0 and current is not None:
            firsts.pop(current)
            current = None
        elif kind in (ev.TURN_UNDONE, ev.CATEGORY_SCORED, ev.CATEGORY_SCRATCHED):
            current = None
        state = after
    return firsts
