"""Displays: the OLED panels luma.oled drives (128x64 SSD1306 / SH1106, and the larger
128x128 and 256x64 panels: SH1107, SSD1327, SSD1322...) over I2C or SPI, luma's dummy device
for tests, and the terminal (Unicode block or braille characters, by its size) for the demo
and SSH.

A display takes finished frames (`PIL.Image`, mode "1", of its `panel_size`) with `show()`;
dimming is `set_contrast(0..255)`, blanking is `set_power(False)`. `ok` is False while the
hardware is failing. The OLED adapter re-initialises the panel after a bus error instead of
raising (bounded retries, logged, with back-off between failed attempts), and keeps the last
frame so the screen comes back as it was. Greyscale and colour panels get the one-bit frame
in their own mode (lit pixels at full brightness).

luma is imported inside the adapters; the dummy needs only luma.core.
"""

from __future__ import annotations

import errno
import logging
import shutil
import sys
import time
from dataclasses import dataclass
from typing import Any, Callable, Mapping, Protocol, TextIO

from PIL import Image

log = logging.getLogger("cubilete.display")

WIDTH, HEIGHT = 128, 64
# The panel sizes the screens are laid out for (firmware.ui.renderer), by their config name.
SIZES: dict[str, tuple[int, int]] = {"128x64": (128, 64), "128x128": (128, 128), "256x64": (256, 64)}
# luma.oled's drivers and the sizes among SIZES each controller drives.
DRIVERS: dict[str, tuple[str, ...]] = {
    "ssd1306": ("128x64",),
    "sh1106": ("128x64", "128x128"),
    "ssd1309": ("128x64",),
    "ssd1325": ("128x64",),
    "sh1107": ("128x128",),
    "ssd1327": ("128x128",),
    "ssd1351": ("128x128",),
    "ssd1322": ("256x64",),
    "ssd1362": ("256x64",),
}
INTERFACES = ("i2c", "spi")


class Display(Protocol):
    description: str
    ok: bool
    panel_size: tuple[int, int]  # (width, height) in pixels: the frames it takes

    def show(self, image: Image.Image) -> None: ...

    def set_contrast(self, level: int) -> None: ...

    def set_power(self, on: bool) -> None: ...

    def close(self) -> None: ...


def drivers_for(size: str) -> list[str]:
    return [driver for driver, sizes in DRIVERS.items() if size in sizes]


@dataclass(frozen=True)
class DisplaySettings:
    """The config's [display] wiring: driver, panel size, interface, I2C bus number and
    address, rotation.

    size: "128x64", "128x128" or "256x64", one the driver drives (DRIVERS).
    interface: "i2c" (bus, address), or "spi" (SPI0 CE0, D/C on GPIO 24, reset on GPIO 25:
        luma's wiring, as most SSD1322 modules come).
    rotate: luma's convention, 0 or 2 (180 degrees, for a panel mounted upside down); the
    screens are landscape, so 1 and 3 are refused.
    """

    driver: str = "ssd1306"
    bus: int = 1
    address: int = 0x3C
    rotate: int = 0
    size: str = "128x64"
    interface: str = "i2c"

    def __post_init__(self) -> None:
        if self.driver not in DRIVERS:
            raise ValueError(f"display driver {self.driver!r}: allowed {', '.join(DRIVERS)}")
        if self.size not in SIZES:
            raise ValueError(f"display size {self.size!r}: allowed {', '.join(SIZES)}")
        if self.size not in DRIVERS[self.driver]:
            raise ValueError(f"display driver {self.driver} drives {' or '.join(DRIVERS[self.driver])}, not "
                             f"{self.size}; a {self.size} panel: {', '.join(drivers_for(self.size))}")
        if self.interface not in INTERFACES:
            raise ValueError(f"display interface {self.interface!r}: allowed {', '.join(INTERFACES)}")
        if self.rotate not in (0, 2):
            raise ValueError(f"display rotate {self.rotate!r}: allowed 0 or 2 (180 degrees)")
        if not 0x03 <= self.address <= 0x77:
            raise ValueError(f"display address {self.address:#x}: allowed 0x03..0x77 (usually 0x3c or 0x3d)")

    @property
    def dimensions(self) -> tuple[int, int]:
        """(width, height) in pixels."""
        return SIZES[self.size]

    @classmethod
    def from_mapping(cls, values: Mapping[str, Any]) -> "DisplaySettings":
        """From the config's [display] section: address may be a string such as "0x3c", rotate
        may be 180; a driver that is not an OLED ("terminal", "dummy") keeps the default
        (the one that drives the size, for a larger panel)."""
        kwargs = {k: v for k, v in values.items() if k in cls.__dataclass_fields__}
        if kwargs.get("driver") not in DRIVERS:
            kwargs.pop("driver", None)
            size = kwargs.get("size", "128x64")
            if size in SIZES and size not in DRIVERS[cls.driver]:
                kwargs["driver"] = drivers_for(size)[0]
        if isinstance(kwargs.get("address"), str):
            kwargs["address"] = int(kwargs["address"], 0)
        if kwargs.get("rotate") == 180:
            kwargs["rotate"] = 2
        return cls(**kwargs)


def _check_frame(image: Image.Image, size: tuple[int, int] = (WIDTH, HEIGHT)) -> Image.Image:
    if image.size != size:
        raise ValueError(f"a frame must be {size[0]}x{size[1]}, got {image.size[0]}x{image.size[1]}")
    return image if image.mode == "1" else image.convert("1")


class LumaDisplay:
    """An OLED panel through luma.oled: any driver of DRIVERS, on I2C or SPI.

    bus: an smbus2-like object instead of opening /dev/i2c-N (tests pass `FakeI2CBus`);
    spi, gpio: a spidev-like object and an RPi.GPIO-like one for an SPI panel (tests pass
    fakes). A bus failure (OSError, or luma's DeviceNotFoundError for EIO/EREMOTEIO) drops
    the device; the frame is retried on a freshly initialised panel up to `retries` times,
    then the display is marked not ok and further attempts wait a growing delay (up to
    `max_backoff_s`) so a missing panel does not stall the main loop.
    """

    def __init__(self, settings: DisplaySettings = DisplaySettings(), *, bus: Any = None, spi: Any = None,
                 gpio: Any = None, retries: int = 2, max_backoff_s: float = 10.0,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.settings = settings
        self.panel_size = settings.dimensions
        where = f"i2c-{settings.bus} at {settings.address:#04x}" if settings.interface == "i2c" else "spi0.0"
        self.description = f"{settings.driver} {settings.size} on {where}"
        self._spi, self._gpio = spi, gpio
        self.retries = retries
        self.max_backoff_s = max_backoff_s
        self.clock = clock
        self.ok = False
        self.errors = 0
        self.reinits = 0
        self._bus = bus
        self._device: Any = None
        self._contrast: int | None = None
        self._power = True
        self._last: Image.Image | None = None
        self._failures = 0
        self._retry_at = 0.0
        self._attempt(lambda device: None)

    def _connect(self) -> Any:
        from luma.core.interface.serial import i2c, spi  # noqa: PLC0415
        import luma.oled.device  # noqa: PLC0415

        s = self.settings
        if s.interface == "spi":
            serial = spi(spi=self._spi, gpio=self._gpio, port=0, device=0)
        elif self._bus is not None:
            serial = i2c(bus=self._bus, address=s.address)
        else:
            serial = i2c(port=s.bus, address=s.address)
        width, height = self.panel_size
        device = getattr(luma.oled.device, s.driver)(serial, width=width, height=height, rotate=s.rotate)
        # Keep the last frame on the panel when the process ends (the "stopped" screen).
        device.persist = True
        if self._contrast is not None:
            device.contrast(self._contrast)
        if not self._power:
            device.hide()
        if self._last is not None:
            device.display(self._last.convert(device.mode))
        return device

    def _attempt(self, action: Callable[[Any], None]) -> bool:
        from luma.core.error import Error as LumaError  # noqa: PLC0415

        if not self.ok and self.clock() < self._retry_at:
            return False
        for _ in range(1 + self.retries):
            try:
                if self._device is None:
                    self._device = self._connect()
                    self.reinits += 1
                action(self._device)
            except Exception as error:  # OSError, luma's errors, or any other failure of a driver
                if not isinstance(error, (OSError, LumaError)):
                    log.warning("%s: unexpected %s", self.description, type(error).__name__)
                self.errors += 1
                log.warning("%s: %s; re-initialising", self.description, error)
                self._drop()
                continue
            if not self.ok:
                if self._failures:
                    log.info("%s: back after %d failed attempts", self.description, self._failures)
                self.ok, self._failures = True, 0
            return True
        self._failures += 1
        self._retry_at = self.clock() + min(self.max_backoff_s, 0.5 * 2 ** (self._failures - 1))
        if self.ok or self._failures == 1:
            log.error("%s: not responding; the service goes on and keeps retrying", self.description)
        self.ok = False
        return False

    def _drop(self) -> None:
        device, self._device = self._device, None
        if device is not None:
            try:
                device.cleanup()
            except Exception:
                pass

    def show(self, image: Image.Image) -> None:
        frame = _check_frame(image, self.panel_size)
        self._last = frame
        self._attempt(lambda device: device.display(frame.convert(device.mode)))

    def set_contrast(self, level: int) -> None:
        self._contrast = max(0, min(255, int(level)))
        self._attempt(lambda device: device.contrast(self._contrast))

    def set_power(self, on: bool) -> None:
        self._power = on
        self._attempt(lambda device: device.show() if on else device.hide())

    def close(self) -> None:
        self._drop()
        self.ok = False


class FakeI2CBus:
    """An smbus2-like bus standing in for /dev/i2c-1 in tests: it records the writes and can
    be told to fail the next N of them, as a loose wire or an unplugged panel does."""

    def __init__(self) -> None:
        self.writes: list[tuple[int, int, list[int]]] = []
        self._failing = 0
        self._errno = errno.EREMOTEIO

    def fail(self, writes: int = 1, code: int = errno.EREMOTEIO) -> None:
        self._failing, self._errno = writes, code

    def unplug(self) -> None:
        self.fail(10**9, errno.ENXIO)

    def plug(self) -> None:
        self._failing = 0

    def write_i2c_block_data(self, address: int, register: int, data: list[int]) -> None:
        if self._failing:
            self._failing -= 1
            raise OSError(self._errno, errno.errorcode.get(self._errno, "I2C error"))
        self.writes.append((address, register, list(data)))

    def commands(self) -> list[int]:
        """Every command byte written (register 0x00), in order."""
        return [b for _, register, data in self.writes if register == 0x00 for b in data]

    def close(self) -> None:
        pass


class DummyDisplay:
    """luma.core's dummy device: keeps the last frame as a PIL image (`last_image`) for tests."""

    def __init__(self, rotate: int = 0, size: tuple[int, int] = (WIDTH, HEIGHT)) -> None:
        from luma.core.device import dummy  # noqa: PLC0415

        self.panel_size = size
        self.device = dummy(width=size[0], height=size[1], rotate=rotate, mode="1")
        self.description = "dummy display"
        self.ok = True
        self.contrast = 255
        self.powered = True
        self.frames = 0

    @property
    def last_image(self) -> Image.Image | None:
        return self.device.image

    def show(self, image: Image.Image) -> None:
        self.device.display(_check_frame(image, self.panel_size))
        self.frames += 1

    def set_contrast(self, level: int) -> None:
        self.contrast = max(0, min(255, int(level)))

    def set_power(self, on: bool) -> None:
        self.powered = on

    def close(self) -> None:
        self.ok = False


# --- the terminal ---------------------------------------------------------------------------

_HALF = {(0, 0): " ", (1, 0): "▀", (0, 1): "▄", (1, 1): "█"}
# Quadrant blocks indexed by (top-left, top-right, bottom-left, bottom-right).
_QUADRANT = {
    (0, 0, 0, 0): " ", (1, 0, 0, 0): "▘", (0, 1, 0, 0): "▝", (1, 1, 0, 0): "▀",
    (0, 0, 1, 0): "▖", (1, 0, 1, 0): "▌", (0, 1, 1, 0): "▞", (1, 1, 1, 0): "▛",
    (0, 0, 0, 1): "▗", (1, 0, 0, 1): "▚", (0, 1, 0, 1): "▐", (1, 1, 0, 1): "▜",
    (0, 0, 1, 1): "▄", (1, 0, 1, 1): "▙", (0, 1, 1, 1): "▟", (1, 1, 1, 1): "█",
}


# Braille dots: bit of each pixel of a 2x4 cell, (column, row) -> bit (U+2800 + bits).
_BRAILLE = {(0, 0): 0x01, (0, 1): 0x02, (0, 2): 0x04, (1, 0): 0x08, (1, 1): 0x10, (1, 2): 0x20,
            (0, 3): 0x40, (1, 3): 0x80}
# Pixels a character takes each way of drawing a frame: (columns, rows).
TEXT_CELLS = {"half": (1, 2), "quadrant": (2, 2), "braille": (2, 4)}


def text_size(style: str, size: tuple[int, int] = (WIDTH, HEIGHT)) -> tuple[int, int]:
    """Characters x rows a frame of `size` takes drawn in `style`, border included."""
    cell_w, cell_h = TEXT_CELLS[style]
    return -(-size[0] // cell_w) + 2, -(-size[1] // cell_h) + 2


# Characters x rows each way of drawing a 128x64 frame, border included.
TEXT_SIZES = {style: text_size(style) for style in TEXT_CELLS}


def frame_to_text(image: Image.Image, *, quadrant: bool = False, border: bool = True, braille: bool = False) -> str:
    """The frame as Unicode blocks: each character is 1x2 pixels (128 columns x 32 rows), or
    2x2 pixels with `quadrant` (64 x 32) for terminals narrower than 130 columns, or 2x4
    pixels with `braille` (64 x 16 braille dots, for an 80x24 terminal); a larger panel's
    frame takes as many more."""
    frame = image if image.mode == "1" else image.convert("1")
    width, height = frame.size
    lit = frame.load()

    def px(x: int, y: int) -> int:
        return 1 if x < width and y < height and lit[x, y] else 0

    rows = []
    for y in range(0, height, 4 if braille else 2):
        if braille:
            rows.append("".join(chr(0x2800 + sum(bit for (dx, dy), bit in _BRAILLE.items() if px(x + dx, y + dy)))
                                for x in range(0, width, 2)))
        elif quadrant:
            rows.append("".join(_QUADRANT[(px(x, y), px(x + 1, y), px(x, y + 1), px(x + 1, y + 1))]
                                for x in range(0, width, 2)))
        else:
            rows.append("".join(_HALF[(px(x, y), px(x, y + 1))] for x in range(width)))
    if not border:
        return "\n".join(rows)
    columns = len(rows[0])
    return "\n".join(["┌" + "─" * columns + "┐", *("│" + row + "│" for row in rows), "└" + "─" * columns + "┘"])


def text_style(columns: int, rows: int, size: tuple[int, int] = (WIDTH, HEIGHT)) -> str | None:
    """The largest way of drawing a frame of `size` that fits a terminal of this size ("half",
    "quadrant", "braille"), or None when not even braille fits."""
    for style in ("half", "quadrant", "braille"):
        width, height = text_size(style, size)
        if columns >= width and rows > height:  # and a line for the cursor below it
            return style
    return None


class TerminalDisplay:
    """Draws each new frame in the terminal with block characters.

    in_place: redraw over the previous frame (cursor up) instead of printing frames one
    after another; by default when the stream is a terminal. style: "half" (1x2 pixels a
    character, 130x34), "quadrant" (2x2, 66x34) or "braille" (2x4, 66x18, fits 80x24); by
    default the largest that fits the terminal; when none fits, a line says how big the
    terminal must be. quadrant=True is style "quadrant".
    A dimmed display (contrast below 128) is drawn faint; a powered-off one blank.
    """

    def __init__(self, stream: TextIO | None = None, *, in_place: bool | None = None,
                 quadrant: bool | None = None, style: str | None = None,
                 size: tuple[int, int] = (WIDTH, HEIGHT)) -> None:
        self.panel_size = size
        self.stream = stream if stream is not None else sys.stdout
        is_tty = hasattr(self.stream, "isatty") and self.stream.isatty()
        self.in_place = is_tty if in_place is None else in_place
        if style is None and quadrant is not None:
            style = "quadrant" if quadrant else "half"
        if style is None:
            size = shutil.get_terminal_size((132, 40))
            style = text_style(size.columns, size.lines, self.panel_size)
            if style is None:
                width, height = text_size("braille", self.panel_size)
                print(f"The terminal ({size.columns}x{size.lines}) is too small to draw the display: it needs "
                      f"{width}x{height + 1}; the screens are drawn anyway.", file=self.stream)
                style = "braille"
        if style not in TEXT_CELLS:
            raise ValueError(f"terminal display style {style!r}: allowed {', '.join(TEXT_CELLS)}")
        self.style = style
        self.quadrant = style == "quadrant"
        self.description = "terminal display"
        self.ok = True
        self.contrast = 255
        self.powered = True
        self.frames = 0
        self._image: Image.Image | None = None
        self._drawn: str | None = None
        self._lines = 0

    def show(self, image: Image.Image) -> None:
        self._image = _check_frame(image, self.panel_size).copy()
        self._draw()

    def set_contrast(self, level: int) -> None:
        self.contrast = max(0, min(255, int(level)))
        self._draw()

    def set_power(self, on: bool) -> None:
        self.powered = on
        self._draw()

    def _draw(self) -> None:
        if self._image is None:
            return
        image = self._image if self.powered else Image.new("1", self.panel_size)
        text = frame_to_text(image, quadrant=self.style == "quadrant", braille=self.style == "braille")
        if self.powered and self.contrast < 128:
            text = "\x1b[2m" + text + "\x1b[0m"
        if text == self._drawn:
            return
        if self.in_place and self._lines:
            self.stream.write(f"\x1b[{self._lines}F")
        self.stream.write(text + "\n")
        self.stream.flush()
        self._drawn = text
        self._lines = text.count("\n") + 1
        self.frames += 1

    def close(self) -> None:
        self.ok = False


class NullDisplay:
    """No display at all; frames are dropped."""

    description = "no display"
    ok = True

    def __init__(self, size: tuple[int, int] = (WIDTH, HEIGHT)) -> None:
        self.panel_size = size

    def show(self, image: Image.Image) -> None:
        _check_frame(image, self.panel_size)

    def set_contrast(self, level: int) -> None:
        pass

    def set_power(self, on: bool) -> None:
        pass

    def close(self) -> None:
        pass


DISPLAY_SPEC_HELP = ('display spec: "oled" (driver, size, bus, address, rotate from the config), '
                     '"DRIVER[:BUS[:ADDRESS]]" with a luma.oled driver (' + ", ".join(DRIVERS) + '), '
                     '"terminal", "dummy", "none"')


def parse_display_spec(spec: str, settings: DisplaySettings = DisplaySettings()) -> tuple[str, DisplaySettings]:
    """(kind, settings) of a display spec, without opening anything. Raises ValueError."""
    kind, *rest = spec.strip().lower().split(":")
    if kind in ("terminal", "dummy", "none") and not rest:
        return kind, settings
    if kind == "oled" and not rest:
        return "oled", settings
    if kind in DRIVERS and len(rest) <= 2:
        try:
            bus = int(rest[0]) if rest else settings.bus
            address = int(rest[1], 0) if len(rest) > 1 else settings.address
        except ValueError:
            raise ValueError(f"{spec!r}: bus and address must be numbers; {DISPLAY_SPEC_HELP}") from None
        size = settings.size if settings.size in DRIVERS[kind] else DRIVERS[kind][0]
        return "oled", DisplaySettings(kind, bus, address, settings.rotate, size, settings.interface)
    raise ValueError(f"{spec!r} is not a display; {DISPLAY_SPEC_HELP}")


def open_display(spec: str | None, settings: DisplaySettings | Mapping[str, Any] | None = None,
                 **options: Any) -> Display:
    """The display a spec names, ready to show. Raises ValueError for a bad spec or settings.

    spec None: the config section's `driver` (a luma.oled driver, "terminal", "dummy").
    The terminal, the dummy and no display take the config's `size` too.

    An OLED that does not answer yet is not an error here: it is reported, marked not ok
    and retried on each frame.
    """
    if spec is None:
        spec = str(settings.get("driver", "ssd1306")) if isinstance(settings, Mapping) else "oled"
    if settings is None:
        settings = DisplaySettings()
    elif not isinstance(settings, DisplaySettings):
        settings = DisplaySettings.from_mapping(settings)
    kind, settings = parse_display_spec(spec, settings)
    if kind == "oled":
        return LumaDisplay(settings, **options)
    if kind == "terminal":
        return TerminalDisplay(size=settings.dimensions, **options)
    if kind == "dummy":
        return DummyDisplay(rotate=settings.rotate, size=settings.dimensions)
    return NullDisplay(settings.dimensions)
