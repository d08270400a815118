"""Hostile config files: what a careless edit, a bad copy or a malicious hand leaves at
/etc/cubilete/config.toml. Each case is a file that has at least one problem; the service
must start on every one of them and show the problem (tests/firmware/test_hostile_configs.py).

A case is (name, what the problem is about, how to make the file). `about` is the config
key a problem must name ("" for the file as a whole, "state_dir" when the problem only
shows as unusable storage). Nothing here imports the firmware, so the same cases can be
run against another checkout to compare.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

Maker = Callable[[Path], Path]


@dataclass(frozen=True)
class HostileConfig:
    name: str
    about: str  # the key a problem must name; "" = the file itself
    make: Maker  # writes the case under the given folder, returns the --config path


def _text(content: str | bytes) -> Maker:
    def make(folder: Path) -> Path:
        path = folder / "config.toml"
        path.write_bytes(content.encode("utf-8") if isinstance(content, str) else content)
        return path
    return make


def _directory(folder: Path) -> Path:
    path = folder / "config.toml"
    path.mkdir()
    return path


def _fifo(folder: Path) -> Path:
    path = folder / "config.toml"
    os.mkfifo(path)
    return path


def _symlink_loop(folder: Path) -> Path:
    path = folder / "config.toml"
    os.symlink(path, path)
    return path


def _dangling(folder: Path) -> Path:
    path = folder / "config.toml"
    os.symlink(folder / "nowhere" / "config.toml", path)
    return path


def _char_device(folder: Path) -> Path:
    path = folder / "config.toml"
    os.symlink("/dev/zero", path)
    return path


def _no_permission(folder: Path) -> Path:
    path = folder / "config.toml"
    path.write_text('[device]\nlanguage = "en"\n', encoding="utf-8")
    path.chmod(0)
    return path


def _state_dir_is_a_file(folder: Path) -> Path:
    (folder / "not-a-folder").write_text("x")
    path = folder / "config.toml"
    path.write_text(f'[device]\nstate_dir = "{folder / "not-a-folder"}"\n', encoding="utf-8")
    return path


def _nested_arrays(depth: int) -> str:
    return "[device]\nname = " + "[" * depth + "]" * depth + "\n"


def _nested_tables(depth: int) -> str:
    return "x = " + "{a = " * depth + "1" + "}" * depth + "\n"


def _dotted(depth: int) -> str:
    return "[" + ".".join(["a"] * depth) + "]\nb = 1\n"


CASES: tuple[HostileConfig, ...] = (
    # syntax
    HostileConfig("unclosed-table-header", "", _text("[device\nname = \"x\"\n")),
    HostileConfig("missing-value", "", _text("[device]\nlanguage =\n")),
    HostileConfig("unterminated-string", "", _text("[device]\nname = \"bar\n")),
    HostileConfig("duplicate-key", "", _text("[device]\nname = \"a\"\nname = \"b\"\n")),
    HostileConfig("duplicate-table", "", _text("[device]\n[device]\n")),
    HostileConfig("not-utf8", "", _text(b"[device]\nname = \"\xff\xfe\xfa\"\n")),
    HostileConfig("byte-order-mark", "", _text(b"\xef\xbb\xbf[device]\nname = \"x\"\n")),
    HostileConfig("nul-bytes", "", _text(b"[device]\x00\nname = \"x\"\n")),
    HostileConfig("random-binary", "", _text(bytes(range(256)) * 40)),
    HostileConfig("shell-script", "", _text("#!/bin/sh\nrm -rf /\n")),
    HostileConfig("json-not-toml", "", _text('{"device": {"name": "x"}}\n')),
    HostileConfig("nested-arrays-500", "", _text(_nested_arrays(500))),
    HostileConfig("nested-inline-tables-500", "", _text(_nested_tables(500))),
    HostileConfig("nested-arrays-100000", "", _text(_nested_arrays(100_000))),
    HostileConfig("dotted-table-500", "a", _text(_dotted(500))),
    HostileConfig("huge-file", "", _text("# padding\n" * 300_000 + "[device]\nname = \"x\"\n")),
    HostileConfig("huge-string", "", _text("[device]\nname = \"" + "x" * 2_000_000 + "\"\n")),
    # types
    HostileConfig("long-name", "device.name", _text("[device]\nname = \"" + "x" * 200 + "\"\n")),
    HostileConfig("language-number", "device.language", _text("[device]\nlanguage = 1\n")),
    HostileConfig("language-fr", "device.language", _text("[device]\nlanguage = \"fr\"\n")),
    HostileConfig("resolution-string", "camera.resolution", _text("[camera]\nresolution = \"640x480\"\n")),
    HostileConfig("fps-string", "camera.fps", _text("[camera]\nfps = \"30\"\n")),
    HostileConfig("fps-float", "camera.fps", _text("[camera]\nfps = 29.97\n")),
    HostileConfig("contrast-bool", "display.contrast", _text("[display]\ncontrast = true\n")),
    HostileConfig("pin-array", "buttons.pin_ok", _text("[buttons]\npin_ok = [13]\n")),
    HostileConfig("players-table", "game.players", _text("[game]\nplayers = {n = 2}\n")),
    HostileConfig("names-string", "game.names", _text("[game]\nnames = \"Ana\"\n")),
    HostileConfig("section-is-a-string", "device", _text("device = \"cubilete\"\n")),
    HostileConfig("section-is-an-array", "camera", _text("camera = [1, 2]\n")),
    HostileConfig("array-of-tables", "device", _text("[[device]]\nname = \"a\"\n[[device]]\nname = \"b\"\n")),
    HostileConfig("options-number", "game.options", _text("[game]\noptions = 3\n")),
    HostileConfig("retention-date", "storage.retention_days", _text("[storage]\nretention_days = 1979-05-27\n")),
    HostileConfig("snapshots-yes", "export.include_snapshots", _text("[export]\ninclude_snapshots = \"yes\"\n")),
    HostileConfig("address-string", "display.address", _text("[display]\naddress = \"0x3C\"\n")),
    # ranges
    HostileConfig("fps-zero", "camera.fps", _text("[camera]\nfps = 0\n")),
    HostileConfig("fps-huge", "camera.fps", _text("[camera]\nfps = 9223372036854775807\n")),
    HostileConfig("address-too-low", "display.address", _text("[display]\naddress = 0x01\n")),
    HostileConfig("resolution-huge", "camera.resolution", _text("[camera]\nresolution = [100000, 100000]\n")),
    HostileConfig("settle-nan", "camera.settle_s", _text("[camera]\nsettle_s = nan\n")),
    HostileConfig("lens-inf", "camera.lens_position", _text("[camera]\nlens_position = inf\n")),
    HostileConfig("pin-on-i2c", "buttons.pin_prev", _text("[buttons]\npin_prev = 2\n")),
    HostileConfig("pins-shared", "buttons.pin_ok", _text("[buttons]\npin_next = 13\npin_ok = 13\n")),
    HostileConfig("players-zero", "game.players", _text("[game]\nplayers = 0\n")),
    HostileConfig("unknown-game", "game.game", _text("[game]\ngame = \"poker\"\n")),
    HostileConfig("option-bad-value", "game.options.held_dice_locked",
                  _text("[game]\ngame = \"generala\"\n[game.options]\nheld_dice_locked = \"maybe\"\n")),
    HostileConfig("option-unknown", "game.options.jokers", _text("[game.options]\njokers = 2\n")),
    HostileConfig("disk-cap-negative", "storage.disk_cap_mb", _text("[storage]\ndisk_cap_mb = -1\n")),
    HostileConfig("rotate-90", "display.rotate", _text("[display]\nrotate = 90\n")),
    HostileConfig("negative-zero-timeout", "camera.frame_timeout_s", _text("[camera]\nframe_timeout_s = -0.0\n")),
    # unknown keys and sections
    HostileConfig("unknown-section", "wifi", _text("[wifi]\nssid = \"bar\"\n")),
    HostileConfig("unknown-key", "device.colour", _text("[device]\ncolour = \"red\"\n")),
    HostileConfig("misspelt-section", "buton", _text("[buton]\nspec = \"none\"\n")),
    # unicode
    HostileConfig("emoji-name", "device.name", _text("[device]\nname = \"\U0001F3B2\U0001F3B2\"\n")),
    HostileConfig("bidi-override", "device.name", _text("[device]\nname = \"bar\u202eevil\"\n")),
    HostileConfig("escaped-nul", "device.name", _text("[device]\nname = \"a\\u0000b\"\n")),
    HostileConfig("fullwidth-language", "device.language", _text("[device]\nlanguage = \"\uff45\uff53\"\n")),
    HostileConfig("names-duplicate", "game.names", _text("[game]\nnames = [\"Ana\", \"Ana\"]\n")),
    HostileConfig("unicode-section", "d\u00e9vice", _text("[\"d\u00e9vice\"]\nname = \"x\"\n")),
    HostileConfig("unicode-bare-key", "", _text("[device]\nn\u00e4me = \"x\"\n")),
    HostileConfig("state-dir-nul", "device.state_dir", _text("[device]\nstate_dir = \"\\u0000\"\n")),
    HostileConfig("currency-emoji", "device.currency", _text("[device]\ncurrency = \"\U0001F4B0\"\n")),
    # the key's older place ([game]) still works, and is checked as the new one
    HostileConfig("currency-emoji-game", "device.currency", _text("[game]\ncurrency = \"\U0001F4B0\"\n")),
    HostileConfig("decimal-separator-space", "device.decimal_separator",
                  _text("[device]\ndecimal_separator = \" \"\n")),
    # the file itself
    HostileConfig("a-directory", "", _directory),
    HostileConfig("a-fifo", "", _fifo),
    HostileConfig("symlink-loop", "", _symlink_loop),
    HostileConfig("dangling-symlink", "", _dangling),
    HostileConfig("a-character-device", "", _char_device),
    HostileConfig("no-permission", "", _no_permission),
    # valid syntax, unusable place
    HostileConfig("state-dir-is-a-file", "state_dir", _state_dir_is_a_file),
)


# -- the figures: every case through `cubilete run` as systemd would start it ------------------

READY_S = 60.0


def start_once(case: HostileConfig, folder: Path, python: str, cwd: Path,
               parts: tuple[str, ...] = ()) -> tuple[bool, str]:
    """Start `cubilete run` on the case's file with the config's own camera, display and
    buttons (or the `parts` options given); (started, why not). Started: READY reached, the
    problem in the journal, and a clean exit on SIGTERM."""
    import signal
    import subprocess
    import time

    config = case.make(folder)
    state = folder / "state"
    command = [python, "-m", "cli.main", "run", "--config", str(config), "--state-dir", str(state),
               "--socket", str(folder / "control.sock"), *parts]
    if case.name == "state-dir-is-a-file":
        command[command.index("--state-dir"):command.index("--state-dir") + 2] = []
    if case.name == "no-permission" and os.geteuid() == 0:
        # root reads any file: the service is started as nobody, as the cubilete user would be
        os.chown(folder, 65534, 65534)
        command = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", *command]
    err = folder / "stderr.txt"
    with open(err, "w", encoding="utf-8") as stream:
        proc = subprocess.Popen(command, cwd=cwd, stdout=subprocess.DEVNULL, stderr=stream,
                                env={**os.environ, "PYTHONPATH": str(cwd)})
        deadline = time.monotonic() + READY_S
        while time.monotonic() < deadline and proc.poll() is None:
            text = err.read_text(encoding="utf-8", errors="replace")
            if "ready:" in text or "cannot open the event log" in text:
                break
            time.sleep(0.1)
        if proc.poll() is not None:
            tail = err.read_text(encoding="utf-8", errors="replace").strip().splitlines()[-1:]
            return False, f"exited with {proc.returncode}: {tail[0] if tail else ''}"[:200]
        proc.send_signal(signal.SIGTERM)
        try:
            code = proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
            return False, "did not stop on SIGTERM"
    text = err.read_text(encoding="utf-8", errors="replace")
    if code != 0:
        return False, f"exit {code} after SIGTERM"
    if "ready:" not in text and "cannot open the event log" not in text:
        return False, "never ready"
    wanted = case.about.split(".")[0] if case.about else ""
    if not any(("config" in line or "event log" in line) and wanted in line
               for line in text.splitlines()):
        return False, "the problem is not in the journal"
    return True, ""


def main() -> int:
    """python -m tests.firmware.hostile_configs [--fake-parts] [CHECKOUT]: every case through
    `cubilete run` (with --fake-parts: a fake camera, the terminal display and no buttons,
    so that only the config file is hostile)."""
    import shutil
    import sys
    import tempfile

    args = sys.argv[1:]
    parts: tuple[str, ...] = ()
    if "--fake-parts" in args:
        args.remove("--fake-parts")
        parts = ("--camera", "fake", "--display", "dummy", "--buttons", "none")
    cwd = Path(args[0]).resolve() if args else Path(__file__).resolve().parents[2]
    failed = []
    with tempfile.TemporaryDirectory(prefix="cubilete-hostile-") as temporary:
        os.chmod(temporary, 0o755)
        for number, case in enumerate(CASES):
            folder = Path(temporary) / f"{number:02d}-{case.name}"
            folder.mkdir()
            ok, why = start_once(case, folder, sys.executable, cwd, parts)
            print(f"{'ok  ' if ok else 'FAIL'} {case.name}{'' if ok else ': ' + why}", flush=True)
            if not ok:
                failed.append(case.name)
            for path in folder.rglob("*"):
                if path.is_file() and not path.is_symlink():
                    path.chmod(0o600)
            shutil.rmtree(folder, ignore_errors=True)
    print(f"hostile configs: {len(CASES) - len(failed)} of {len(CASES)} started and showed their problem;"
          f" {len(failed)} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
