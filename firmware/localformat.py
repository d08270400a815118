"""One locale per device: how money, numbers and times are written on the screens, the
scoreboard and in every export.

The config says it once ([device] language, currency, currency_position,
decimal_separator); everything that writes an amount goes through `format_money` and
every time through `local_time`, so the menu, the final table, the score sheet and
games.csv never disagree ("$0,50" in the menu, "+$5,00" at the end, "$5,00" on the sheet).

Times are recorded in UTC (the event log); people read them in the device's time zone (the
Pi's /etc/localtime, or TZ), written with their offset so a sheet read elsewhere, or across
a change of summer time, still says exactly when.

Pure functions and frozen values only: the scoreboard uses this module too.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime, timedelta, timezone, tzinfo
from decimal import Decimal, InvalidOperation

CURRENCY_POSITIONS = ("before", "after")
DECIMAL_SEPARATORS = (",", ".")
# The decimal separator when the config leaves it to the language.
LANGUAGE_DECIMAL = {"es": ",", "en": "."}


@dataclass(frozen=True)
class MoneyStyle:
    """How amounts of money are written: "$5,00" (before) or "5,00€" (after); an empty
    currency writes the number alone. `decimal_separator` "" follows the language."""

    currency: str = "$"
    position: str = "before"
    decimal_separator: str = ""

    def separator(self, lang: str) -> str:
        return self.decimal_separator or LANGUAGE_DECIMAL.get(lang, ".")


@dataclass(frozen=True)
class Locale:
    """Everything an export is written with: the device's language, its money style, and
    the time zone (None: the system's, the Pi's /etc/localtime or TZ)."""

    language: str = "es"
    money: MoneyStyle = MoneyStyle()
    zone: tzinfo | None = None

    def amount(self, value: Decimal | int | float | str, *, signed: bool = False) -> str:
        return format_money(value, self.money, self.language, signed=signed)

    def number(self, value: Decimal | int | float | str, places: int | None = None) -> str:
        return format_number(value, self.language, self.money, places)

    def time(self, stamp: str | None) -> str:
        return local_time(stamp, self.zone)


def to_decimal(amount: Decimal | int | float | str) -> Decimal | None:
    """An amount as a Decimal; None for anything that is not a finite number."""
    try:
        value = amount if isinstance(amount, Decimal) else Decimal(str(amount))
    except (InvalidOperation, ValueError):
        return None
    return value if value.is_finite() else None


def format_number(value: Decimal | int | float | str, lang: str, style: MoneyStyle = MoneyStyle(),
                  places: int | None = None) -> str:
    """A number with the locale's decimal separator; `places` fixes the decimals (None: as
    given). Not a number: as given."""
    number = to_decimal(value)
    if number is None:
        return str(value)
    if places is not None:
        number = number.quantize(Decimal(1).scaleb(-places))
    text = f"{number:f}"
    return text.replace(".", style.separator(lang))


def format_money(amount: Decimal | int | float | str, style: MoneyStyle, lang: str, *,
                 signed: bool = False) -> str:
    """An amount of money: two decimals (more when the amount has finer ones, e.g. a stake
    of 0.005 per point), the currency where the locale puts it, "-" for a debt, and "+" for
    a gain when `signed`: "$0,50", "-$5,00", "+5,00€". Not a number: as given."""
    number = to_decimal(amount)
    if number is None:
        return str(amount)
    exponent = number.normalize().as_tuple().exponent
    places = max(2, -exponent) if isinstance(exponent, int) else 2
    digits = format_number(abs(number), lang, style, places)
    sign = "-" if number < 0 else "+" if signed and number > 0 else ""
    if not style.currency:
        return sign + digits
    if style.position == "after":
        return f"{sign}{digits}{style.currency}"
    return f"{sign}{style.currency}{digits}"


def money_from_cents(cents: int, style: MoneyStyle, lang: str, *, signed: bool = False) -> str:
    return format_money(Decimal(cents) / 100, style, lang, signed=signed)


def parse_utc(stamp: str) -> datetime | None:
    """A time as the event log writes it ("2026-11-25T10:55:10.280Z"); None if unreadable.
    A stamp without an offset is taken as UTC (the log writes nothing else)."""
    try:
        moment = datetime.fromisoformat(stamp.replace("Z", "+00:00"))
    except (TypeError, ValueError, AttributeError):
        return None
    return moment if moment.tzinfo else moment.replace(tzinfo=timezone.utc)


def local_time(stamp: str | None, zone: tzinfo | None = None) -> str:
    """A recorded time in the device's time zone with its offset, to the second:
    "2026-11-25 07:55:10-03:00" (ISO 8601 / RFC 3339 with a space). `zone` None: the
    system's (TZ, /etc/localtime). Empty for no time; an unreadable stamp as it is."""
    if not stamp:
        return ""
    moment = parse_utc(stamp)
    if moment is None:
        return stamp
    return moment.astimezone(zone).isoformat(sep=" ", timespec="seconds")


def local_clock(stamp: str | None, zone: tzinfo | None = None) -> str:
    """Only the local time of day, "07:55:10", for a log whose day and offset are said once."""
    full = local_time(stamp, zone)
    return full[11:19] if parse_utc(stamp or "") is not None else full


def utc_offset(stamp: str | None, zone: tzinfo | None = None) -> str:
    """The device's offset from UTC at that time, "-03:00"; empty for no readable time."""
    moment = parse_utc(stamp or "")
    if moment is None:
        return ""
    return local_time(stamp, zone)[19:]


# A bar's day runs past midnight: a game day is 06:00 to 06:00 in the device's local time.
DAY_STARTS_AT = timedelta(hours=6)


def game_day(moment: datetime) -> date:
    """The game day a moment (timezone-aware) belongs to, in the device's local time."""
    return (moment.astimezone() - DAY_STARTS_AT).date()
