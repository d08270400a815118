"""Exporting the game logs to a USB stick or any folder, safely.

`export_games()` writes `CUBILETE/<device name>/` on the target: `games.csv` and a folder
per game (scoresheet.csv, events.jsonl, scoresheet.html, the throw snapshots). The ledger
(`ledger.py`) remembers what was exported; `exported_game_ids()` tells retention which
games are safe to delete. `notify.py` carries the result of a USB export to the service.
"""

from __future__ import annotations

from firmware.export.ledger import LEDGER_FILE, Ledger, LedgerEntry, LedgerError, exported_game_ids

__all__ = ["LEDGER_FILE", "Ledger", "LedgerEntry", "LedgerError", "exported_game_ids"]
