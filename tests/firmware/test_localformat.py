"""The device's locale: money written one way everywhere, times in the device's zone."""

from __future__ import annotations

import time
from datetime import date, datetime, timedelta, timezone
from decimal import Decimal

from hypothesis import given
from hypothesis import strategies as st

from firmware.localformat import (
    MoneyStyle, format_money, format_number, game_day, local_clock, local_time, money_from_cents, utc_offset,
)

PESOS = MoneyStyle("$")
EUROS = MoneyStyle("€", "after")
BOLIVIA = timezone(timedelta(hours=-4))


def test_money_has_its_currency_where_the_locale_puts_it_and_the_language_decimal() -> None:
    assert format_money(Decimal("0.5"), PESOS, "es") == "$0,50"
    assert format_money(Decimal("0.5"), PESOS, "en") == "$0.50"
    assert format_money(Decimal(5), EUROS, "es", signed=True) == "+5,00€"
    assert format_money(Decimal("-12.5"), PESOS, "es", signed=True) == "-$12,50"
    assert format_money(0, PESOS, "es", signed=True) == "$0,00"
    assert format_money("3", MoneyStyle(""), "en") == "3.00"
    assert money_from_cents(-5, MoneyStyle("€"), "en") == "-€0.05"


def test_a_decimal_separator_from_the_config_overrides_the_language() -> None:
    assert format_money(Decimal("1.25"), MoneyStyle("$", decimal_separator=","), "en") == "$1,25"
    assert format_number("0.125", "es") == "0,125"
    assert format_number(Decimal("0.1234567"), "en", places=3) == "0.123"


def test_money_keeps_finer_amounts_than_cents_and_leaves_nonsense_as_it_is() -> None:
    assert format_money(Decimal("0.005"), PESOS, "es") == "$0,005"
    assert format_money("n/a", PESOS, "es") == "n/a"


@given(st.integers(min_value=-10**9, max_value=10**9), st.sampled_from(["es", "en"]))
def test_money_reads_back_as_the_same_number(cents: int, lang: str) -> None:
    text = money_from_cents(cents, PESOS, lang, signed=True)
    number = text.replace("$", "").replace(",", ".")
    assert Decimal(number) == Decimal(cents) / 100


def test_recorded_utc_times_are_written_in_the_device_zone_with_the_offset() -> None:
    stamp = "2026-11-25T10:55:10.280Z"
    assert local_time(stamp, BOLIVIA) == "2026-11-25 06:55:10-04:00"
    assert local_clock(stamp, BOLIVIA) == "06:55:10"
    assert utc_offset(stamp, BOLIVIA) == "-04:00"
    assert local_time(stamp, timezone.utc) == "2026-11-25 10:55:10+00:00"
    assert local_time(None) == "" and local_time("garbage") == "garbage"


def test_the_system_zone_is_the_default(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setenv("TZ", "America/La_Paz")
    time.tzset()
    try:
        assert local_time("2026-01-02T03:04:05Z") == "2026-01-01 23:04:05-04:00"
    finally:
        monkeypatch.undo()
        time.tzset()


def test_a_game_day_runs_from_six_to_six_in_the_devices_time_zone(monkeypatch) -> None:
    # The fairness screen's days and the scoreboard's "today" both count by it.
    monkeypatch.setenv("TZ", "America/La_Paz")
    time.tzset()
    try:
        assert game_day(datetime(2026, 11, 26, 5, 59, tzinfo=BOLIVIA)) == date(2026, 11, 25)
        assert game_day(datetime(2026, 11, 26, 6, 0, tzinfo=BOLIVIA)) == date(2026, 11, 26)
        assert game_day(datetime(2026, 11, 26, 9, 59, tzinfo=timezone.utc)) == date(2026, 11, 25)  # 05:59 there
    finally:
        monkeypatch.undo()
        time.tzset()
