"""Dice fairness: the chi-square p-value against known critical values, the warning rule,
simulated loaded and fair dice, and which throws of a game's events count."""

from __future__ import annotations

import math
import random

import pytest

import engine
from engine import events as ev
from engine.fairness import chi_square_p_value, chi_square_statistic, fairness, first_throws

LOADED_TOWARD_SIX = (0.16, 0.16, 0.16, 0.16, 0.16, 0.20)  # a six 20% likelier than on a fair die


def simulated_throws(weights, throws: int, seed: int, dice: int = 5) -> list[tuple[int, ...]]:
    rng = random.Random(seed)
    return [tuple(rng.choices(range(1, 7), weights, k=dice)) for _ in range(throws)]


@pytest.mark.parametrize("statistic, degrees, p", [
    (11.0705, 5, 0.05), (15.0863, 5, 0.01), (20.5150, 5, 0.001), (3.8415, 1, 0.05), (5.9915, 2, 0.05),
    (9.4877, 4, 0.05), (16.2662, 3, 0.001),
])
def test_p_values_match_the_tables_of_critical_values(statistic, degrees, p) -> None:
    assert chi_square_p_value(statistic, degrees) == pytest.approx(p, rel=1e-3)


def test_p_value_closed_forms_and_extremes() -> None:
    for x in (0.5, 3.0, 12.0):
        assert chi_square_p_value(x, 2) == pytest.approx(math.exp(-x / 2))
        assert chi_square_p_value(x, 1) == pytest.approx(math.erfc(math.sqrt(x / 2)))
    assert chi_square_p_value(0.0, 5) == 1.0
    assert 0.0 <= chi_square_p_value(5000.0, 5) < 1e-300


def test_statistic_of_equal_counts_is_zero() -> None:
    assert chi_square_statistic([100] * 6) == 0.0
    assert chi_square_statistic([0] * 6) == 0.0
    assert chi_square_statistic([20, 10, 10, 10, 10, 0]) == pytest.approx((100 + 0 + 0 + 0 + 0 + 100) / 10)


def test_a_die_loaded_20_percent_toward_six_is_flagged_within_1000_throws() -> None:
    result = fairness(simulated_throws(LOADED_TOWARD_SIX, 1000, seed=19))
    assert result.warning and result.p_value < 0.001 and result.counts[5] == max(result.counts)


def test_100_fair_runs_of_1000_throws_flag_at_most_once() -> None:
    flagged = sum(fairness(simulated_throws([1 / 6] * 6, 1000, seed=seed)).warning for seed in range(100))
    assert flagged <= 1


def test_no_warning_before_600_throws_however_loaded() -> None:
    result = fairness(simulated_throws((0, 0, 0, 0, 0, 1), 599, seed=1))
    assert result.p_value < 1e-100 and not result.warning
    assert fairness(simulated_throws((0, 0, 0, 0, 0, 1), 600, seed=1)).warning


def test_only_first_throws_count_as_corrected_and_not_taken_back() -> None:
    log = [engine.new_game("generala", ["Ana", "Bea"]),
           ev.throw(0, [1, 2, 3, 4, 6]), ev.reading_corrected(0, [1, 2, 3, 4, 5]),  # corrected
           ev.throw(0, [1, 2, 3, 4, 6], [4]),  # a later throw: never counted
           ev.category_scored(0, "straight"),
           ev.throw(1, [6, 6, 6, 6, 6]), ev.throw_undone(1),  # taken back: nobody threw it
           ev.throw(1, [2, 2, 3, 3, 4]), ev.category_scored(1, "twos"),
           ev.throw(0, [9, 9, 9, 9, 9]),  # refused by the rules
           ev.throw(0, [5, 5, 5, 1, 1])]
    assert first_throws(log) == [(1, 2, 3, 4, 5), (2, 2, 3, 3, 4), (5, 5, 5, 1, 1)]
    result = fairness(first_throws(log))
    assert result.throws == 3 and result.dice == 15 and result.counts == (3, 3, 3, 2, 4, 0)
