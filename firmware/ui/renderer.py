"""Drawing the screens on a one-bit canvas: 128x64, and the larger panels luma drives
(128x128, 256x64).

Layout grid: text lines are LINE_PITCH (9) pixels apart and a highlighted line is a lit bar
from y-1 to y+7, so seven lines fill the rows of a 64-pixel panel and fourteen those of a
128-pixel one. Nothing is ever drawn in the panel's last column or row: the burn-in pixel
shift moves the image into them. Every layout is drawn in a region of the panel that keeps
its own last column and row free, so regions side by side never touch.

Larger panels: a taller or wider panel shows more lines (menus, messages, the final table)
and, on the turn and on the screen confirming a box, a "board" of the key numbers (the
throw, the player's total, the points of the choice) in double-size digits, readable from
across the table: 256x64 puts it in the right half, 128x128 in the top half; the 128x64
layout fills the rest.

Texts: every catalogue text, game, option and box name (firmware.ui.catalogue, in both
languages) and every player name of up to 8 characters fits where it is drawn on every panel
(tests/firmware/test_ui_fit.py renders every screen of every game and checks). Texts that
come from outside (an error message, a file name, a long address) are cut with "…" or
wrapped rather than overflowing; `recording_cuts()` lists every cut made while it is open.
"""

from __future__ import annotations

from contextlib import contextmanager
from typing import Iterator, Sequence

import numpy as np
from PIL import Image

from firmware.localformat import money_from_cents
from firmware.ui import font
from firmware.ui.catalogue import note, text
from firmware.ui.icons import icon
from firmware.ui.qr import MODULE_PX
from firmware.ui.screens import (
    ConfirmScreen,
    CorrectionScreen,
    DieIcon,
    GameOverScreen,
    Label,
    MenuScreen,
    MessageScreen,
    NameScreen,
    QrScreen,
    Screen,
    ScoreScreen,
    T,
    TurnScreen,
)

WIDTH, HEIGHT = 128, 64   # the usual panel (0.96" SSD1306 / SH1106)
SAFE_W, SAFE_H = 127, 63  # its drawable area; the last column and row belong to the pixel shift
RIGHT = SAFE_W - 1        # its rightmost drawable column
ELLIPSIS = "…"

DIE = 12                  # die icon size in pixels
DIE_GAP = 3
DICE_Y = 12
BOARD_ROW = 2 * font.BIG_HEIGHT + 1  # one line of the board: a label and double-size digits

_cuts: list[str] | None = None


@contextmanager
def recording_cuts() -> Iterator[list[str]]:
    """Collect every text cut or clipped while drawing (for the tests that check that every
    screen's texts fit): `with recording_cuts() as cuts: render(...)`."""
    global _cuts
    previous, _cuts = _cuts, []
    try:
        yield _cuts
    finally:
        _cuts = previous


def _cut(what: str) -> None:
    if _cuts is not None:
        _cuts.append(what)


def line_y(k: int) -> int:
    """Top of text line k (0..6 on a 64-pixel panel)."""
    return 1 + font.LINE_PITCH * k


class Canvas:
    """A one-bit drawing surface, or a region of one (`sub`), that clips everything to its
    safe area: its last column and row stay dark."""

    def __init__(self, width: int = WIDTH, height: int = HEIGHT, *, px: np.ndarray | None = None,
                 x0: int = 0, y0: int = 0) -> None:
        self.px = np.zeros((height, width), dtype=bool) if px is None else px
        self.x0, self.y0 = x0, y0
        self.w, self.h = width, height

    @property
    def safe_w(self) -> int:
        return self.w - 1

    @property
    def safe_h(self) -> int:
        return self.h - 1

    @property
    def right(self) -> int:
        """The rightmost column text may use."""
        return self.w - 2

    @property
    def bottom_line(self) -> int:
        """Top of the last text line."""
        return self.h - font.LINE_PITCH

    def sub(self, x: int, y: int, width: int, height: int) -> "Canvas":
        """The region (x, y, width, height) of this canvas, drawn in its own coordinates."""
        return Canvas(width, height, px=self.px, x0=self.x0 + x, y0=self.y0 + y)

    def blit(self, bitmap: np.ndarray, x: int, y: int, value: bool = True) -> None:
        h, w = bitmap.shape
        x0, y0 = max(x, 0), max(y, 0)
        x1, y1 = min(x + w, self.safe_w), min(y + h, self.safe_h)
        if x0 >= x1 or y0 >= y1:
            return
        part = bitmap[y0 - y:y1 - y, x0 - x:x1 - x]
        self.px[self.y0 + y0:self.y0 + y1, self.x0 + x0:self.x0 + x1][part] = value

    def fill(self, x0: int, y0: int, x1: int, y1: int, value: bool = True) -> None:
        """Fill the rectangle with corners (x0, y0) and (x1, y1), inclusive."""
        x0, y0 = max(x0, 0), max(y0, 0)
        x1, y1 = min(x1, self.safe_w - 1), min(y1, self.safe_h - 1)
        if x0 <= x1 and y0 <= y1:
            self.px[self.y0 + y0:self.y0 + y1 + 1, self.x0 + x0:self.x0 + x1 + 1] = value

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

    def dotted_hline(self, y: int, x0: int = 0, x1: int | None = None) -> None:
        for x in range(x0, (self.right if x1 is None else x1) + 1, 2):
            self.fill(x, y, x, y)

    def text(self, x: int, y: int, s: str, *, value: bool = True, scale: int = 1) -> int:
        """Draw text with its top at y; returns the x after it. Text running past the right
        edge is clipped, and recorded as a cut."""
        if x + font.text_width(s) * scale > self.safe_w:
            _cut(s)
        for char in s:
            g = font.glyph(char)
            if scale > 1:
                g = np.kron(g, np.ones((scale, scale), dtype=bool))
            self.blit(g, x, y, value)
            x += g.shape[1] + font.SPACING * scale
        return x - font.SPACING * scale if s else x

    def text_right(self, right: int, y: int, s: str, *, value: bool = True) -> int:
        """Draw text ending at column `right` (inclusive); returns its left x."""
        x = right - font.text_width(s) + 1
        if x < 0:
            _cut(s)
        self.text(x, y, s, value=value)
        return x

    def big(self, right: int, y: int, s: str, scale: int = 1) -> int:
        """Large digits ending at column `right`; returns their left x."""
        x = right - big_width(s, scale) + 1
        left = x
        for char in s:
            g = font.big_glyph(char)
            if scale > 1:
                g = np.kron(g, np.ones((scale, scale), dtype=bool))
            self.blit(g, x, y)
            x += g.shape[1] + 2 * scale
        return left

    def image(self) -> Image.Image:
        return Image.fromarray(self.px).convert("1")


def big_width(s: str, scale: int = 1) -> int:
    return font.big_width(s) * scale


def fit(s: str, width: int) -> str:
    """The text, cut with an ellipsis if it is wider than `width` pixels (recorded)."""
    if font.text_width(s) <= width:
        return s
    _cut(s)
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
    if len(lines) > max_lines:
        _cut(s)
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


DICE_RIGHT = dice_x(4) + DIE - 1  # the last column five dice take


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
    x = c.right - 1
    span = bottom - top + 1
    thumb = max(3, span * visible // count)
    start = top + (span - thumb) * first // max(1, count - visible)
    c.fill(x, start, x + 1, start + thumb - 1)


def bar(c: Canvas, y: int, right: int | None = None) -> None:
    """A highlight bar behind the text line whose top is y."""
    c.fill(0, y - 1, c.right if right is None else right, y + 7)


def _hint(c: Canvas, label: Label | None, lang: str) -> None:
    """The one hint line at the bottom."""
    if label is not None:
        c.text(1, c.bottom_line, fit(text(label, lang), c.right - 1))


# --- the board: key numbers in double-size digits on larger panels ---------------------------


def _split(c: Canvas) -> tuple[Canvas, Canvas | None]:
    """(the 128x64 layout's region, the board's region or None). A panel twice as wide as
    128x64 puts the board on the right, one twice as tall on top."""
    if c.w >= 2 * WIDTH:
        return c.sub(0, 0, WIDTH, c.h), c.sub(WIDTH, 0, c.w - WIDTH, c.h)
    if c.h >= 2 * HEIGHT:
        return c.sub(0, HEIGHT, c.w, c.h - HEIGHT), c.sub(0, 0, c.w, HEIGHT)
    return c, None


def _board(c: Canvas, rows: Sequence[tuple[Label, str]], lang: str, name: str | None = None) -> None:
    """Labelled numbers, one a row of BOARD_ROW pixels: the label small at the left, the
    number in double-size digits at the right (single size where a number does not fit);
    under a name in double-size letters when one is given."""
    top = 0
    if name is not None:
        scale = 2 if font.text_width(name) * 2 <= c.right - 2 else 1
        c.text(2, 1 + (font.HEIGHT // 2 if scale == 1 else 0), fit(name, (c.right - 2) // scale), scale=scale)
        top = 2 * font.HEIGHT + 3
    for k, (label, number) in enumerate(rows):
        y = top + k * BOARD_ROW
        if y + BOARD_ROW > c.h:
            _cut(number)
            break
        words = text(label, lang)
        room = c.right - 2 - font.text_width(words) - 6
        scale = 2 if big_width(number, 2) <= room else 1
        c.text(2, y + 2 * font.BIG_HEIGHT - font.ASCENT, fit(words, c.right - 2 - big_width(number, scale) - 6))
        c.big(c.right, y if scale == 2 else y + font.BIG_HEIGHT, number, scale)


# --- screens --------------------------------------------------------------------------------


def render(screen: Screen, lang: str = "es", size: tuple[int, int] = (WIDTH, HEIGHT)) -> Image.Image:
    """The screen as a one-bit image of `size` (width, height): 128x64, 128x128 or 256x64."""
    width, height = size
    if width < WIDTH or height < HEIGHT:
        raise ValueError(f"a panel of {width}x{height} is smaller than {WIDTH}x{HEIGHT}")
    c = Canvas(width, height)
    drawer = _DRAWERS.get(type(screen))
    if drawer is None:
        raise TypeError(f"no renderer for {type(screen).__name__}")
    drawer(c, screen, lang)
    return c.image()


def _selected_points(s: TurnScreen) -> str | None:
    if s.selected is None or not 0 <= s.selected < len(s.options):
        return None
    points = s.options[s.selected].points
    return "--" if points is None else str(points)


def _turn(c: Canvas, s: TurnScreen, lang: str) -> None:
    main, board = _split(c)
    if board is not None:
        rows: list[tuple[Label, str]] = []
        if s.throw > 0:
            rows.append((T("board_throw"), f"{s.throw}/{s.throws}"))
        if s.total is not None:
            rows.append((T("board_total"), str(s.total)))
        points = _selected_points(s)
        if points is not None:
            rows.append((T("board_points"), points))
        # Before the first throw, whose turn it is, in large letters.
        _board(board, rows, lang, name=s.player if s.throw <= 0 else None)
    _turn_main(main, s, lang, big_header=board is None)


def _turn_header(c: Canvas, s: TurnScreen, lang: str, big_header: bool) -> None:
    if big_header:
        # The throw and the player's total in large digits (the key numbers at a table);
        # the name small, on the digits' baseline.
        throw = f"{s.throw}/{s.throws}" if s.throw > 0 else ""
        throw_x = c.big(c.right, 0, throw) if throw else c.safe_w
        x = c.text(1, font.BIG_HEIGHT - font.ASCENT, fit(s.player, throw_x - 6))
        if s.total is not None:
            total = str(s.total)
            if x + 5 + big_width(total) <= throw_x - 6:
                c.big(x + 4 + big_width(total), 0, total)
            else:
                _cut(total)
        return
    # Small header: the name (and total) left, "Throw k of n" right, shorter forms if needed.
    total = f" {s.total}" if s.total is not None else ""
    name_w = font.text_width(s.player)
    choices = [""] if s.throw <= 0 else [text(T("throw_k_of_n", k=s.throw, n=s.throws), lang), f"{s.throw}/{s.throws}"]
    right_text, show_total = choices[-1], False
    for candidate in choices:
        if name_w + font.text_width(total) + 6 + font.text_width(candidate) <= c.right:
            right_text, show_total = candidate, bool(total)
            break
        if name_w + 6 + font.text_width(candidate) <= c.right:
            right_text = candidate
            break
    right_x = c.right - font.text_width(right_text) + 1 if right_text else c.safe_w
    c.text(1, line_y(0), fit(s.player + total if show_total else s.player, right_x - 6))
    if right_text:
        c.text_right(c.right, line_y(0), right_text)


def _turn_main(c: Canvas, s: TurnScreen, lang: str, big_header: bool) -> None:
    _turn_header(c, s, lang, big_header)
    draw_dice(c, s.dice)
    if not s.options:
        # Nothing to pick yet: the message (or the invitation to throw) in the middle.
        prompt = text(s.message, lang) if s.message is not None else text(T("throw_the_dice"), lang)
        first_line = 4
        if not s.dice:
            c.blit(icon("dice"), (c.safe_w - 16) // 2, 14)
        else:
            first_line = 3
        for i, line in enumerate(wrap(prompt, c.right - 1, 3)):
            c.text((c.safe_w - font.text_width(line)) // 2, line_y(first_line + i), line)
        return

    selected = s.selected if s.selected is not None and 0 <= s.selected < len(s.options) else None
    points = _selected_points(s)
    if points is not None and big_header:
        c.big(c.right, DICE_Y + 1, points[-4:])

    top = line_y(3)
    # The message at the bottom, on two lines when it needs them (an option line less).
    message = wrap(text(s.message, lang), c.right - 1, 2) if s.message is not None else []
    visible = (c.h - top - font.LINE_PITCH * len(message)) // font.LINE_PITCH
    first = window(len(s.options), selected, visible)
    scroll = len(s.options) > visible
    right = c.right - 3 if scroll else c.right
    for slot in range(visible):
        index = first + slot
        if index >= len(s.options):
            break
        option = s.options[index]
        y = top + font.LINE_PITCH * slot
        chosen = index == selected
        if chosen:
            bar(c, y, right)
        ink = not chosen
        shown = "--" if option.points is None else str(option.points)
        if not option.allowed:
            shown = f"({shown})"
        px = c.text_right(right - 1, y, shown, value=ink)
        label = text(option.label, lang)
        room = px - 4 - 2
        if option.notes:
            # The note (servida, tachar...) only where the whole name still fits beside it.
            short = note(option.notes[0], lang)
            nx = px - 4 - font.text_width(short)
            if font.text_width(label) <= nx - 4 - 2:
                c.text(nx, y, short, value=ink)
                room = nx - 4 - 2
        c.text(2, y, fit(label, room), value=ink)
    if scroll:
        draw_scrollbar(c, top - 1, top + font.LINE_PITCH * visible - 2, first, visible, len(s.options))
    for i, line in enumerate(message):
        c.text(1, c.bottom_line - font.LINE_PITCH * (len(message) - 1 - i), line)


def _score(c: Canvas, s: ScoreScreen, lang: str) -> None:
    main, board = _split(c)
    if board is not None:
        rows: list[tuple[Label, str]] = []
        if s.points is not None:
            rows.append((T("board_points"), str(s.points)))
        if s.total is not None:
            rows.append((T("board_total"), str(s.total)))
        _board(board, rows, lang)
    big = board is None
    main.text(1, line_y(0), fit(text(s.title, lang), main.right - 1))
    draw_dice(main, s.dice)
    if big and s.points is not None:
        # The points in double-size digits beside the dice.
        main.big(main.right, DICE_Y - 1, str(s.points), 2 if DICE_RIGHT + 4 + big_width(str(s.points), 2)
                 <= main.right else 1)
    y = 35
    if s.total is not None:
        words = text(T("board_total"), lang)
        if big:
            main.text(1, y + font.BIG_HEIGHT - font.ASCENT, words)
            main.big(main.right, y, str(s.total))
        else:
            main.text(1, y + 2, fit(f"{words} {s.total}", main.right - 1))
    if s.note is not None:
        main.text(1, main.bottom_line - font.LINE_PITCH + 1, fit(text(s.note, lang), main.right - 1))
    _hint(main, s.hint, lang)


def _menu(c: Canvas, s: MenuScreen, lang: str) -> None:
    top = 13
    visible = (c.h - top - (font.LINE_PITCH if s.hint is not None else 0)) // font.LINE_PITCH
    count = len(s.items)
    position = f"{s.selected + 1}/{count}" if count > visible else ""
    title_room = c.right - (font.text_width(position) + 4 if position else 0) - 1
    c.text(1, line_y(0), fit(text(s.title, lang), title_room))
    if position:
        c.text_right(c.right, line_y(0), position)
    c.dotted_hline(10)
    first = window(count, s.selected, visible)
    scroll = count > visible
    right = c.right - 3 if scroll else c.right
    for slot in range(visible):
        index = first + slot
        if index >= count:
            break
        item = s.items[index]
        y = top + font.LINE_PITCH * slot
        chosen = index == s.selected
        if chosen:
            bar(c, y, right)
        ink = not chosen
        label = text(item.label, lang)
        room = right - 3
        if item.value is not None:
            value = text(item.value, lang)
            if chosen and s.editing:
                value = f"◀{value}▶"
            # The value takes what the label leaves; a label alone gets the whole line.
            value_room = right - 1 - 2 - (font.text_width(label) + 6 if label else 0)
            vx = c.text_right(right - 1, y, fit(value, value_room), value=ink)
            room = vx - 4 - 2
        c.text(2, y, fit(label, room), value=ink)
    if scroll:
        draw_scrollbar(c, top - 1, top - 1 + font.LINE_PITCH * visible - 1, first, visible, count)
    _hint(c, s.hint, lang)


def _chips(c: Canvas, y: int, labels: Sequence[str], selected: int) -> None:
    widths = [font.text_width(label) + 4 for label in labels]
    gap = 3
    total = sum(widths) + gap * (len(widths) - 1)
    if total > c.right - 1:
        gap = 1
        total = sum(widths) + gap * (len(widths) - 1)
    if total > c.right - 1:
        _cut(" ".join(labels))
    x = max(0, (c.safe_w - total) // 2)
    for i, (label, w) in enumerate(zip(labels, widths)):
        if i == selected:
            c.fill(x, y - 2, x + w - 1, y + 8)
            c.text(x + 2, y, label, value=False)
        else:
            c.rect(x, y - 2, x + w - 1, y + 8)
            c.text(x + 2, y, label)
        x += w + gap


def _correction(c: Canvas, s: CorrectionScreen, lang: str) -> None:
    c.text(1, line_y(0), fit(text(s.title, lang), c.right - 1))
    draw_dice(c, s.dice)
    if s.die is not None and 0 <= s.die < min(5, len(s.dice)):
        x = dice_x(s.die) + DIE // 2
        for row in range(3):  # a small triangle pointing at the die
            c.fill(x - 1 - row, DICE_Y + DIE + 2 + row, x + row, DICE_Y + DIE + 2 + row)
    c.text(1, 30, fit(text(s.prompt, lang), c.right - 1))
    if s.choices:
        _chips(c, 43, [fit(text(choice, lang), 60) for choice in s.choices], s.selected)
    _hint(c, T("hint_edit") if s.choices else T("hint_menu"), lang)


def _confirm(c: Canvas, s: ConfirmScreen, lang: str) -> None:
    c.blit(icon("warning"), 0, 0)
    c.text(20, 5, fit(text(s.title, lang), c.right - 20))
    y, last = 20, c.bottom_line - font.LINE_PITCH
    for label in s.lines:
        for line in wrap(text(label, lang), c.right - 1, 2):
            if y > last:
                _cut(line)
                break
            c.text(1, y, line)
            y += font.LINE_PITCH
    hint = s.hint if s.hint is not None else T("confirm_hold") if s.hold_to_confirm else T("confirm_short")
    _hint(c, hint, lang)


def _name(c: Canvas, s: NameScreen, lang: str) -> None:
    """The name in double-size letters with the character under the cursor after it, and
    the neighbouring choices in a strip below."""
    c.text(1, line_y(0), fit(text(s.title, lang), c.right - 1))
    c.dotted_hline(10)
    current = s.choices[s.selected] if 0 <= s.selected < len(s.choices) else ""
    x = c.text(3, 14, s.name, scale=2) + (4 if s.name else 0)
    width = max(font.text_width(current) * 2, 10) + 4
    c.fill(x - 2, 12, x + width - 3, 30)
    c.text(x, 14, current, value=False, scale=2)
    # The strip: the choices either side of the selected one, as many as fit.
    y = 36
    centre = c.safe_w // 2
    cell = 12
    side = (c.right // cell - 1) // 2
    for offset in range(-side, side + 1):
        choice = s.choices[(s.selected + offset) % len(s.choices)] if s.choices else ""
        cx = centre + offset * cell
        w = font.text_width(choice)
        if offset == 0:
            c.rect(cx - w // 2 - 2, y - 2, cx - w // 2 + w + 1, y + 8)
        c.text(cx - w // 2, y, choice)
    _hint(c, s.hint, lang)


def _ranks(points: Sequence[int]) -> list[int]:
    """Competition ranks in the given (best-first) order: equal points share a rank."""
    ranks: list[int] = []
    for i, p in enumerate(points):
        ranks.append(ranks[-1] if i and p == points[i - 1] else i + 1)
    return ranks


def _game_over(c: Canvas, s: GameOverScreen, lang: str) -> None:
    per_page = (c.h - 11) // font.LINE_PITCH
    pages = max(1, -(-len(s.rows) // per_page))
    page = s.page % pages
    position = f"{page + 1}/{pages}" if pages > 1 else ""
    title = f"{text(s.title, lang)}: {text(s.game, lang)}"
    room = c.right - (font.text_width(position) + 4 if position else 0) - 1
    c.text(1, line_y(0), fit(title, room))
    if position:
        c.text_right(c.right, line_y(0), position)

    ranks = _ranks([row.points for row in s.rows])
    # Nothing is shown for a player who neither pays nor gets anything (never "0,00").
    nets = [money_from_cents(row.net_cents, s.money, lang, signed=True) if row.net_cents else "" for row in s.rows]
    net_w = max((font.text_width(n) for n in nets), default=0)
    pts_w = max((font.text_width(str(row.points)) for row in s.rows), default=0)
    pts_right = c.right - (net_w + 5 if net_w else 0)
    name_room = pts_right - pts_w - 4 - 9
    start = page * per_page
    shown = s.rows[start:start + per_page]
    for slot, row in enumerate(shown):
        index = start + slot
        y = 11 + font.LINE_PITCH * slot
        mark = "★" if row.winner else str(ranks[index])
        c.text(1, y, mark)
        c.text(9, y, fit(row.name, name_room))
        c.text_right(pts_right, y, str(row.points))
        if nets[index]:
            c.text_right(c.right, y, nets[index])
    free = (c.h - 11 - font.LINE_PITCH * len(shown)) // font.LINE_PITCH
    if s.note is not None and free > 0:
        # On two lines where the table leaves them: the flash of the last box filled names its
        # player and box ("WWWWWWWW: tacha Escalera"), too long for one.
        lines = wrap(text(s.note, lang), c.right - 1, min(free, 2))
        for i, line in enumerate(lines):
            c.text(1, c.bottom_line - font.LINE_PITCH * (len(lines) - 1 - i), line)


def _message(c: Canvas, s: MessageScreen, lang: str) -> None:
    title_x = 1
    if s.icon is not None:
        c.blit(icon(s.icon), 0, 0)
        title_x = 20
    c.text(title_x, 5, fit(text(s.title, lang), c.right - title_x))
    most = (c.h - 19) // font.LINE_PITCH
    lines: list[str] = []
    for label in s.lines:
        if len(lines) >= most:
            _cut(text(label, lang))
            continue
        lines += wrap(text(label, lang), c.right - 1, most - len(lines))
    for i, line in enumerate(lines[:most]):
        c.text(1, 19 + font.LINE_PITCH * i, line)


def _qr(c: Canvas, s: QrScreen, lang: str) -> None:
    text_right = c.right
    if s.modules is not None:
        side = len(s.modules) * MODULE_PX
        x0, y0 = c.right - side, (c.safe_h - side) // 2
        dark = np.repeat(np.repeat(np.array(s.modules, bool), MODULE_PX, 0), MODULE_PX, 1)
        c.blit(~dark, x0, y0)  # dark modules unlit on a lit square, as a printed code
        text_right = x0 - 3
    c.text(1, line_y(0), fit(text(s.title, lang), text_right - 1))
    most = (c.h - 1) // font.LINE_PITCH - 1
    lines: list[str] = []
    for label in s.lines:
        lines += wrap(text(label, lang), text_right - 1, 2)
    lines += split_to_width(s.address, text_right - 1)
    if len(lines) > most:
        _cut(s.address)
    for i, line in enumerate(lines[:most]):
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
    ScoreScreen: _score,
    NameScreen: _name,
    GameOverScreen: _game_over,
    MessageScreen: _message,
    QrScreen: _qr,
}
