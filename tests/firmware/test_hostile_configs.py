"""Hostile config files (tests/firmware/hostile_configs.py) through a real service start:
`cubilete run`'s own set-up (build_service) with the config's camera, display and buttons,
none of which exist on a test machine. Every case must start, run the loop, and show its
problem on the screen and in the journal; the sections it spoils fall back to the defaults.
"""

from __future__ import annotations

import logging
import os
import shutil
import sys
import tempfile
from pathlib import Path

import pytest

from firmware.appliance.no_buttons import ScoreWithoutButtons
from cli.main import build_parser
from cli.run import build_service
from firmware.ui.catalogue import say
from firmware.ui.screens import MessageScreen
from tests.firmware.hostile_configs import CASES, HostileConfig, start_once


def test_there_are_at_least_forty_cases_of_every_kind() -> None:
    assert len(CASES) >= 40
    names = {case.name for case in CASES}
    for kind in ("nested-arrays-500", "a-directory", "no-permission", "emoji-name", "unknown-key", "fps-zero",
                 "language-number", "unclosed-table-header"):
        assert kind in names


def shown_titles(service) -> list[str]:  # type: ignore[no-untyped-def]
    """The English titles of the screens the service shows, pressing nothing: the notices
    one after another (as their time runs out), then the mode's screen."""
    titles = []
    app = service.app
    for overlay in list(app._overlays):
        titles.append(overlay.screen.title.en)
    return titles


def start(case: HostileConfig, folder: Path):  # type: ignore[no-untyped-def]
    config = case.make(folder)
    state = [] if case.name == "state-dir-is-a-file" else ["--state-dir", str(folder / "state")]
    args = build_parser().parse_args(["run", "--config", str(config), *state, "--socket", str(folder / "c.sock")])
    return build_service(args)


@pytest.mark.parametrize("case", CASES, ids=[case.name for case in CASES])
def test_the_service_starts_and_shows_the_problem(case: HostileConfig, tmp_path: Path,
                                                  caplog: pytest.LogCaptureFixture) -> None:
    if case.name == "no-permission" and os.geteuid() == 0:
        if shutil.which("setpriv") is None:
            pytest.skip("as root every file is readable; needs setpriv to start the service as nobody")
        with tempfile.TemporaryDirectory(prefix="cubilete-hostile-") as temporary:
            os.chmod(temporary, 0o755)  # nobody must reach the file to be refused by its mode
            (Path(temporary) / "case").mkdir()
            ok, why = start_once(case, Path(temporary) / "case", sys.executable, Path(__file__).resolve().parents[2])
            for path in Path(temporary).rglob("*"):
                path.chmod(0o700)
        assert ok, why
        return
    folder = tmp_path / "case"
    folder.mkdir()
    caplog.set_level(logging.INFO)
    service = start(case, folder)
    try:
        if case.about == "state_dir":
            assert service.app is None and service.storage_kind == "not_writable", service.storage_error
            service.request_stop()
            assert service.run() == 0
            assert "device.state_dir" in caplog.text and "not-a-folder" in caplog.text
            return
        for _ in range(3):
            assert service.step()
        titles = shown_titles(service)
        wanted = say("config_problem", key=case.about or "file").en
        assert any(title.startswith(wanted) for title in titles), (titles, wanted)
        assert any(r.message.startswith("config:") and (case.about.split(".")[0] in r.message)
                   for r in caplog.records), caplog.text
        # No buttons on this machine: the device scores by itself once the notices are gone.
        assert service.app.buttons_missing
        assert isinstance(service.app.mode, ScoreWithoutButtons)
    finally:
        service.shutdown()


def test_many_problems_show_the_first_three_and_log_every_one(tmp_path: Path,
                                                              caplog: pytest.LogCaptureFixture) -> None:
    path = tmp_path / "config.toml"
    path.write_text('[device]\nlanguage = "fr"\n[camera]\nfps = 0\n[display]\nrotate = 90\n[wifi]\nx = 1\n')
    caplog.set_level(logging.INFO)
    service = build_service(build_parser().parse_args(
        ["run", "--config", str(path), "--state-dir", str(tmp_path / "s"), "--socket", str(tmp_path / "c.sock"),
         "--buttons", "none", "--display", "dummy", "--camera", "fake"]))
    try:
        service.step()
        screen = service.app.screen()
        assert isinstance(screen, MessageScreen) and screen.title.en == "Config: device.language"
        assert [o.screen.title.en for o in service.app._overlays] == [
            "Config: device.language", "Config: camera.fps", "Config: display.rotate"]
        assert sum(r.message.startswith("config:") for r in caplog.records) == 4
        assert service.config.device.language == "es" and service.config.camera.fps == 30
    finally:
        service.shutdown()
