"""The keys of the playable demo: the device's three buttons, and what the players do at the
tray (throw, set dice aside), and quitting.

Every key answers on the demo's status line, the ones that do nothing included, so a key
never seems lost (Esc while the dice roll says that the device is waiting for them).
`DemoKeys` is a button source (events() / close()): the button keys become presses for the
device; the tray keys act on the `LiveTable` at once. Keys are read from a file descriptor
(the terminal, put in cbreak mode, or a pipe in tests), never blocking.
"""

from __future__ import annotations

import atexit
import os
import select
import sys
import termios
import time
import tty
from typing import Any, Callable

from hardware.buttons import KEYS, Press
from lab.sessions.live import LiveTable

THROW_KEYS = (b"t", b"T")
QUIT_KEYS = (b"q", b"Q", b"\x03")
ASIDE_KEYS = {str(n).encode(): n for n in range(1, 6)}
BUTTON_WORDS = {("prev", "short"): "previous", ("next", "short"): "next", ("ok", "short"): "OK",
                ("ok", "long"): "back (a long OK)"}
KEY_NAMES = {b"\x1b[D": "←", b"\x1b[C": "→", b"\x1b[A": "↑", b"\x1b[B": "↓", b"\r": "Enter", b"\n": "Enter",
             b" ": "space", b"\x1b": "Esc", b"\x7f": "Backspace", b"\x08": "Backspace"}
HELP_LINES = (
    "t throw   1-5 set a die aside / back   ←/a prev   →/d next   Enter/space OK",
    "Esc/b back (long OK)   q quit",
)


def key_name(key: bytes) -> str:
    if key in KEY_NAMES:
        return KEY_NAMES[key]
    text = key.decode("utf-8", "replace")
    return text if text.isprintable() else repr(text)


def split_keys(data: bytes) -> tuple[list[bytes], bytes]:
    """The keys in `data` (an arrow is one key) and what is left of an escape sequence cut
    between two reads."""
    keys: list[bytes] = []
    i = 0
    while i < len(data):
        if data[i:i + 1] == b"\x1b" and data[i + 1:i + 2] in (b"[", b"O"):
            if i + 2 >= len(data):
                return keys, data[i:]
            keys.append(data[i:i + 3].replace(b"\x1bO", b"\x1b["))
            i += 3
        else:
            keys.append(data[i:i + 1])
            i += 1
    return keys, b""


class DemoKeys:
    """Keys of the terminal (or of a pipe) for the playable demo.

    table: the tray the throw and aside keys act on. busy: whether the device waits for the
    dice (its presses are then refused, and the status line says why). on_quit: called for q.
    `status` is the line the screen shows under the display; `changed` is called whenever it
    changes (and on every poll), so the screen redraws even when the device's frame does not.
    turn: whose turn it is (any value); when it changes, the dice set aside go back into the throw.
    """

    def __init__(self, table: LiveTable, *, stream: Any = None, busy: Callable[[], bool] = lambda: False,
                 on_quit: Callable[[], None] = lambda: None, changed: Callable[[], None] = lambda: None,
                 turn: Callable[[], object] = lambda: None, clock: Callable[[], float] = time.monotonic) -> None:
        self.table = table
        self.busy = busy
        self.on_quit = on_quit
        self.changed = changed
        self.turn = turn
        self.clock = clock
        self.status = "Enter opens the menu's choice (a new game); t throws the dice."
        self._turn: object = None
        self._buffer = b""
        self._saved: Any = None
        stream = stream if stream is not None else sys.stdin
        try:
            self.fd: int | None = stream if isinstance(stream, int) else stream.fileno()
        except (AttributeError, OSError, ValueError):
            self.fd = None
            return
        if os.isatty(self.fd):
            self._saved = termios.tcgetattr(self.fd)
            tty.setcbreak(self.fd)
            atexit.register(self._restore)

    def events(self) -> list[Press]:
        turn = self.turn()
        if turn != self._turn:
            self._turn = turn
            self.table.clear_aside()
        self.changed()  # the tray may have settled, the terminal may have been resized
        if self.fd is None:
            return []
        data = self._buffer
        while select.select([self.fd], [], [], 0)[0]:
            chunk = os.read(self.fd, 64)
            if not chunk:
                self.fd = None
                break
            data += chunk
        keys, self._buffer = split_keys(data)
        presses: list[Press] = []
        for key in keys:
            press = self.key(key)
            if press is not None:
                presses.append(press)
        return presses

    def key(self, key: bytes) -> Press | None:
        """One key: its press for the device, if it is a button; the status line says what it did."""
        name = key_name(key)
        if key in KEYS:
            button, kind = KEYS[key]
            words = BUTTON_WORDS[(button, kind)]
            if self.table.moving or self.busy():
                self._say(f"{name}: {words}; the dice are still moving, the device waits for them")
            else:
                self._say(f"{name}: {words}")
            return Press(button, kind, self.clock())
        if key in THROW_KEYS:
            self._throw(name)
        elif key in ASIDE_KEYS:
            self._aside(name, ASIDE_KEYS[key])
        elif key in QUIT_KEYS:
            self._say("q: quitting")
            self.on_quit()
        else:
            self._say(f"{name}: not a key of the demo (t, 1-5, arrows, Enter, Esc, q)")
        return None

    def _throw(self, name: str) -> None:
        if self.table.moving:
            self._say(f"{name}: the dice are still rolling; throw again once they stop")
            return
        values = self.table.throw()
        if values is None:
            self._say(f"{name}: every die is set aside; press 1-5 to take one back, then t")
            return
        thrown = sum(v is not None for v in values)
        kept = len(values) - thrown
        self._say(f"{name}: {thrown} dice thrown" + (f", {kept} kept aside" if kept else ""))

    def _aside(self, name: str, number: int) -> None:
        if self.table.moving:
            self._say(f"{name}: wait until the dice stop")
            return
        die = self.table.toggle_aside(number)
        if die is None:
            self._say(f"{name}: no die {number} on the tray")
        else:
            self._say(f"{name}: die {number} (a {die.value}) " + ("set aside" if die.aside else "back in the throw"))

    def _say(self, text: str) -> None:
        self.status = text
        self.changed()

    def tray_line(self) -> str:
        """The dice on the tray, left to right; those set aside in brackets."""
        if self.table.moving:
            return "Tray: rolling ..."
        dice = self.table.dice()
        if not dice:
            return "Tray: empty"
        return "Tray: " + " ".join(f"{d.number}:[{d.value}]" if d.aside else f"{d.number}: {d.value} "
                                   for d in dice) + "   [ ] = set aside"

    def _restore(self) -> None:
        if self._saved is not None and self.fd is not None:
            try:
                termios.tcsetattr(self.fd, termios.TCSADRAIN, self._saved)
            except Exception:  # the terminal may be gone
                pass
        self._saved = None

    def close(self) -> None:
        self._restore()
        self.fd = None
