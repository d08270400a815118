"""Printed words in typefaces of the lab's own, drawn the same by every OpenCV.

OpenCV's `putText` faces are not one set of letters: OpenCV 4 draws its Hershey strokes, OpenCV 5
a sans-serif of its own for the same names, so no-dice pictures of text drawn with it depend on
the OpenCV that drew them, and a network trained on them has seen one face. The faces here are
strokes on a grid (`GLYPHS`), drawn with `cv2.polylines` and `cv2.circle`, and varied by a
`Face`: width, slant, weight, spacing, serifs and dot size. They are for no-dice pictures only;
what they must look like is print to a die reader (round counters, dots, rows of figures), not
any one real typeface.

A glyph's grid: x from 0 to its advance, y up from the baseline; capitals and figures are 6
high, small letters 4 (ascenders 6, descenders to -2).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np

CAP = 6.0
DESCENT = 2.0
_SHIFT = 4  # sub-pixel bits for cv2.polylines


def _arc(cx: float, cy: float, rx: float, ry: float, start: float, end: float) -> list[tuple[float, float]]:
    """Points along an ellipse from `start` to `end` degrees (counter-clockwise, 0 at the right)."""
    steps = max(4, int(abs(end - start) / 15))
    return [(cx + rx * math.cos(math.radians(a)), cy + ry * math.sin(math.radians(a)))
            for a in np.linspace(start, end, steps + 1)]


def _parse(spec: str) -> tuple[list[list[tuple[float, float]]], list[tuple[float, float]]]:
    """Strokes and dots from a glyph's spec: strokes split by ';', each a chain of parts split by
    ' '; a part is 'x,y' (a point) or 'a:cx,cy,rx,ry,start,end' (an arc's points); '.x,y' is a dot."""
    strokes, dots = [], []
    for chain in filter(None, (c.strip() for c in spec.split(";"))):
        if chain.startswith("."):
            x, y = (float(v) for v in chain[1:].split(","))
            dots.append((x, y))
            continue
        points: list[tuple[float, float]] = []
        for part in chain.split():
            if part.startswith("a:"):
                points.extend(_arc(*(float(v) for v in part[2:].split(","))))
            else:
                x, y = (float(v) for v in part.split(","))
                points.append((x, y))
        strokes.append(points)
    return strokes, dots


# advance, strokes; written like a sign-writer's sketch, not taken from any font
_SPECS: dict[str, tuple[float, str]] = {
    "A": (5, "0,0 2.5,6 5,0; 1,2.4 4,2.4"),
    "B": (4.5, "0,0 0,6 2.8,6 a:2.8,4.6,1.4,1.4,90,-90 0,3.2; 2.8,3.2 a:3,1.6,1.5,1.6,90,-90 0,0"),
    "C": (4.5, "a:2.6,3,2.4,3,40,320"),
    "D": (4.8, "0,0 0,6 2,6 a:2,3,2.8,3,90,-90 0,0"),
    "E": (4, "4,6 0,6 0,0 4,0; 0,3.1 3,3.1"),
    "F": (4, "4,6 0,6 0,0; 0,3.1 3,3.1"),
    "G": (4.8, "a:2.6,3,2.4,3,40,360 2.4,3"),
    "H": (4.6, "0,0 0,6; 4.6,0 4.6,6; 0,3 4.6,3"),
    "I": (1, "0.5,0 0.5,6"),
    "J": (3.5, "3,6 3,1.5 a:1.6,1.5,1.4,1.5,0,-180"),
    "K": (4.4, "0,0 0,6; 4.2,6 0,2; 1.4,3.4 4.4,0"),
    "L": (3.8, "0,6 0,0 3.8,0"),
    "M": (5.6, "0,0 0,6 2.8,1 5.6,6 5.6,0"),
    "N": (4.6, "0,0 0,6 4.6,0 4.6,6"),
    "O": (5.2, "a:2.6,3,2.6,3,0,360"),
    "P": (4.4, "0,0 0,6 2.6,6 a:2.6,4.4,1.6,1.6,90,-90 0,2.8"),
    "Q": (5.2, "a:2.6,3,2.6,3,0,360; 3,1.4 5.2,-0.6"),
    "R": (4.4, "0,0 0,6 2.6,6 a:2.6,4.4,1.6,1.6,90,-90 0,2.8; 2,2.8 4.4,0"),
    "S": (4.2, "a:2.1,4.5,1.9,1.5,10,270 a:2.1,1.5,2.1,1.5,90,-170"),
    "T": (4.6, "0,6 4.6,6; 2.3,6 2.3,0"),
    "U": (4.6, "0,6 0,2.2 a:2.3,2.2,2.3,2.2,180,360 4.6,6"),
    "V": (5, "0,6 2.5,0 5,6"),
    "W": (6.6, "0,6 1.6,0 3.3,5 5,0 6.6,6"),
    "X": (4.6, "0,6 4.6,0; 0,0 4.6,6"),
    "Y": (4.8, "0,6 2.4,3 4.8,6; 2.4,3 2.4,0"),
    "Z": (4.4, "0,6 4.4,6 0,0 4.4,0"),
    "a": (3.6, "a:1.7,1.25,1.7,1.25,0,360; 3.4,0 3.4,2.8 a:1.8,2.8,1.6,1.2,0,150"),
    "b": (3.8, "0,6 0,0; a:1.9,2,1.9,2,0,360"),
    "c": (3.4, "a:1.9,2,1.8,2,45,315"),
    "d": (3.8, "3.8,6 3.8,0; a:1.9,2,1.9,2,0,360"),
    "e": (3.6, "0.1,2 3.6,2 a:1.8,2,1.8,2,0,315"),
    "f": (2.6, "2.6,5.6 a:1.9,4.8,0.9,1.2,60,180 1,0; 0,4 2.4,4"),
    "g": (3.8, "a:1.9,2,1.9,2,0,360; 3.8,4 3.8,-0.4 a:1.9,-0.4,1.9,1.6,0,-160"),
    "h": (3.6, "0,0 0,6; 0,2.4 a:1.8,2.4,1.8,1.6,180,0 3.6,0"),
    "i": (1, "0.5,0 0.5,4; .0.5,5.4"),
    "j": (1.8, "1.3,4 1.3,-0.8 a:0.4,-0.8,0.9,1.2,0,-140; .1.3,5.4"),
    "k": (3.4, "0,0 0,6; 3.2,4 0,1.4; 1.2,2.2 3.4,0"),
    "l": (1, "0.5,0 0.5,6"),
    "m": (5.6, "0,0 0,4; 0,2.6 a:1.4,2.6,1.4,1.4,180,0 2.8,0; 2.8,2.6 a:4.2,2.6,1.4,1.4,180,0 5.6,0"),
    "n": (3.6, "0,0 0,4; 0,2.4 a:1.8,2.4,1.8,1.6,180,0 3.6,0"),
    "o": (3.8, "a:1.9,2,1.9,2,0,360"),
    "p": (3.8, "0,4 0,-2; a:1.9,2,1.9,2,0,360"),
    "q": (3.8, "3.8,4 3.8,-2; a:1.9,2,1.9,2,0,360"),
    "r": (2.6, "0,0 0,4; 0,2.4 a:1.6,2.4,1.6,1.6,180,45"),
    "s": (3.2, "a:1.6,3,1.4,1,15,270 a:1.6,1,1.6,1,90,-165"),
    "t": (2.4, "0.9,5.4 0.9,0.8 a:1.8,0.8,0.9,0.8,180,300; 0,4 2.3,4"),
    "u": (3.6, "0,4 0,1.6 a:1.8,1.6,1.8,1.6,180,360; 3.6,4 3.6,0"),
    "v": (3.6, "0,4 1.8,0 3.6,4"),
    "w": (5.2, "0,4 1.3,0 2.6,3.4 3.9,0 5.2,4"),
    "x": (3.4, "0,4 3.4,0; 0,0 3.4,4"),
    "y": (3.6, "0,4 1.8,0; 3.6,4 1.2,-2"),
    "z": (3.4, "0,4 3.4,4 0,0 3.4,0"),
    "0": (4, "a:2,3,2,3,0,360"),
    "1": (2.6, "0,4.6 2,6 2,0"),
    "2": (4, "a:2,4.2,1.9,1.8,160,-40 0,0 4,0"),
    "3": (4, "a:2,4.6,1.8,1.4,150,-90 1.4,3.2; 2,3.2 a:2,1.6,2,1.6,90,-150"),
    "4": (4.2, "3.2,0 3.2,6 0,1.6 4.2,1.6"),
    "5": (4, "3.8,6 0.4,6 0.2,3.4 a:2,2,2,2,140,-160"),
    "6": (4, "3.4,5.6 a:2.4,3.2,1.6,2.8,60,180 a:2,1.9,2,1.9,180,540"),
    "7": (4, "0,6 4,6 1.4,0"),
    "8": (4, "a:2,4.6,1.6,1.4,-90,270; a:2,1.6,2,1.6,90,450"),
    "9": (4, "a:2,4.1,2,1.9,0,360; 4,4.1 a:1.6,2.8,2.4,2.8,0,-120"),
    ".": (1.2, ".0.6,0.3"),
    ",": (1.2, "0.8,0.3 0.2,-1; .0.8,0.3"),
    ":": (1.2, ".0.6,0.3; .0.6,3.4"),
    ";": (1.2, "0.8,0.3 0.2,-1; .0.8,0.3; .0.8,3.4"),
    "!": (1.2, "0.6,6 0.6,1.8; .0.6,0.3"),
    "?": (3.6, "a:1.8,4.4,1.8,1.6,160,-60 1.8,2.2 1.8,1.6; .1.8,0.3"),
    "-": (2.6, "0.2,2.4 2.4,2.4"),
    "+": (4, "0.2,2.6 3.8,2.6; 2,0.8 2,4.4"),
    "*": (3.4, "1.7,6 1.7,3; 0.3,5.4 3.1,3.6; 0.3,3.6 3.1,5.4"),
    "/": (3, "0,-0.6 3,6.4"),
    "$": (4.2, "a:2.1,4.4,1.9,1.3,10,270 a:2.1,1.6,2.1,1.5,90,-170; 2.1,6.8 2.1,-0.8"),
    "%": (5, "0.4,0 4.6,6; a:1.2,4.8,1.1,1.1,0,360; a:3.8,1.2,1.1,1.1,0,360"),
    "&": (5, "5,0 1,4.4 a:2,5,1,1,200,360 a:2,5,1,1,0,20 0.6,1.8 a:1.8,1.4,1.4,1.4,180,320 4.4,2.8"),
    "(": (2, "1.8,6.6 a:2.6,2.2,2.2,4.4,100,260"),
    ")": (2, "0.2,6.6 a:-0.6,2.2,2.2,4.4,80,-80"),
    "ñ": (3.6, "0,0 0,4; 0,2.4 a:1.8,2.4,1.8,1.6,180,0 3.6,0; 0.4,5.2 1.4,5.6 2.2,5.2 3.2,5.6"),
    "é": (3.6, "0.1,2 3.6,2 a:1.8,2,1.8,2,0,315; 1.6,4.8 2.6,5.8"),
    " ": (2.2, ""),
}
GLYPHS: dict[str, tuple[float, list[list[tuple[float, float]]], list[tuple[float, float]]]] = {
    char: (advance, *_parse(spec)) for char, (advance, spec) in _SPECS.items()}
CHARACTERS = "".join(c for c in GLYPHS if c != " ")


@dataclass(frozen=True)
class Face:
    """How a line of lettering is drawn: its letters' width against their height (1: as the
    grid has them), their slant (the shear, 0 upright), the stroke's width as a share of the
    capital height, the space between letters, whether upright strokes end in serifs, and a
    dot's width (of a full stop, a colon, an i) against the stroke's."""

    width: float = 1.0
    slant: float = 0.0
    weight: float = 0.1
    spacing: float = 0.8
    serifs: bool = False
    dot: float = 1.3


def random_face(rng: np.random.Generator, bold: bool = False) -> Face:
    """A face from the range print shows: condensed to wide, upright or italic, light to black."""
    return Face(width=float(rng.uniform(0.7, 1.35)),
                slant=float(rng.choice([0.0, 0.0, rng.uniform(0.12, 0.3)])),
                weight=float(rng.uniform(0.14, 0.26) if bold else rng.uniform(0.06, 0.16)),
                spacing=float(rng.uniform(0.5, 1.4)),
                serifs=bool(rng.random() < 0.4),
                dot=float(rng.uniform(1.0, 1.8)))


def text_width(text: str, height: float, face: Face) -> float:
    """Pixels `text` takes along its line at capital `height`."""
    unit = height / CAP
    return sum(_advance(c, face) * unit for c in text)


def _advance(char: str, face: Face) -> float:
    """Grid units from one letter's start to the next's: its width, the spacing and the stroke's
    own width, so that heavy letters do not run into each other."""
    return GLYPHS.get(char, GLYPHS["?"])[0] * face.width + face.spacing + face.weight * CAP


def _serifs(strokes: list[list[tuple[float, float]]]) -> list[list[tuple[float, float]]]:
    """Short feet across the ends of upright strokes that meet the baseline, x-height or cap line."""
    feet = []
    for stroke in strokes:
        for end, before in ((stroke[0], stroke[1] if len(stroke) > 1 else None),
                            (stroke[-1], stroke[-2] if len(stroke) > 1 else None)):
            if before is None or abs(end[0] - before[0]) > 0.35 * abs(end[1] - before[1]):
                continue
            if any(abs(end[1] - line) < 0.05 for line in (0.0, 4.0, CAP, -DESCENT)):
                feet.append([(end[0] - 1.0, end[1]), (end[0] + 1.0, end[1])])
    return feet


def draw_text(image: np.ndarray, text: str, origin: tuple[float, float], height: float, face: Face,
              colour: tuple[float, ...]) -> float:
    """Draw `text` into `image` (in place) with its baseline starting at `origin` (pixels, y
    down) and capitals `height` pixels tall; returns the x just past its last letter."""
    unit = height / CAP
    thickness = max(1, int(round(face.weight * height)))
    x, y0 = float(origin[0]), float(origin[1])
    for char in text:
        advance, strokes, dots = GLYPHS.get(char, GLYPHS["?"])
        lines = strokes + (_serifs(strokes) if face.serifs else [])

        def place(p: tuple[float, float]) -> tuple[float, float]:
            return (x + (p[0] * face.width + p[1] * face.slant) * unit, y0 - p[1] * unit)

        polylines = [np.round(np.array([place(p) for p in line]) * (1 << _SHIFT)).astype(np.int32)
                     for line in lines if len(line) > 1]
        if polylines:
            cv2.polylines(image, polylines, False, colour, thickness, cv2.LINE_AA, _SHIFT)
        for dot in dots:
            cx, cy = place(dot)
            radius = max(1.0, 0.5 * face.dot * face.weight * height)
            cv2.circle(image, (int(round(cx * (1 << _SHIFT))), int(round(cy * (1 << _SHIFT)))),
                       int(round(radius * (1 << _SHIFT))), colour, -1, cv2.LINE_AA, _SHIFT)
        x += _advance(char, face) * unit
    return x
