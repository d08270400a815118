"""The lab's own typefaces: every glyph is drawn where its grid puts it, round letters hold a
closed counter as print does, and pictures of printed words in them owe nothing to OpenCV's
own fonts (which OpenCV 4 and 5 draw differently)."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from lab.synth import clutter
from lab.synth.lettering import CAP, CHARACTERS, DESCENT, GLYPHS, Face, draw_text, random_face, text_width

HEIGHT = 60.0
FACES = [Face(), Face(width=0.7, slant=0.3, weight=0.2, serifs=True), Face(width=1.35, weight=0.06, spacing=0.5)]


def _drawn(char: str, face: Face) -> tuple[np.ndarray, tuple[int, int]]:
    canvas = np.zeros((300, 300), np.uint8)
    origin = (100, 200)
    draw_text(canvas, char, origin, HEIGHT, face, (255,))
    return canvas, origin


@pytest.mark.parametrize("face", FACES)
@pytest.mark.parametrize("char", CHARACTERS)
def test_every_glyph_draws_ink_inside_its_own_place_on_the_line(char: str, face: Face) -> None:
    canvas, (x0, y0) = _drawn(char, face)
    ys, xs = np.nonzero(canvas > 64)
    assert len(xs), f"{char!r} drew nothing"
    unit = HEIGHT / CAP
    margin = face.weight * HEIGHT + 1.2 * unit  # half a stroke, a serif's foot, a dot's round
    advance = GLYPHS[char][0] * face.width
    left = x0 - margin + min(0.0, -DESCENT * face.slant * unit)
    right = x0 + advance * unit + CAP * face.slant * unit + margin
    assert left <= xs.min() and xs.max() <= right, char
    assert y0 - (CAP + 1) * unit - margin <= ys.min() and ys.max() <= y0 + DESCENT * unit + margin, char


def _counters(canvas: np.ndarray) -> int:
    """Background regions walled in by ink: a letter's closed counters."""
    count, labels = cv2.connectedComponents((canvas < 128).astype(np.uint8), connectivity=4)
    touching = set(labels[0]) | set(labels[-1]) | set(labels[:, 0]) | set(labels[:, -1])
    return sum(1 for k in range(1, count) if k not in touching and np.count_nonzero(labels == k) > 20)


@pytest.mark.parametrize("char, holes", [
    ("o", 1), ("O", 1), ("0", 1), ("a", 1), ("b", 1), ("d", 1), ("e", 1), ("g", 1), ("p", 1), ("q", 1),
    ("6", 1), ("9", 1), ("8", 2), ("B", 2), ("D", 1), ("P", 1), ("R", 1), ("A", 1), ("4", 1),
    ("l", 0), ("I", 0), ("1", 0), ("T", 0), ("x", 0), ("s", 0), ("c", 0), ("7", 0), (".", 0)])
def test_round_letters_hold_closed_counters_as_print_does_and_open_ones_none(char: str, holes: int) -> None:
    """A big bold round counter is what a reader may take for a pip in a square: those letters
    must have one, or the pictures teach and test nothing about them."""
    canvas, _ = _drawn(char, Face(weight=0.12))
    assert _counters(canvas) == holes


@pytest.mark.parametrize("face", FACES)
def test_a_line_ends_where_its_width_says(face: Face) -> None:
    canvas = np.zeros((120, 900, 3), np.uint8)
    line = "Menu: 2x 4,50$ (ñé)!"
    end = draw_text(canvas, line, (10, 80), 30, face, (255, 255, 255))
    assert end == pytest.approx(10 + text_width(line, 30, face))
    assert text_width(line + "o", 30, face) > text_width(line, 30, face)


def test_an_unknown_character_is_drawn_as_a_question_mark() -> None:
    one, two = np.zeros((100, 100), np.uint8), np.zeros((100, 100), np.uint8)
    draw_text(one, "\u263a", (20, 70), 40, Face(), (255,))
    draw_text(two, "?", (20, 70), 40, Face(), (255,))
    assert np.array_equal(one, two) and one.any()


def test_random_faces_span_light_to_black_and_upright_to_italic() -> None:
    rng = np.random.default_rng(5)
    faces = [random_face(rng, bold=bool(i % 2)) for i in range(200)]
    assert {f.serifs for f in faces} == {True, False}
    assert min(f.slant for f in faces) == 0 and max(f.slant for f in faces) > 0.1
    assert max(f.weight for f in faces[::2]) < min(f.weight for f in faces[1::2]) + 0.03


@pytest.mark.parametrize("kind", clutter.LAB_TEXT_KINDS)
def test_printed_words_in_the_lab_s_faces_owe_nothing_to_opencv_s_fonts(kind: str, monkeypatch) -> None:
    def refused(*args, **kwargs):
        raise AssertionError("drawn with OpenCV's fonts")

    monkeypatch.setattr(cv2, "putText", refused)
    monkeypatch.setattr(cv2, "getTextSize", refused)
    picture = clutter.negative_image(np.random.default_rng([7, 1]), 320, 240, kind)
    assert picture.shape == (240, 320, 3) and picture.std() > 5
    assert np.array_equal(picture, clutter.negative_image(np.random.default_rng([7, 1]), 320, 240, kind))


def test_the_lab_s_faces_are_drawn_only_when_named() -> None:
    assert clutter.ALL_KINDS == clutter.NEGATIVE_KINDS + clutter.LAB_TEXT_KINDS
    assert not set(clutter.LAB_TEXT_KINDS) & set(clutter.NEGATIVE_KINDS)
    with pytest.raises(ValueError, match="lab-headline"):
        clutter.negative_image(np.random.default_rng(1), 64, 64, "menu")


@pytest.mark.parametrize("dot", [1.0, 1.3, 1.8])
def test_a_face_s_dots_are_as_wide_against_its_strokes_as_it_says(dot: float) -> None:
    """Print's full stops and colons are about a stroke wide; a pair of colons of big round dots
    is four pips in a square, so how big they are is the face's, not the drawing's."""
    face = Face(weight=0.1, dot=dot)

    def ink_width(char: str) -> int:
        canvas, _ = _drawn(char, face)
        columns = np.nonzero((canvas > 128).any(axis=0))[0]
        return int(columns.max() - columns.min() + 1)

    assert ink_width(".") / ink_width("l") == pytest.approx(dot, abs=0.3)
