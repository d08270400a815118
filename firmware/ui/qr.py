"""The QR code of a short text (the scoreboard's address) as modules for the OLED.

segno (pure Python, no dependencies) makes the code; the screen draws it two pixels a module,
dark modules unlit on a lit square, so the 64-pixel-high panel holds a code of at most 29
modules with a quiet zone of one module or more.
"""

from __future__ import annotations

from functools import lru_cache

MODULE_PX = 2
MAX_SIDE_PX = 62  # the drawable height (63) less a row of margin


@lru_cache(maxsize=4)  # the screen is drawn many times a second; the code changes never
def qr_modules(text: str) -> tuple[tuple[bool, ...], ...] | None:
    """The code's modules (True = dark) with its quiet zone, or None when it cannot be drawn
    big enough to scan on the panel."""
    # imported here, not at the top: segno pulls in urllib, http.client and ssl (8 MB
    # resident) for its writers, and the code is drawn only when the settings menu shows it
    import segno

    code = segno.make(text, error="l", micro=False, boost_error=True)
    side = code.symbol_size(scale=1, border=0)[0]
    border = min(2, (MAX_SIDE_PX // MODULE_PX - side) // 2)
    if border < 1:
        return None
    rows = tuple(tuple(bool(m) for m in row) for row in code.matrix)
    blank = (False,) * (side + 2 * border)
    padded = tuple((False,) * border + row + (False,) * border for row in rows)
    return (blank,) * border + padded + (blank,) * border
