"""Drawing the screens on a 128x64 one-bit canvas.

Layout grid: text lines have their top at y = 1 + 9k (k = 0..6) and a highlighted line is a
lit bar from y-1 to y+7, so seven lines fill rows 0..62. Nothing is ever drawn in column 127
or row 63: the burn-in pixel shift moves the image into them. Long texts are cut with "…"
rather than overflowing, so eight players with long names stay legible.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np
from PIL import Image

from firmware.localformat import money_from_cents
from firmware.ui import font
from firmware.ui.catalogue import note, text
from firmware.ui.icons import icon
from firmware.ui.screens import (
    ConfirmScreen,
    CorrectionScreen,
    DieIcon,
    GameOverScreen,
    MenuScreen,
    MessageScreen,
    QrScreen,
    Screen,
    T,
    TurnScreen,
)
from firmware.ui.qr import MODULE_PX

WIDTH, HEIGHT = 128, 64
SAFE_W, SAFE_H = 127, 63  # the drawable area; the last column and row belong to the pixel shift
RIGHT = SAFE_W - 1        # the rightmost drawable column
ELLIPSIS = "…"

DIE = 12                  # die icon size in pixels
DIE_GAP = 3
DICE_Y = 12


def line_y(k: int) -> int:
    """Top of text line k (0..6)."""
    return 1 + font.LINE_PITCH * k


class Canvas:
    """A one-bit drawing surface that clips everything to the safe area."""

    def __init__(self) -> None:
        self.px = np.zeros((HEIGHT, WIDTH), dtype=bool)

    def blit(self, bitmap: np.ndarray, x: int, y: int, value: bool = True) -> None:
        h, w = bitmap.shape
        x0, y0 = max(x, 0), max(y, 0)
        x1, y1 = min(x + w, SAFE_W), min(y + h, SAFE_H)
        if x0 >= x1 or y0 >= y1:
            return
        part = bitmap[y0 - y:y1 - y, x0 - x:x1 - x]
        self.px[y0:y1, x0:x1][part] = value

    def fill(self, x0: int, y0: int, x1: int, y1: int, value: bool = True) -> None:
        """Fill the rectangle with corners (x0, y0) and (x1, y1), inclusive."""
        x0, y0 = max(x0, 0), max(y0, 0)
        x1, y1 = min(x1, SAFE_W - 1), min(y1, SAFE_H - 1)
        if x0 <= x1 and y0 <= y1:
            self.px[y0:y1 + 1, x0:x1 + 1] = value

    def rect(self, x0: int, y0: int, x1: int, y1: int, *, dashed: bool = False, rounded: bool = True) -> None:
        for x in range(x0, x1 + 1):
            if not dashed or (x - x0) % 2 == 0:
                self.fill(x, y0, x, y0)
                self.fill(x, y1, x, y1)
        for y in range(y0, y1 + 1):
            if not dashed or (y - y0) % 2 == 0:
                self.fill(x0, y, x0, y)
                self.fill(x1, y, x1, y)
        if rounded:
            for x, y in ((x0, y0), (x1, y0), (x0, y1), (x1, y1)):
                self.fill(x, y, x, y, False)

    def dotted_hline(self, y: int, x0: int = 0, x1: int = RIGHT) -> None:
        for x in range(x0, x1 + 1, 2):
            self.fill(x, y, x, y)

    def text(self, x: int, y: int, s: str, *, value: bool = True) -> int:
        """Draw text with its top at y; returns the x after it."""
        for i, char in enumerate(s):
            g = font.glyph(char)
            self.blit(g, x, y, value)
            x += g.shape[1] + font.SPACING
        return x - font.SPACING if s else x

    def text_right(self, right: int, y: int, s: str, *, value: bool = True) -> int:
        """Draw text ending at column `right` (inclusive); returns its left x."""
        x = right - font.text_width(s) + 1
        self.text(x, y, s, value=value)
        return x

    def big(self, right: int, y: int, s: str) -> None:
        x = right - font.big_width(s) + 1
        for char in s:
            g = font.big_glyph(char)
            self.blit(g, x, y)
            x += g.shape[1] + 2

    def image(self) -> Image.Image:
        return Image.fromarray(self.px).convert("1")


def fit(s: str, width: int) -> str:
    """The text, cut with an ellipsis if it is wider than `width` pixels."""
    if font.text_width(s) <= width:
        return s
    if width < font.text_width(ELLIPSIS):
        return ""
    while s and font.text_width(s.rstrip() + ELLIPSIS) > width:
        s = s[:-1]
    return s.rstrip() + ELLIPSIS


def wrap(s: str, width: int, max_lines: int) -> list[str]:
    """Greedy word wrap into at most max_lines lines; the last one is cut with "…" if needed."""
    lines: list[str] = []
    current = ""
    words = s.split()
    for i, word in enumerate(words):
        candidate = f"{current} {word}" if current else word
        if font.text_width(candidate) <= width:
            current = candidate
            continue
        if current:
            lines.append(current)
        current = word
        if len(lines) == max_lines - 1:
            current = " ".join(words[i:])
            break
    if current:
        lines.append(current)
    lines = lines[:max_lines]
    return [fit(line, width) for line in lines]


# --- dice -----------------------------------------------------------------------------------

# Pip cells (column, row) in a 3x3 grid, per face.
_PIPS = {
    1: ((1, 1),),
    2: ((2, 0), (0, 2)),
    3: ((2, 0), (1, 1), (0, 2)),
    4: ((0, 0), (2, 0), (0, 2), (2, 2)),
    5: ((0, 0), (2, 0), (1, 1), (0, 2), (2, 2)),
    6: ((0, 0), (2, 0), (0, 1), (2, 1), (0, 2), (2, 2)),
}
_PIP_OFFSETS = (2, 5, 8)  # 2x2 pips inside a 12x12 die


def draw_die(c: Canvas, x: int, y: int, die: DieIcon) -> None:
    x1, y1 = x + DIE - 1, y + DIE - 1
    if die.unsure or die.value is None:
        c.rect(x, y, x1, y1, dashed=True, rounded=False)
        c.text(x + 4, y + 2, "?")
        return
    if die.held:
        c.fill(x, y, x1, y1)
        for corner in ((x, y), (x1, y), (x, y1), (x1, y1)):
            c.fill(*corner, *corner, value=False)
    else:
        c.rect(x, y, x1, y1)
    for col, row in _PIPS.get(die.value, ()):
        px, py = x + _PIP_OFFSETS[col], y + _PIP_OFFSETS[row]
        c.fill(px, py, px + 1, py + 1, value=not die.held)
    if die.turned:
        c.fill(x + 3, y1 + 2, x1 - 3, y1 + 2)


def dice_x(i: int) -> int:
    return 1 + i * (DIE + DIE_GAP)


def draw_dice(c: Canvas, dice: Sequence[DieIcon], y: int = DICE_Y) -> None:
    for i, die in enumerate(dice[:5]):
        draw_die(c, dice_x(i), y, die)


# --- lists ----------------------------------------------------------------------------------


def window(count: int, selected: int | None, visible: int) -> int:
    """The first index shown so that the selected one is visible."""
    if count <= visible or selected is None:
        return 0
    # The selected line stays one above the bottom, so the next one is always in sight.
    return max(0, min(selected - visible + 2, count - visible))


def draw_scrollbar(c: Canvas, top: int, bottom: int, first: int, visible: int, count: int) -> None:
    if count <= visible:
        return
    x = RIGHT - 1
    span = bottom - top + 1
    thumb = max(3, span * visible // count)
    start = top + (span - thumb) * first // max(1, count - visible)
    c.fill(x, start, x + 1, start + thumb - 1)


def bar(c: Canvas, y: int, right: int = RIGHT) -> None:
    """A highlight bar behind the text line whose top is y."""
    c.fill(0, y - 1, right, y + 7)


# --- screens --------------------------------------------------------------------------------


def render(screen: Screen, lang: str = "es") -> Image.Image:
    """The screen as a 128x64 one-bit image."""
    c = Canvas()
    drawer = _DRAWERS.get(type(screen))
    if drawer is None:
        raise TypeError(f"no renderer for {type(screen).__name__}")
    drawer(c, screen, lang)
    return c.image()


def _turn(c: Canvas, s: TurnScreen, lang: str) -> None:
    # Header: the player on the left, the throw on the right; the total if there is room.
    total = f" ({s.total})" if s.total is not None else ""
    name_w = font.text_width(s.player)
    choices = [""] if s.throw <= 0 else [
        text(T("throw_k_of_n", k=s.throw, n=s.throws), lang), f"{s.throw}/{s.throws}"]
    right_text, show_total = choices[-1], False
    for candidate in choices:
        if name_w + font.text_width(total) + 6 + font.text_width(candidate) <= RIGHT:
            right_text, show_total = candidate, bool(total)
            break
        if name_w + 6 + font.text_width(candidate) <= RIGHT:
            right_text = candidate
            break
    right_x = RIGHT - font.text_width(right_text) + 1 if right_text else SAFE_W
    header = s.player + total if show_total else s.player
    c.text(1, line_y(0), fit(header, right_x - 6))
    if right_text:
        c.text_right(RIGHT, line_y(0), right_text)

    draw_dice(c, s.dice)
    options_lines = [3, 4, 5, 6] if s.message is None else [3, 4, 5]
    if not s.options:
        # Nothing to pick yet: the message (or the invitation to throw) in the middle.
        prompt = text(s.message, lang) if s.message is not None else text(T("throw_the_dice"), lang)
        first_line = 4
        if not s.dice:
            c.blit(icon("dice"), 56, 14)
        else:
            first_line = 3
        for i, line in enumerate(wrap(prompt, RIGHT - 1, 3)):
            w = font.text_width(line)
            c.text((SAFE_W - w) // 2, line_y(first_line + i), line)
        return

    selected = s.selected if s.selected is not None and 0 <= s.selected < len(s.options) else None
    if selected is not None:
        points = s.options[selected].points
        big = "--" if points is None else str(points)
        c.big(RIGHT, DICE_Y + 1, big[-4:])

    visible = len(options_lines)
    first = window(len(s.options), selected, visible)
    scroll = len(s.options) > visible
    right = RIGHT - 3 if scroll else RIGHT
    for slot, k in enumerate(options_lines):
        index = first + slot
        if index >= len(s.options):
            break
        option = s.options[index]
        y = line_y(k)
        chosen = index == selected
        if chosen:
            bar(c, y, right)
        ink = not chosen
        points = "--" if option.points is None else str(option.points)
        if not option.allowed:
            points = f"({points})"
        px = c.text_right(right - 1, y, points, value=ink)
        label = text(option.label, lang)
        room = px - 4 - 2
        if option.notes:
            short = note(option.notes[0], lang)
            note_w = font.text_width(short)
            label_w = font.text_width(label)
            # The note goes when the label would be cut to fewer than about six characters.
            if min(label_w, 36) + 4 + note_w <= room:
                nx = px - 4 - note_w
                c.text(nx, y, short, value=ink)
                room = nx - 4 - 2
        c.text(2, y, fit(label, room), value=ink)
    if scroll:
        draw_scrollbar(c, line_y(options_lines[0]) - 1, line_y(options_lines[-1]) + 7, first, visible, len(s.options))
    if s.message is not None:
        c.text(1, line_y(6), fit(text(s.message, lang), RIGHT - 1))


def _menu(c: Canvas, s: MenuScreen, lang: str) -> None:
    visible = 4 if s.hint is not None else 5
    count = len(s.items)
    position = f"{s.selected + 1}/{count}" if count > visible else ""
    title_room = RIGHT - (font.text_width(position) + 4 if position else 0) - 1
    c.text(1, line_y(0), fit(text(s.title, lang), title_room))
    if position:
        c.text_right(RIGHT, line_y(0), position)
    c.dotted_hline(10)
    first = window(count, s.selected, visible)
    scroll = count > visible
    right = RIGHT - 3 if scroll else RIGHT
    for slot in range(visible):
        index = first + slot
        if index >= count:
            break
        item = s.items[index]
        y = 13 + font.LINE_PITCH * slot
        chosen = index == s.selected
        if chosen:
            bar(c, y, right)
        ink = not chosen
        room = right - 3
        if item.value is not None:
            value = text(item.value, lang)
            if chosen and s.editing:
                value = f"◀ {value} ▶"
            value = fit(value, 64)
            vx = c.text_right(right - 1, y, value, value=ink)
            room = vx - 4 - 2
        c.text(2, y, fit(text(item.label, lang), room), value=ink)
    if scroll:
        draw_scrollbar(c, 12, 12 + font.LINE_PITCH * visible - 1, first, visible, count)
    if s.hint is not None:
        c.text(1, line_y(6), fit(text(s.hint, lang), RIGHT - 1))


def _chips(c: Canvas, y: int, labels: Sequence[str], selected: int) -> None:
    widths = [font.text_width(label) + 4 for label in labels]
    gap = 3
    total = sum(widths) + gap * (len(widths) - 1)
    if total > RIGHT - 1:
        gap = 1
        total = sum(widths) + gap * (len(widths) - 1)
    x = max(0, (SAFE_W - total) // 2)
    for i, (label, w) in enumerate(zip(labels, widths)):
        if i == selected:
            c.fill(x, y - 2, x + w - 1, y + 8)
            c.text(x + 2, y, label, value=False)
        else:
            c.rect(x, y - 2, x + w - 1, y + 8)
            c.text(x + 2, y, label)
        x += w + gap


def _correction(c: Canvas, s: CorrectionScreen, lang: str) -> None:
    c.text(1, line_y(0), fit(text(s.title, lang), RIGHT - 1))
    draw_dice(c, s.dice)
    if s.die is not None and 0 <= s.die < min(5, len(s.dice)):
        x = dice_x(s.die) + DIE // 2
        for row in range(3):  # a small triangle pointing at the die
            c.fill(x - 1 - row, DICE_Y + DIE + 2 + row, x + row, DICE_Y + DIE + 2 + row)
    c.text(1, 30, fit(text(s.prompt, lang), RIGHT - 1))
    if s.choices:
        _chips(c, 43, [fit(text(choice, lang), 60) for choice in s.choices], s.selected)
    hint = T("hint_edit") if s.choices else T("hint_menu")
    c.text(1, line_y(6), fit(text(hint, lang), RIGHT - 1))


def _confirm(c: Canvas, s: ConfirmScreen, lang: str) -> None:
    c.blit(icon("warning"), 0, 0)
    c.text(20, 5, fit(text(s.title, lang), RIGHT - 20))
    y = 20
    for label in s.lines:
        for line in wrap(text(label, lang), RIGHT - 1, 2):
            if y > 37:
                break
            c.text(1, y, line)
            y += font.LINE_PITCH
    confirm = T("hold_ok_confirm") if s.hold_to_confirm else T("ok_confirm")
    c.text(1, line_y(5), fit(text(confirm, lang), RIGHT - 1))
    c.text(1, line_y(6), fit(text(T("prev_next_cancel"), lang), RIGHT - 1))


def _ranks(points: Sequence[int]) -> list[int]:
    """Competition ranks in the given (best-first) order: equal points share a rank."""
    ranks: list[int] = []
    for i, p in enumerate(points):
        ranks.append(ranks[-1] if i and p == points[i - 1] else i + 1)
    return ranks


def _game_over(c: Canvas, s: GameOverScreen, lang: str) -> None:
    pages = s.page_count
    page = min(max(0, s.page), pages - 1)
    position = f"{page + 1}/{pages}" if pages > 1 else ""
    title = f"{text(s.title, lang)}: {text(s.game, lang)}"
    room = RIGHT - (font.text_width(position) + 4 if position else 0) - 1
    c.text(1, line_y(0), fit(title, room))
    if position:
        c.text_right(RIGHT, line_y(0), position)

    ranks = _ranks([row.points for row in s.rows])
    nets = [money_from_cents(row.net_cents, s.money, lang, signed=True) if row.net_cents is not None else ""
            for row in s.rows]
    net_w = max((font.text_width(n) for n in nets), default=0)
    pts_w = max((font.text_width(str(row.points)) for row in s.rows), default=0)
    pts_right = RIGHT - (net_w + 5 if net_w else 0)
    name_room = pts_right - pts_w - 4 - 9
    start = page * s.ROWS_PER_PAGE
    shown = s.rows[start:start + s.ROWS_PER_PAGE]
    for slot, row in enumerate(shown):
        index = start + slot
        y = 11 + font.LINE_PITCH * slot
        mark = "★" if row.winner else str(ranks[index])
        c.text(1, y, mark)
        c.text(9, y, fit(row.name, name_room))
        c.text_right(pts_right, y, str(row.points))
        if nets[index]:
            c.text_right(RIGHT, y, nets[index])
    if s.note is not None and len(shown) < s.ROWS_PER_PAGE:
        c.text(1, line_y(6), fit(text(s.note, lang), RIGHT - 1))


def _message(c: Canvas, s: MessageScreen, lang: str) -> None:
    title_x = 1
    if s.icon is not None:
        c.blit(icon(s.icon), 0, 0)
        title_x = 20
    c.text(title_x, 5, fit(text(s.title, lang), RIGHT - title_x))
    lines: list[str] = []
    for label in s.lines:
        lines += wrap(text(label, lang), RIGHT - 1, 5 - len(lines))
    for i, line in enumerate(lines[:5]):
        c.text(1, 19 + font.LINE_PITCH * i, line)


def _qr(c: Canvas, s: QrScreen, lang: str) -> None:
    text_right = RIGHT
    if s.modules is not None:
        side = len(s.modules) * MODULE_PX
        x0, y0 = RIGHT - side, (SAFE_H - side) // 2
        dark = np.repeat(np.repeat(np.array(s.modules, bool), MODULE_PX, 0), MODULE_PX, 1)
        c.blit(~dark, x0, y0)  # dark modules unlit on a lit square, as a printed code
        text_right = x0 - 3
    c.text(1, line_y(0), fit(text(s.title, lang), text_right - 1))
    lines: list[str] = []
    for label in s.lines:
        lines += wrap(text(label, lang), text_right - 1, 2)
    lines += split_to_width(s.address, text_right - 1)
    for i, line in enumerate(lines[:6]):
        c.text(1, line_y(1 + i), line)


def split_to_width(s: str, width: int) -> list[str]:
    """A text with no spaces to break at (an address) cut into lines that fit `width`."""
    lines, current = [], ""
    for char in s:
        if current and font.text_width(current + char) > width:
            lines.append(current)
            current = ""
        current += char
    return lines + [current] if current else lines


_DRAWERS = {
    TurnScreen: _turn,
    MenuScreen: _menu,
    CorrectionScreen: _correction,
    ConfirmScreen: _confirm,
    GameOverScreen: _game_over,
    MessageScreen: _message,
    QrScreen: _qr,
}

