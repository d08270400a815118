"""Image files opened safely: a photo named on the command line may be anything.

`load_image(path)` gives the picture as a BGR uint8 array (the reader's input) or an
`Unreadable` with one line saying why not. Nothing a file holds can raise out of it, hang
it or make it allocate without bound:

- only a regular file is opened (a FIFO or a device is refused before any read);
- Pillow reads the header alone first, and a picture whose header claims more than
  `max_pixels` is refused before a byte of it is decoded (a 1 kB PNG can claim 30000 x
  30000, a BMP a width of a million);
- any error of a decoder (truncated, damaged, unsupported) is a reason, not an exception;
- every mode Pillow knows (palette, grey, 16-bit, float, CMYK, with alpha) becomes 8-bit
  BGR; the EXIF orientation is applied as a camera meant it (as OpenCV's imread does); an
  animation or a multi-page file gives its first picture.
"""

from __future__ import annotations

import os
import stat
import warnings
from dataclasses import dataclass
from typing import Any, BinaryIO

import cv2
import numpy as np
from PIL import Image as PILImage, ImageOps, UnidentifiedImageError

# 24 megapixels: a 6000 x 4000 phone photo. Decoded it is 72 MB of pixels, and the reader
# shrinks it before reading; more than that only costs memory the Pi does not have.
MAX_PIXELS = 24_000_000
MIN_SIDE = 1
BAND_BYTES = 4 * 1024 * 1024


@dataclass(frozen=True)
class Unreadable:
    """Why a file gives no picture (one line for the user)."""

    reason: str


def load_image(path: str | os.PathLike[str], max_pixels: int = MAX_PIXELS) -> np.ndarray | Unreadable:
    """The picture in `path` as an H x W x 3 uint8 BGR array, or why it cannot be had."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC)
    except FileNotFoundError:
        return Unreadable("no such file")
    except IsADirectoryError:
        return Unreadable("not a file (a folder)")
    except OSError as error:
        return Unreadable(f"cannot open the file: {error.strerror or error}")
    try:
        info = os.fstat(fd)
        if stat.S_ISDIR(info.st_mode):
            return Unreadable("not a file (a folder)")
        if not stat.S_ISREG(info.st_mode):
            return Unreadable("not a regular file (a FIFO, device or socket)")
        if info.st_size == 0:
            return Unreadable("empty file")
        with os.fdopen(os.dup(fd), "rb") as stream, warnings.catch_warnings():
            warnings.simplefilter("ignore")  # Pillow's DecompressionBombWarning: the limit is checked here
            return _decode(stream, max_pixels)
    except MemoryError:
        return Unreadable("not enough memory to decode the picture")
    except Exception as error:  # a decoder surprised by the file: a reason, never a crash
        return Unreadable(f"not a picture that can be decoded ({_short(error)})")
    finally:
        os.close(fd)


def _decode(stream: BinaryIO, max_pixels: int) -> np.ndarray | Unreadable:
    try:
        picture = PILImage.open(stream)  # reads the header only
    except UnidentifiedImageError:
        return Unreadable("not an image (unknown format)")
    except PILImage.DecompressionBombError as error:  # Pillow's own check of the header, far above ours
        return Unreadable(f"more pixels than can be read; refused before decoding ({_short(error)})")
    width, height = picture.size
    if width < MIN_SIDE or height < MIN_SIDE:
        return Unreadable(f"the header says {width} x {height} pixels")
    if width * height > max_pixels:
        return Unreadable(f"{width} x {height} is {width * height / 1e6:.0f} megapixels, more than the"
                          f" {max_pixels / 1e6:.0f} that can be read; refused before decoding")
    try:
        picture.load()
    except PILImage.DecompressionBombError as error:
        return Unreadable(f"too big to decode ({_short(error)})")
    except (OSError, SyntaxError, ValueError, EOFError) as error:
        return Unreadable(f"truncated or damaged {picture.format or 'image'} ({_short(error)})")
    try:
        ImageOps.exif_transpose(picture, in_place=True)
    except Exception:  # a damaged EXIF block: the picture as stored
        pass
    return _as_bgr(picture)


def _as_bgr(picture: Any) -> np.ndarray:
    """8-bit BGR of any Pillow mode, with as few copies as it can."""
    mode = picture.mode
    if mode in ("I;16", "I;16L", "I;16B", "I;16N", "I", "F"):
        values = np.asarray(picture)
        if mode == "F":
            values = np.nan_to_num(values.astype(np.float32), nan=0.0, posinf=255.0, neginf=0.0)
            grey = np.clip(values * (255.0 if float(values.max(initial=0.0)) <= 1.0 else 1.0), 0, 255)
        elif mode == "I":
            grey = np.clip(values, 0, 255)
        else:
            grey = values.astype(np.uint16) >> 8
        return cv2.cvtColor(grey.astype(np.uint8), cv2.COLOR_GRAY2BGR)
    if mode != "RGB":
        picture = picture.convert("RGB")
    # Band by band: numpy's view of a whole Pillow image goes through a bytes copy of it, and
    # a 24-megapixel photo would be in memory three times over.
    width, height = picture.size
    pixels = np.empty((height, width, 3), np.uint8)
    band = max(1, BAND_BYTES // (3 * width))
    for top in range(0, height, band):
        bottom = min(height, top + band)
        rows = np.frombuffer(picture.crop((0, top, width, bottom)).tobytes(), np.uint8)
        pixels[top:bottom] = rows.reshape(bottom - top, width, 3)[:, :, ::-1]
    return pixels


def _short(error: BaseException) -> str:
    text = f"{type(error).__name__}: {error}" if str(error) else type(error).__name__
    return text if len(text) <= 100 else text[:97] + "..."

