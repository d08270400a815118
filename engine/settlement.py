"""The end of a game: winners (ties share) and settlement at a stake per point, or per game
won (a match of poker dice)."""

from __future__ import annotations

from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal
from fractions import Fraction

from engine.errors import BadStake, GameNotFinished
from engine.state import GameState, sides, side_total, winners, winning_sides


@dataclass(frozen=True)
class Payment:
    """payers pay payees `amount` (= stake x points) for a margin share of `points` (for a
    stake per game: the share of the one game, 1 or split between tied winners)."""

    payers: tuple[int, ...]
    payees: tuple[int, ...]
    points: Fraction
    amount: Decimal


def settlement(state: GameState, stake_per_point: Decimal | str | int | None = None) -> list[Payment]:
    """Every losing side pays every winning side (winner's total - own total) x stake,
    split equally between tied winners. After an instant win the margin counts as zero
    where the loser is ahead. With a stake per game (`Rules.stake_per`), every losing side
    pays the stake, split the same way. Amounts are rounded half up to the stake's precision,
    and to at least hundredths. The stake defaults to the one in game_started (else 1)."""
    if not state.finished:
        raise GameNotFinished("the game is not over yet")
    stake = _stake(stake_per_point if stake_per_point is not None else state.stake)
    quantum = Decimal(1).scaleb(min(stake.as_tuple().exponent, -2))
    won = winning_sides(state)
    payments = []
    for loser in sides(state):
        if loser in won:
            continue
        for winner in won:
            if state.rules.stake_per == "game":
                margin = 1
            else:
                margin = max(0, side_total(state, winner) - side_total(state, loser))
            points = Fraction(margin, len(won))
            amount = (stake * points.numerator / points.denominator).quantize(quantum, ROUND_HALF_UP)
            payments.append(Payment(loser, winner, points, amount))
    return payments


def _stake(value: Decimal | str | int | None) -> Decimal:
    if value is None:
        return Decimal(1)
    try:
        stake = Decimal(value)
    except ArithmeticError:
        raise BadStake(f"the stake per point must be a decimal number, not {value!r}") from None
    if not stake.is_finite() or stake < 0:
        raise BadStake(f"the stake per point must be zero or more, not {value!r}")
    return stake


__all__ = ["Payment", "settlement", "sides", "side_total", "winners", "winning_sides"]
