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
removed (best effort: a pulled stick cannot be cleaned); the next export removes every
leftover temporary file in its own folders first (`Folder.remove_leftovers`, the one place
a folder on the stick is listed).

Writing is not the proof: every file written is remembered with its size and SHA-256, and
`ExportTarget.read_back` opens each again by its path from the trusted folder (a fresh
lookup, one component at a time, no link followed), after `ExportTarget.sync` flushed the
file system and with the file's cached pages dropped, and compares. A stick unmounted or a
folder deleted during the export (the writes then went to a detached file system or to
unlinked folders, and succeeded) fails that check.

The bytes written by one `ExportTarget` are capped. Every system call goes through
`DirOps`, so tests can stand in a file system that fills up, turns read-only or vanishes.
"""

from __future__ import annotations

import ctypes
import errno
import hashlib
import os
import stat
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import PurePosixPath

from firmware.export.fatnames import fat_name

CHUNK = 256 * 1024
FILE_MODE = 0o644
DIR_MODE = 0o755
LEFTOVER_SUFFIX = ".part"
MAX_LISTED = 100_000  # entries looked at per folder when removing leftovers (a stick may hold millions)


@dataclass(frozen=True)
class WrittenFile:
    path: PurePosixPath  # relative to the target
    size: int
    sha256: str


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

    def open_file(self, name: str, dir_fd: int) -> int:
        return os.open(name, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC, dir_fd=dir_fd)

    def read(self, fd: int, size: int) -> bytes:
        return os.read(fd, size)

    def drop_cache(self, fd: int) -> None:
        """Forget the file's cached pages (clean after a sync), so reading it asks the stick."""
        os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)

    def listdir(self, dir_fd: int) -> list[str]:
        return os.listdir(dir_fd)

    def syncfs(self, fd: int) -> None:
        libc = ctypes.CDLL(None, use_errno=True)
        if libc.syncfs(fd) != 0:
            code = ctypes.get_errno()
            raise OSError(code, os.strerror(code))


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
        self.written: list[WrittenFile] = []
        self._root_path = os.fspath(root)
        try:
            fd = self.ops.open_root(self._root_path)
        except FileNotFoundError:
            raise ExportError(f"{self._root_path}: no such folder") from None
        except NotADirectoryError:
            raise ExportError(f"{self._root_path} is not a folder") from None
        except OSError as error:
            raise explain(error, self._root_path) from error
        info = self.ops.fstat(fd)
        self._root_identity = (info.st_dev, info.st_ino)
        self.root = Folder(self, fd, PurePosixPath("."), info.st_dev)

    def close(self) -> None:
        self.root.close()

    def sync(self) -> None:
        """Flush the whole file system of the target (syncfs), so what was written is on it."""
        try:
            self.ops.syncfs(self.root.fd)
        except OSError as error:
            raise ExportError(f"the stick could not save its data ({error.strerror or error});"
                              " was it pulled out?") from None

    def read_back(self, files: Sequence[WrittenFile]) -> str | None:
        """None when every file is on the target, by its path, with the content written;
        otherwise what is wrong, in one line."""
        try:
            fd = self.ops.open_root(self._root_path)
        except OSError as error:
            return f"{self._root_path} cannot be opened any more ({error.strerror or error})"
        folders: dict[PurePosixPath, int] = {PurePosixPath("."): fd}
        try:
            info = self.ops.fstat(fd)
            if (info.st_dev, info.st_ino) != self._root_identity:
                return "the stick was unmounted or replaced during the export"
            for file in files:
                problem = self._check_file(file, folders)
                if problem is not None:
                    return problem
            return None
        finally:
            for folder_fd in folders.values():
                self.ops.close(folder_fd)

    def _folder_fd(self, path: PurePosixPath, folders: dict[PurePosixPath, int]) -> int:
        if path not in folders:
            parent = self._folder_fd(path.parent, folders)
            folders[path] = self.ops.open_dir(path.name, parent)
        return folders[path]

    def _check_file(self, file: WrittenFile, folders: dict[PurePosixPath, int]) -> str | None:
        try:
            fd = self.ops.open_file(file.path.name, self._folder_fd(file.path.parent, folders))
        except FileNotFoundError:
            return f"{file.path} is not on the stick after the export (was the stick changed or a folder deleted?)"
        except OSError as error:
            return f"{file.path} cannot be read back from the stick ({error.strerror or error})"
        try:
            if not stat.S_ISREG(self.ops.fstat(fd).st_mode):
                return f"{file.path} on the stick is not the file written"
            try:
                self.ops.drop_cache(fd)
            except OSError:
                pass  # a file system without page-cache advice: read it as it is
            digest, size = hashlib.sha256(), 0
            while True:
                chunk = self.ops.read(fd, CHUNK)
                if not chunk:
                    break
                digest.update(chunk)
                size += len(chunk)
        except OSError as error:
            return f"{file.path} cannot be read back from the stick ({error.strerror or error})"
        finally:
            self.ops.close(fd)
        if size != file.size or digest.hexdigest() != file.sha256:
            return f"{file.path} on the stick is not what was written ({size} of {file.size} bytes)"
        return None

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

    def has_folder(self, name: str) -> bool:
        """A folder `name` is here (not a link to one)."""
        return name == fat_name(name) and self._kind(name) == "a folder"

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
        digest = hashlib.sha256()
        try:
            fd = self.ops.create_file(temporary, self.fd)
        except OSError as error:
            raise explain(error, str(where), self.target.bytes_written) from error
        try:
            try:
                for chunk in ([chunks] if isinstance(chunks, (bytes, bytearray)) else chunks):
                    view = memoryview(chunk)
                    self.target.charge(len(view), where)
                    digest.update(view)
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
        self.target.written.append(WrittenFile(where, size, digest.hexdigest()))
        return size

    def sync(self) -> None:
        """Make the renames in this folder durable."""
        try:
            self.ops.fsync(self.fd)
        except OSError as error:
            # Some file systems refuse fsync on a folder; their renames are already on disk.
            if error.errno not in (errno.EINVAL, errno.ENOTSUP):
                raise explain(error, str(self.path), self.target.bytes_written) from error

    def remove_leftovers(self, depth: int = 2) -> int:
        """Remove the temporary files (".<name>.part") an export killed before its rename
        left in this folder and, down to `depth`, its subfolders; returns how many. Only
        plain files with that name form are touched; nothing is followed."""
        removed = 0
        try:
            names = self.ops.listdir(self.fd)
        except OSError:
            return 0
        for name in names[:MAX_LISTED]:
            try:
                mode = self.ops.lstat(name, self.fd).st_mode
            except OSError:
                continue
            if stat.S_ISREG(mode) and name.startswith(".") and name.endswith(LEFTOVER_SUFFIX):
                try:
                    self.ops.unlink(name, self.fd)
                    removed += 1
                except OSError:
                    pass
            elif stat.S_ISDIR(mode) and depth > 0 and name == fat_name(name):
                try:
                    fd = self.ops.open_dir(name, self.fd)
                except OSError:
                    continue
                with Folder(self.target, fd, self.path / name, self._device) as child:
                    removed += child.remove_leftovers(depth - 1)
        return removed

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
