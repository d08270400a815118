"""The export itself: the device's games from its event log onto a folder or stick.

Layout on the target:

    CUBILETE/<device name>/games.csv                    every game of this device on this target
    CUBILETE/<device name>/fairness.csv                 the dice fairness test, all and per game day
    CUBILETE/<device name>/<game_id>_<game>/events.jsonl     every stored event, raw reading
                                           /scoresheet.csv    categories x players, then every throw
                                           /scoresheet.html   printable sheet + throw log with the snapshots
                                           /snapshots/<seq>.jpg

Everything is written in the device's locale (`firmware.localformat.Locale`): its language,
money style and time zone.

By default only games that are new since the last export (or that moved on since an
export caught them unfinished) are written; `all_games` writes every game the device still
has. The event log is opened read-only; nothing on the device is deleted. Temporary files
an earlier export left (killed before a rename) are removed first.

A game enters the ledger only once its files have been written, the target's file system
synced, and every one of them read back by its path from the target with the content
written (safewrite.ExportTarget.read_back): a stick unmounted, pulled or changed, or a
folder deleted, during the export never counts as exported. An export that fails part-way
(stick pulled, full, read-only, the size cap) records the games it wrote and read back, if
any, and says what failed; the next export redoes the rest. games.csv is rebuilt from the
ledger and the games of this export each time, written last, atomically; it lists the games
whose folders are on this target (a game exported earlier to another stick is not listed
on this one: a list that names folders the stick does not have invites the question where
they went).
"""

from __future__ import annotations

import fcntl
import logging
import os
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from firmware.eventlog import EventLog, EventLogError, GameRecord, StoredEvent, utc_now_iso
from firmware.export.fatnames import FolderNames, NameClash, fat_name
from firmware.appliance.settings import load_prefs
from firmware.config import Config
from firmware.export.formats import (events_jsonl, fairness_csv, games_csv, games_csv_row, scoresheet_csv,
                                     scoresheet_html)
from firmware.export.ledger import LEDGER_FILE, Ledger, LedgerEntry, LedgerError
from firmware.export.safewrite import DirOps, ExportError, ExportTarget, Folder, WrittenFile
from firmware.export.summary import summarize
from firmware.export.throwlog import throw_log
from firmware.fairness_report import fairness_report
from firmware.localformat import Locale

log = logging.getLogger(__name__)

TOP_FOLDER = "CUBILETE"
LOCK_FILE = "exports.lock"
DEFAULT_BYTE_CAP = 2048 * 1_000_000

Progress = Callable[[int, int], None]  # (games done, games to do)


@dataclass(frozen=True)
class ExportResult:
    games: int  # games written by this export
    listed: int  # games in games.csv (those whose folders are on this target)
    bytes_written: int
    files_written: int
    missing_snapshots: int  # snapshots referenced by the log but gone from the device
    folder: str  # CUBILETE/<device name>, relative to the target
    seconds: float
    elsewhere: int = 0  # games exported before whose folders are not on this target

    def summary_line(self, target: str) -> str:
        elsewhere = (f"; {self.elsewhere} exported earlier are not on this target (--all writes every game"
                     " the device still has)") if self.elsewhere else ""
        if self.games == 0:
            return (f"no new games since the last export (--all writes every game);"
                    f" {os.path.join(target, self.folder, 'games.csv')} lists {self.listed}{elsewhere}")
        what = "1 game" if self.games == 1 else f"{self.games} games"
        line = (f"exported {what} ({self.files_written} files, {self.bytes_written / 1e6:.1f} MB)"
                f" to {os.path.join(target, self.folder)} in {self.seconds:.1f} s;"
                f" games.csv lists {self.listed}")
        if self.missing_snapshots:
            line += f"; {self.missing_snapshots} snapshots were already deleted on the device"
        return line + elsewhere


class PartialExport(ExportError):
    """An export that stopped part-way; `games` were written and read back before it stopped
    (and are in the ledger)."""

    def __init__(self, message: str, games: int) -> None:
        super().__init__(message)
        self.games = games


def export_games(state_dir: str | os.PathLike[str], target: str | os.PathLike[str], device_name: str,
                 *, all_games: bool = False, byte_cap: int = DEFAULT_BYTE_CAP,
                 include_snapshots: bool = True, locale: Locale = Locale(), ops: DirOps | None = None,
                 progress: Progress | None = None) -> ExportResult:
    """Export the games of `state_dir` to `target`; raises ExportError (one line) on failure
    (PartialExport when some games were written and read back before it)."""
    state = Path(state_dir)
    started = time.monotonic()
    with _exclusive(state):
        ledger = _load_ledger(state)
        with _open_log(state) as event_log, ExportTarget(target, byte_cap, ops) as out:
            games = _select(event_log, ledger, all_games)
            device_folder_name = fat_name(device_name)
            rows: list[dict[str, str]] = []
            elsewhere = 0
            written: dict[str, tuple[LedgerEntry, list[WrittenFile]]] = {}
            missing = 0
            failure: ExportError | None = None
            with out.root.subfolder(TOP_FOLDER) as top:
                with top.subfolder(device_folder_name) as device_folder:
                    top.sync()
                    out.root.sync()
                    removed = device_folder.remove_leftovers()
                    if removed:
                        log.info("removed %d temporary files an interrupted export left", removed)
                    names = FolderNames()
                    try:
                        for record in games:
                            if progress:
                                progress(len(written), len(games))
                            first = len(out.written)
                            entry, gone = _export_game(state, event_log, record, device_folder,
                                                       names, device_name, include_snapshots, locale)
                            written[record.game_id] = (entry, out.written[first:])
                            missing += gone
                        earlier = [entry for game_id, entry in ledger.games.items() if game_id not in written]
                        here = [entry for entry in earlier if device_folder.has_folder(entry.folder)]
                        elsewhere = len(earlier) - len(here)
                        rows = [entry.row for entry in here] + [entry.row for entry, _ in written.values()]
                        device_folder.write_file("games.csv", games_csv(rows, locale))
                        device_folder.write_file("fairness.csv", fairness_csv(fairness_report(event_log), locale))
                        device_folder.sync()
                    except ExportError as error:
                        failure = error
                    except BaseException:
                        # stopped (the stick pulled, a shutdown) or a bug: what was written and
                        # reads back is still recorded, then the stop goes on
                        _record(ledger, state, written, _read_back(out, written)[0])
                        raise
            verified, problem = _read_back(out, written)
            _record(ledger, state, written, verified)
            if failure is None and problem is not None:
                failure = ExportError(f"the export could not be read back from the stick: {problem}")
            if failure is not None:
                raise PartialExport(_with_progress(str(failure), len(verified)), len(verified))
            if progress:
                progress(len(verified), len(games))
            return ExportResult(games=len(verified), listed=len(rows), bytes_written=out.bytes_written,
                                files_written=out.files_written, missing_snapshots=missing,
                                folder=f"{TOP_FOLDER}/{device_folder_name}",
                                seconds=time.monotonic() - started, elsewhere=elsewhere)


def _record(ledger: Ledger, state: Path, written: dict[str, tuple[LedgerEntry, list[WrittenFile]]],
            verified: list[str]) -> None:
    for game_id in verified:
        ledger.games[game_id] = written[game_id][0]
    if verified:
        _save_ledger(ledger, state)


def _read_back(out: ExportTarget, written: dict[str, tuple[LedgerEntry, list[WrittenFile]]]
               ) -> tuple[list[str], str | None]:
    """Sync the target, then read every file back by its path: (ids of the games whose files
    are all there as written, the first problem found or None). games.csv counts too."""
    try:
        out.sync()
    except ExportError as error:
        return [], str(error)
    verified = []
    for game_id, (_, files) in written.items():
        problem = out.read_back(files)
        if problem is not None:
            return verified, problem
        verified.append(game_id)
    listed = [f for f in out.written if f.path.name == "games.csv"]
    return verified, out.read_back(listed) if listed else None


def _with_progress(message: str, done: int) -> str:
    if not done:
        return message
    return f"{message} ({done} game{'s' if done != 1 else ''} exported and checked before that)"


class _exclusive:
    """One export at a time per state directory (the USB unit, the menu, the command)."""

    def __init__(self, state: Path) -> None:
        self._path = state / LOCK_FILE
        self._fd = -1

    def __enter__(self) -> None:
        if not self._path.parent.is_dir():
            raise ExportError(f"no device state at {self._path.parent}")
        try:
            self._fd = os.open(self._path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC | os.O_NOFOLLOW, 0o644)
        except OSError as error:
            raise ExportError(f"cannot keep the export ledger in {self._path.parent}:"
                              f" {error.strerror or error}") from None
        try:
            fcntl.flock(self._fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(self._fd)
            raise ExportError("another export is running; try again when it has finished") from None

    def __exit__(self, *exc: object) -> None:
        os.close(self._fd)


def _load_ledger(state: Path) -> Ledger:
    try:
        return Ledger.load(state)
    except LedgerError as error:
        aside = state / f"{LEDGER_FILE}.damaged-{utc_now_iso().replace(':', '')}"
        try:
            os.replace(state / LEDGER_FILE, aside)
        except OSError:
            raise ExportError(f"{error}; and it cannot be moved aside") from None
        log.warning("%s; moved aside to %s, every game counts as not exported", error, aside.name)
        return Ledger()


def _save_ledger(ledger: Ledger, state: Path) -> None:
    try:
        ledger.save(state)
    except OSError as error:
        raise ExportError(f"the files are on the stick but the export ledger {state / LEDGER_FILE}"
                          f" could not be written ({error.strerror or error});"
                          " the next export writes these games again") from None


def _open_log(state: Path) -> EventLog:
    try:
        return EventLog.open_readonly(state)
    except EventLogError as error:
        raise ExportError(str(error)) from None
    except Exception as error:  # sqlite3 errors: unreadable, locked, not a database
        raise ExportError(f"cannot read the event log in {state}: {error}") from None


def _select(event_log: EventLog, ledger: Ledger, all_games: bool) -> list[GameRecord]:
    chosen = []
    for record in event_log.games():
        entry = ledger.games.get(record.game_id)
        if all_games or entry is None:
            chosen.append(record)
        elif entry.ended_at is None:
            # Exported while it was being played: again once it has moved on.
            count = len(event_log.events(record.game_id))
            if ledger.needs_export(record.game_id, count, record.ended_at):
                chosen.append(record)
    return chosen


def _export_game(state: Path, event_log: EventLog, record: GameRecord, device_folder: Folder,
                 names: FolderNames, device_name: str, include_snapshots: bool,
                 locale: Locale) -> tuple[LedgerEntry, int]:
    # The service may append while we read. A game seen ended gets no more events, so its
    # events read after that are all of them; one seen unfinished stays unfinished in the
    # ledger even if it ends meanwhile, and goes out again next time.
    ended_at = (event_log.game(record.game_id) or record).ended_at
    events = event_log.events(record.game_id)
    try:
        folder_name = names.claim(fat_name(f"{record.game_id}_{record.game}"))
    except NameClash as error:
        raise ExportError(str(error)) from None
    summary = summarize(record.game_id, record.game, record.started_at, ended_at,
                        [e.event for e in events], locale.language)
    missing = 0
    with device_folder.subfolder(folder_name) as game_folder:
        snapshot_names: dict[int, str] = {}
        with_snapshots = [e for e in events if e.snapshot] if include_snapshots else []
        if with_snapshots:
            with game_folder.subfolder("snapshots") as snapshots:
                for stored in with_snapshots:
                    data = _read_snapshot(state, stored)
                    if data is None:
                        missing += 1
                        continue
                    name = f"{stored.seq:06d}.jpg"
                    snapshots.write_file(name, data)
                    snapshot_names[stored.seq] = f"snapshots/{name}"
                snapshots.sync()
        log_rows, deciding = throw_log(events, snapshot_names)
        game_folder.write_file("events.jsonl", events_jsonl(record.game_id, events, snapshot_names, locale.zone))
        game_folder.write_file("scoresheet.csv", scoresheet_csv(summary, log_rows, deciding, locale))
        game_folder.write_file("scoresheet.html", scoresheet_html(summary, log_rows, deciding, device_name, locale))
        game_folder.sync()
    device_folder.sync()
    entry = LedgerEntry(folder=folder_name, events=len(events), ended_at=ended_at,
                        exported_at=utc_now_iso(), row=games_csv_row(summary, folder_name))
    return entry, missing


def _read_snapshot(state: Path, stored: StoredEvent) -> bytes | None:
    relative = PurePosixPath(stored.snapshot or "")
    if relative.is_absolute() or ".." in relative.parts or not relative.parts:
        log.warning("ignoring snapshot path %r outside the state directory", stored.snapshot)
        return None
    try:
        return (state / relative).read_bytes()
    except FileNotFoundError:
        return None
    except OSError as error:
        log.warning("cannot read snapshot %s: %s", relative, error)
        return None


def device_locale(config: Config, state_dir: str | os.PathLike[str]) -> Locale:
    """The locale the device's exports are written in: the language set on the device (its
    settings menu) over the config's, the config's money style, the system's time zone."""
    language = load_prefs(Path(state_dir), config.device.language, config.display.contrast).language
    return Locale(language, config.device.money_style())
