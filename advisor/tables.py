"""The solved tables: V for every reachable position of one game with one set of options.

A table file is a compressed numpy archive (.npz) with `values` (float32, the reachable
positions in the order of `GameModel.reachable`) and `meta` (JSON: game, options, solver
version, the optimal expected total, build seconds). Tables are looked up in the package
(`advisor/tables/`, the small ones shipped) and then in the state directory's `advisor/`
folder (built at first use, or ahead by `cubilete solve`); a missing table is solved and
cached there when the folder can be written.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
import time
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any, Callable, Mapping

import numpy as np

from advisor.model import GameModel, Position
from advisor.solver import solve
from engine import resolve_game

SOLVER_VERSION = 1
PACKAGE_TABLES = Path(__file__).parent / "tables"
CACHE_FOLDER = "advisor"


@lru_cache(maxsize=16)
def _model(game_id: str, options_json: str) -> GameModel:
    game, options = resolve_game(game_id, json.loads(options_json))
    return GameModel(game.rules(options))


def game_model(game_id: str, options: Mapping[str, Any] | None = None) -> GameModel:
    """The solver's model of a game (id or preset) with its options resolved."""
    game, resolved = resolve_game(game_id, options)
    return _model(game.id, json.dumps(resolved, sort_keys=True))


def table_key(game_id: str, options: Mapping[str, Any] | None = None) -> str:
    """The file name stem: the game id, and a hash of the options unless they are the defaults."""
    game, resolved = resolve_game(game_id, options)
    if resolved == game.resolve_options():
        return game.id
    digest = hashlib.sha256(json.dumps(resolved, sort_keys=True).encode()).hexdigest()[:10]
    return f"{game.id}-{digest}"


@dataclass(frozen=True)
class Table:
    """V for every position of a game (unreachable ones 0), and how it was made."""

    game: str
    options: dict[str, Any]
    model: GameModel
    values: np.ndarray  # shape model.shape
    expected: float  # V of the empty sheet: the optimal expected total
    seconds: float  # solving time when it was built
    path: Path | None = None

    def value(self, position: Position) -> float:
        return float(self.values[position.open_boxes, position.flags, position.progress, position.bank])

    @property
    def flat(self) -> np.ndarray:
        return self.values.reshape(-1)


def build(game_id: str, options: Mapping[str, Any] | None = None,
          report: Callable[[int, int, float], None] | None = None, chunk: int = 128) -> Table:
    """Solve the game (minutes for the games with an upper bonus)."""
    game, resolved = resolve_game(game_id, options)
    model = game_model(game.id, resolved)
    started = time.perf_counter()
    values = solve(model, chunk=chunk, report=report)
    seconds = time.perf_counter() - started
    expected = float(values[model.open_sets - 1, 0, 0, 0])
    return Table(game.id, resolved, model, values, expected, seconds)


def save(table: Table, path: Path) -> int:
    """Write the table (atomically); returns its size in bytes."""
    path.parent.mkdir(parents=True, exist_ok=True)
    meta = {"game": table.game, "options": table.options, "solver_version": SOLVER_VERSION,
            "expected": table.expected, "seconds": round(table.seconds, 1)}
    stored = table.values[table.model.reachable].astype(np.float32)
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=".table-", suffix=".npz")
    try:
        with os.fdopen(handle, "wb") as out:
            np.savez_compressed(out, values=stored, meta=np.array(json.dumps(meta)))
        os.chmod(temporary, 0o644)  # readable like any installed file (mkstemp makes it private)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
    return path.stat().st_size


class TableMismatch(ValueError):
    """A table file for other rules, options or solver version."""


def load(path: Path, game_id: str, options: Mapping[str, Any] | None = None) -> Table:
    game, resolved = resolve_game(game_id, options)
    model = game_model(game.id, resolved)
    with np.load(path) as archive:
        meta = json.loads(str(archive["meta"]))
        stored = archive["values"]
    if meta.get("solver_version") != SOLVER_VERSION or meta.get("game") != game.id or meta.get("options") != resolved:
        raise TableMismatch(f"{path} is a table for {meta.get('game')} {meta.get('options')} "
                            f"(solver {meta.get('solver_version')}), not {game.id} {resolved}")
    reachable = model.reachable
    if stored.shape != (int(reachable.sum()),):
        raise TableMismatch(f"{path} holds {stored.shape[0]} positions, {game.id} has {int(reachable.sum())}")
    values = np.zeros(model.shape, dtype=np.float64)
    values[reachable] = stored
    return Table(game.id, resolved, model, values, float(meta["expected"]), float(meta["seconds"]), path)


def cache_path(state_dir: str | Path, game_id: str, options: Mapping[str, Any] | None = None) -> Path:
    return Path(state_dir) / CACHE_FOLDER / f"{table_key(game_id, options)}.npz"


def shipped_path(game_id: str, options: Mapping[str, Any] | None = None) -> Path:
    return PACKAGE_TABLES / f"{table_key(game_id, options)}.npz"


def find(game_id: str, options: Mapping[str, Any] | None = None, state_dir: str | Path | None = None) -> Table | None:
    """The shipped table, else the cached one; None if neither is there (or fits)."""
    places = [shipped_path(game_id, options)]
    if state_dir is not None:
        places.append(cache_path(state_dir, game_id, options))
    for path in places:
        if path.is_file():
            try:
                return load(path, game_id, options)
            except (TableMismatch, OSError, ValueError, KeyError):
                continue
    return None


_LOADED: dict[tuple[str, str | None], Table] = {}  # tables already read or solved by this process


def get_table(game_id: str, options: Mapping[str, Any] | None = None, state_dir: str | Path | None = None,
              report: Callable[[int, int, float], None] | None = None) -> Table:
    """The table, solving it (and caching it in the state directory, when writable) if it
    is neither shipped nor cached. Kept in memory for the next call (a few at most)."""
    key = (table_key(game_id, options), None if state_dir is None else str(state_dir))
    if key not in _LOADED:
        if len(_LOADED) >= 4:
            _LOADED.pop(next(iter(_LOADED)))
        _LOADED[key] = _read_or_solve(game_id, options, state_dir, report)
    return _LOADED[key]


def _read_or_solve(game_id: str, options: Mapping[str, Any] | None, state_dir: str | Path | None,
                   report: Callable[[int, int, float], None] | None) -> Table:
    table = find(game_id, options, state_dir)
    if table is not None:
        return table
    table = build(game_id, options, report=report)
    if state_dir is not None:
        path = cache_path(state_dir, game_id, options)
        try:
            save(table, path)
            table = Table(table.game, table.options, table.model, table.values, table.expected, table.seconds, path)
        except OSError:
            pass  # a read-only state directory: the table lives for this process only
    return table
