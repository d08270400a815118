"""The playable demo's terminal: the 128x64 display in braille (66x18 characters with its
border), the dice on the tray, what the last key did and the keys, in 80x24.

The whole picture is redrawn in place (the terminal's alternate screen, left again on
close) whenever the device's frame or the status lines change. When the terminal is smaller
than 80x24 the picture is replaced by a line that says so and how big it must be; it comes
back as soon as the terminal is big enough. It is a display (show / set_contrast /
set_power / close) for the service.
"""

from __future__ import annotations

import shutil
from typing import Callable, Sequence, TextIO

from PIL import Image

from hardware.display import HEIGHT, WIDTH, frame_to_text

NEEDED = (80, 24)  # columns, rows
ENTER, LEAVE = "\x1b[?1049h\x1b[H\x1b[2J", "\x1b[?1049l"


def terminal_size() -> tuple[int, int]:
    size = shutil.get_terminal_size(NEEDED)
    return size.columns, size.lines


class DemoScreen:
    """The display and status lines in a terminal (or any stream: tests read what it drew).

    status: the lines under the display (at most NEEDED[1] - 18 - 1 are shown, each cut to
    80 characters). size: the terminal's (columns, rows). in_place: redraw over the last
    picture (on a terminal); otherwise each picture is written after the last.
    """

    def __init__(self, stream: TextIO, status: Callable[[], Sequence[str]], *,
                 size: Callable[[], tuple[int, int]] = terminal_size, in_place: bool | None = None) -> None:
        self.stream = stream
        self.status = status
        self.size = size
        self.in_place = (hasattr(stream, "isatty") and stream.isatty()) if in_place is None else in_place
        self.description = "the demo's terminal"
        self.ok = True
        self.contrast = 255
        self.powered = True
        self.pictures = 0
        self.too_small = False
        self._image: Image.Image | None = None
        self._drawn: str | None = None
        if self.in_place:
            self.stream.write(ENTER)

    def show(self, image: Image.Image) -> None:
        self._image = image.convert("1") if image.mode != "1" else image.copy()
        self.redraw()

    def set_contrast(self, level: int) -> None:
        self.contrast = max(0, min(255, int(level)))
        self.redraw()

    def set_power(self, on: bool) -> None:
        self.powered = on
        self.redraw()

    def picture(self) -> str:
        """What the terminal shows now: the display and the status lines, or why it cannot."""
        columns, rows = self.size()
        self.too_small = columns < NEEDED[0] or rows < NEEDED[1]
        if self.too_small:
            return (f"This terminal is {columns}x{rows}; the demo needs {NEEDED[0]}x{NEEDED[1]}. "
                    f"Make it bigger (q quits).")[:max(columns, 20) * 3]
        image = self._image if self._image is not None and self.powered else Image.new("1", (WIDTH, HEIGHT))
        frame = frame_to_text(image, braille=True)
        if self.powered and self.contrast < 128:
            frame = "\x1b[2m" + frame + "\x1b[0m"
        room = NEEDED[1] - frame.count("\n") - 2
        lines = [line[:NEEDED[0] - 1] for line in self.status()][:room]
        return "\n".join([frame, *lines])

    def redraw(self) -> None:
        if self._image is None:  # nothing to show before the device's first frame
            return
        text = self.picture()
        if text == self._drawn:
            return
        if self.in_place:
            body = "\n".join(line + "\x1b[K" for line in text.split("\n"))
            self.stream.write("\x1b[H" + body + "\x1b[J")
        else:
            self.stream.write(text + "\n")
        self.stream.flush()
        self._drawn = text
        self.pictures += 1

    def close(self) -> None:
        if self.in_place and self.ok:
            self.stream.write(LEAVE)
            self.stream.flush()
        self.ok = False
