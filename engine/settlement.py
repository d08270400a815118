"""The end of a game: winners (ties share) and settlement at a stake per point, or per game
won (a match of poker dice)."""

from __future__ import annotations

from dataclasses import dataclass
from decimal import ROUND_DOWN, Decimal
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
    """Who pays whom at the end (GAMES.md, common rules).

    Every losing side owes its margin behind the winners (winner's total - own total) x the
    stake; after an instant win it owes `Rules.instant_win_points` x the stake whatever the
    totals, and with a stake per game (`Rules.stake_per`) the stake. What a loser owes is
    rounded down to the cent (GAMES.md: payments are in the currency's cents, however fine the
    stake), so no loser pays more than
    their margin x the stake; split between tied winners, the shares are rounded down and
    the cents left over go to the first winner in play order. A payment of 0.00 is not
    listed. The stake defaults to the one in game_started (else 1)."""
    if not state.finished:
        raise GameNotFinished("the game is not over yet")
    stake = _stake(stake_per_point if stake_per_point is not None else state.stake)
    cent = Decimal("0.01")
    won = winning_sides(state)
    best = side_total(state, won[0])
    payments = []
    for loser in sides(state):
        if loser in won:
            continue
        if state.rules.stake_per == "game":
            owed = 1
        elif state.instant_win is not None:
            owed = state.rules.instant_win_points
        else:
            owed = max(0, best - side_total(state, loser))
        due = (stake * owed).quantize(cent, ROUND_DOWN)
        share = (due / len(won)).quantize(cent, ROUND_DOWN)
        left_over = due - share * len(won)
        for place, winner in enumerate(won):
            amount = share + (left_over if place == 0 else 0)
            if amount > 0:
                payments.append(Payment(loser, winner, Fraction(owed, len(won)), amount))
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
