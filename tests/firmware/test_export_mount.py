"""The real USB adapter on a real file system: a loop device standing in for the stick,
mounted by `UsbPartition` with mount(2), exported to, synced and unmounted; the unit's three
steps (privileged mount, the export as an unprivileged user with no capability, privileged
unmount and report); plus real full and read-only file systems (small tmpfs).

Needs root (CAP_SYS_ADMIN), loop devices and mkfs; each test says what it missed when
it skips. Everything runs in a child process in a mount namespace of its own (unshare).
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
    """The script in a child with a mount namespace of its own: nothing it mounts is left here."""
    return subprocess.run(["unshare", "-m", "--propagation", "private", sys.executable, "-c",
                           textwrap.dedent(script)], cwd=PROJECT_ROOT, capture_output=True, text=True,
                          timeout=timeout)


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
            stick = UsbPartition("sdz1", {str(tmp_path / 'exports' / 'sdz1' / 'stick')!r}, uid=1234, gid=4321,
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
            again = UsbPartition("sdz1", {str(tmp_path / 'exports' / 'sdz1' / 'stick')!r},
                                 sys_root={str(root / 'sys')!r},
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
        assert str(tmp_path / "exports") not in Path("/proc/self/mountinfo").read_text()
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
        from cli.main import main
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


PATCHED_STICK = """
import sys
import hardware.usb as usb

class TestStick(usb.UsbPartition):  # the loop device and its fake sysfs and udev entries
    def __init__(self, device, mountpoint, **kwargs):
        super().__init__(device, mountpoint, sys_root={sys_root!r}, udev_root={udev_root!r}, **kwargs)
        self.device = {device!r}

usb.UsbPartition = TestStick
from firmware.export.mountstep import main
sys.exit(main(sys.argv[1:]))
"""


def test_the_unit_s_steps_mount_as_root_write_with_no_capability_and_unmount(state: Path) -> None:
    """What cubilete-export@.service does: ExecStartPre=+ mounts (root), ExecStart writes as
    the unit's user with no capability at all, ExecStopPost=+ syncs, unmounts and reports.
    On ext4 the stick's root folder is root's: the mount step hands CUBILETE/ to the user."""
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
            runtime = workdir / "run" / "cubilete-export" / "sdz1"  # RuntimeDirectory=, the user's, 0700
            runtime.mkdir(parents=True)
            os.chown(runtime, nobody, nobody)
            runtime.chmod(0o700)
            step = PATCHED_STICK.format(sys_root=str(root / "sys"), udev_root=str(root / "udev"),
                                        device=str(root / "dev" / "sdz1"))
            python, here = sys.executable, str(PROJECT_ROOT)
            script = f"""
                set -e
                "$PY" -c "$STEP" mount --device sdz1 --user nobody "$RUN"
                setpriv --reuid={nobody} --regid={nobody} --clear-groups --inh-caps=-all \\
                    "$PY" -c 'import sys; print(open("/proc/self/status").read().split("CapEff:")[1].split()[0])'
                setpriv --reuid={nobody} --regid={nobody} --clear-groups --inh-caps=-all \\
                    "$PY" -m cli.main export --stick "$RUN" --state-dir "$STATE" --name bar
                "$PY" -c "$STEP" unmount "$RUN"
                grep -c "$RUN/stick" /proc/self/mountinfo || true
                """
            result = subprocess.run(["unshare", "-m", "--propagation", "private", "sh", "-c", textwrap.dedent(script)],
                                    cwd=PROJECT_ROOT, capture_output=True, text=True, timeout=180,
                                    env={**os.environ, "PYTHONPATH": here, "PY": python, "STEP": step,
                                         "RUN": str(runtime), "STATE": str(user_state)})
            if "Operation not permitted" in result.stderr and "setpriv" in result.stderr:
                pytest.skip(f"cannot drop privileges here: {result.stderr.strip()}")
            assert result.returncode == 0, result.stdout + result.stderr
            lines = result.stdout.strip().splitlines()
            assert lines[0] == "0000000000000000"  # the writer's effective capabilities: none
            assert "wrote and read back 3 games" in lines[1]
            assert "exported 3 games" in lines[2] and "safe to remove" in lines[2]
            assert lines[3] == "0"  # unmounted
            assert (user_state / "exports.json").stat().st_uid == nobody
        finally:
            subprocess.run(["losetup", "-d", loop], capture_output=True)
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
