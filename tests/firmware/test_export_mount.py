"""The real USB adapter on a real file system: a loop device standing in for the stick,
mounted by `UsbPartition` with mount(2) in a private namespace, exported to, synced and
unmounted; plus real full and read-only file systems (small tmpfs).

Needs root (CAP_SYS_ADMIN), loop devices and mkfs; each test says what it missed when
it skips. Everything runs in a child process, whose mount namespace is its own.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from tests.conftest import PROJECT_ROOT
from tests.firmware.export_support import make_state


def can_mount() -> str | None:
    if os.geteuid() != 0:
        return "needs root to mount file systems"
    if not shutil.which("unshare"):
        return "needs unshare (util-linux)"
    probe = subprocess.run(["unshare", "-m", "sh", "-c", "mount -t tmpfs -o size=64k none /mnt"],
                           capture_output=True)
    if probe.returncode != 0:
        return f"mounting is not allowed here: {probe.stderr.decode().strip()}"
    return None


def run_child(script: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", textwrap.dedent(script)], cwd=PROJECT_ROOT,
                          capture_output=True, text=True, timeout=timeout)


@pytest.fixture(scope="module")
def state(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("mount") / "state"
    make_state(path, 3)
    return path


def loop_image(tmp_path: Path, filesystem: str) -> tuple[Path, str]:
    reason = can_mount()
    if reason:
        pytest.skip(reason)
    mkfs = {"ext4": ["mkfs.ext4", "-q"], "vfat": ["mkfs.vfat"], "exfat": ["mkfs.exfat"]}[filesystem]
    if not shutil.which(mkfs[0]) or not shutil.which("losetup"):
        pytest.skip(f"needs {mkfs[0]} and losetup to make a {filesystem} stick image")
    if f"\t{filesystem}\n" not in Path("/proc/filesystems").read_text():
        if shutil.which("modprobe"):
            subprocess.run(["modprobe", filesystem], capture_output=True)
        if f"\t{filesystem}\n" not in Path("/proc/filesystems").read_text():
            pytest.skip(f"this kernel has no {filesystem} driver")
    image = tmp_path / f"stick.{filesystem}"
    with open(image, "wb") as out:
        out.truncate(16 * 1024 * 1024)
    subprocess.run([*mkfs, str(image)], check=True, capture_output=True)
    attach = subprocess.run(["losetup", "--find", "--show", str(image)], capture_output=True, text=True)
    if attach.returncode != 0:
        pytest.skip(f"no loop device available: {attach.stderr.strip()}")
    return image, attach.stdout.strip()


def fake_usb_tree(tmp_path: Path, loop: str, filesystem: str) -> Path:
    """/dev, /sys and udev's database as the adapter sees them for a stick "sdz1" that is
    the loop device: a device node with the loop's numbers on a USB path in sysfs."""
    root = tmp_path / "root"
    rdev = os.stat(loop).st_rdev
    major, minor = os.major(rdev), os.minor(rdev)
    (root / "dev").mkdir(parents=True)
    os.mknod(root / "dev" / "sdz1", 0o600 | 0o060000, rdev)
    real = root / "sys" / "devices" / "platform" / "usb1" / "1-1" / "block" / "sdz" / "sdz1"
    real.mkdir(parents=True)
    (real / "dev").write_text(f"{major}:{minor}\n")
    (real / "partition").write_text("1\n")
    (root / "sys" / "class" / "block").mkdir(parents=True)
    (root / "sys" / "class" / "block" / "sdz1").symlink_to(real)
    (root / "udev").mkdir()
    (root / "udev" / f"b{major}:{minor}").write_text(f"E:ID_FS_TYPE={filesystem}\nE:ID_BUS=usb\n")
    return root


@pytest.mark.parametrize("filesystem", ["ext4", "vfat", "exfat"])
def test_a_real_stick_is_mounted_privately_with_safe_flags_and_unmounted(
        tmp_path: Path, state: Path, filesystem: str) -> None:
    image, loop = loop_image(tmp_path, filesystem)
    try:
        root = fake_usb_tree(tmp_path, loop, filesystem)
        result = run_child(f"""
            import os
            from hardware.usb import UsbPartition
            from firmware.export.exporter import export_games
            stick = UsbPartition("sdz1", {str(tmp_path / 'mnt')!r}, uid=1234, gid=4321,
                                 sys_root={str(root / 'sys')!r}, udev_root={str(root / 'udev')!r})
            stick.device = {str(root / 'dev' / 'sdz1')!r}
            mountpoint = stick.mount()
            line = next(l for l in open("/proc/self/mountinfo") if l.split()[4] == str(mountpoint))
            print("OPTIONS", line.split()[5], line.split(" - ")[1].split()[0])
            result = export_games({str(state)!r}, mountpoint, "bar")
            print("GAMES", result.games, "FILES", result.files_written, "BYTES", result.bytes_written)
            games_csv = mountpoint / "CUBILETE" / "bar" / "games.csv"
            print("OWNER", os.stat(games_csv).st_uid, os.stat(games_csv).st_gid)
            stick.sync()
            stick.unmount()
            print("MOUNTED", any(l.split()[4] == str(mountpoint) for l in open("/proc/self/mountinfo")))
            again = UsbPartition("sdz1", {str(tmp_path / 'mnt')!r}, sys_root={str(root / 'sys')!r},
                                 udev_root={str(root / 'udev')!r})
            again.device = stick.device
            print("KEPT", sorted(p.name for p in (again.mount() / "CUBILETE" / "bar").iterdir())[-1])
            again.unmount()
            """)
        assert result.returncode == 0, result.stderr
        out = dict(line.split(" ", 1) for line in result.stdout.splitlines())
        options, fstype = out["OPTIONS"].split()
        assert fstype == filesystem
        for flag in ("nosuid", "nodev", "noexec", "nosymfollow", "noatime"):
            assert flag in options.split(","), options
        assert out["GAMES"].startswith("3 ")
        if filesystem != "ext4":
            assert out["OWNER"] == "1234 4321"
        assert out["MOUNTED"] == "False"
        assert out["KEPT"] == "games.csv"
        # never visible outside the child's namespace
        assert str(tmp_path / "mnt") not in Path("/proc/self/mountinfo").read_text()
    finally:
        subprocess.run(["losetup", "-d", loop], capture_output=True)


def test_a_file_system_other_than_fat_exfat_ext4_is_refused(tmp_path: Path) -> None:
    from hardware.usb import UnsupportedFilesystem, UsbPartition

    reason = can_mount()
    if reason:
        pytest.skip(reason)
    root = tmp_path / "root"
    real = root / "sys" / "devices" / "usb1" / "sdz1"
    real.mkdir(parents=True)
    (real / "dev").write_text("8:1\n")
    (root / "sys" / "class" / "block").mkdir(parents=True)
    (root / "sys" / "class" / "block" / "sdz1").symlink_to(real)
    (root / "udev").mkdir()
    (root / "udev" / "b8:1").write_text("E:ID_FS_TYPE=ntfs\n")
    stick = UsbPartition("sdz1", tmp_path / "mnt", sys_root=str(root / "sys"), udev_root=str(root / "udev"))
    with pytest.raises(UnsupportedFilesystem, match="ntfs"):
        stick.mount()


def test_a_partition_not_on_usb_is_refused(tmp_path: Path) -> None:
    from hardware.usb import UsbError, UsbPartition

    root = tmp_path / "sys"
    real = root / "devices" / "platform" / "mmc" / "sdz1"
    real.mkdir(parents=True)
    (root / "class" / "block").mkdir(parents=True)
    (root / "class" / "block" / "sdz1").symlink_to(real)
    with pytest.raises(UsbError, match="not on the USB bus"):
        UsbPartition("sdz1", tmp_path / "mnt", sys_root=str(root)).mount()
    with pytest.raises(UsbError, match="not a USB stick"):
        UsbPartition("mmcblk0p2", tmp_path / "mnt", sys_root=str(root)).mount()


@pytest.mark.parametrize("case,words", [("full", "the stick is full"), ("read-only", "read-only")])
def test_a_real_full_or_read_only_file_system(tmp_path: Path, state: Path, case: str, words: str) -> None:
    reason = can_mount()
    if reason:
        pytest.skip(reason)
    target = tmp_path / "stick"
    target.mkdir()
    options = "size=48k" if case == "full" else "size=1m,ro"
    script = f"""
        import sys
        from firmware.cli import main
        sys.exit(main(["export", "--to", {str(target)!r}, "--state-dir", {str(state)!r}, "--name", "bar", "--all"]))
        """
    result = subprocess.run(
        ["unshare", "-m", "sh", "-c",
         f'mount --make-rprivate / && mount -t tmpfs -o {options} none "$1" && exec "$2" -c "$3"; '
         f'echo "mount failed" >&2; exit 99',
         "sh", str(target), sys.executable, textwrap.dedent(script)],
        cwd=PROJECT_ROOT, capture_output=True, text=True, timeout=120)
    if result.returncode == 99:
        pytest.skip(f"cannot mount a tmpfs here: {result.stderr.strip()}")
    assert result.returncode == 1
    assert result.stderr.count("\n") == 1 and words in result.stderr, result.stderr
    assert "Traceback" not in result.stderr
    assert list(target.iterdir()) == []  # the tmpfs went away with its namespace


def test_the_export_runs_as_an_unprivileged_user_with_only_cap_sys_admin(state: Path) -> None:
    """What cubilete-export@.service does: User=cubilete with CAP_SYS_ADMIN (mount) and
    CAP_DAC_OVERRIDE (a fresh ext4 stick's root folder is root's) as its only capabilities.
    The block device is root's (0600), the state directory the user's."""
    import tempfile

    if not shutil.which("setpriv"):
        pytest.skip("needs setpriv (util-linux) to drop to an unprivileged user")
    nobody = 65534
    workdir = Path(tempfile.mkdtemp(prefix="cubilete-unpriv-"))
    try:
        workdir.chmod(0o755)
        image, loop = loop_image(workdir, "ext4")
        try:
            root = fake_usb_tree(workdir, loop, "ext4")
            user_state = workdir / "state"
            shutil.copytree(state, user_state)
            (user_state / "exports.json").unlink(missing_ok=True)
            for path in [user_state, *user_state.rglob("*")]:
                os.chown(path, nobody, nobody, follow_symlinks=False)
            (workdir / "mnt").mkdir()
            os.chown(workdir / "mnt", nobody, nobody)
            script = textwrap.dedent(f"""
                import os
                from hardware.usb import UsbPartition
                from firmware.export.exporter import export_games
                assert os.getuid() == {nobody}
                stick = UsbPartition("sdz1", {str(workdir / 'mnt')!r}, sys_root={str(root / 'sys')!r},
                                     udev_root={str(root / 'udev')!r})
                stick.device = {str(root / 'dev' / 'sdz1')!r}
                mountpoint = stick.mount()
                # a fresh ext4 stick's root folder is root's: CAP_DAC_OVERRIDE lets us in
                print(export_games({str(user_state)!r}, mountpoint, "bar").games)
                stick.sync()
                stick.unmount()
                """)
            result = subprocess.run(
                ["setpriv", f"--reuid={nobody}", f"--regid={nobody}", "--clear-groups",
                 "--inh-caps=+sys_admin,+dac_override", "--ambient-caps=+sys_admin,+dac_override", sys.executable, "-c", script],
                cwd=PROJECT_ROOT, capture_output=True, text=True, timeout=120,
                env={**os.environ, "PYTHONPATH": str(PROJECT_ROOT)})
            if "Operation not permitted" in result.stderr and "setpriv" in result.stderr:
                pytest.skip(f"cannot drop privileges here: {result.stderr.strip()}")
            assert result.returncode == 0, result.stderr
            assert result.stdout.strip() == "3"
            assert (user_state / "exports.json").stat().st_uid == nobody
        finally:
            subprocess.run(["losetup", "-d", loop], capture_output=True)
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
