"""The ledger of exported games: `<state_dir>/exports.json`, kept by the exporter.

The exporter never writes the service's database. What it has put on a stick is recorded
here instead, one entry per game, and only after all of that game's files are durable on
the target. The ledger answers two questions:

- which games are new since the last export (a game is new when it is missing, or when it
  has more events or has ended since it was exported: an unfinished game exported during
  play goes out again once it has moved on);
- which games retention may delete (`exported_game_ids`): only those exported after they
  had ended, so every event they will ever have is on a stick.

Each entry also keeps the game's `games.csv` row, so `games.csv` can list every game ever
exported even after retention removed a game's events from the device, without reading
anything back from a stick.

The file is rewritten whole and atomically (temporary name, fsync, rename, fsync of the
folder). Format (version 1):

    {"version": 1,
     "games": {"<game_id>": {"folder": "...", "events": 42, "ended_at": "...|null",
                             "exported_at": "...", "row": {"<games.csv column>": "..."}}}}
"""

from __future__ import annotations

import json
import logging
import os
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from hardware.files import write_atomically

log = logging.getLogger(__name__)

LEDGER_FILE = "exports.json"
LEDGER_VERSION = 1


class LedgerError(Exception):
    """The ledger file exists but cannot be read or understood."""


@dataclass(frozen=True)
class LedgerEntry:
    folder: str
    events: int
    ended_at: str | None
    exported_at: str
    row: dict[str, str] = field(default_factory=dict)

    @property
    def complete(self) -> bool:
        """Exported after the game ended: nothing of it is left only on the device."""
        return self.ended_at is not None


@dataclass
class Ledger:
    games: dict[str, LedgerEntry] = field(default_factory=dict)

    @classmethod
    def load(cls, state_dir: str | os.PathLike[str]) -> "Ledger":
        """The ledger in `state_dir`; empty when there is none yet."""
        path = Path(state_dir) / LEDGER_FILE
        try:
            text = path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return cls()
        except OSError as error:
            raise LedgerError(f"cannot read {path}: {error.strerror or error}") from error
        try:
            return cls.from_json(json.loads(text))
        except (ValueError, TypeError, KeyError) as error:
            raise LedgerError(f"{path} is damaged ({error})") from error

    @classmethod
    def from_json(cls, data: Any) -> "Ledger":
        if not isinstance(data, dict) or data.get("version") != LEDGER_VERSION:
            raise ValueError(f"not a version {LEDGER_VERSION} export ledger")
        games = {}
        for game_id, entry in data["games"].items():
            games[str(game_id)] = LedgerEntry(
                folder=str(entry["folder"]),
                events=int(entry["events"]),
                ended_at=None if entry.get("ended_at") is None else str(entry["ended_at"]),
                exported_at=str(entry["exported_at"]),
                row={str(k): str(v) for k, v in dict(entry.get("row", {})).items()},
            )
        return cls(games)

    def to_json(self) -> dict[str, Any]:
        return {
            "version": LEDGER_VERSION,
            "games": {game_id: asdict(entry) for game_id, entry in sorted(self.games.items())},
        }

    def needs_export(self, game_id: str, events: int, ended_at: str | None) -> bool:
        entry = self.games.get(game_id)
        if entry is None:
            return True
        return events > entry.events or (ended_at is not None and entry.ended_at is None)

    def save(self, state_dir: str | os.PathLike[str]) -> None:
        """Rewrite the ledger atomically in `state_dir`."""
        data = json.dumps(self.to_json(), ensure_ascii=False, separators=(",", ":")).encode()
        write_atomically(Path(state_dir) / LEDGER_FILE, data)


def exported_game_ids(state_dir: str | os.PathLike[str]) -> set[str]:
    """Ids of the games whose every event is on a stick (exported after they ended).

    Retention may delete the events and snapshots of these games and of no other. A
    missing ledger means none; a damaged one is logged and also means none, so retention
    errs on the side of keeping data.
    """
    try:
        ledger = Ledger.load(state_dir)
    except LedgerError as error:
        log.warning("export ledger unreadable, treating every game as not exported: %s", error)
        return set()
    return {game_id for game_id, entry in ledger.games.items() if entry.complete}
