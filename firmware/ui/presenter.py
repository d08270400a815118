"""Putting screens on the display (drawn for its panel's size), with burn-in protection.

OLED pixels that stay lit for months fade (the menu title would be burnt into the panel of
a bar device left on all day). `ScreenPresenter` renders each screen, shifts the whole image
by a pixel now and then (every layout leaves the last column and row free for it), dims the
panel when nobody has pressed a button or thrown for a while, optionally switches it off
after a long idle time, and sends a frame over I2C only when it changed.

The main loop calls `show(screen)` whenever the state changes, `activity()` on every button
press or throw, and `tick()` regularly (it is cheap when nothing is due).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any, Callable, Mapping

from PIL import Image, ImageChops

from firmware.ui.renderer import render
from firmware.ui.screens import Screen

# The shift cycles through these offsets (x, y); renderers keep the last column and row blank.
SHIFT_ORBIT: tuple[tuple[int, int], ...] = ((0, 0), (1, 0), (1, 1), (0, 1))


@dataclass(frozen=True)
class BurnInSettings:
    """The config's [display] keys: contrast, idle_dim_s, idle_contrast, pixel_shift, plus
    shift_every_s and idle_off_s (0 = never switch the panel off)."""

    contrast: int = 200
    idle_dim_s: float = 300.0
    idle_contrast: int = 16
    pixel_shift: bool = True
    shift_every_s: float = 60.0
    idle_off_s: float = 0.0

    @classmethod
    def from_mapping(cls, values: Mapping[str, Any]) -> "BurnInSettings":
        return cls(**{k: v for k, v in values.items() if k in cls.__dataclass_fields__})


class ScreenPresenter:
    """Renders screens onto a `hardware.display.Display` and protects the panel."""

    def __init__(self, display: Any, lang: str = "es", settings: BurnInSettings = BurnInSettings(),
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.display = display
        self.size: tuple[int, int] = tuple(getattr(display, "panel_size", (128, 64)))  # the panel's pixels
        self.lang = lang
        self.settings = settings
        self.clock = clock
        self.screen: Screen | None = None
        self.frames_sent = 0
        now = clock()
        self._last_activity = now
        self._shift_index = 0
        self._shift_at = now + settings.shift_every_s
        self._image: Image.Image | None = None
        self._sent: Image.Image | None = None
        self._contrast: int | None = None
        self._powered: bool | None = None
        self._apply_panel(now)

    @property
    def offset(self) -> tuple[int, int]:
        return SHIFT_ORBIT[self._shift_index] if self.settings.pixel_shift else (0, 0)

    @property
    def dimmed(self) -> bool:
        return self._contrast == self.settings.idle_contrast and self._contrast != self.settings.contrast

    @property
    def powered(self) -> bool:
        return bool(self._powered)

    def show(self, screen: Screen) -> Image.Image:
        """Render the screen (unless it is the one shown) and send it if the frame changed.
        Returns the unshifted frame."""
        if screen != self.screen or self._image is None:
            self.screen = screen
            self._image = render(screen, self.lang, self.size)
        self._send()
        return self._image

    def set_language(self, lang: str) -> None:
        if lang != self.lang:
            self.lang = lang
            if self.screen is not None:
                self._image = None
                self.show(self.screen)

    def activity(self) -> None:
        """Someone is there (a button, a throw): full contrast, panel on."""
        self._last_activity = self.clock()
        self._apply_panel(self._last_activity)

    def tick(self) -> None:
        now = self.clock()
        if self.settings.pixel_shift and now >= self._shift_at:
            self._shift_index = (self._shift_index + 1) % len(SHIFT_ORBIT)
            self._shift_at = now + self.settings.shift_every_s
            self._send()
        self._apply_panel(now)
        if not getattr(self.display, "ok", True) and self._sent is not None:
            self.display.show(self._sent)  # the display retries its hardware with its own back-off

    def _send(self) -> None:
        if self._image is None:
            return
        dx, dy = self.offset
        frame = ImageChops.offset(self._image, dx, dy) if (dx or dy) else self._image
        if self._sent is not None and frame.tobytes() == self._sent.tobytes() and getattr(self.display, "ok", True):
            return
        self.display.show(frame)
        self._sent = frame
        self.frames_sent += 1

    def _apply_panel(self, now: float) -> None:
        idle = now - self._last_activity
        s = self.settings
        powered = not (s.idle_off_s and idle >= s.idle_off_s)
        contrast = s.idle_contrast if (s.idle_dim_s and idle >= s.idle_dim_s) else s.contrast
        if powered != self._powered:
            self.display.set_power(powered)
            self._powered = powered
        if contrast != self._contrast:
            self.display.set_contrast(contrast)
            self._contrast = contrast
