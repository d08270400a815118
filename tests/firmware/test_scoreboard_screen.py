"""The settings show where the room's scoreboard is served: its address and a QR code that
a phone's camera reads from the OLED."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np

from firmware.appliance.menus import Scoreboard, SettingsMenu
from firmware.config import WebConfig
from firmware.service import scoreboard_url
from firmware.ui import QrScreen, render
from firmware.ui.catalogue import text
from firmware.ui.qr import qr_modules

from tests.firmware.appliance_support import new_app


def decoded(screen: QrScreen) -> str:
    """What OpenCV's QR detector reads off the rendered 128x64 image, blown up as a camera sees it."""
    pixels = np.array(render(screen, "en").convert("L"))
    big = cv2.resize(pixels, None, fx=6, fy=6, interpolation=cv2.INTER_NEAREST)
    big = cv2.copyMakeBorder(big, 40, 40, 40, 40, cv2.BORDER_CONSTANT, value=255)
    value, _, _ = cv2.QRCodeDetector().detectAndDecode(big)
    return value


def test_the_address_follows_the_web_section() -> None:
    assert scoreboard_url(WebConfig(), hostname="barra") == "http://barra.local:8080/"
    assert scoreboard_url(WebConfig(bind="192.168.1.40", port=8000)) == "http://192.168.1.40:8000/"
    assert scoreboard_url(WebConfig(bind="fd00::7")) == "http://[fd00::7]:8080/"
    assert scoreboard_url(WebConfig(enabled=False)) is None


def test_the_qr_code_on_the_oled_reads_back_as_the_address() -> None:
    for address in ("http://barra.local:8080/", "http://192.168.100.200:65000/", "http://cubilete-salon.local:8080/"):
        modules = qr_modules(address)
        assert modules is not None and len(modules) * 2 <= 62
        assert decoded(QrScreen("Scoreboard", (), address, modules)) == address


def test_an_address_too_long_for_a_code_on_the_panel_is_written_out_only() -> None:
    address = "http://" + "x" * 60 + ".local:8080/"
    assert qr_modules(address) is None
    render(QrScreen("Scoreboard", (), address, None), "es")  # the text alone still draws


def test_the_settings_offer_the_scoreboard_only_when_it_is_served(tmp_path: Path) -> None:
    app = new_app(tmp_path)
    labels = [text(item.label, "en") for item in SettingsMenu().items(app)]
    assert "Scoreboard" not in labels
    app.scoreboard_url = "http://barra.local:8080/"
    items = SettingsMenu().items(app)
    assert "Scoreboard" in [text(item.label, "en") for item in items]
    mode = next(i for i in items if text(i.label, "en") == "Scoreboard").action(app)
    screen = mode.view(app)
    assert isinstance(mode, Scoreboard) and isinstance(screen, QrScreen)
    assert decoded(screen) == "http://barra.local:8080/"
