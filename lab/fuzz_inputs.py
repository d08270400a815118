"""Hostile inputs for the dice reader, seeded: files for `cubilete read` and arrays for
`vision.reader.read_dice`. `cubilete bench fuzz` runs them and prints what they cost; the test
suite runs a few of each family.

Files: pictures of every format Pillow writes in every mode, then truncated, with bytes
flipped, with headers edited to claim extreme sizes (PNG, BMP, GIF, JPEG, TIFF, WebP),
decompression bombs (a PNG of 30000 x 30000 zeros in under a megabyte, text chunks that
inflate), random bytes behind a format's magic number, empty and one-byte files.
Arrays: every shape and pixel type an array can have (empty, one pixel, one row, grey,
two or four channels, 16-bit, float with NaN and infinity, bool, negative integers,
complex, non-contiguous views, very large).
"""

from __future__ import annotations

import io
import struct
import zlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np
from PIL import Image

FORMATS = ("PNG", "JPEG", "BMP", "GIF", "TIFF", "WEBP", "PPM")
MODES = ("RGB", "L", "RGBA", "P", "1", "LA", "I;16", "CMYK", "I", "F")


@dataclass(frozen=True)
class FuzzInput:
    name: str
    family: str
    data: bytes | None = None  # a file's content
    array: np.ndarray | None = None  # or an array for read_dice

    @property
    def is_file(self) -> bool:
        return self.data is not None


# -- pictures to start from -----------------------------------------------------------------------

def picture(rng: np.random.Generator, width: int, height: int) -> np.ndarray:
    """RGB pixels: noise, a flat colour, a gradient or stripes."""
    kind = rng.integers(4)
    if kind == 0:
        return rng.integers(0, 256, (height, width, 3), dtype=np.uint8)
    if kind == 1:
        return np.full((height, width, 3), rng.integers(0, 256, 3), np.uint8)
    if kind == 2:
        ramp = np.linspace(0, 255, max(width, 1), dtype=np.float32)
        return np.repeat(np.repeat(ramp[None, :, None], height, 0), 3, 2).astype(np.uint8)
    stripes = ((np.arange(width) // max(1, rng.integers(1, 16))) % 2 * 255).astype(np.uint8)
    return np.repeat(np.repeat(stripes[None, :, None], height, 0), 3, 2)


def encode(pixels: np.ndarray, fmt: str, mode: str, **options: Any) -> bytes | None:
    """Pixels as a file of this format and mode, or None when Pillow cannot write that pair."""
    image = Image.fromarray(pixels, "RGB")
    try:
        if mode in ("I;16", "I", "F"):
            grey = np.asarray(image.convert("L"), np.float32)
            dtype = {"I;16": np.uint16, "I": np.int32, "F": np.float32}[mode]
            image = Image.fromarray((grey * (257 if mode == "I;16" else 1)).astype(dtype))
        elif mode != "RGB":
            image = image.convert(mode)
        out = io.BytesIO()
        image.save(out, fmt, **options)
    except (OSError, ValueError, KeyError, TypeError):
        return None
    return out.getvalue()


def valid_file(rng: np.random.Generator, largest: int = 700) -> tuple[str, bytes]:
    while True:
        fmt = FORMATS[rng.integers(len(FORMATS))]
        mode = MODES[rng.integers(len(MODES))]
        width, height = (int(v) for v in rng.integers(1, largest, 2))
        options: dict[str, Any] = {}
        if fmt == "JPEG" and rng.random() < 0.3:
            options["progressive"] = True
        if fmt == "PNG" and rng.random() < 0.3:
            options["optimize"] = True
        data = encode(picture(rng, width, height), fmt, mode, **options)
        if data is not None:
            return f"{fmt.lower()}-{mode.replace(';', '')}-{width}x{height}", data


# -- header edits: a small file claiming a huge picture --------------------------------------------

def _png_chunk(kind: bytes, body: bytes) -> bytes:
    return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body) & 0xFFFFFFFF)


def png_claiming(width: int, height: int, depth: int = 8, colour: int = 2, body: bytes = b"") -> bytes:
    """A PNG whose header says width x height (CRCs right, so only the size is wrong)."""
    header = struct.pack(">IIBBBBB", width, height, depth, colour, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + _png_chunk(b"IHDR", header) + _png_chunk(b"IDAT", body or zlib.compress(b"\0" * 64))
            + _png_chunk(b"IEND", b""))


def png_bomb(side: int) -> bytes:
    """A real grey PNG of side x side zeros: under a megabyte for 30000 x 30000."""
    compressor = zlib.compressobj(9)
    row = b"\0" * (side + 1)
    parts = [compressor.compress(row) for _ in range(side)]
    parts.append(compressor.flush())
    return png_claiming(side, side, 8, 0, b"".join(parts))


def png_text_bomb() -> bytes:
    """A small valid PNG with a compressed text chunk that inflates to 64 MB."""
    compressor = zlib.compressobj(9)
    text = compressor.compress(b"a" * (64 << 20)) + compressor.flush()
    ok = encode(np.zeros((8, 8, 3), np.uint8), "PNG", "RGB") or b""
    return ok[:-12] + _png_chunk(b"zTXt", b"comment\0\0" + text) + ok[-12:]


def bmp_claiming(width: int, height: int) -> bytes:
    pixels = b"\x80" * 64
    info = struct.pack("<IiiHHIIiiII", 40, width, height, 1, 24, 0, len(pixels), 2835, 2835, 0, 0)
    return b"BM" + struct.pack("<IHHI", 14 + len(info) + len(pixels), 0, 0, 14 + len(info)) + info + pixels


def gif_claiming(width: int, height: int) -> bytes:
    return (b"GIF89a" + struct.pack("<HHBBB", width, height, 0x80, 0, 0) + b"\0\0\0\xff\xff\xff"
            + b"," + struct.pack("<HHHHB", 0, 0, width, height, 0) + b"\x02\x02\x44\x01\0;")


def jpeg_claiming(rng: np.random.Generator, width: int, height: int) -> bytes:
    data = bytearray(encode(picture(rng, 16, 16), "JPEG", "RGB") or b"")
    for marker in (b"\xff\xc0", b"\xff\xc2"):
        at = data.find(marker)
        if at >= 0:
            data[at + 5:at + 9] = struct.pack(">HH", height, width)
    return bytes(data)


def tiff_claiming(rng: np.random.Generator, width: int, height: int) -> bytes:
    data = bytearray(encode(picture(rng, 4, 4), "TIFF", "RGB") or b"")
    count = struct.unpack_from("<H", data, struct.unpack_from("<I", data, 4)[0])[0]
    start = struct.unpack_from("<I", data, 4)[0] + 2
    for k in range(count):
        tag, kind = struct.unpack_from("<HH", data, start + 12 * k)
        if tag in (256, 257):  # ImageWidth, ImageLength
            value = width if tag == 256 else height
            if kind == 3:
                struct.pack_into("<H", data, start + 12 * k + 8, min(value, 65535))
            else:
                struct.pack_into("<I", data, start + 12 * k + 8, value)
    return bytes(data)


def webp_claiming(rng: np.random.Generator, width: int, height: int) -> bytes:
    data = bytearray(encode(picture(rng, 16, 16), "WEBP", "RGB", lossless=True) or b"")
    at = data.find(b"VP8L")
    if at >= 0:  # 14-bit width-1 and height-1 after the signature byte
        bits = ((width - 1) & 0x3FFF) | (((height - 1) & 0x3FFF) << 14)
        current = struct.unpack_from("<I", data, at + 9)[0]
        struct.pack_into("<I", data, at + 9, (current & ~0x0FFFFFFF) | bits)
    return bytes(data)


EXTREME_SIDES = (0, 1, 47, 65535, 65536, 1048577, 2**31 - 1, 2**32 - 1)


def extreme_header(rng: np.random.Generator) -> tuple[str, bytes]:
    width = int(EXTREME_SIDES[rng.integers(len(EXTREME_SIDES))])
    height = int(EXTREME_SIDES[rng.integers(len(EXTREME_SIDES))])
    kind = int(rng.integers(6))
    if kind == 0:
        return f"png-claims-{width}x{height}", png_claiming(width, height)
    if kind == 1:
        signed = min(width, 2**31 - 1), -min(height, 2**31 - 1) if rng.random() < 0.3 else min(height, 2**31 - 1)
        return f"bmp-claims-{signed[0]}x{signed[1]}", bmp_claiming(*signed)
    if kind == 2:
        return f"gif-claims-{width & 0xFFFF}x{height & 0xFFFF}", gif_claiming(width & 0xFFFF, height & 0xFFFF)
    if kind == 3:
        return f"jpeg-claims-{width & 0xFFFF}x{height & 0xFFFF}", jpeg_claiming(rng, width & 0xFFFF, height & 0xFFFF)
    if kind == 4:
        return f"tiff-claims-{width}x{height}", tiff_claiming(rng, width, height)
    return f"webp-claims-{width}x{height}", webp_claiming(rng, max(1, width), max(1, height))


# -- damage -----------------------------------------------------------------------------------------

def truncated(rng: np.random.Generator, data: bytes) -> bytes:
    return data[:int(rng.integers(0, max(1, len(data))))]


def flipped(rng: np.random.Generator, data: bytes) -> bytes:
    damaged = bytearray(data)
    for _ in range(int(rng.integers(1, 50))):
        at = int(rng.integers(len(damaged)))
        damaged[at] = int(rng.integers(256))
    return bytes(damaged)


MAGIC = (b"", b"\x89PNG\r\n\x1a\n", b"\xff\xd8\xff", b"BM", b"GIF89a", b"II*\0", b"MM\0*", b"RIFF\0\0\0\0WEBP",
         b"P6\n", b"\0\0\1\0")


def noise_file(rng: np.random.Generator) -> bytes:
    return MAGIC[rng.integers(len(MAGIC))] + rng.integers(0, 256, int(rng.integers(0, 100_000)), np.uint8).tobytes()


# -- arrays -----------------------------------------------------------------------------------------

def odd_array(rng: np.random.Generator) -> tuple[str, np.ndarray]:
    kind = int(rng.integers(14))
    h, w = (int(v) for v in rng.integers(1, 700, 2))
    if kind == 0:
        shape = [(0, 0, 3), (0, 10, 3), (1, 1, 3), (1, 1), (47, 48, 3), (48, 48, 3), (1, 4000, 3),
                 (4000, 1, 3), (5,), (2, 2, 2, 2), (10, 10, 0)][rng.integers(11)]
        return f"shape-{'x'.join(map(str, shape))}", np.zeros(shape, np.uint8)
    if kind == 1:
        return f"grey-{w}x{h}", rng.integers(0, 256, (h, w), dtype=np.uint8)
    if kind == 2:
        c = int((1, 2, 4, 5)[rng.integers(4)])
        return f"channels{c}-{w}x{h}", rng.integers(0, 256, (h, w, c), dtype=np.uint8)
    if kind == 3:
        return f"uint16-{w}x{h}", rng.integers(0, 65536, (h, w, 3), dtype=np.uint16)
    if kind == 4:
        values = rng.standard_normal((h, w, 3)).astype(np.float32) * 300
        values.flat[rng.integers(values.size, size=20)] = np.nan
        values.flat[rng.integers(values.size, size=20)] = np.inf
        values.flat[rng.integers(values.size, size=20)] = -np.inf
        return f"float32-nan-inf-{w}x{h}", values
    if kind == 5:
        return f"float64-unit-{w}x{h}", rng.random((h, w, 3))
    if kind == 6:
        return f"bool-{w}x{h}", rng.random((h, w, 3)) < 0.5
    if kind == 7:
        return f"int32-negative-{w}x{h}", rng.integers(-70000, 70000, (h, w, 3), dtype=np.int32)
    if kind == 8:
        return f"complex-{w}x{h}", np.zeros((h, w, 3), np.complex64)
    if kind == 9:
        base = rng.integers(0, 256, (h * 2, w * 3, 3), dtype=np.uint8)
        return f"strided-view-{w}x{h}", base[::2, ::3]
    if kind == 10:
        return f"fortran-{w}x{h}", np.asfortranarray(rng.integers(0, 256, (h, w, 3), dtype=np.uint8))
    if kind == 11:
        return f"constant-{w}x{h}", np.full((h, w, 3), int(rng.integers(256)), np.uint8)
    if kind == 12:
        side = int((1500, 3000, 4000)[rng.integers(3)])
        return f"large-{side}x{side}", rng.integers(0, 256, (side, side, 3), dtype=np.uint8)
    return f"int8-{w}x{h}", rng.integers(-128, 128, (h, w, 3), dtype=np.int8)


# -- the whole set ----------------------------------------------------------------------------------

FAMILIES = ("valid", "truncated", "flipped", "noise", "extreme-header", "bomb", "tiny", "array")


def fuzz_inputs(count: int, seed: int = 1, bombs: bool = True) -> Iterator[FuzzInput]:
    """`count` inputs, the families in turn; the same for the same seed. Without `bombs`
    (the test suite) the bomb family is a small one: making the big ones takes seconds."""
    rng = np.random.default_rng(seed)
    makers: list[tuple[str, Callable[[], bytes]]] = [
        ("png-bomb-30000", lambda: png_bomb(30000)), ("png-bomb-20000", lambda: png_bomb(20000)),
        ("png-text-bomb", png_text_bomb), ("png-bomb-8000", lambda: png_bomb(8000))]
    if not bombs:
        makers = [("png-claims-30000", lambda: png_claiming(30000, 30000, 8, 0))]
    made: dict[str, bytes] = {}
    for index in range(count):
        family = FAMILIES[index % len(FAMILIES)]
        if family == "valid":
            name, data = valid_file(rng)
            yield FuzzInput(name, family, data)
        elif family == "truncated":
            name, data = valid_file(rng)
            yield FuzzInput(f"{name}-truncated", family, truncated(rng, data))
        elif family == "flipped":
            name, data = valid_file(rng)
            yield FuzzInput(f"{name}-flipped", family, flipped(rng, data))
        elif family == "noise":
            yield FuzzInput("noise", family, noise_file(rng))
        elif family == "extreme-header":
            name, data = extreme_header(rng)
            if rng.random() < 0.3:
                data = flipped(rng, data)
                name += "-flipped"
            yield FuzzInput(name, family, data)
        elif family == "bomb":
            name, make = makers[(index // len(FAMILIES)) % len(makers)]
            if name not in made:
                made[name] = make()
            yield FuzzInput(name, family, made[name])
        elif family == "tiny":
            options = [b"", b"\0", b"\xff", b"\x89PNG", encode(np.zeros((1, 1, 3), np.uint8), "PNG", "RGB") or b"",
                       encode(np.zeros((1, 1, 3), np.uint8), "JPEG", "RGB") or b"",
                       encode(np.zeros((2, 1, 3), np.uint8), "GIF", "P") or b""]
            pick = int(rng.integers(len(options)))
            yield FuzzInput(f"tiny-{pick}", family, options[pick])
        else:
            name, array = odd_array(rng)
            yield FuzzInput(name, family, array=array)
