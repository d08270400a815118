"""Retention of throw snapshots: keep the SD card from filling up, never lose an unexported game.

Only snapshot JPEGs are ever deleted, and only those of games the exporter has put on a
stick after they ended (`firmware.export.exported_game_ids`). First the ones older than
`retention_days`; then, oldest first, while the snapshots take more than the disk cap.
Events are never deleted. When unexported games alone exceed the cap, nothing of theirs is
deleted and the result says so, for the journal and the settings screen.
"""

from __future__ import annotations

import logging
import os
import time
from dataclasses import dataclass
from pathlib import Path

from firmware.eventlog import SNAPSHOT_DIR, EventLog

log = logging.getLogger(__name__)

STALE_TMP_S = 3600.0


@dataclass(frozen=True)
class RetentionResult:
    deleted: int  # snapshot files removed
    freed_bytes: int
    kept_bytes: int  # what the snapshots take after pruning
    over_cap_unexported: bool  # the cap is exceeded by games not yet exported


def prune_snapshots(eventlog: EventLog, exported: set[str], retention_days: int, cap_mb: int,
                    now: float | None = None) -> RetentionResult:
    """Delete what retention allows; see the module docstring. `now` is wall-clock seconds."""
    now = time.time() if now is None else now
    state_dir = eventlog.state_dir
    cutoff = now - retention_days * 86_400
    cap = cap_mb * 1024 * 1024

    entries = []  # (game_id, seq, path, size, mtime), oldest event first
    for game_id, seq, relative in eventlog.snapshots():
        path = state_dir / relative
        try:
            stat = path.stat()
        except FileNotFoundError:  # deleted by hand: keep the log honest
            eventlog.forget_snapshot(game_id, seq)
            continue
        entries.append((game_id, seq, path, stat.st_size, stat.st_mtime))

    deleted = freed = 0
    kept = []
    for entry in entries:
        game_id, seq, path, size, mtime = entry
        if game_id in exported and mtime < cutoff:
            _delete(eventlog, game_id, seq, path)
            deleted += 1
            freed += size
        else:
            kept.append(entry)

    total = sum(e[3] for e in kept)
    for entry in list(kept):
        if total <= cap:
            break
        game_id, seq, path, size, _ = entry
        if game_id in exported:
            _delete(eventlog, game_id, seq, path)
            kept.remove(entry)
            deleted += 1
            freed += size
            total -= size

    orphans_deleted, orphans_freed = _delete_orphans(eventlog, now)
    deleted += orphans_deleted
    freed += orphans_freed
    over = total > cap
    if over:
        log.warning("snapshots take %.1f MB, over the %d MB cap, but belong to games not yet "
                    "exported: kept until they are on a USB stick", total / 1e6, cap_mb)
    if deleted:
        log.info("retention deleted %d snapshots (%.1f MB)", deleted, freed / 1e6)
    return RetentionResult(deleted, freed, total, over)


def _delete(eventlog: EventLog, game_id: str, seq: int, path: Path) -> None:
    try:
        path.unlink()
    except FileNotFoundError:
        pass
    eventlog.forget_snapshot(game_id, seq)
    try:
        path.parent.rmdir()  # only succeeds once the game's folder is empty
    except OSError:
        pass


def _delete_orphans(eventlog: EventLog, now: float) -> tuple[int, int]:
    """Files a crash left behind: stale temporary files, and snapshots of ended games that no
    event refers to (written just before a power cut, never committed). Folders of games the
    log does not know (a log moved aside as corrupt) are left alone."""
    root = eventlog.state_dir / SNAPSHOT_DIR
    if not root.is_dir():
        return 0, 0
    referenced = {relative for _, _, relative in eventlog.snapshots()}
    games = {g.game_id: g for g in eventlog.games()}
    deleted = freed = 0
    for folder in root.iterdir():
        record = games.get(folder.name)
        if not folder.is_dir() or record is None:
            continue
        for path in folder.iterdir():
            relative = f"{SNAPSHOT_DIR}/{folder.name}/{path.name}"
            stale_tmp = path.name.endswith(".tmp") and now - path.stat().st_mtime > STALE_TMP_S
            orphan = record.ended_at is not None and relative not in referenced
            if stale_tmp or orphan:
                size = path.stat().st_size
                os.unlink(path)
                deleted += 1
                freed += size
    return deleted, freed
