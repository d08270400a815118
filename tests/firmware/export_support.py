"""Helpers for the export tests: device state with recorded games, and tree comparisons."""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from firmware.eventlog import EventLog

JPEG = b"\xff\xd8\xff\xe0" + bytes(range(256)) * 8 + b"\xff\xd9"


def reading(values: list[int]) -> dict[str, Any]:
    return {"dice": [{"value": v, "center": [10.0 * i, 5.0], "size": 50.0, "angle": 0.0,
                      "confidence": 0.97 if v != 6 else 0.6, "alternatives": [], "cocked": False}
                     for i, v in enumerate(values)],
            "problems": [], "problem_details": [], "moved": ["new"] * len(values)}


GENERALA = ("ones", "twos", "threes", "fours", "fives", "sixes", "straight", "full_house",
            "four_of_a_kind", "generala")


def record_game(log: EventLog, players: list[str], rounds: int = len(GENERALA), end: bool = True,
                stake: str | None = "0.50") -> str:
    """A recorded Generala game: each player throws once per turn and fills the next box;
    with all ten rounds the game is finished."""
    import engine

    game_id = log.begin_game(engine.new_game("generala", players=players, stake=stake))
    for turn in range(rounds):
        for player in range(len(players)):
            values = [((turn + player + i) % 6) + 1 for i in range(5)]
            log.append(game_id, {"type": "throw", "v": 1, "player": player, "values": values,
                                 "thrown": [0, 1, 2, 3, 4]},
                       reading=reading(values), snapshot_jpeg=JPEG + bytes([turn, player]))
            log.append(game_id, {"type": "category_scored", "v": 1, "player": player,
                                 "category": GENERALA[turn]})
    if end:
        log.end_game(game_id)
    return game_id


def make_state(state_dir: Path, games: int, players: list[str] | None = None) -> list[str]:
    with EventLog.open(state_dir) as log:
        return [record_game(log, players or ["Ana", "Beto"]) for _ in range(games)]


def add_games(state_dir: Path, games: int) -> list[str]:
    return make_state(state_dir, games)


def tree(root: Path) -> dict[str, bytes | str]:
    """Every entry below root: file contents, "<dir>", "-> target" for links, "<other>"."""
    found: dict[str, bytes | str] = {}
    for dirpath, dirnames, filenames in os.walk(root, followlinks=False):
        for name in dirnames + filenames:
            path = Path(dirpath) / name
            key = str(path.relative_to(root))
            if path.is_symlink():
                found[key] = "-> " + os.readlink(path)
            elif path.is_dir():
                found[key] = "<dir>"
            elif path.is_file():
                found[key] = path.read_bytes()
            else:
                found[key] = "<other>"
    return found


def memory_tmp_path() -> Iterator[Path]:
    """A temporary folder in memory (/dev/shm) where there is one, so the many fsyncs of an
    export cost nothing on a busy shared machine; the code path is the same."""
    shm = Path("/dev/shm")
    base = shm if shm.is_dir() and os.access(shm, os.W_OK) else None
    path = Path(tempfile.mkdtemp(prefix="cubilete-export-test-", dir=base))
    try:
        yield path
    finally:
        shutil.rmtree(path, ignore_errors=True)
