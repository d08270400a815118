"""Writing a folder tree onto an untrusted stick: whole files or nothing, no link followed.

The folder the caller names (the mount point, or `--to DIR`) is trusted; nothing below it
is. Every folder below it is opened one component at a time relative to its parent's
directory file descriptor, with O_NOFOLLOW | O_DIRECTORY, so a symbolic link planted
anywhere on the path is refused rather than followed, and nothing can be written outside
the target. A name that exists as something else (a file where a folder should be, a
folder, link or device where a file should be) is refused with a message naming it.
Nothing on the stick is read, listed or executed.

A file is written to a temporary name beside it, fsynced, renamed over the final name, and
the folder is fsynced once its files are in place (`Folder.sync`): a reader of the stick
sees the old file or the whole new one, never a part. On any failure the temporary file is
removed (best effort: a pulled stick cannot be cleaned) and a later export, which uses the
same temporary name, replaces whatever was left.

The bytes written by one `ExportTarget` are capped. Every system call goes through
`DirOps`, so tests can stand in a file system that fills up, turns read-only or vanishes.
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Iterable
from pathlib import PurePosixPath

from firmware.export.fatnames import fat_name

CHUNK = 256 * 1024
FILE_MODE = 0o644
DIR_MODE = 0o755


class ExportError(Exception):
    """An export that could not be completed; str() is one line for the screen and stderr."""


class ByteCapReached(ExportError):
    pass


class DirOps:
    """The system calls the writer makes, all relative to directory file descriptors."""

    def open_root(self, path: str) -> int:
        return os.open(path, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)

    def mkdir(self, name: str, dir_fd: int) -> None:
        os.mkdir(name, DIR_MODE, dir_fd=dir_fd)

    def open_dir(self, name: str, dir_fd: int) -> int:
        return os.open(name, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC,
                       dir_fd=dir_fd)

    def create_file(self, name: str, dir_fd: int) -> int:
        # O_EXCL never follows a link and never opens a FIFO or device that is there.
        return os.open(name, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC,
                       FILE_MODE, dir_fd=dir_fd)

    def write(self, fd: int, data: memoryview) -> int:
        return os.write(fd, data)

    def fsync(self, fd: int) -> None:
        os.fsync(fd)

    def rename(self, old: str, new: str, dir_fd: int) -> None:
        os.rename(old, new, src_dir_fd=dir_fd, dst_dir_fd=dir_fd)

    def unlink(self, name: str, dir_fd: int) -> None:
        os.unlink(name, dir_fd=dir_fd)

    def lstat(self, name: str, dir_fd: int) -> os.stat_result:
        return os.stat(name, dir_fd=dir_fd, follow_symlinks=False)

    def fstat(self, fd: int) -> os.stat_result:
        return os.fstat(fd)

    def close(self, fd: int) -> None:
        os.close(fd)


def describe(mode: int) -> str:
    if stat.S_ISLNK(mode):
        return "a symbolic link"
    if stat.S_ISDIR(mode):
        return "a folder"
    if stat.S_ISREG(mode):
        return "a file"
    return "a special file"


def explain(error: OSError, where: str, written: int = 0) -> ExportError:
    """One line saying what went wrong with the stick, in the words a bar owner knows."""
    code = error.errno
    if code in (errno.ENOSPC, errno.EDQUOT):
        return ExportError(f"the stick is full ({written / 1e6:.1f} MB written); free some space"
                           f" or use a bigger stick")
    if code == errno.EROFS:
        return ExportError("the stick is read-only (is its write-protect switch on?)")
    if code in (errno.EACCES, errno.EPERM):
        return ExportError(f"not allowed to write {where} on the stick")
    if code in (errno.EIO, errno.ENODEV, errno.ENXIO, errno.ENOENT, errno.ESTALE, errno.ENOTCONN):
        return ExportError(f"the stick stopped answering while writing {where} (was it pulled out?)")
    if code == errno.EFBIG:
        return ExportError(f"{where} is too big for the stick's file system")
    if code == errno.ENAMETOOLONG:
        return ExportError(f"the name {where} is too long for the stick")
    return ExportError(f"cannot write {where} on the stick: {error.strerror or error}")


class ExportTarget:
    """The trusted folder an export writes into, with its byte budget."""

    def __init__(self, root: str | os.PathLike[str], byte_cap: int, ops: DirOps | None = None) -> None:
        self.ops = ops or DirOps()
        self.byte_cap = byte_cap
        self.bytes_written = 0
        self.files_written = 0
        self._root_path = os.fspath(root)
        try:
            fd = self.ops.open_root(self._root_path)
        except FileNotFoundError:
            raise ExportError(f"{self._root_path}: no such folder") from None
        except NotADirectoryError:
            raise ExportError(f"{self._root_path} is not a folder") from None
        except OSError as error:
            raise explain(error, self._root_path) from error
        self.root = Folder(self, fd, PurePosixPath("."), self.ops.fstat(fd).st_dev)

    def close(self) -> None:
        self.root.close()

    def __enter__(self) -> "ExportTarget":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def charge(self, size: int, where: PurePosixPath) -> None:
        if self.bytes_written + size > self.byte_cap:
            raise ByteCapReached(
                f"stopped at the export size cap ({self.byte_cap / 1e6:.0f} MB, export.byte_cap_mb)"
                f" before {where}; plug the stick in again to export the rest")
        self.bytes_written += size


class Folder:
    """An open folder below the target. Names given to it are single components."""

    def __init__(self, target: ExportTarget, fd: int, path: PurePosixPath, device: int) -> None:
        self.target = target
        self.fd = fd
        self.path = path
        self._device = device

    @property
    def ops(self) -> DirOps:
        return self.target.ops

    def close(self) -> None:
        if self.fd >= 0:
            self.ops.close(self.fd)
            self.fd = -1

    def __enter__(self) -> "Folder":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _child(self, name: str) -> str:
        if name != fat_name(name):
            raise ExportError(f"internal error: {name!r} is not a valid name on a stick")
        return name

    def _kind(self, name: str) -> str | None:
        try:
            return describe(self.ops.lstat(name, self.fd).st_mode)
        except OSError:
            return None

    def subfolder(self, name: str) -> "Folder":
        """Open the folder `name` here, creating it when missing; never through a link."""
        name = self._child(name)
        where = self.path / name
        try:
            self.ops.mkdir(name, self.fd)
        except FileExistsError:
            pass
        except OSError as error:
            raise explain(error, str(where), self.target.bytes_written) from error
        try:
            fd = self.ops.open_dir(name, self.fd)
        except OSError as error:
            kind = self._kind(name)
            if error.errno in (errno.ENOTDIR, errno.ELOOP) and kind not in (None, "a folder"):
                raise ExportError(f"{where} on the stick is {kind}, not a folder; refusing to use it") from None
            raise explain(error, str(where), self.target.bytes_written) from error
        info = self.ops.fstat(fd)
        if info.st_dev != self._device:
            self.ops.close(fd)
            raise ExportError(f"{where} on the stick is another file system mounted there; refusing to use it")
        return Folder(self.target, fd, where, self._device)

    def write_file(self, name: str, chunks: bytes | Iterable[bytes]) -> int:
        """Write the file `name` whole (temporary name, fsync, rename); returns its size.

        The folder itself is fsynced by `sync()`, once all its files are written.
        """
        name = self._child(name)
        where = self.path / name
        temporary = fat_name(f".{name}.part")
        existing = self._kind(name)
        if existing not in (None, "a file"):
            raise ExportError(f"{where} on the stick is {existing}, not a file; refusing to replace it")
        self._remove_leftover(temporary, where)
        size = 0
        try:
            fd = self.ops.create_file(temporary, self.fd)
        except OSError as error:
            raise explain(error, str(where), self.target.bytes_written) from error
        try:
            try:
                for chunk in ([chunks] if isinstance(chunks, (bytes, bytearray)) else chunks):
                    view = memoryview(chunk)
                    self.target.charge(len(view), where)
                    while view:
                        done = self.ops.write(fd, view[:CHUNK])
                        view = view[done:]
                    size += len(chunk)
                self.ops.fsync(fd)
            finally:
                self.ops.close(fd)
            self.ops.rename(temporary, name, self.fd)
        except BaseException as error:
            self._discard(temporary)
            if isinstance(error, OSError):
                raise explain(error, str(where), self.target.bytes_written) from error
            raise
        self.target.files_written += 1
        return size

    def sync(self) -> None:
        """Make the renames in this folder durable."""
        try:
            self.ops.fsync(self.fd)
        except OSError as error:
            # Some file systems refuse fsync on a folder; their renames are already on disk.
            if error.errno not in (errno.EINVAL, errno.ENOTSUP):
                raise explain(error, str(self.path), self.target.bytes_written) from error

    def _remove_leftover(self, temporary: str, where: PurePosixPath) -> None:
        try:
            self.ops.unlink(temporary, self.fd)
        except FileNotFoundError:
            return
        except IsADirectoryError:
            raise ExportError(f"{self.path / temporary} on the stick is a folder; refusing to touch it") from None
        except OSError as error:
            raise explain(error, str(where), self.target.bytes_written) from error

    def _discard(self, temporary: str) -> None:
        try:
            self.ops.unlink(temporary, self.fd)
        except OSError:
            pass  # a pulled stick; the next export replaces the leftover
