"""hardware.files.write_atomically: the one way the device replaces a file it owns."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from hardware import files
from hardware.files import temporary_name, write_atomically


def test_a_file_is_written_whole_and_replaced_whole(tmp_path: Path) -> None:
    target = tmp_path / "prefs.json"
    write_atomically(target, b"old")
    write_atomically(target, b"new content")
    assert target.read_bytes() == b"new content"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["prefs.json"]
    assert target.stat().st_mode & 0o777 == 0o644 & ~_umask()


def test_a_write_that_fails_before_the_rename_keeps_the_old_content(tmp_path: Path, monkeypatch) -> None:
    target = tmp_path / "ledger.json"
    write_atomically(target, b"old")

    def power_cut(*_args: object) -> None:
        raise OSError("power cut")

    monkeypatch.setattr(files.os, "replace", power_cut)
    with pytest.raises(OSError):
        write_atomically(target, b"new")
    assert target.read_bytes() == b"old"


def test_the_file_and_its_folder_are_synced_unless_asked_not_to(tmp_path: Path, monkeypatch) -> None:
    synced: list[int] = []
    real_fsync = os.fsync
    monkeypatch.setattr(files.os, "fsync", lambda fd: synced.append(fd) or real_fsync(fd))
    write_atomically(tmp_path / "a", b"1")
    assert len(synced) == 2  # the file, then its folder
    synced.clear()
    write_atomically(tmp_path / "b", b"2", sync=False)
    assert synced == []


def test_a_link_at_the_temporary_name_is_not_followed(tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.write_bytes(b"keep")
    target = tmp_path / "job.json"
    temporary_name(target).symlink_to(elsewhere)
    with pytest.raises(OSError):
        write_atomically(target, b"{}")
    assert elsewhere.read_bytes() == b"keep" and not target.exists()


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask
