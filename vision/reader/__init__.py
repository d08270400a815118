"""The dice reader: find every die in a photo, read its top face, say how sure it is.

`read_dice(image, expected=None) -> Reading` is the entry point (see `reader`).
"""

from __future__ import annotations

from typing import Any


def read_dice(image: Any, expected: int | None = None):  # -> vision.reading.Reading
    from vision.reader.reader import read_dice as _read_dice

    return _read_dice(image, expected)
