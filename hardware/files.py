"""Writing a file on the device's own storage whole or not at all.

`write_atomically` is the one way the device replaces a small file it owns (snapshots,
preferences, the export ledger, an export request, a job file of the USB export, a recorded
session's index): the data go to a temporary name beside the file (`.NAME.tmp`, opened
without following a link), then are renamed over it, so a reader sees the old content or the
new, never a part. With `sync` (the default) the file is fsynced before the rename and its
folder after it, so the new content also survives a power cut; files in a runtime folder
(tmpfs) or written by the lab skip that.

Writing to a USB stick, which may vanish or lie, is `firmware.export.safewrite`'s work.
"""

from __future__ import annotations

import os
from pathlib import Path

TEMPORARY_PREFIX = "."
TEMPORARY_SUFFIX = ".tmp"


def temporary_name(path: Path) -> Path:
    """Where `path` is written before it is renamed into place."""
    return path.with_name(f"{TEMPORARY_PREFIX}{path.name}{TEMPORARY_SUFFIX}")


def write_atomically(path: str | os.PathLike[str], data: bytes, *, sync: bool = True, mode: int = 0o644,
                     owner: tuple[int, int] | None = None) -> None:
    """Replace `path` by `data`, whole or not at all; `owner` (uid, gid) is set on the new file
    before it takes the name. The folder must exist."""
    path = Path(path)
    temporary = temporary_name(path)
    fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW | os.O_CLOEXEC, mode)
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view):]
        if owner is not None:
            os.fchown(fd, *owner)
        if sync:
            os.fsync(fd)
    finally:
        os.close(fd)
    os.replace(temporary, path)
    if sync:
        sync_folder(path.parent)


def sync_folder(folder: str | os.PathLike[str]) -> None:
    """fsync a folder, so that the names just created or renamed in it are on disk."""
    fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
