"""The fault matrix of the export: full, read-only and pulled sticks, planted links, things
where folders or files should be, an exception mid-file, names FAT rejects.

Every case ends with one clear error, nothing written outside the target, no partial file
under a final name, earlier exports untouched, and the next export completing the job.
Faults come from an injected `DirOps` (the file system as the writer sees it); the real
tmpfs cases are in test_export_tmpfs.py.
"""

from __future__ import annotations

import contextlib
import errno
import os
import shutil
import socket
import stat
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from firmware.eventlog import EventLog
from firmware.export import exported_game_ids
from firmware.export.exporter import export_games
from firmware.export.safewrite import DirOps, ExportError, ExportTarget
from tests.firmware.export_support import memory_tmp_path, add_games, make_state, tree

DEVICE = "bar"


tmp_path = pytest.fixture(memory_tmp_path)  # fsync-heavy tests: see export_support
module_tmp = pytest.fixture(scope="module")(memory_tmp_path)


@pytest.fixture(scope="module")
def seed_state(module_tmp: Path) -> Path:
    path = module_tmp / "seed" / "state"
    make_state(path, 2)
    return path


@pytest.fixture(scope="module")
def grown_state(module_tmp: Path, seed_state: Path) -> Path:
    """The seed state after two more games were played."""
    path = module_tmp / "grown" / "state"
    shutil.copytree(seed_state, path)
    add_games(path, 2)
    return path


@pytest.fixture(scope="module")
def grown_reference(module_tmp: Path, grown_state: Path) -> dict[str, bytes | str]:
    root = module_tmp / "grown-reference"
    shutil.copytree(grown_state, root / "state")
    export_games(root / "state", root, DEVICE)
    return tree(root / "CUBILETE")


@pytest.fixture
def sandbox(tmp_path: Path, seed_state: Path) -> "Sandbox":
    return Sandbox(tmp_path, seed_state)


def play_two_more_games(sandbox: "Sandbox", grown_state: Path) -> None:
    """Replace the sandbox's log by the grown one, keeping its export ledger."""
    shutil.rmtree(sandbox.state / "snapshots")
    shutil.copytree(grown_state / "snapshots", sandbox.state / "snapshots")
    for name in ("cubilete.db", "cubilete.db-wal", "cubilete.db-shm"):
        (sandbox.state / name).unlink(missing_ok=True)
        if (grown_state / name).exists():
            shutil.copy2(grown_state / name, sandbox.state / name)


class Sandbox:
    """A state dir, a stick folder (the target) and an outside folder that must stay empty."""

    def __init__(self, root: Path, seed: Path) -> None:
        self.state = root / "state"
        shutil.copytree(seed, self.state)
        self.stick = root / "stick"
        self.stick.mkdir()
        self.outside = root / "outside"
        self.outside.mkdir()
        (self.outside / "precious.txt").write_text("do not touch")
        self.root = root

    def export(self, ops: DirOps | None = None, **kwargs: object) -> object:
        return export_games(self.state, self.stick, DEVICE, ops=ops, **kwargs)  # type: ignore[arg-type]

    def outside_untouched(self) -> bool:
        return tree(self.outside) == {"precious.txt": b"do not touch"} and sorted(
            p.name for p in self.root.iterdir()) == ["outside", "state", "stick"]

    def reference(self) -> dict[str, bytes | str]:
        """What a clean export of every game writes (games.csv aside: it lists history)."""
        clean = self.root.parent / (self.root.name + "-reference")
        if clean.exists():
            shutil.rmtree(clean)
        clean.mkdir()
        state = clean / "state"
        shutil.copytree(self.state, state)
        (state / "exports.json").unlink(missing_ok=True)
        export_games(state, clean, DEVICE)
        found = tree(clean / "CUBILETE")
        shutil.rmtree(clean)
        return found


def final_files(root: Path) -> dict[str, bytes | str]:
    return {k: v for k, v in tree(root).items() if not Path(k).name.endswith(".part")}


def assert_no_partial_files(stick: Path, reference: dict[str, bytes | str]) -> None:
    """Every file under a final name is byte for byte what a clean export writes."""
    for name, content in final_files(stick / "CUBILETE").items():
        # the device's summaries (games.csv, fairness.csv) are rewritten whole by every export:
        # a failed one may leave the previous export's, complete
        if isinstance(content, bytes) and not name.endswith(("games.csv", "fairness.csv")):
            assert content == reference[name], f"{name} is partial or wrong"


class FaultyOps(DirOps):
    """The real calls, with a fault switched on from a given write on."""

    def __init__(self, fault: Callable[[], None], after_writes: int = 0) -> None:
        self.fault = fault
        self.after_writes = after_writes
        self.writes = 0
        self.tripped = False

    def _maybe(self) -> None:
        if self.tripped:
            self.fault()

    def write(self, fd: int, data: memoryview) -> int:
        self.writes += 1
        if self.writes > self.after_writes:
            self.tripped = True
        self._maybe()
        return super().write(fd, data)

    def mkdir(self, name: str, dir_fd: int) -> None:
        self._maybe()
        super().mkdir(name, dir_fd)

    def create_file(self, name: str, dir_fd: int) -> int:
        self._maybe()
        return super().create_file(name, dir_fd)

    def rename(self, old: str, new: str, dir_fd: int) -> None:
        self._maybe()
        super().rename(old, new, dir_fd)

    def fsync(self, fd: int) -> None:
        self._maybe()
        super().fsync(fd)


class PulledStick(FaultyOps):
    """After some writes the stick is gone: every call fails with EIO, even unlink."""

    def unlink(self, name: str, dir_fd: int) -> None:
        self._maybe()
        super().unlink(name, dir_fd)

    def open_dir(self, name: str, dir_fd: int) -> int:
        self._maybe()
        return super().open_dir(name, dir_fd)


def raiser(code: int) -> Callable[[], None]:
    def fault() -> None:
        raise OSError(code, os.strerror(code))
    return fault


def boom() -> None:
    raise RuntimeError("power glitch in the middle of a file")


FAULTS = {
    "full stick": (lambda n: FaultyOps(raiser(errno.ENOSPC), n), "the stick is full"),
    "read-only stick": (lambda n: FaultyOps(raiser(errno.EROFS), n), "read-only"),
    "not allowed": (lambda n: FaultyOps(raiser(errno.EACCES), n), "not allowed"),
    "pulled stick": (lambda n: PulledStick(raiser(errno.EIO), n), "pulled out"),
}


@pytest.mark.parametrize("after_writes", [0, 1, 7, 30])
@pytest.mark.parametrize("fault", sorted(FAULTS))
def test_a_failing_stick_is_a_clear_error_and_the_next_export_finishes(
        sandbox: Sandbox, fault: str, after_writes: int, grown_state: Path,
        grown_reference: dict[str, bytes | str]) -> None:
    make_ops, words = FAULTS[fault]
    sandbox.export()  # an earlier export on this stick
    earlier = final_files(sandbox.stick)
    play_two_more_games(sandbox, grown_state)
    reference = grown_reference

    with pytest.raises(ExportError) as failure:
        sandbox.export(make_ops(after_writes))
    message = str(failure.value)
    assert words in message and "\n" not in message

    assert sandbox.outside_untouched()
    assert_no_partial_files(sandbox.stick, reference)
    now = final_files(sandbox.stick)
    for name, content in earlier.items():
        if not name.endswith("games.csv"):
            assert now[name] == content, f"earlier export changed: {name}"

    result = sandbox.export()
    assert final_files(sandbox.stick / "CUBILETE") == {
        **reference, f"{DEVICE}/games.csv": final_files(sandbox.stick / "CUBILETE")[f"{DEVICE}/games.csv"]}
    assert not [p for p in tree(sandbox.stick) if p.endswith(".part")]
    assert result.listed == 4  # type: ignore[attr-defined]
    with EventLog.open_readonly(sandbox.state) as log:
        assert exported_game_ids(sandbox.state) == {g.game_id for g in log.games()}


def test_an_exception_in_the_middle_of_a_file_leaves_no_file(sandbox: Sandbox) -> None:
    with ExportTarget(sandbox.stick, byte_cap=10**9) as target:
        def chunks() -> Iterator[bytes]:
            yield b"first half,"
            raise RuntimeError("boom")
        with pytest.raises(RuntimeError):
            target.root.write_file("games.csv", chunks())
        target.root.write_file("kept.csv", b"whole\n")
        with pytest.raises(RuntimeError):
            target.root.write_file("kept.csv", chunks())
    assert tree(sandbox.stick) == {"kept.csv": b"whole\n"}


def test_an_exception_mid_export_records_only_finished_games(sandbox: Sandbox) -> None:
    reference = sandbox.reference()
    with pytest.raises(RuntimeError):
        sandbox.export(FaultyOps(boom, after_writes=25))
    assert_no_partial_files(sandbox.stick, reference)
    assert sandbox.outside_untouched()
    assert len(exported_game_ids(sandbox.state)) < 2
    sandbox.export()
    assert len(exported_game_ids(sandbox.state)) == 2


def test_the_byte_cap_stops_an_export_and_the_rest_follows_next_time(sandbox: Sandbox) -> None:
    reference = sandbox.reference()
    one_game = sum(len(v) for k, v in reference.items() if isinstance(v, bytes)) // 2
    with pytest.raises(ExportError, match="size cap"):
        sandbox.export(byte_cap=one_game + one_game // 2)
    assert len(exported_game_ids(sandbox.state)) == 1
    assert_no_partial_files(sandbox.stick, reference)
    sandbox.export(byte_cap=one_game + one_game // 2)
    assert len(exported_game_ids(sandbox.state)) == 2


# --- hostile sticks -------------------------------------------------------------------------

def game_folder(sandbox: Sandbox) -> str:
    with EventLog.open_readonly(sandbox.state) as log:
        first = log.games()[0]
    return f"{first.game_id}_{first.game}"


def components(sandbox: Sandbox) -> list[str]:
    game = game_folder(sandbox)
    return ["CUBILETE", f"CUBILETE/{DEVICE}", f"CUBILETE/{DEVICE}/{game}",
            f"CUBILETE/{DEVICE}/{game}/snapshots", f"CUBILETE/{DEVICE}/{game}/snapshots/000001.jpg",
            f"CUBILETE/{DEVICE}/{game}/events.jsonl", f"CUBILETE/{DEVICE}/{game}/scoresheet.csv",
            f"CUBILETE/{DEVICE}/{game}/scoresheet.html", f"CUBILETE/{DEVICE}/games.csv"]


def plant(sandbox: Sandbox, relative: str, kind: str) -> None:
    path = sandbox.stick / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    if kind == "link to a folder":
        path.symlink_to(sandbox.outside)
    elif kind == "link to a file":
        path.symlink_to(sandbox.outside / "precious.txt")
    elif kind == "dangling link":
        path.symlink_to(sandbox.outside / "new-file")
    elif kind == "file":
        path.write_text("in the way")
    elif kind == "folder":
        path.mkdir()
    elif kind == "fifo":
        os.mkfifo(path)
    elif kind == "device":  # /dev/null's numbers; planting one needs root
        if os.geteuid() != 0:
            pytest.skip("making a device node needs root")
        os.mknod(path, 0o600 | stat.S_IFCHR, os.makedev(1, 3))
    elif kind == "socket":
        with socket.socket(socket.AF_UNIX) as sock, contextlib.chdir(path.parent):
            sock.bind(path.name)  # relative: the full path is longer than a socket address


@pytest.mark.parametrize("kind", ["link to a folder", "link to a file", "dangling link"])
@pytest.mark.parametrize("where", range(9))
def test_a_link_planted_anywhere_on_the_path_is_refused(sandbox: Sandbox, where: int, kind: str) -> None:
    relative = components(sandbox)[where]
    plant(sandbox, relative, kind)
    with pytest.raises(ExportError) as failure:
        sandbox.export()
    assert "symbolic link" in str(failure.value) and relative.split("/")[-1] in str(failure.value)
    assert sandbox.outside_untouched()
    assert (sandbox.stick / relative).is_symlink()


@pytest.mark.parametrize("where", range(4))
def test_a_file_where_a_folder_should_be_is_refused(sandbox: Sandbox, where: int) -> None:
    relative = components(sandbox)[where]
    plant(sandbox, relative, "file")
    with pytest.raises(ExportError, match="is a file, not a folder"):
        sandbox.export()
    assert (sandbox.stick / relative).read_text() == "in the way"


@pytest.mark.parametrize("kind", ["fifo", "device", "socket"])
@pytest.mark.parametrize("where", range(4))
def test_a_special_file_where_a_folder_should_be_is_refused(sandbox: Sandbox, where: int, kind: str) -> None:
    relative = components(sandbox)[where]
    plant(sandbox, relative, kind)
    with pytest.raises(ExportError, match="is a special file, not a folder"):
        sandbox.export()
    assert sandbox.outside_untouched()
    assert not stat.S_ISREG((sandbox.stick / relative).lstat().st_mode)


@pytest.mark.parametrize("kind,words", [("folder", "is a folder, not a file"), ("fifo", "is a special file"),
                                        ("device", "is a special file"), ("socket", "is a special file")])
@pytest.mark.parametrize("where", range(4, 9))
def test_something_else_where_a_file_should_be_is_refused(sandbox: Sandbox, where: int, kind: str, words: str) -> None:
    relative = components(sandbox)[where]
    plant(sandbox, relative, kind)
    with pytest.raises(ExportError, match=words):
        sandbox.export()
    assert sandbox.outside_untouched()


def test_a_link_at_a_temporary_name_is_removed_not_followed(sandbox: Sandbox) -> None:
    game = game_folder(sandbox)
    plant(sandbox, f"CUBILETE/{DEVICE}/{game}/.events.jsonl.part", "link to a file")
    plant(sandbox, f"CUBILETE/{DEVICE}/.games.csv.part", "link to a folder")
    sandbox.export()
    assert sandbox.outside_untouched()
    assert not [p for p in tree(sandbox.stick) if p.endswith(".part")]


def test_a_leftover_temporary_file_from_a_pulled_stick_is_replaced(sandbox: Sandbox) -> None:
    plant(sandbox, f"CUBILETE/{DEVICE}/.games.csv.part", "file")
    sandbox.export()
    assert not (sandbox.stick / f"CUBILETE/{DEVICE}/.games.csv.part").exists()


@pytest.mark.parametrize("name", ["CON", "aux.txt", 'Bar "El Rincón": 2/3', "ends with dot.", " spaces ",
                                  "tab\there", "lpt1", "a" * 300, "¿Qué?*<>|", "..", ""])
def test_names_fat_rejects_become_valid_folder_names(sandbox: Sandbox, name: str) -> None:
    from firmware.export.fatnames import FORBIDDEN, RESERVED

    export_games(sandbox.state, sandbox.stick, name)
    (folder,) = list((sandbox.stick / "CUBILETE").iterdir())
    assert not set(folder.name) & FORBIDDEN
    assert folder.name.split(".")[0].upper() not in RESERVED
    assert not folder.name.endswith((".", " ")) and len(folder.name) <= 80
    assert (folder / "games.csv").is_file()
    assert sandbox.outside_untouched()
