"""Burn-in protection and frame sending: pixel shift, dimming and switching off when idle,
waking on activity, sending only changed frames, and resending after a display failure."""

from __future__ import annotations

import pytest
from PIL import Image

from firmware.ui import MessageScreen, T, TurnScreen, render, stopped_screen
from firmware.ui.presenter import SHIFT_ORBIT, BurnInSettings, ScreenPresenter
from hardware.display import DummyDisplay, FakeI2CBus, LumaDisplay


# luma.oled 3.16 calls Image.getdata, which Pillow 13 deprecates; not ours to fix.
pytestmark = pytest.mark.filterwarnings("ignore:Image.Image.getdata:DeprecationWarning")


class Clock:
    def __init__(self, t: float = 1000.0) -> None:
        self.t = t

    def __call__(self) -> float:
        return self.t


SETTINGS = BurnInSettings(contrast=200, idle_dim_s=300, idle_contrast=16, shift_every_s=60, idle_off_s=3600)


def presenter(**overrides):
    clock = Clock()
    display = DummyDisplay()
    settings = BurnInSettings(**{**SETTINGS.__dict__, **overrides})
    return ScreenPresenter(display, "es", settings, clock), display, clock


def test_a_screen_is_rendered_and_sent_once():
    p, display, _ = presenter()
    screen = TurnScreen("Ana", 0, 3)
    p.show(screen)
    p.show(screen)
    assert display.frames == 1
    assert display.last_image.tobytes() == render(screen, "es").tobytes()


def test_the_image_moves_by_one_pixel_around_a_small_orbit():
    p, display, clock = presenter()
    screen = MessageScreen("X")
    original = render(screen, "es")
    p.show(screen)
    offsets = []
    for _ in range(len(SHIFT_ORBIT)):
        clock.t += 60
        p.tick()
        offsets.append(p.offset)
        dx, dy = p.offset
        shown = display.last_image
        assert all(shown.getpixel((x + dx, y + dy)) == original.getpixel((x, y)) for x in range(0, 127, 7)
                   for y in range(0, 63, 3))
    assert offsets == list(SHIFT_ORBIT[1:]) + [SHIFT_ORBIT[0]]
    assert display.frames == 1 + len(SHIFT_ORBIT)


def test_no_shift_when_it_is_switched_off():
    p, display, clock = presenter(pixel_shift=False)
    p.show(stopped_screen())
    clock.t += 600
    p.tick()
    assert p.offset == (0, 0) and display.frames == 1


def test_the_panel_dims_when_idle_and_wakes_on_activity():
    p, display, clock = presenter()
    assert display.contrast == 200
    clock.t += 299
    p.tick()
    assert display.contrast == 200 and not p.dimmed
    clock.t += 2
    p.tick()
    assert display.contrast == 16 and p.dimmed
    p.activity()
    assert display.contrast == 200


def test_after_a_long_idle_the_panel_is_switched_off_until_someone_comes():
    p, display, clock = presenter()
    clock.t += 3600
    p.tick()
    assert not display.powered
    p.activity()
    assert display.powered and display.contrast == 200


def test_never_dims_when_the_idle_time_is_zero():
    p, display, clock = presenter(idle_dim_s=0, idle_off_s=0)
    clock.t += 10**6
    p.tick()
    assert display.contrast == 200 and display.powered


def test_changing_the_language_redraws_the_screen():
    p, display, _ = presenter()
    p.show(MessageScreen(T("stopped")))
    spanish = display.last_image.tobytes()
    p.set_language("en")
    assert display.frames == 2 and display.last_image.tobytes() != spanish


def test_a_frame_lost_to_a_display_failure_is_sent_again_when_it_recovers():
    bus = FakeI2CBus()
    clock = Clock()
    display = LumaDisplay(bus=bus, clock=clock)
    p = ScreenPresenter(display, "en", SETTINGS, clock)
    bus.unplug()
    p.show(stopped_screen())
    assert not display.ok
    bus.plug()
    clock.t += 30
    p.tick()
    assert display.ok
    frame = [b for _, register, data in bus.writes[-40:] if register == 0x40 for b in data]
    assert any(frame)


def test_settings_come_from_the_config_display_section():
    settings = BurnInSettings.from_mapping({"driver": "ssd1306", "contrast": 120, "idle_dim_s": 60,
                                            "idle_contrast": 8, "pixel_shift": False})
    assert (settings.contrast, settings.idle_dim_s, settings.idle_contrast, settings.pixel_shift) == (120, 60, 8, False)


def test_the_presenter_returns_the_unshifted_frame():
    p, _, clock = presenter()
    screen = MessageScreen("X")
    clock.t += 60
    p.tick()
    assert isinstance(p.show(screen), Image.Image)
    assert p.show(screen).tobytes() == render(screen, "es").tobytes()


@pytest.mark.parametrize("size", [(256, 64), (128, 128)])
def test_a_larger_panel_gets_frames_drawn_for_its_size(size):
    display = DummyDisplay(size=size)
    p = ScreenPresenter(display, "en", SETTINGS, Clock())
    screen = TurnScreen("Ana", 1, 3, total=12)
    p.show(screen)
    assert display.last_image.size == size
    assert display.last_image.tobytes() == render(screen, "en", size).tobytes()
