"""Are this device's dice fair? `engine.fairness` over the event log: the first throws of
every game the log holds, and of the games of one game day (06:00 to 06:00 local time, so a
night at the bar is one day). Read by the settings screen, the export, and the appliance,
which warns on its home screen and after each game while the test rejects fair dice.

A finished game's first throws never change, and replaying a season of games on a Pi Zero
takes many seconds (about 1 ms a game here, 10 to 15 times that there), so each finished
game's figures (its first throws and their faces) are kept in memory once worked out and,
where the caller names a file (the appliance: CACHE_FILE in the state directory), on disk:
the check at start-up then reads one small file. A file that cannot be read or written is
only a slower start; it is never trusted for a game it does not list.
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass
from datetime import date, datetime
from pathlib import Path
from typing import Any

from engine.fairness import FACES, Fairness, face_counts, first_throws, from_counts
from firmware.eventlog import EventLog, GameRecord
from firmware.localformat import game_day
from hardware.files import write_atomically

log = logging.getLogger(__name__)

CACHE_FILE = "fairness-cache.json"
CACHE_VERSION = 1


@dataclass(frozen=True)
class FairnessReport:
    """The test over all the log's first throws, and per game day (oldest first)."""

    device: Fairness
    days: tuple[tuple[date, Fairness], ...]

    def day(self, day: date) -> Fairness | None:
        return next((f for d, f in self.days if d == day), None)


def started_on(started_at: str) -> date:
    """The game day a game started on (`localformat.game_day`)."""
    return game_day(datetime.fromisoformat(started_at.replace("Z", "+00:00")))


def today(now: datetime | None = None) -> date:
    return game_day(now or datetime.now().astimezone())


Figures = tuple[int, tuple[int, ...]]  # first throws, dice per face

# (state directory, game id) -> the finished game's figures
_FINISHED: dict[tuple[str, str], Figures] = {}
_READ: set[str] = set()  # cache files already read by this process


def fairness_report(log: EventLog, cache_file: Path | None = None) -> FairnessReport:
    folder = str(log.state_dir)
    if cache_file is not None and str(cache_file) not in _READ:
        _READ.add(str(cache_file))
        for game_id, figures in _read_cache(cache_file).items():
            _FINISHED.setdefault((folder, game_id), figures)
    by_day: dict[date, list[Figures]] = {}
    finished: dict[str, Figures] = {}
    added = False
    for record in log.games():
        figures = _FINISHED.get((folder, record.game_id))
        if figures is None:
            throws = first_throws(e.event for e in log.iter_events(record.game_id))
            figures = (len(throws), face_counts(throws))
            if record.ended_at:
                _FINISHED[(folder, record.game_id)] = figures
                added = True
        if record.ended_at:
            finished[record.game_id] = figures
        if figures[0]:
            by_day.setdefault(_day_of(record), []).append(figures)
    if added and cache_file is not None:
        _write_cache(cache_file, finished)
    every = [f for day in sorted(by_day) for f in by_day[day]]
    return FairnessReport(_pooled(every), tuple((day, _pooled(by_day[day])) for day in sorted(by_day)))


def _pooled(figures: list[Figures]) -> Fairness:
    counts = [0] * len(FACES)
    for _, faces in figures:
        counts = [a + b for a, b in zip(counts, faces)]
    return from_counts(sum(throws for throws, _ in figures), counts)


def _read_cache(path: Path) -> dict[str, Figures]:
    try:
        data: Any = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}
    except (OSError, ValueError) as error:
        log.warning("fairness cache %s unreadable (%s); the games are read again", path, error)
        return {}
    if not isinstance(data, dict) or data.get("v") != CACHE_VERSION or not isinstance(data.get("games"), dict):
        return {}
    games = {}
    for game_id, row in data["games"].items():
        if (isinstance(row, list) and len(row) == 1 + len(FACES)
                and all(isinstance(n, int) and not isinstance(n, bool) and n >= 0 for n in row)):
            games[str(game_id)] = (row[0], tuple(row[1:]))
    return games


def _write_cache(path: Path, finished: dict[str, Figures]) -> None:
    data = {"v": CACHE_VERSION, "games": {g: [n, *faces] for g, (n, faces) in finished.items()}}
    try:
        write_atomically(path, json.dumps(data, separators=(",", ":")).encode("utf-8"), sync=False)
    except OSError as error:
        log.warning("fairness cache %s not written (%s); the next start reads the games again", path, error)


def _day_of(record: GameRecord) -> date:
    try:
        return started_on(record.started_at)
    except ValueError:
        return date.min  # a start time the log cannot tell: pooled in the device's figures only
