"""The systemd units, the udev rule and the installer for the Pi.

`systemd-analyze verify` wants every ExecStart binary to exist, so each unit is verified
as a copy whose /opt/cubilete/venv/bin/cubilete and .../python are replaced by /bin/true
(the only change). Tests that need systemd-analyze or shellcheck skip, saying so, where they are
missing; .ci/run installs both.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
from pathlib import Path

import pytest

from cli.main import build_parser
from tests.conftest import PROJECT_ROOT

SYSTEMD = PROJECT_ROOT / "systemd"
CUBILETE_BIN = "/opt/cubilete/venv/bin/cubilete"
PYTHON_BIN = "/opt/cubilete/venv/bin/python"
UNITS = ["cubilete.service", "cubilete-export@.service", "cubilete-export-request.service",
         "cubilete-export-request.path", "cubilete-web.service"]


def unit(name: str) -> dict[str, dict[str, list[str]]]:
    """A unit file as {section: {key: [values in order]}}."""
    sections: dict[str, dict[str, list[str]]] = {}
    current: dict[str, list[str]] = {}
    for line in (SYSTEMD / name).read_text().splitlines():
        line = line.strip()
        if not line or line.startswith(("#", ";")):
            continue
        if line.startswith("["):
            current = sections.setdefault(line.strip("[]"), {})
            continue
        key, _, value = line.partition("=")
        current.setdefault(key, []).append(value)
    return sections


def systemd_analyze() -> str:
    path = shutil.which("systemd-analyze")
    if path is None:
        pytest.skip("needs systemd-analyze (apt install systemd); .ci/run installs it")
    return path


@pytest.fixture
def verifiable(tmp_path: Path) -> Path:
    for name in UNITS:
        text = (SYSTEMD / name).read_text()
        (tmp_path / name).write_text(text.replace(CUBILETE_BIN, "/bin/true").replace(PYTHON_BIN, "/bin/true"))
    return tmp_path


@pytest.mark.parametrize("name", ["cubilete.service", "cubilete-export@sda1.service",
                                  "cubilete-export-request.service", "cubilete-export-request.path",
                                  "cubilete-web.service"])
def test_units_pass_systemd_analyze_verify_silently(verifiable: Path, name: str) -> None:
    result = subprocess.run([systemd_analyze(), "verify", "--man=no", "--generators=no", str(verifiable / name)],
                            capture_output=True, text=True, cwd=verifiable, timeout=60)
    assert result.returncode == 0 and result.stdout + result.stderr == "", result.stdout + result.stderr


@pytest.mark.parametrize("name,limit", [("cubilete.service", 1.0), ("cubilete-export@sda1.service", 1.0),
                                        ("cubilete-export-request.service", 1.0),
                                        # on the network by design (PrivateNetwork and AF_INET cost 0.8)
                                        ("cubilete-web.service", 1.0)])
def test_security_exposure_is_ok(verifiable: Path, name: str, limit: float) -> None:
    result = subprocess.run([systemd_analyze(), "security", "--offline=yes", "--no-pager", str(verifiable / name)],
                            capture_output=True, text=True, timeout=60)
    found = re.search(r"Overall exposure level for \S+: (\d+\.\d+) (\w+)", result.stdout)
    assert found, result.stdout + result.stderr
    assert float(found.group(1)) <= limit, result.stdout
    assert found.group(2) in ("SAFE", "OK")


def test_the_service_is_a_watched_unprivileged_notify_service() -> None:
    service = unit("cubilete.service")["Service"]
    assert service["Type"] == ["notify"]
    assert service["Restart"] == ["on-failure"]
    assert int(service["WatchdogSec"][0]) >= 10
    assert service["User"] == ["cubilete"]
    assert set(service["SupplementaryGroups"][0].split()) == {"video", "i2c", "gpio"}
    assert service["StateDirectory"] == ["cubilete"]
    assert service["ConfigurationDirectory"] == ["cubilete"]
    assert service["RuntimeDirectory"] == ["cubilete"]
    assert service["CapabilityBoundingSet"] == [""]
    assert service["NoNewPrivileges"] == ["yes"] and service["ProtectSystem"] == ["strict"]
    assert "AF_UNIX" in service["RestrictAddressFamilies"][0]
    assert service["DevicePolicy"] == ["closed"]
    allowed = " ".join(service["DeviceAllow"])
    for device in ("char-i2c", "char-gpiochip", "char-video4linux", "char-media", "char-dma_heap"):
        assert device in allowed


def test_the_scoreboard_is_its_own_user_and_only_reads_the_state() -> None:
    service = unit("cubilete-web.service")["Service"]
    # the log and snapshots are group-readable: the cubilete group is its only group, mapped
    # into a user namespace of its own
    assert service["User"] == ["cubilete-web"] and service["Group"] == ["cubilete"]
    assert "SupplementaryGroups" not in service and service["PrivateUsers"] == ["yes"]
    assert service["ReadOnlyPaths"] == ["/var/lib/cubilete"]
    assert "StateDirectory" not in service and "ReadWritePaths" not in service
    assert service["ProtectSystem"] == ["strict"] and service["CapabilityBoundingSet"] == [""]
    assert service["NoNewPrivileges"] == ["yes"] and service["PrivateDevices"] == ["yes"]
    assert service["IPAddressDeny"] == ["any"] and "0.0.0.0/0" not in service["IPAddressAllow"][0]
    assert int(service["MemoryMax"][0].rstrip("M")) <= 128
    # The game service stays off the network: the scoreboard is another process.
    assert unit("cubilete.service")["Service"]["PrivateNetwork"] == ["yes"]


@pytest.mark.parametrize("name,where", [("cubilete-export@.service", "--device %I"),
                                        ("cubilete-export-request.service", "--request /run/cubilete")])
def test_only_the_mount_steps_are_privileged_and_the_writer_has_no_capability(name: str, where: str) -> None:
    service = unit(name)
    body = service["Service"]
    assert body["User"] == ["cubilete"]
    assert body["CapabilityBoundingSet"] == [""] == body["AmbientCapabilities"]
    assert body["NoNewPrivileges"] == ["yes"] and body["PrivateDevices"] == ["yes"]
    assert "@mount" in body["SystemCallFilter"][1] and body["SystemCallFilter"][1].startswith("~")
    assert body["RestrictNamespaces"] == ["yes"]
    runtime = body["ExecStart"][0].split("--stick ")[1].split()[0]
    assert body["RuntimeDirectory"] == [runtime.removeprefix("/run/")]
    (mount,), (unmount,) = body["ExecStartPre"], body["ExecStopPost"]
    assert mount.startswith(f"+{PYTHON_BIN} -m firmware.export.mountstep mount {where} --user cubilete")
    assert unmount.startswith(f"+{PYTHON_BIN} -m firmware.export.mountstep unmount")
    assert mount.endswith(runtime) and unmount.endswith(runtime)
    assert body["ReadWritePaths"] == [f"-{runtime}/stick"]
    if "@" in name:
        assert service["Unit"]["BindsTo"] == ["dev-%i.device"]


def test_the_mount_steps_command_lines_are_ones_mountstep_accepts() -> None:
    from firmware.export.mountstep import build_parser

    for name in ("cubilete-export@.service", "cubilete-export-request.service"):
        body = unit(name)["Service"]
        def words(line: str) -> list[str]:
            return shlex.split(line.replace("%I", "sda1").replace("%i", "sda1"))[3:]

        started = build_parser().parse_args(words(body["ExecStartPre"][0]))
        stopped = build_parser().parse_args(words(body["ExecStopPost"][0]))
        assert (started.step, started.user, stopped.step) == ("mount", "cubilete", "unmount")
        assert started.runtime == stopped.runtime and started.config == stopped.config == "/etc/cubilete/config.toml"


@pytest.mark.parametrize("name,subcommand", [("cubilete.service", "run"), ("cubilete-export@.service", "export"),
                                             ("cubilete-export-request.service", "export"),
                                             ("cubilete-web.service", "web")])
def test_unit_command_lines_are_ones_the_cli_accepts(name: str, subcommand: str) -> None:
    command = shlex.split(unit(name)["Service"]["ExecStart"][0].replace("%I", "sda1"))
    assert command[0] == CUBILETE_BIN
    args = build_parser().parse_args(command[1:])
    assert args.command == subcommand


def test_installer_puts_the_program_where_the_units_expect_it() -> None:
    script = (SYSTEMD / "install.sh").read_text()
    assert 'VENV="$PREFIX/venv"' in script and "PREFIX=/opt/cubilete" in script
    for name in [*UNITS, "99-cubilete-usb.rules"]:
        assert name in script, f"install.sh does not install {name}"


# --- the udev rule ------------------------------------------------------------------------

RULE_KEYS_MATCH = {"ACTION", "SUBSYSTEM", "KERNEL", "DEVTYPE", "ENV", "ATTRS", "ATTR", "SUBSYSTEMS"}
RULE_KEYS_ASSIGN = {"ENV", "TAG", "RUN", "OPTIONS"}
RULE_TOKEN = re.compile(r'\s*([A-Z_]+)(\{[A-Za-z0-9_]+\})?\s*(==|!=|\+=|-=|:=|=)\s*"([^"]*)"\s*(,|$)')


def parse_rule(line: str) -> list[tuple[str, str | None, str, str]]:
    tokens, position = [], 0
    while position < len(line):
        found = RULE_TOKEN.match(line, position)
        assert found, f"udev rule syntax error at: {line[position:]!r}"
        key, attribute, operator, value, _ = found.groups()
        tokens.append((key, attribute[1:-1] if attribute else None, operator, value))
        position = found.end()
    return tokens


def rule_lines() -> list[str]:
    return [line for line in (SYSTEMD / "99-cubilete-usb.rules").read_text().splitlines()
            if line.strip() and not line.startswith("#")]


def rule_applies(properties: dict[str, str]) -> dict[str, str]:
    """What the rule assigns for a device with these properties ({} when it does not match)."""
    assigned: dict[str, str] = {}
    for line in rule_lines():
        tokens = parse_rule(line)
        matches = [t for t in tokens if t[2] in ("==", "!=")]
        ok = all((properties.get(f"ENV:{a}" if k == "ENV" else k, "") == v) == (op == "==")
                 for k, a, op, v in matches if "*" not in v and "|" not in v)
        if ok:
            for key, attribute, operator, value in tokens:
                if operator in ("=", "+="):
                    assigned[f"{key}:{attribute}" if attribute else key] = value.replace(
                        "%k", properties["KERNEL"])
    return assigned


def test_udev_rule_syntax() -> None:
    lines = rule_lines()
    assert lines
    for line in lines:
        for key, attribute, operator, value in parse_rule(line):
            if operator in ("==", "!="):
                assert key in RULE_KEYS_MATCH, key
            else:
                assert key in RULE_KEYS_ASSIGN, key
            assert (attribute is not None) == (key in ("ENV", "ATTR", "ATTRS")), key


USB_PARTITION = {"ACTION": "add", "SUBSYSTEM": "block", "KERNEL": "sda1", "ENV:DEVTYPE": "partition",
                 "ENV:ID_BUS": "usb", "ENV:ID_FS_USAGE": "filesystem", "ENV:ID_FS_TYPE": "vfat"}


@pytest.mark.parametrize("device,starts", [
    (USB_PARTITION, True),
    ({**USB_PARTITION, "KERNEL": "sdb", "ENV:DEVTYPE": "disk"}, True),  # unpartitioned stick
    ({**USB_PARTITION, "ENV:ID_FS_TYPE": "ntfs"}, True),  # refused by the unit, with a message
    ({**USB_PARTITION, "ACTION": "remove"}, False),
    ({**USB_PARTITION, "KERNEL": "mmcblk0p2", "ENV:ID_BUS": ""}, False),  # the SD card
    ({**USB_PARTITION, "ENV:ID_FS_USAGE": ""}, False),  # a partition table, no file system
    ({**USB_PARTITION, "SUBSYSTEM": "usb"}, False),
])
def test_udev_rule_starts_the_export_for_usb_file_systems_only(device: dict[str, str], starts: bool) -> None:
    assigned = rule_applies(device)
    if starts:
        assert assigned["ENV:SYSTEMD_WANTS"] == f"cubilete-export@{device['KERNEL']}.service"
        assert assigned["TAG"] == "systemd"
        assert (SYSTEMD / "cubilete-export@.service").is_file()
    else:
        assert "ENV:SYSTEMD_WANTS" not in assigned


# --- the installer --------------------------------------------------------------------------

def test_install_script_passes_shellcheck() -> None:
    shellcheck = shutil.which("shellcheck")
    if shellcheck is None:
        pytest.skip("needs shellcheck (apt install shellcheck); .ci/run installs it")
    result = subprocess.run([shellcheck, str(SYSTEMD / "install.sh")], capture_output=True, text=True)
    assert result.returncode == 0, result.stdout


def test_install_dry_run_prints_every_step_and_changes_nothing() -> None:
    watched = [Path("/opt/cubilete"), Path("/etc/cubilete"), Path("/etc/systemd/system/cubilete.service"),
               Path("/etc/udev/rules.d/99-cubilete-usb.rules"), Path("/etc/modules-load.d/cubilete.conf")]
    before = {p: p.exists() for p in watched}
    result = subprocess.run([str(SYSTEMD / "install.sh"), "--dry-run"], capture_output=True, text=True,
                            timeout=120, env={**os.environ, "LC_ALL": "C"})
    assert result.returncode == 0, result.stderr
    out = result.stdout
    for expected in ("apt-get install", "i2c-tools", "python3-venv", "venv --system-site-packages",
                     "pip install", "config.toml", "cubilete.service", "cubilete-export@.service",
                     "99-cubilete-usb.rules", "systemctl daemon-reload", "systemctl enable",
                     "udevadm control --reload"):
        assert expected in out, expected
    assert "raspi-config nonint do_i2c 0" in out or "dtparam=i2c_arm=on" in out
    assert ("useradd" in out) or ("user cubilete exists" in out)
    assert "enable cubilete.service cubilete-web.service" in out  # the scoreboard is installed and enabled
    assert "Cubilete\\ live\\ scoreboard cubilete-web" in out or "user cubilete-web exists" in out
    assert "[web\\]" in out or "[web]" in out  # its packages: the web extra
    assert {p: p.exists() for p in watched} == before


@pytest.mark.parametrize("dry_run", ["1", "yes"])
def test_make_install_dry_run_passes_the_dry_run_on(dry_run: str) -> None:
    make = shutil.which("make")
    if make is None:
        pytest.skip("needs make")
    root = SYSTEMD.parent
    shown = subprocess.run([make, "-n", "-C", str(root), "install", f"DRY_RUN={dry_run}"], capture_output=True,
                           text=True, timeout=60)
    assert shown.returncode == 0 and "./systemd/install.sh --dry-run" in shown.stdout, shown.stdout
    plain = subprocess.run([make, "-n", "-C", str(root), "install"], capture_output=True, text=True, timeout=60)
    assert "--dry-run" not in plain.stdout
    watched = [Path("/opt/cubilete"), Path("/etc/cubilete"), Path("/etc/systemd/system/cubilete.service")]
    before = {p: p.exists() for p in watched}
    result = subprocess.run([make, "-s", "-C", str(root), "install", f"DRY_RUN={dry_run}"], capture_output=True,
                            text=True, timeout=120, env={**os.environ, "LC_ALL": "C"})
    assert result.returncode == 0, result.stderr
    assert "Dry run: nothing is changed" in result.stdout and "systemctl daemon-reload" in result.stdout
    assert "nothing was changed" in result.stdout and "Cubilete is installed" not in result.stdout
    assert {p: p.exists() for p in watched} == before


def test_make_install_dry_run_needs_no_root() -> None:
    make, runuser = shutil.which("make"), shutil.which("runuser")
    if make is None or runuser is None or os.geteuid() != 0:
        pytest.skip("runs the dry run as the user nobody: needs make, runuser and a root test run")
    result = subprocess.run([runuser, "-u", "nobody", "--", make, "-s", "-C", str(SYSTEMD.parent), "install",
                             "DRY_RUN=1"], capture_output=True, text=True, timeout=120,
                            env={**os.environ, "LC_ALL": "C"})
    if result.returncode != 0 and "Permission denied" in result.stderr:
        pytest.skip(f"the user nobody cannot read this checkout: {result.stderr.strip()[:80]}")
    assert result.returncode == 0, result.stderr
    assert "Dry run: nothing is changed" in result.stdout and "systemctl enable" in result.stdout


def test_install_refuses_unknown_options() -> None:
    result = subprocess.run([str(SYSTEMD / "install.sh"), "--frobnicate"], capture_output=True, text=True)
    assert result.returncode == 2 and "unknown option" in result.stderr
