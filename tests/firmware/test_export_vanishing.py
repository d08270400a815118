"""Export targets that fail for real in the middle of an export: a tmpfs "stick" unmounted
lazily, its folder deleted, filled up, or remounted read-only while the files are being
written. The writes of the first two succeed (they go to a detached file system or to
unlinked folders): only reading the files back by their paths after the sync can tell.

Each case must end in an error that says what failed, and every game the ledger calls
exported must be on the stick, whole. Mounting needs root; without it these skip (the
same outcomes with faults injected through DirOps are in test_export_faults.py).
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from firmware.export import Ledger
from firmware.export.exporter import export_games
from firmware.export.safewrite import DirOps, ExportError
from tests.firmware.export_support import make_state, tree

DEVICE = "bar"
GAMES = 6

pytestmark = pytest.mark.skipif(os.geteuid() != 0 or shutil.which("mount") is None,
                                reason="needs root to mount, unmount and remount a tmpfs stick")


@contextmanager
def tmpfs(path: Path, size_kb: int) -> Iterator[Path]:
    path.mkdir()
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size_kb}k", "tmpfs", str(path)],
                          capture_output=True, text=True)
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {done.stderr.strip()}")
    try:
        yield path
    finally:
        subprocess.run(["umount", "-l", str(path)], capture_output=True)


class Trigger(DirOps):
    """The real calls; `action` runs once, just before the n-th file is created."""

    def __init__(self, action: Callable[[], None], at_file: int) -> None:
        self.action = action
        self.at_file = at_file
        self.files = 0

    def create_file(self, name: str, dir_fd: int) -> int:
        self.files += 1
        if self.files == self.at_file:
            self.action()
        return super().create_file(name, dir_fd)


def false_exports(state: Path, stick: Path, reference: dict[str, bytes | str]) -> list[str]:
    """Games the ledger calls exported that are not on the stick whole."""
    wrong = []
    for game_id, entry in Ledger.load(state).games.items():
        prefix = f"{DEVICE}/{entry.folder}/"
        expected = {k: v for k, v in reference.items() if k.startswith(prefix)}
        found = {k: v for k, v in tree(stick / "CUBILETE").items() if k.startswith(prefix)} \
            if (stick / "CUBILETE").is_dir() else {}
        if not expected or found != expected:
            wrong.append(game_id)
    return wrong


@pytest.fixture(scope="module")
def seeded(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, bytes | str]]:
    root = tmp_path_factory.mktemp("vanishing")
    make_state(root / "state", GAMES)
    clean = root / "clean"
    shutil.copytree(root / "state", clean / "state")
    export_games(clean / "state", clean, DEVICE)
    return root / "state", tree(clean / "CUBILETE")


def run_case(case: str, at_file: int, folder: Path, seed: Path, reference: dict[str, bytes | str]
             ) -> tuple[str | None, list[str]]:
    """(the error said, or None when the export claimed success; games falsely exported)."""
    state = folder / "state"
    shutil.copytree(seed, state)
    size = 200 if case == "full" else 65536
    with tmpfs(folder / "stick", size) as stick:
        actions = {
            "unmounted": lambda: subprocess.run(["umount", "-l", str(stick)], check=True),
            "deleted": lambda: shutil.rmtree(stick / "CUBILETE"),
            "read-only": lambda: subprocess.run(["mount", "-o", "remount,ro", str(stick)], check=True),
            "full": lambda: None,
        }
        error = None
        try:
            export_games(state, stick, DEVICE, ops=Trigger(actions[case], at_file))
        except ExportError as raised:
            error = str(raised)
        if case == "read-only":
            subprocess.run(["mount", "-o", "remount,rw", str(stick)], check=False)
        return error, false_exports(state, stick, reference)


@pytest.mark.parametrize("at_file", [2, 9, 40])
@pytest.mark.parametrize("case,words", [
    ("unmounted", ("unmounted or replaced",)),
    # a file created in a deleted folder fails on tmpfs; what was already written is missed on reading back
    ("deleted", ("not on the stick", "stopped answering")),
    ("full", ("the stick is full",)), ("read-only", ("read-only",)),
])
def test_a_stick_failing_mid_export_is_never_called_exported(
        case: str, words: tuple[str, ...], at_file: int, tmp_path: Path,
        seeded: tuple[Path, dict[str, bytes | str]]) -> None:
    seed, reference = seeded
    error, wrong = run_case(case, at_file, tmp_path, seed, reference)
    assert error is not None, "the export said it succeeded"
    assert any(w in error for w in words), error
    assert wrong == [], f"the ledger calls {wrong} exported"


def test_a_killed_export_s_temporary_file_is_removed_by_the_next(
        tmp_path: Path, seeded: tuple[Path, dict[str, bytes | str]]) -> None:
    seed, reference = seeded
    state = tmp_path / "state"
    shutil.copytree(seed, state)
    with tmpfs(tmp_path / "stick", 65536) as stick:
        export_games(state, stick, DEVICE)
        game_folder = next(p for p in (stick / "CUBILETE" / DEVICE).iterdir() if p.is_dir())
        leftovers = [stick / "CUBILETE" / DEVICE / ".games.csv.part", game_folder / ".scoresheet.html.part",
                     game_folder / "snapshots" / ".000003.jpg.part"]
        for leftover in leftovers:
            leftover.write_bytes(b"half a file")
        (game_folder / ".notes.part").mkdir()  # not a file: left alone
        export_games(state, stick, DEVICE)  # nothing new to write: the leftovers go all the same
        assert not any(p.exists() for p in leftovers)
        assert (game_folder / ".notes.part").is_dir()
        assert {k: v for k, v in tree(stick / "CUBILETE").items() if ".part" not in k and "games.csv" not in k} \
            == {k: v for k, v in reference.items() if "games.csv" not in k}
