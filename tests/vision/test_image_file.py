"""Opening image files safely (vision.image_file) and the reader on hostile inputs: a small
seeded subset of `cubilete bench fuzz` (which runs 2000 and measures time and memory)."""

from __future__ import annotations

import io
import os
from pathlib import Path

import numpy as np
import pytest
from PIL import Image, ImageFile

from lab.fuzz_inputs import bmp_claiming, fuzz_inputs, gif_claiming, png_bomb, png_claiming, png_text_bomb
from vision.image_file import MAX_PIXELS, Unreadable, load_image
from vision.reader.reader import read_dice
from vision.reading import Reading


def write(tmp_path: Path, data: bytes, name: str = "input") -> Path:
    path = tmp_path / name
    path.write_bytes(data)
    return path


def test_every_fuzz_family_gives_an_array_or_a_reason_never_an_exception(tmp_path: Path) -> None:
    seen = set()
    for item in fuzz_inputs(96, seed=11, bombs=False):
        seen.add(item.family)
        if item.is_file:
            result = load_image(write(tmp_path, item.data or b""))
            if isinstance(result, Unreadable):
                assert result.reason and "\n" not in result.reason, item.name
                continue
            assert result.ndim == 3 and result.shape[2] == 3 and result.dtype == np.uint8, item.name
            assert result.flags.c_contiguous
            array = result
        else:
            array = item.array
        assert isinstance(read_dice(array), Reading), item.name
    assert seen == {"valid", "truncated", "flipped", "noise", "extreme-header", "bomb", "tiny", "array"}


@pytest.mark.parametrize("data", [
    png_claiming(30000, 30000), bmp_claiming(1048577, 1000), bmp_claiming(20000, -20000), gif_claiming(65535, 65535),
    png_bomb(6000),
], ids=["png-30000", "bmp-width-1048577", "bmp-top-down-20000", "gif-65535", "png-bomb-36-megapixels"])
def test_a_picture_claiming_too_many_pixels_is_refused_before_decoding(
        data: bytes, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def no_decoding(self: ImageFile.ImageFile) -> None:
        raise AssertionError("decoded a picture that should have been refused from its header")

    monkeypatch.setattr(ImageFile.ImageFile, "load", no_decoding)
    result = load_image(write(tmp_path, data))
    assert isinstance(result, Unreadable)
    assert "refused before decoding" in result.reason or "too big" in result.reason, result.reason


def test_the_pixel_limit_is_the_header_s_width_times_height(tmp_path: Path) -> None:
    side = int(MAX_PIXELS ** 0.5) + 1
    assert isinstance(load_image(write(tmp_path, png_claiming(side, side))), Unreadable)
    out = io.BytesIO()
    Image.new("RGB", (8, 8), (1, 2, 3)).save(out, "PNG")
    picture = load_image(write(tmp_path, out.getvalue()), max_pixels=64)
    assert isinstance(picture, np.ndarray) and picture.shape == (8, 8, 3)
    assert isinstance(load_image(write(tmp_path, out.getvalue()), max_pixels=63), Unreadable)


def test_what_a_header_allows_but_the_file_lacks_is_a_reason(tmp_path: Path) -> None:
    # 1048577 x 10 is allowed by the limit; the 64 bytes of pixels behind it are not enough
    result = load_image(write(tmp_path, bmp_claiming(1048577, 10)))
    assert isinstance(result, Unreadable) and "BMP" in result.reason
    # a text chunk inflating to 64 MB: Pillow stops it at 1 MB
    assert isinstance(load_image(write(tmp_path, png_text_bomb())), (Unreadable, np.ndarray))


@pytest.mark.parametrize("mode", ["RGB", "RGBA", "P", "L", "LA", "CMYK", "I;16", "1"])
def test_every_mode_becomes_8_bit_bgr(mode: str, tmp_path: Path) -> None:
    red = Image.new("RGB", (60, 50), (255, 0, 0))
    image = red.convert(mode) if mode != "I;16" else Image.fromarray(np.full((50, 60), 65535, np.uint16))
    out = io.BytesIO()
    image.save(out, "TIFF")
    result = load_image(write(tmp_path, out.getvalue()))
    assert isinstance(result, np.ndarray) and result.shape == (50, 60, 3) and result.dtype == np.uint8
    if mode in ("RGB", "RGBA", "P", "CMYK"):
        assert tuple(result[10, 10]) == (0, 0, 255)  # red, in BGR


def test_the_exif_orientation_is_applied_as_opencv_does(tmp_path: Path) -> None:
    image = Image.new("RGB", (80, 40), (0, 0, 0))
    exif = image.getexif()
    exif[0x0112] = 6  # rotate 90 degrees clockwise to view
    out = io.BytesIO()
    image.save(out, "JPEG", exif=exif.tobytes())
    result = load_image(write(tmp_path, out.getvalue()))
    assert isinstance(result, np.ndarray) and result.shape[:2] == (80, 40)


def test_things_that_are_not_picture_files(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "fifo")
    (tmp_path / "folder").mkdir()
    os.symlink("/dev/zero", tmp_path / "zero")
    os.symlink(tmp_path / "loop", tmp_path / "loop")
    (tmp_path / "empty").write_bytes(b"")
    reasons = {name: load_image(tmp_path / name) for name in ("fifo", "folder", "zero", "loop", "empty", "missing")}
    assert all(isinstance(r, Unreadable) for r in reasons.values()), reasons
    assert reasons["missing"].reason == "no such file"
    assert "folder" in reasons["folder"].reason and "FIFO" in reasons["fifo"].reason


def test_a_truncated_picture_says_so(tmp_path: Path) -> None:
    out = io.BytesIO()
    Image.new("RGB", (300, 200), (10, 200, 30)).save(out, "PNG")
    result = load_image(write(tmp_path, out.getvalue()[:200]))
    assert isinstance(result, Unreadable) and "truncated or damaged PNG" in result.reason
