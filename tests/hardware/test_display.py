"""Displays: the OLED driver over a fake I2C bus (re-initialising after errors), luma's dummy
device, the terminal renderer, and display specs."""

from __future__ import annotations

import errno
import io

import pytest
from PIL import Image, ImageDraw

from hardware.display import (
    DisplaySettings,
    DummyDisplay,
    FakeI2CBus,
    LumaDisplay,
    NullDisplay,
    TerminalDisplay,
    frame_to_text,
    open_display,
    parse_display_spec,
)

DISPLAYOFF, DISPLAYON, SETCONTRAST = 0xAE, 0xAF, 0x81

# luma.oled 3.16 calls Image.getdata, which Pillow 13 deprecates; not ours to fix.
pytestmark = pytest.mark.filterwarnings("ignore:Image.Image.getdata:DeprecationWarning")


class Clock:
    def __init__(self, t: float = 0.0) -> None:
        self.t = t

    def __call__(self) -> float:
        return self.t


def frame(box: tuple[int, int, int, int] = (0, 0, 9, 9)) -> Image.Image:
    image = Image.new("1", (128, 64))
    ImageDraw.Draw(image).rectangle(box, fill=1)
    return image


@pytest.mark.parametrize("driver", ["ssd1306", "sh1106"])
def test_the_oled_is_initialised_and_frames_go_over_i2c(driver):
    bus = FakeI2CBus()
    display = LumaDisplay(DisplaySettings(driver=driver, address=0x3D), bus=bus)
    assert display.ok and display.reinits == 1
    assert {address for address, _, _ in bus.writes} == {0x3D}
    before = len(bus.writes)
    display.show(frame())
    data = [b for _, register, payload in bus.writes[before:] if register == 0x40 for b in payload]
    assert len(data) == 128 * 64 // 8 and any(data)


def test_an_i2c_error_reinitialises_the_panel_and_the_frame_still_arrives():
    bus = FakeI2CBus()
    display = LumaDisplay(bus=bus)
    display.set_contrast(40)
    bus.fail(1)
    before = len(bus.writes)
    display.show(frame())
    assert display.ok and display.errors == 1 and display.reinits == 2
    commands = [b for _, register, payload in bus.writes[before:] if register == 0x00 for b in payload]
    assert commands[0] == DISPLAYOFF  # a fresh init sequence...
    last_contrast = len(commands) - 1 - commands[::-1].index(SETCONTRAST)
    assert commands[last_contrast + 1] == 40  # ...then the contrast set before is restored


def test_a_missing_panel_never_raises_and_is_retried_with_backoff():
    bus = FakeI2CBus()
    clock = Clock()
    display = LumaDisplay(bus=bus, retries=2, clock=clock)
    bus.unplug()
    display.show(frame())  # no exception
    assert not display.ok and display.errors == 3
    display.show(frame((5, 5, 20, 20)))
    assert display.errors == 3  # within the back-off: no I2C traffic, no delay for the main loop
    bus.plug()
    clock.t = 10.0
    display.show(frame((5, 5, 20, 20)))
    assert display.ok


def test_a_panel_that_is_absent_at_start_is_not_fatal():
    bus = FakeI2CBus()
    bus.unplug()
    display = LumaDisplay(bus=bus)
    assert not display.ok


def test_errno_other_than_io_errors_are_survived_too():
    bus = FakeI2CBus()
    display = LumaDisplay(bus=bus)
    bus.fail(1, errno.ETIMEDOUT)
    display.set_contrast(10)
    assert display.ok and display.errors == 1


def test_a_driver_failing_in_an_unforeseen_way_is_retried_not_raised():
    class Broken(FakeI2CBus):
        def write_i2c_block_data(self, address: int, register: int, data: list[int]) -> None:
            raise RuntimeError("a driver bug")

    display = LumaDisplay(bus=Broken())
    assert not display.ok
    display.show(Image.new("1", (128, 64)))
    assert not display.ok and display.errors >= 1


def test_power_and_contrast_commands():
    bus = FakeI2CBus()
    display = LumaDisplay(bus=bus)
    before = len(bus.writes)
    display.set_contrast(16)
    display.set_power(False)
    display.set_power(True)
    commands = [b for _, register, payload in bus.writes[before:] if register == 0x00 for b in payload]
    assert commands == [SETCONTRAST, 16, DISPLAYOFF, DISPLAYON]


def test_the_dummy_keeps_the_last_frame_as_a_pil_image():
    display = DummyDisplay()
    display.show(frame())
    assert display.last_image.mode == "1" and display.last_image.size == (128, 64)
    assert display.last_image.getpixel((5, 5)) and not display.last_image.getpixel((50, 50))
    display.set_contrast(300)
    assert display.contrast == 255


def test_a_rotated_dummy_turns_the_frame_half_a_turn():
    display = DummyDisplay(rotate=2)
    display.show(frame())
    assert display.last_image.getpixel((127, 63)) and not display.last_image.getpixel((0, 0))


def test_frames_must_be_the_panels_size():
    with pytest.raises(ValueError, match="128x64"):
        DummyDisplay().show(Image.new("1", (64, 32)))
    with pytest.raises(ValueError, match="256x64"):
        DummyDisplay(size=(256, 64)).show(Image.new("1", (128, 64)))


class FakeSpi:
    """A spidev-like SPI port: records what is written."""

    def __init__(self) -> None:
        self.written: list[int] = []
        self.max_speed_hz = 0

    def open(self, port: int, device: int) -> None:
        self.opened = (port, device)

    def writebytes(self, data) -> None:
        self.written.extend(data)

    def close(self) -> None:
        pass


class FakeGpio:
    """An RPi.GPIO-like module for the D/C and reset lines."""

    OUT, LOW, HIGH = 0, 0, 1

    def setup(self, pin: int, mode: int) -> None:
        pass

    def output(self, pin: int, value: int) -> None:
        pass

    def cleanup(self, pins=None) -> None:
        pass


@pytest.mark.parametrize("driver, size", [("sh1107", "128x128"), ("sh1106", "128x128"), ("ssd1327", "128x128")])
def test_larger_panels_on_i2c_take_frames_of_their_size(driver, size):
    bus = FakeI2CBus()
    display = LumaDisplay(DisplaySettings(driver=driver, size=size), bus=bus)
    assert display.ok and display.panel_size == (128, 128) and size in display.description
    image = Image.new("1", (128, 128))
    ImageDraw.Draw(image).rectangle((0, 100, 20, 127), fill=1)
    before = len(bus.writes)
    display.show(image)
    data = [b for _, register, payload in bus.writes[before:] if register == 0x40 for b in payload]
    assert any(data)  # the lower half went to the panel too
    with pytest.raises(ValueError, match="128x128"):
        display.show(frame())


def test_a_256x64_greyscale_panel_on_spi_gets_the_frame_in_its_own_mode():
    port = FakeSpi()
    display = LumaDisplay(DisplaySettings(driver="ssd1322", size="256x64", interface="spi"), spi=port, gpio=FakeGpio())
    assert display.ok and display.panel_size == (256, 64) and "spi" in display.description
    before = len(port.written)
    image = Image.new("1", (256, 64))
    ImageDraw.Draw(image).rectangle((200, 0, 255, 10), fill=1)
    display.show(image)
    assert display.ok and any(port.written[before:])


def test_a_driver_drives_only_its_panel_sizes():
    with pytest.raises(ValueError, match="ssd1306 drives 128x64, not 256x64; a 256x64 panel: ssd1322, ssd1362"):
        DisplaySettings(driver="ssd1306", size="256x64")
    with pytest.raises(ValueError, match="display size '300x64': allowed 128x64, 128x128, 256x64"):
        DisplaySettings(size="300x64")
    with pytest.raises(ValueError, match="interface"):
        DisplaySettings(interface="usb")
    # The terminal and the dummy take the config's size (the default driver fits it).
    assert open_display(None, {"driver": "dummy", "size": "256x64"}).panel_size == (256, 64)
    assert open_display("terminal", {"size": "128x128"}, stream=io.StringIO()).panel_size == (128, 128)
    assert parse_display_spec("ssd1327")[1].size == "128x128"


def test_the_terminal_draws_a_larger_panel_whole():
    out = io.StringIO()
    display = TerminalDisplay(out, style="quadrant", size=(256, 64))
    image = Image.new("1", (256, 64))
    image.putpixel((255, 63), 1)
    display.show(image)
    rows = out.getvalue().rstrip("\n").split("\n")
    assert len(rows) == 34 and len(rows[1]) == 130 and rows[-2][-2] == "▗"


def test_the_terminal_draws_two_pixel_rows_per_character():
    image = Image.new("1", (128, 64))
    image.putpixel((0, 0), 1)   # top half of the first cell
    image.putpixel((1, 1), 1)   # bottom half of the second
    image.putpixel((2, 0), 1)
    image.putpixel((2, 1), 1)   # both halves of the third
    rows = frame_to_text(image, border=False).split("\n")
    assert len(rows) == 32 and all(len(row) == 128 for row in rows)
    assert rows[0][:4] == "▀▄█ "


def test_the_narrow_terminal_form_uses_quadrants():
    image = Image.new("1", (128, 64))
    image.putpixel((1, 0), 1)
    image.putpixel((0, 1), 1)
    rows = frame_to_text(image, quadrant=True, border=False).split("\n")
    assert len(rows) == 32 and all(len(row) == 64 for row in rows)
    assert rows[0][0] == "▞"


def test_the_terminal_redraws_in_place_only_when_something_changed():
    out = io.StringIO()
    display = TerminalDisplay(out, in_place=True, quadrant=False)
    display.show(frame())
    display.show(frame())
    assert display.frames == 1
    display.show(frame((20, 20, 30, 30)))
    assert display.frames == 2 and "\x1b[34F" in out.getvalue()  # 32 rows + 2 border lines up
    display.set_contrast(10)
    assert "\x1b[2m" in out.getvalue()  # dimmed is drawn faint


def test_the_terminal_prints_frames_one_after_another_when_not_a_tty():
    out = io.StringIO()
    display = TerminalDisplay(out, quadrant=True)
    display.show(frame())
    display.show(frame((20, 20, 30, 30)))
    assert "\x1b[" not in out.getvalue() and out.getvalue().count("┌") == 2


@pytest.mark.parametrize("spec, kind, driver, bus, address", [
    ("oled", "oled", "ssd1306", 1, 0x3C),
    ("sh1106", "oled", "sh1106", 1, 0x3C),
    ("ssd1306:0:0x3d", "oled", "ssd1306", 0, 0x3D),
    ("terminal", "terminal", "ssd1306", 1, 0x3C),
    ("dummy", "dummy", "ssd1306", 1, 0x3C),
])
def test_display_specs(spec, kind, driver, bus, address):
    parsed_kind, settings = parse_display_spec(spec)
    assert (parsed_kind, settings.driver, settings.bus, settings.address) == (kind, driver, bus, address)


@pytest.mark.parametrize("spec", ["lcd", "ssd1306:x", "terminal:1"])
def test_bad_display_specs_say_what_is_allowed(spec):
    with pytest.raises(ValueError, match="display spec"):
        parse_display_spec(spec)


def test_settings_from_the_config_section():
    settings = DisplaySettings.from_mapping({"driver": "sh1106", "address": "0x3d", "rotate": 180, "contrast": 9})
    assert (settings.driver, settings.address, settings.rotate) == ("sh1106", 0x3D, 2)
    with pytest.raises(ValueError, match="rotate"):
        DisplaySettings(rotate=1)
    assert isinstance(open_display(None, {"driver": "dummy", "rotate": 180}), DummyDisplay)
    assert isinstance(open_display("none"), NullDisplay)
    assert isinstance(open_display("terminal", stream=io.StringIO()), TerminalDisplay)
