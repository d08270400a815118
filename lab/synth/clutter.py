"""Pictures with no die in them: what a camera over a bar counter sees besides dice.

`negative_image(rng, width, height)` draws one of `NEGATIVE_KINDS`:
  text          printed lines of words and prices (a menu card, a newspaper, a receipt),
  headline      big bold letters, a title or a price the size of a die, with dotted leaders
                and rows of stars (a menu's headings, a poster, a beer mat),
  grid          ruled or squared paper, a board's grid lines,
  checkerboard  squares of two colours, turned and seen at an angle,
  gradient      smooth linear or radial shading,
  noise         random texture from fine grain to large blotches,
  wood          a counter's wood grain;
and, only when named, the printed words again in the lab's own faces (`lettering`), which
every OpenCV draws alike where OpenCV's own `putText` faces differ from 4 to 5:
  lab-text      as text,
  lab-headline  as headline;
and `clutter_strip` paints such a picture over one edge of a dice scene where no die is
(a keyboard, a newspaper, a board game's art at the frame's edge). Pictures are seen
through the same camera faults as the dice scenes: perspective, blur, noise, JPEG.
Everything comes from the generator given, so a seed gives the same picture anywhere.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import cv2
import numpy as np

from .lettering import Face, draw_text, random_face, text_width
from .textures import smooth_noise

NEGATIVE_KINDS = ("text", "grid", "checkerboard", "gradient", "noise", "wood", "headline")
TEXT_KINDS = ("text", "headline")  # printed words: where a reader's sure dice on no-dice pictures lie
# text and headline again in the lab's own faces, drawn only when asked for by name: the same
# pictures under every OpenCV, in faces no network learnt from OpenCV's
LAB_TEXT_KINDS = ("lab-text", "lab-headline")
ALL_KINDS = NEGATIVE_KINDS + LAB_TEXT_KINDS
_FONTS = (cv2.FONT_HERSHEY_SIMPLEX, cv2.FONT_HERSHEY_DUPLEX, cv2.FONT_HERSHEY_COMPLEX, cv2.FONT_HERSHEY_TRIPLEX,
          cv2.FONT_HERSHEY_PLAIN, cv2.FONT_HERSHEY_COMPLEX_SMALL, cv2.FONT_HERSHEY_SCRIPT_SIMPLEX)
_LETTERS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789....,,::;;$%&()-+*ñé"
# Letters and figures with a closed, round counter: big and bold they are a pip in a square.
_ROUND = "abdegopqABDOPQR04689&"


def _colour(rng: np.random.Generator, light: bool | None = None) -> tuple[float, float, float]:
    if light is None:
        return tuple(float(v) for v in rng.uniform(0, 255, 3))
    base = rng.uniform(170, 250) if light else rng.uniform(0, 90)
    return tuple(float(np.clip(base + v, 0, 255)) for v in rng.normal(0, 18, 3))


def _paper(rng: np.random.Generator, height: int, width: int) -> tuple[np.ndarray, tuple, tuple]:
    """A plain background and an ink colour that reads on it (dark on light or the reverse)."""
    light = bool(rng.random() < 0.8)
    paper = np.empty((height, width, 3), np.uint8)
    paper[:] = _colour(rng, light)
    return paper, _colour(rng, not light), _colour(rng, None)


class _HersheyPen:
    """Words in one of OpenCV's `putText` faces (which OpenCV 4 and 5 draw differently)."""

    def __init__(self, font: int, scale: float, thickness: int) -> None:
        self.font, self.scale, self.thickness = font, scale, thickness
        self.height = cv2.getTextSize("Ag", font, scale, thickness)[0][1]

    def write(self, image: np.ndarray, word: str, x: int, y: int, colour: tuple) -> int:
        """Draw `word` with its baseline at (x, y); the pixels to the next word."""
        cv2.putText(image, word, (x, y), self.font, self.scale, colour, self.thickness, cv2.LINE_AA)
        return cv2.getTextSize(word + " ", self.font, self.scale, self.thickness)[0][0]

    def star(self, image: np.ndarray, centre: tuple[int, int], dot: int, ink: tuple) -> None:
        cv2.putText(image, "*", (centre[0] - dot, centre[1] + 2 * dot), self.font, dot / 6, ink,
                    max(1, dot // 2), cv2.LINE_AA)


class _LetteringPen:
    """Words in a face of the lab's own (`lettering`), the same under every OpenCV."""

    def __init__(self, face: Face, height: float) -> None:
        self.face, self.cap = face, height
        self.height = int(round(height))
        self.thickness = max(1, int(round(face.weight * height)))

    def write(self, image: np.ndarray, word: str, x: int, y: int, colour: tuple) -> int:
        draw_text(image, word, (x, y), self.cap, self.face, colour)
        return int(round(text_width(word + " ", self.cap, self.face)))

    def star(self, image: np.ndarray, centre: tuple[int, int], dot: int, ink: tuple) -> None:
        size = 4.0 * dot
        draw_text(image, "*", (centre[0] - 0.28 * size, centre[1] + 0.75 * size), size, self.face, ink)


# How each kind of printed words picks its pen: text once per picture, headlines a face per
# picture and a size per line. The Hershey ones draw from the generator in the order they always
# have, so their pictures stay as every kept figure saw them.
def _hershey_text_pen(rng: np.random.Generator) -> _HersheyPen:
    font = _FONTS[int(rng.integers(len(_FONTS)))]
    scale = float(rng.uniform(0.35, 2.2))
    return _HersheyPen(font, scale, int(rng.integers(1, 4)))


def _lettering_text_pen(rng: np.random.Generator) -> _LetteringPen:
    return _LetteringPen(random_face(rng), float(rng.uniform(7, 50)))


def _hershey_headline_face(rng: np.random.Generator) -> int:
    return _FONTS[int(rng.integers(4))]  # the four upright faces; the small and script ones stay thin


def _hershey_headline_pen(rng: np.random.Generator, font: int) -> _HersheyPen:
    scale = float(rng.uniform(1.4, 5.5))
    return _HersheyPen(font, scale, int(rng.integers(2, max(3, int(3 * scale)))))


def _lettering_headline_pen(rng: np.random.Generator, face: Face) -> _LetteringPen:
    return _LetteringPen(face, float(rng.uniform(30, 125)))


def _text(rng: np.random.Generator, height: int, width: int,
          pen_for: Callable[[np.random.Generator], _HersheyPen | _LetteringPen] = _hershey_text_pen) -> np.ndarray:
    image, ink, accent = _paper(rng, height, width)
    pen = pen_for(rng)
    line = int(pen.height * rng.uniform(1.6, 2.6)) + 2
    y = int(rng.integers(line // 2, 2 * line))
    while y < height + line:
        x = int(rng.integers(-20, 40))
        while x < width:
            word = "".join(_LETTERS[int(i)] for i in rng.integers(len(_LETTERS), size=int(rng.integers(1, 10))))
            colour = accent if rng.random() < 0.1 else ink
            x += pen.write(image, word, x, y, colour)
            if rng.random() < 0.05:  # a bullet or a dotted leader, as on a menu
                for k in range(int(rng.integers(1, 12))):
                    cv2.circle(image, (x + 8 * k, y - line // 4), max(1, pen.thickness), ink, -1, cv2.LINE_AA)
                x += 100
        y += line
    return image


def _headline(rng: np.random.Generator, height: int, width: int,
              face_for: Callable[[np.random.Generator], Any] = _hershey_headline_face,
              pen_for: Callable[[np.random.Generator, Any], _HersheyPen | _LetteringPen] = _hershey_headline_pen,
              ) -> np.ndarray:
    image, ink, accent = _paper(rng, height, width)
    face = face_for(rng)
    y = int(rng.integers(0, 60))
    while y < height + 60:
        pen = pen_for(rng, face)
        line = pen.height
        y += int(line * rng.uniform(1.3, 2.0))
        x = int(rng.integers(-line, line))
        while x < width:
            if rng.random() < 0.25:  # a dotted leader, a row of stars or bullets to the price
                dot = max(2, int(line * rng.uniform(0.06, 0.2)))
                step = int(dot * rng.uniform(2.2, 4.5))
                star = rng.random() < 0.4
                for k in range(int(rng.integers(4, 16))):
                    centre = (x + step * k, y - line // 3)
                    if star:
                        pen.star(image, centre, dot, ink)
                    else:
                        cv2.circle(image, centre, dot, ink, -1, cv2.LINE_AA)
                x += step * 16
                continue
            pool = _ROUND if rng.random() < 0.6 else _LETTERS
            word = "".join(pool[int(i)] for i in rng.integers(len(pool), size=int(rng.integers(1, 6))))
            colour = accent if rng.random() < 0.2 else ink
            x += pen.write(image, word, x, y, colour)
        y += line // 2
    return image


def _lettering(rng: np.random.Generator, height: int, width: int) -> np.ndarray:
    return _text(rng, height, width, _lettering_text_pen)


def _lettered_headline(rng: np.random.Generator, height: int, width: int) -> np.ndarray:
    return _headline(rng, height, width, lambda r: random_face(r, bold=True), _lettering_headline_pen)


def _grid(rng: np.random.Generator, height: int, width: int) -> np.ndarray:
    image, ink, accent = _paper(rng, height, width)
    step = float(rng.uniform(6, 70))
    thickness = int(rng.integers(1, 4))
    both = rng.random() < 0.7
    for k in range(int(max(height, width) / step) + 2):
        p = int(k * step)
        colour = accent if k % 5 == 0 and rng.random() < 0.5 else ink
        cv2.line(image, (0, p), (width, p), colour, thickness, cv2.LINE_AA)
        if both:
            cv2.line(image, (p, 0), (p, height), colour, thickness, cv2.LINE_AA)
    return image


def _checkerboard(rng: np.random.Generator, height: int, width: int) -> np.ndarray:
    cell = float(rng.uniform(6, 90))
    yy, xx = np.mgrid[0:height, 0:width].astype(np.float32)
    board = ((np.floor(xx / cell) + np.floor(yy / cell)) % 2).astype(np.float32)[..., None]
    first, second = np.array(_colour(rng, True), np.float32), np.array(_colour(rng, False), np.float32)
    if rng.random() < 0.4:
        second = np.array(_colour(rng), np.float32)
    return first * board + second * (1 - board)


def _gradient(rng: np.random.Generator, height: int, width: int) -> np.ndarray:
    yy, xx = np.mgrid[0:height, 0:width].astype(np.float32)
    if rng.random() < 0.5:
        a = rng.uniform(0, 2 * math.pi)
        t = (xx * math.cos(a) + yy * math.sin(a)) / max(height, width)
    else:
        cx, cy = rng.uniform(0, width), rng.uniform(0, height)
        t = np.hypot(xx - cx, yy - cy) / max(height, width)
    t = (t - t.min()) / max(float(t.max() - t.min()), 1e-6)
    first, second = np.array(_colour(rng), np.float32), np.array(_colour(rng), np.float32)
    return first + (second - first) * t[..., None]


def _noise(rng: np.random.Generator, height: int, width: int) -> np.ndarray:
    cell = float(np.exp(rng.uniform(math.log(1.5), math.log(60))))
    field = smooth_noise(rng, height, width, cell, octaves=int(rng.integers(1, 4)))
    base = np.array(_colour(rng), np.float32)
    tint = rng.uniform(-1, 1, 3).astype(np.float32) * rng.uniform(20, 120)
    image = base + field[..., None] * tint
    if rng.random() < 0.5:
        image += rng.normal(0, rng.uniform(5, 40), image.shape).astype(np.float32)
    return image


def _wood(rng: np.random.Generator, height: int, width: int) -> np.ndarray:
    yy, xx = np.mgrid[0:height, 0:width].astype(np.float32)
    a = rng.uniform(0, math.pi)
    across = -xx * math.sin(a) + yy * math.cos(a)
    warp = smooth_noise(rng, height, width, float(rng.uniform(40, 160)), octaves=2) * rng.uniform(5, 30)
    period = float(rng.uniform(4, 25))
    rings = 0.5 + 0.5 * np.sin(2 * math.pi * (across + warp) / period)
    rings = rings ** rng.uniform(1, 4)
    light = np.array(_colour(rng, True), np.float32) * np.array([0.55, 0.75, 0.95], np.float32)
    dark = light * rng.uniform(0.4, 0.8)
    return dark + (light - dark) * rings[..., None]


_DRAW = {"text": _text, "grid": _grid, "checkerboard": _checkerboard, "gradient": _gradient, "noise": _noise,
         "wood": _wood, "headline": _headline, "lab-text": _lettering, "lab-headline": _lettered_headline}


def _camera(rng: np.random.Generator, flat: np.ndarray, width: int, height: int) -> np.ndarray:
    """A flat picture as a camera sees it: turned and in perspective, unevenly lit, blurred,
    noisy and JPEG-compressed."""
    h, w = flat.shape[:2]
    src = np.float32([[0, 0], [w, 0], [w, h], [0, h]])
    dst = src + rng.uniform(-0.12, 0.12, (4, 2)).astype(np.float32) * np.float32([w, h])
    matrix = cv2.getPerspectiveTransform(src, dst)
    turn = np.vstack([cv2.getRotationMatrix2D((w / 2, h / 2), float(rng.uniform(-180, 180)), 1.0), [0, 0, 1]])
    shift = np.float32([[1, 0, (width - w) / 2], [0, 1, (height - h) / 2], [0, 0, 1]])
    image = cv2.warpPerspective(flat, shift @ turn @ matrix, (width, height), borderMode=cv2.BORDER_REFLECT)
    yy, xx = np.mgrid[0:height, 0:width].astype(np.float32)
    a = rng.uniform(0, 2 * math.pi)
    ramp = ((xx - width / 2) * math.cos(a) + (yy - height / 2) * math.sin(a)) / max(height, width)
    image *= (1 + rng.uniform(-0.6, 0.6) * ramp)[..., None]
    if rng.random() < 0.5:
        image = cv2.GaussianBlur(image, (0, 0), float(rng.uniform(0.4, 2.0)))
    image += rng.normal(0, rng.uniform(0.5, 6.0), image.shape).astype(np.float32)
    out = np.clip(image, 0, 255).astype(np.uint8)
    if rng.random() < 0.15:
        out = cv2.cvtColor(cv2.cvtColor(out, cv2.COLOR_BGR2GRAY), cv2.COLOR_GRAY2BGR)
    quality = int(rng.integers(40, 96))
    return cv2.imdecode(cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, quality])[1], cv2.IMREAD_COLOR)


def negative_image(rng: np.random.Generator, width: int = 640, height: int = 480, kind: str | None = None,
                   kinds: tuple[str, ...] = NEGATIVE_KINDS) -> np.ndarray:
    """A BGR uint8 picture of `kind` (one of ALL_KINDS; drawn from `kinds` when None) with no die."""
    if kind is None:
        kind = kinds[int(rng.integers(len(kinds)))]
    if kind not in _DRAW:
        raise ValueError(f"unknown kind {kind!r}: one of {', '.join(ALL_KINDS)}")
    side = int(math.ceil(1.5 * max(width, height)))  # room to turn and tilt without showing an edge
    return _camera(rng, np.asarray(_DRAW[kind](rng, side, side), np.float32), width, height)


def clutter_strip(rng: np.random.Generator, image: np.ndarray, boxes: list[tuple[float, float, float, float]],
                  max_share: float = 0.3, kinds: tuple[str, ...] = NEGATIVE_KINDS) -> bool:
    """Paint a no-dice picture over one edge of `image` (in place), as deep as fits without
    touching any of the dice `boxes` (x0, y0, x1, y1), at most `max_share` of the frame.
    False when no edge had room."""
    h, w = image.shape[:2]
    for side in rng.permutation(4):
        limit = max_share * (h if side in (0, 2) else w)
        if side == 0:  # top
            room = min([b[1] for b in boxes] + [limit])
        elif side == 1:  # right
            room = min([w - b[2] for b in boxes] + [limit])
        elif side == 2:  # bottom
            room = min([h - b[3] for b in boxes] + [limit])
        else:  # left
            room = min([b[0] for b in boxes] + [limit])
        depth = int(rng.uniform(0.3, 1.0) * (room - 4))
        if depth < 12:
            continue
        picture = negative_image(rng, w, h, kinds=kinds)
        mask = np.zeros((h, w), np.float32)
        # a wavy, slightly slanted border, as the edge of a sheet or a keyboard
        along = np.arange(w if side in (0, 2) else h, dtype=np.float32)
        edge = depth - np.abs(rng.uniform(-0.08, 0.08) * (along - along.mean())) - rng.uniform(0, 6)
        for i, e in enumerate(edge.astype(int)):
            if e <= 0:
                continue
            if side == 0:
                mask[:e, i] = 1
            elif side == 2:
                mask[h - e:, i] = 1
            elif side == 3:
                mask[i, :e] = 1
            else:
                mask[i, w - e:] = 1
        mask = cv2.GaussianBlur(mask, (0, 0), 1.0)[..., None]
        image[:] = np.clip(image * (1 - mask) + picture * mask, 0, 255).astype(np.uint8)
        return True
    return False
