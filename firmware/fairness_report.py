"""Are this device's dice fair? `engine.fairness` over the event log: the first throws of
every game the log holds, and of the games of one game day (06:00 to 06:00 local time, so a
night at the bar is one day). Read by the settings screen and the export."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime, timedelta

from engine.fairness import Fairness, fairness, first_throws
from firmware.eventlog import EventLog, GameRecord

DAY_STARTS_AT = timedelta(hours=6)


@dataclass(frozen=True)
class FairnessReport:
    """The test over all the log's first throws, and per game day (oldest first)."""

    device: Fairness
    days: tuple[tuple[date, Fairness], ...]

    def day(self, day: date) -> Fairness | None:
        return next((f for d, f in self.days if d == day), None)


def game_day(started_at: str) -> date:
    """The game day a game started on, in the device's local time."""
    started = datetime.fromisoformat(started_at.replace("Z", "+00:00")).astimezone()
    return (started - DAY_STARTS_AT).date()


def today(now: datetime | None = None) -> date:
    return ((now or datetime.now().astimezone()) - DAY_STARTS_AT).date()


# A finished game's first throws never change: replaying a season of games on a Pi Zero
# each time the screen opens would take many seconds.
_FINISHED: dict[str, list[tuple[int, ...]]] = {}


def fairness_report(log: EventLog) -> FairnessReport:
    by_day: dict[date, list[tuple[int, ...]]] = {}
    for record in log.games():
        throws = _FINISHED.get(record.game_id)
        if throws is None:
            throws = first_throws(e.event for e in log.iter_events(record.game_id))
            if record.ended_at:
                _FINISHED[record.game_id] = throws
        if throws:
            by_day.setdefault(_day_of(record), []).extend(throws)
    every = [t for day in sorted(by_day) for t in by_day[day]]
    return FairnessReport(fairness(every), tuple((day, fairness(by_day[day])) for day in sorted(by_day)))


def _day_of(record: GameRecord) -> date:
    try:
        return game_day(record.started_at)
    except ValueError:
        return date.min  # a start time the log cannot tell: pooled in the device's figures only
