"""Golden images of the OLED screens, drawn through luma.core's dummy device.

The screens are the device's own: the game's screens as the appliance shows them after the
presses and throws of a scene (tests/firmware/screens_support.SCENES), the messages built by
the functions the service uses. Each is rendered, shown on a DummyDisplay of its panel's size
and compared pixel for pixel with tests/firmware/golden/<name>.png (<name>_256x64.png and
<name>_128x128.png for the larger panels). After an intended change of a screen, regenerate with

    UPDATE_GOLDEN=1 .venv/bin/python -m pytest tests/firmware/test_ui_golden.py

and look at the new images before committing them (scale them up to look).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Callable

import numpy as np
import pytest
from PIL import Image, ImageChops

from firmware.ui import (
    MessageScreen,
    Names,
    QrScreen,
    Screen,
    T,
    camera_lost_screen,
    render,
    stopped_screen,
    usb_done_screen,
    usb_exporting_screen,
    usb_failed_screen,
)
from firmware.ui.qr import qr_modules
from hardware.display import DummyDisplay
from tests.firmware.screens_support import SCENES, SIZES

GOLDEN = Path(__file__).parent / "golden"
BAR_URL = "http://cubilete-barra.local:8080/"
UPDATE = os.environ.get("UPDATE_GOLDEN") == "1"

N = Names
SMALL = SIZES[:1]

# Messages, as the device's functions build them: name -> (screen, panel sizes).
MESSAGES: dict[str, tuple[Callable[[], Screen], tuple[tuple[int, int], ...]]] = {
    "camera_lost_es": (lambda: camera_lost_screen(4.2), SMALL),
    "camera_lost_en": (lambda: camera_lost_screen(), SIZES),
    "usb_exporting_es": (lambda: usb_exporting_screen(), SMALL),
    "usb_done_en": (lambda: usb_done_screen(3), SMALL),
    "usb_done_one_es": (lambda: usb_done_screen(1), SMALL),
    "usb_failed_en": (lambda: usb_failed_screen("the stick is read-only"), SMALL),
    "usb_failed_still_mounted_es": (lambda: usb_failed_screen("no se pudo desmontar", safe_to_remove=False), SMALL),
    "stopped_es": (lambda: stopped_screen(), SMALL),
    "stopped_en": (lambda: stopped_screen(), SMALL),
    "config_problem_en": (lambda: MessageScreen(T("config_problem", key="display.size"), (
        T("config_defaults"), "300x64"), icon="warning"), SMALL),
    "fairness_warning_es": (lambda: MessageScreen(T("fairness"), (
        T("fairness_all", n=812, p="<0.001"), "1:121 2:118 3:125", "4:119 5:122 6:207", T("fairness_warning"),
        T("fairness_today", n=54, p=" 0.031")), icon="warning"), SMALL),
    "fairness_few_en": (lambda: MessageScreen(T("fairness"), (
        T("fairness_all", n=120, p=" 0.412"), "1:61 2:58 3:65", "4:59 5:62 6:55",
        T("fairness_few", n=120, need=600)), icon="dice"), SMALL),
    "hint_es": (lambda: MessageScreen(T("hint"), (N("guardar 6 6 6", "keep 6 6 6"), T("hint_expected", x="171.4"),
                                                  N("anotar Full 30", "fill Full house 30"),
                                                  T("hint_expected", x="168.9")), icon="info"), SMALL),
    "scoreboard_es": (lambda: QrScreen(T("scoreboard"), (T("scoreboard_open"),), BAR_URL, qr_modules(BAR_URL)), SMALL),
    "scoreboard_en": (lambda: QrScreen(T("scoreboard"), (T("scoreboard_open"),), BAR_URL, qr_modules(BAR_URL)),
                      SIZES),
}


def cases() -> dict[str, tuple[Callable[[], Screen], str, tuple[int, int]]]:
    """golden name -> (the screen, its language, the panel size)."""
    found = {}
    for name, (build, sizes) in {**SCENES, **MESSAGES}.items():
        lang = name.rsplit("_", 1)[-1]
        for size in sizes:
            suffix = "" if size == (128, 64) else f"_{size[0]}x{size[1]}"
            found[name + suffix] = (build, lang, size)
    return found


CASES = cases()
_built: dict[str, Screen] = {}


def screen_of(name: str) -> tuple[Screen, str, tuple[int, int]]:
    build, lang, size = CASES[name]
    scene = name.removesuffix(f"_{size[0]}x{size[1]}")
    if scene not in _built:
        _built[scene] = build()
    return _built[scene], lang, size


def through_dummy(image: Image.Image) -> Image.Image:
    display = DummyDisplay(size=image.size)
    display.show(image)
    return display.last_image


@pytest.mark.parametrize("name", sorted(CASES))
def test_screen_matches_its_golden_image(name, tmp_path):
    screen, lang, size = screen_of(name)
    actual = through_dummy(render(screen, lang, size))
    path = GOLDEN / f"{name}.png"
    if UPDATE:
        GOLDEN.mkdir(exist_ok=True)
        actual.save(path, optimize=True)
        return
    assert path.is_file(), f"no golden image {path.name}; create it with UPDATE_GOLDEN=1 and look at it"
    expected = Image.open(path).convert("1")
    changed = int(np.count_nonzero(np.asarray(ImageChops.logical_xor(expected, actual))))
    if changed:
        actual.save(tmp_path / f"{name}.actual.png")
    assert changed == 0, (f"{name}: {changed} pixels differ from {path}; the new frame is in {tmp_path}; "
                          "if the change is intended, regenerate with UPDATE_GOLDEN=1")


def test_every_golden_image_belongs_to_a_case():
    if not GOLDEN.is_dir():
        pytest.fail("tests/firmware/golden is missing")
    stale = sorted(p.stem for p in GOLDEN.glob("*.png") if p.stem not in CASES)
    assert not stale, f"golden images without a case: {stale}"


@pytest.mark.parametrize("name", sorted(CASES))
def test_screens_keep_the_pixel_shift_margin_free(name):
    screen, lang, (width, height) = screen_of(name)
    image = render(screen, lang, (width, height))
    assert image.mode == "1" and image.size == (width, height)
    assert not any(image.getpixel((width - 1, y)) for y in range(height))
    assert not any(image.getpixel((x, height - 1)) for x in range(width))
