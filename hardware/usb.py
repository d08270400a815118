"""USB storage: mount a stick's partition privately and safely, sync it, unmount it.

`UsbPartition` is the real adapter, used as root by the privileged steps of
`cubilete-export@.service` (firmware.export.mountstep: ExecStartPre=+ mounts, ExecStopPost=+
syncs and unmounts); the files are written in between by an unprivileged process with no
capability. It refuses anything but a partition (or a whole unpartitioned stick) on the USB
bus, refuses file systems other than FAT (vfat), exFAT and ext4, and mounts with nosuid,
nodev, noexec, nosymfollow and noatime, at <runtime folder>/stick. The folder above the
runtime folders (/run/cubilete-export) is first made a private bind mount of itself, so the
stick's mount does not propagate into mount namespaces that already exist (the main
service's); the writer, started after the mount, sees it. FAT and
exFAT are mounted with the writer's uid/gid so the files on the stick belong to it; on
ext4 the one folder the export writes into is handed to the writer (`give_folder`). The
mount(2), umount2(2) and syncfs(2) calls are made through libc directly.

`FakeUsbStorage` stands in for it in tests: a folder "mounts" as itself, with the faults
a real stick has (unsupported file system, failed mount, failed unmount).
"""

from __future__ import annotations

import ctypes
import errno
import os
import re
import time
from pathlib import Path
from typing import Protocol

ALLOWED_FILESYSTEMS = ("vfat", "exfat", "ext4")
FILESYSTEM_NAMES = {"vfat": "FAT32", "exfat": "exFAT", "ext4": "ext4"}

MS_NOSUID = 0x2
MS_NODEV = 0x4
MS_NOEXEC = 0x8
MS_NOSYMFOLLOW = 0x100
MS_NOATIME = 0x400
MS_BIND = 0x1000
MS_REC = 0x4000
MS_PRIVATE = 1 << 18
MNT_DETACH = 0x2
MOUNT_FLAGS = MS_NOSUID | MS_NODEV | MS_NOEXEC | MS_NOSYMFOLLOW | MS_NOATIME

KERNEL_NAME = re.compile(r"^sd[a-z]{1,3}[0-9]{0,3}$")


class UsbError(Exception):
    """A stick that cannot be used; str() is one line for the screen."""


class UnsupportedFilesystem(UsbError):
    pass


class UsbStorage(Protocol):
    """A USB partition that can be mounted for an export."""

    name: str  # kernel name, e.g. "sda1"

    def filesystem(self) -> str | None: ...
    def mount(self) -> Path: ...
    def sync(self) -> None: ...
    def unmount(self) -> None: ...


def mount_options(filesystem: str, uid: int, gid: int) -> str:
    """The file-system specific options: FAT and exFAT files owned by uid:gid, rw-r--r--."""
    if filesystem == "vfat":
        return f"uid={uid},gid={gid},fmask=0133,dmask=0022,flush,utf8,shortname=mixed,errors=remount-ro"
    if filesystem == "exfat":
        return f"uid={uid},gid={gid},fmask=0133,dmask=0022,iocharset=utf8,errors=remount-ro"
    return "errors=remount-ro"


def unsupported_message(filesystem: str) -> str:
    return (f"this stick is formatted {filesystem}, which the device does not write;"
            " use a FAT32, exFAT or ext4 stick")


class _Libc:
    def __init__(self) -> None:
        self._libc = ctypes.CDLL("libc.so.6", use_errno=True)
        self._libc.mount.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p,
                                     ctypes.c_ulong, ctypes.c_char_p]
        self._libc.umount2.argtypes = [ctypes.c_char_p, ctypes.c_int]
        self._libc.syncfs.argtypes = [ctypes.c_int]

    @staticmethod
    def _check(result: int, what: str) -> None:
        if result != 0:
            code = ctypes.get_errno()
            raise OSError(code, f"{what}: {os.strerror(code)}")

    def mount(self, source: str | None, target: str, fstype: str | None, flags: int, data: str | None) -> None:
        self._check(self._libc.mount(source.encode() if source else None, target.encode(),
                                     fstype.encode() if fstype else None, flags,
                                     data.encode() if data else None), "mount")

    def umount2(self, target: str, flags: int = 0) -> None:
        self._check(self._libc.umount2(target.encode(), flags), "umount")

    def syncfs(self, fd: int) -> None:
        self._check(self._libc.syncfs(fd), "syncfs")


def is_mount_point(path: str | os.PathLike[str]) -> bool:
    """Whether something is mounted at `path` in this mount namespace (a bind mount of a folder
    onto itself included, which os.path.ismount does not see)."""
    wanted = os.path.abspath(path).encode().replace(b"\\", b"\\134").replace(b" ", b"\\040")
    try:
        with open("/proc/self/mountinfo", "rb") as mounts:
            return any(line.split()[4] == wanted for line in mounts)
    except OSError:
        return os.path.ismount(path)


class UsbPartition:
    """The real stick: /dev/<name>, checked against sysfs and udev's database."""

    def __init__(self, device: str, mountpoint: str | os.PathLike[str], uid: int | None = None,
                 gid: int | None = None, sys_root: str = "/sys", udev_root: str = "/run/udev/data") -> None:
        self.name = os.path.basename(device)
        self.device = f"/dev/{self.name}"
        self.mountpoint = Path(mountpoint)
        self.uid = os.getuid() if uid is None else uid
        self.gid = os.getgid() if gid is None else gid
        self._sys = Path(sys_root)
        self._udev = Path(udev_root)
        self._libc = _Libc()
        self._mounted = False

    def check_usb(self) -> None:
        """Refuse anything that is not a USB mass-storage partition (or unpartitioned stick)."""
        if not KERNEL_NAME.match(self.name):
            raise UsbError(f"{self.name} is not a USB stick's partition")
        block = self._sys / "class" / "block" / self.name
        try:
            real = os.path.realpath(block)
        except OSError:
            real = ""
        if not block.exists():
            raise UsbError(f"the stick {self.name} is gone (pulled out?)")
        if "/usb" not in real:
            raise UsbError(f"{self.name} is not on the USB bus; refusing to touch it")

    def _udev_properties(self) -> dict[str, str]:
        try:
            with open(self._sys / "class" / "block" / self.name / "dev") as dev:
                major, minor = dev.read().strip().split(":")
            text = (self._udev / f"b{major}:{minor}").read_text(errors="replace")
        except (OSError, ValueError):
            return {}
        return dict(line[2:].split("=", 1) for line in text.splitlines()
                    if line.startswith("E:") and "=" in line)

    def filesystem(self) -> str | None:
        """The file system udev found on the partition (ID_FS_TYPE), None when unknown."""
        return self._udev_properties().get("ID_FS_TYPE") or None

    def mount(self) -> Path:
        self.check_usb()
        detected = self.filesystem()
        if detected is not None and detected not in ALLOWED_FILESYSTEMS:
            raise UnsupportedFilesystem(unsupported_message(detected))
        self._private_folder()
        self.mountpoint.mkdir(parents=True, exist_ok=True)
        candidates = [detected] if detected else list(ALLOWED_FILESYSTEMS)
        last: OSError | None = None
        for filesystem in candidates:
            try:
                self._libc.mount(self.device, str(self.mountpoint), filesystem, MOUNT_FLAGS,
                                 mount_options(filesystem, self.uid, self.gid))
            except OSError as error:
                last = error
                continue
            self._mounted = True
            return self.mountpoint
        assert last is not None
        if last.errno in (errno.EROFS, errno.EACCES):
            raise UsbError("the stick is read-only (is its write-protect switch on?)")
        if last.errno in (errno.ENOENT, errno.ENXIO, errno.ENODEV) and not Path(self.device).exists():
            raise UsbError(f"the stick {self.name} is gone (pulled out?)")
        if last.errno == errno.ENODEV and detected:
            raise UsbError(f"this system has no {FILESYSTEM_NAMES.get(detected, detected)} driver"
                           " (kernel module missing)")
        if last.errno == errno.EPERM:
            raise UsbError("not allowed to mount the stick (run by cubilete-export@.service)")
        raise UsbError("cannot mount the stick: it is not FAT32, exFAT or ext4, or it is damaged"
                       f" ({last.strerror})")

    def _private_folder(self) -> None:
        """The folder above the mount point's (/run/cubilete-export) becomes a private bind
        mount of itself, once: mounts below it then reach no other namespace. (The bind itself
        propagates, once, and shows them the same folder.)"""
        folder = self.mountpoint.parent.parent
        folder.mkdir(parents=True, exist_ok=True)
        if not is_mount_point(folder):
            self._libc.mount(str(folder), str(folder), None, MS_BIND, None)
        self._libc.mount(None, str(folder), None, MS_PRIVATE, None)

    def give_folder(self, name: str) -> None:
        """Make the folder `name` at the stick's root the writer's (created if missing), for a
        file system whose root is root's (ext4). Nothing is followed; something other than a
        folder there is left for the writer to refuse with a message."""
        if self.uid == os.geteuid():
            return
        root = os.open(self.mountpoint, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC)
        try:
            try:
                os.mkdir(name, 0o755, dir_fd=root)
            except FileExistsError:
                pass
            try:
                fd = os.open(name, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=root)
            except OSError:
                return
            try:
                info = os.fstat(fd)
                if (info.st_uid, info.st_gid) != (self.uid, self.gid):
                    os.fchown(fd, self.uid, self.gid)
            finally:
                os.close(fd)
        finally:
            os.close(root)

    def sync(self) -> None:
        if not (self._mounted or is_mount_point(self.mountpoint)):
            return
        fd = os.open(self.mountpoint, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
        try:
            self._libc.syncfs(fd)
        except OSError as error:
            raise UsbError(f"the stick could not save its data ({error.strerror}); was it pulled out?") from None
        finally:
            os.close(fd)

    def unmount(self, attempts: int = 10, pause: float = 0.3) -> None:
        """Unmount the stick (waiting while it is busy); a stick that stays busy is detached
        and reported, never reported safe. The private folder stays for the next stick."""
        busy = False
        if self._mounted or is_mount_point(self.mountpoint):
            for attempt in range(attempts):
                try:
                    self._libc.umount2(str(self.mountpoint), 0)
                except OSError as error:
                    if error.errno == errno.EBUSY and attempt < attempts - 1:
                        time.sleep(pause)
                        continue
                    if error.errno == errno.EBUSY:
                        self._libc.umount2(str(self.mountpoint), MNT_DETACH)
                        busy = True
                    elif error.errno != errno.EINVAL:  # EINVAL: not mounted any more
                        raise UsbError(f"could not unmount the stick ({error.strerror})") from None
                break
        self._mounted = False
        if busy:
            raise UsbError("could not unmount the stick (still busy); wait before pulling it out")


class FakeUsbStorage:
    """A folder standing in for a stick, with the faults a stick can have."""

    def __init__(self, root: str | os.PathLike[str], name: str = "sda1", filesystem: str | None = "vfat",
                 mount_error: str | None = None, sync_error: str | None = None,
                 unmount_error: str | None = None) -> None:
        self.name = name
        self.root = Path(root)
        self._filesystem = filesystem
        self.mount_error = mount_error
        self.sync_error = sync_error
        self.unmount_error = unmount_error
        self.mounted = False
        self.calls: list[str] = []

    def filesystem(self) -> str | None:
        return self._filesystem

    def mount(self) -> Path:
        self.calls.append("mount")
        if self._filesystem is not None and self._filesystem not in ALLOWED_FILESYSTEMS:
            raise UnsupportedFilesystem(unsupported_message(self._filesystem))
        if self.mount_error:
            raise UsbError(self.mount_error)
        self.root.mkdir(parents=True, exist_ok=True)
        self.mounted = True
        return self.root

    def sync(self) -> None:
        self.calls.append("sync")
        if self.sync_error:
            raise UsbError(self.sync_error)

    def unmount(self) -> None:
        self.calls.append("unmount")
        if self.unmount_error:
            raise UsbError(self.unmount_error)
        self.mounted = False
