"""Button sources: GPIO push buttons, a rotary encoder, the terminal keyboard, and a script.

Every source is polled with `events()` (non-blocking) and gives `Press(button, kind, t)`:
button "prev" | "next" | "ok"; kind "short" (released before the long-press time),
"long" (held for the long-press time; reported once, as soon as it is reached, not on
release), "repeat" (a repeating button held down: first at the long-press time, then every
repeat interval). By default prev and next repeat and ok does not, so a long ok means
"back" and holding next scrolls.

The press logic (`PressTracker`) is pure and takes times from an injected clock, so long
presses and repeats are tested without sleeping. Debouncing is done there too, from edge
times: a level counts once it has been stable for `debounce_s`.
"""

from __future__ import annotations

import atexit
import logging
import os
import select
import sys
import threading
import time
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable, Mapping, Protocol, runtime_checkable

log = logging.getLogger("cubilete.buttons")

Clock = Callable[[], float]

BUTTONS = ("prev", "next", "ok")
KINDS = ("short", "long", "repeat")


@dataclass(frozen=True)
class Press:
    """A button: "prev" | "next" | "ok", kind "short" | "long" | "repeat", at time t (the
    one label type: what the buttons report is what the appliance reacts to)."""

    button: str
    kind: str = "short"
    t: float = 0.0


class ButtonSource(Protocol):
    """What every source of presses offers: the presses since the last call, and closing."""

    def events(self) -> list[Press]: ...

    def close(self) -> None: ...


@runtime_checkable
class MissableButtons(ButtonSource, Protocol):
    """A source that knows when there are no buttons to read (ResilientButtons, NoButtons):
    `missing` is why ("" while they work), which the service shows with how to wire them."""

    missing: str


@dataclass(frozen=True)
class ButtonSettings:
    """How the buttons are wired and how presses are timed (the config's [buttons] section).

    layout "three": pins["prev"], pins["next"], pins["ok"] are BCM numbers of push buttons
    wired to ground (internal pull-ups); by default 5, 6, 13 (header pins 29, 31, 33). layout "encoder": encoder_pins["a"], ["b"] are the
    encoder's A/B (CLK/DT) and ["push"] its switch; clockwise = next unless reverse_encoder.
    """

    layout: str = "three"
    pins: Mapping[str, int] = field(default_factory=lambda: {"prev": 5, "next": 6, "ok": 13})
    encoder_pins: Mapping[str, int] = field(default_factory=lambda: {"a": 17, "b": 27, "push": 22})
    reverse_encoder: bool = False
    long_press_s: float = 0.7
    repeat_interval_s: float = 0.15
    debounce_s: float = 0.02
    repeating: tuple[str, ...] = ("prev", "next")
    pull_up: bool = True

    @classmethod
    def from_mapping(cls, values: Mapping[str, Any]) -> "ButtonSettings":
        """Settings from the config's [buttons] section: layout, pin_prev / pin_next / pin_ok,
        pin_a / pin_b / pin_push, long_press_s, repeat_s, bounce_s (field names work too)."""
        aliases = {"repeat_s": "repeat_interval_s", "bounce_s": "debounce_s"}
        kwargs: dict[str, Any] = {}
        pins = dict(cls().pins)
        encoder_pins = dict(cls().encoder_pins)
        for key, value in values.items():
            if key in ("pin_prev", "pin_next", "pin_ok"):
                pins[key[4:]] = int(value)
            elif key in ("pin_a", "pin_b", "pin_push"):
                encoder_pins[key[4:]] = int(value)
            else:
                name = aliases.get(key, key)
                if name in cls.__dataclass_fields__:
                    kwargs[name] = tuple(value) if name == "repeating" else value
        kwargs.setdefault("pins", pins)
        kwargs.setdefault("encoder_pins", encoder_pins)
        return cls(**kwargs)


class PressTracker:
    """Turns one button's edges into short / long / repeat events. Pure: times are given.

    `edge(pressed, t)` for each level change seen (duplicates are harmless), `poll(now)`
    regularly. A button already down when tracking starts is ignored until released.
    """

    def __init__(self, button: str, *, long_press_s: float = 0.7, repeat_interval_s: float | None = None,
                 debounce_s: float = 0.02, pressed: bool = False, t: float = 0.0) -> None:
        self.button = button
        self.long_press_s = long_press_s
        self.repeat_interval_s = repeat_interval_s
        self.debounce_s = debounce_s
        self._raw = self._stable = pressed
        self._raw_t = self._press_t = t
        self._long_done = pressed  # held at start-up (or stuck): no events until released
        self._next_repeat: float | None = None

    @property
    def pressed(self) -> bool:
        return self._stable

    def edge(self, pressed: bool, t: float) -> list[Press]:
        if pressed == self._raw:
            return []
        out: list[Press] = []
        if t - self._raw_t >= self.debounce_s:
            out += self._commit(self._raw, self._raw_t)
        if self._stable and self._raw:  # the press lasted until this edge
            out += self._timed(t)
        self._raw, self._raw_t = pressed, t
        return out

    def poll(self, now: float) -> list[Press]:
        out: list[Press] = []
        if self._raw != self._stable and now - self._raw_t >= self.debounce_s:
            if self._stable:
                out += self._timed(self._raw_t)
            out += self._commit(self._raw, self._raw_t)
        if self._stable:
            # While a release is pending debounce, the press ended at the release edge.
            out += self._timed(now if self._raw else self._raw_t)
        return out

    def _commit(self, pressed: bool, t: float) -> list[Press]:
        if pressed == self._stable:
            return []
        self._stable = pressed
        if pressed:
            self._press_t, self._long_done, self._next_repeat = t, False, None
            return []
        if self._long_done:
            return []
        if t - self._press_t >= self.long_press_s:
            return [self._held_event(t)]
        return [Press(self.button, "short", t)]

    def _timed(self, now: float) -> list[Press]:
        if not self._long_done:
            threshold = self._press_t + self.long_press_s
            if now < threshold:
                return []
            self._long_done = True
            if self.repeat_interval_s:
                self._next_repeat = threshold + self.repeat_interval_s
            return [self._held_event(threshold)]
        if self._next_repeat is not None and self.repeat_interval_s and now >= self._next_repeat:
            t = self._next_repeat
            self._next_repeat = t + self.repeat_interval_s
            if self._next_repeat <= now:
                # One repeat per poll: after a stall the list must not jump by many items at once.
                self._next_repeat = now + self.repeat_interval_s
            return [Press(self.button, "repeat", t)]
        return []

    def _held_event(self, t: float) -> Press:
        return Press(self.button, "repeat" if self.repeat_interval_s else "long", t)


def _tracker(button: str, settings: ButtonSettings, pressed: bool, t: float) -> PressTracker:
    return PressTracker(
        button,
        long_press_s=settings.long_press_s,
        repeat_interval_s=settings.repeat_interval_s if button in settings.repeating else None,
        debounce_s=settings.debounce_s,
        pressed=pressed,
        t=t,
    )


class _TrackedSource:
    """Shared plumbing: trackers fed from gpiozero's callback thread, polled by the main loop."""

    def __init__(self, clock: Clock) -> None:
        self.clock = clock
        self._lock = threading.Lock()
        self._pending: list[Press] = []
        self._trackers: dict[str, PressTracker] = {}

    def _edge(self, button: str, pressed: bool) -> None:
        with self._lock:
            self._pending += self._trackers[button].edge(pressed, self.clock())

    def _emit(self, event: Press) -> None:
        with self._lock:
            self._pending.append(event)

    def events(self) -> list[Press]:
        now = self.clock()
        with self._lock:
            out, self._pending = self._pending, []
            for tracker in self._trackers.values():
                out += tracker.poll(now)
        return sorted(out, key=lambda e: e.t)


class GpioButtons(_TrackedSource):
    """Three push buttons on BCM pins, each between its pin and ground (internal pull-up).

    pins: {"prev": 5, "next": 6, "ok": 13} by default. Tests pass gpiozero's MockFactory as
    pin_factory and drive the pins low (pressed) and high (released).
    """

    def __init__(self, pins: Mapping[str, int] | None = None, pin_factory: Any = None, *,
                 settings: ButtonSettings = ButtonSettings(), clock: Clock = time.monotonic) -> None:
        from gpiozero import Button  # noqa: PLC0415

        super().__init__(clock)
        pins = dict(pins if pins is not None else settings.pins)
        missing = [b for b in BUTTONS if b not in pins]
        if missing:
            raise ValueError(f"buttons: no pin for {', '.join(missing)} (need prev, next and ok)")
        self.buttons: dict[str, Any] = {}
        try:
            for name in BUTTONS:
                # bounce_time stays None: debouncing is done from edge times in PressTracker,
                # where it cannot lose a release edge.
                button = Button(pins[name], pull_up=settings.pull_up, bounce_time=None, pin_factory=pin_factory)
                self.buttons[name] = button
                self._trackers[name] = _tracker(name, settings, button.is_pressed, clock())
                button.when_pressed = lambda _d=None, n=name: self._edge(n, True)
                button.when_released = lambda _d=None, n=name: self._edge(n, False)
        except Exception:
            self.close()
            raise

    def close(self) -> None:
        for button in self.buttons.values():
            button.close()
        self.buttons.clear()


class RotaryEncoderButtons(_TrackedSource):
    """A rotary encoder with a push switch: a click of rotation is a short prev/next, the switch is ok."""

    def __init__(self, a: int, b: int, push: int, pin_factory: Any = None, *,
                 settings: ButtonSettings = ButtonSettings(), clock: Clock = time.monotonic) -> None:
        from gpiozero import Button, RotaryEncoder  # noqa: PLC0415

        super().__init__(clock)
        self.encoder: Any = None
        self.push: Any = None
        try:
            self.encoder = RotaryEncoder(a, b, max_steps=0, pin_factory=pin_factory)
            clockwise, counter = ("prev", "next") if settings.reverse_encoder else ("next", "prev")
            self.encoder.when_rotated_clockwise = lambda: self._emit(Press(clockwise, "short", self.clock()))
            self.encoder.when_rotated_counter_clockwise = lambda: self._emit(Press(counter, "short", self.clock()))
            self.push = Button(push, pull_up=settings.pull_up, bounce_time=None, pin_factory=pin_factory)
            push_settings = ButtonSettings(long_press_s=settings.long_press_s, debounce_s=settings.debounce_s,
                                           repeating=())
            self._trackers["ok"] = _tracker("ok", push_settings, self.push.is_pressed, clock())
            self.push.when_pressed = lambda _d=None: self._edge("ok", True)
            self.push.when_released = lambda _d=None: self._edge("ok", False)
        except Exception:
            self.close()
            raise

    def close(self) -> None:
        for device in (self.encoder, self.push):
            if device is not None:
                device.close()
        self.encoder = self.push = None


# --- the terminal keyboard ------------------------------------------------------------------

KEYS: Mapping[bytes, tuple[str, str]] = {
    b"\x1b[D": ("prev", "short"), b"\x1b[A": ("prev", "short"), b"a": ("prev", "short"),
    b"h": ("prev", "short"), b"-": ("prev", "short"), b",": ("prev", "short"),
    b"\x1b[C": ("next", "short"), b"\x1b[B": ("next", "short"), b"d": ("next", "short"),
    b"l": ("next", "short"), b"+": ("next", "short"), b".": ("next", "short"),
    b"\r": ("ok", "short"), b"\n": ("ok", "short"), b" ": ("ok", "short"), b"o": ("ok", "short"),
    b"\x1b": ("ok", "long"), b"\x7f": ("ok", "long"), b"\x08": ("ok", "long"), b"b": ("ok", "long"),
    b"O": ("ok", "long"),
}
KEYS_HELP = "keys: ← / a = prev, → / d = next, Enter / space = OK, Esc / Backspace / b = back (long OK)"


class KeyboardButtons:
    """Keys of the terminal as buttons (see KEYS_HELP). Never blocks.

    When the input is a terminal it is put in cbreak mode (keys arrive at once, no echo;
    Ctrl-C still interrupts) and restored on close and at exit. Input that is not a terminal
    (a pipe in tests) is read as it is.
    """

    def __init__(self, stream: Any = None, clock: Clock = time.monotonic) -> None:
        self.stream = stream if stream is not None else sys.stdin
        self.clock = clock
        self._saved: Any = None
        self._buffer = b""
        try:
            self.fd: int | None = self.stream.fileno()
        except (AttributeError, OSError, ValueError):  # no stdin at all (a daemon): no keys
            self.fd = None
            return
        if os.isatty(self.fd):
            import termios  # noqa: PLC0415
            import tty  # noqa: PLC0415

            self._saved = termios.tcgetattr(self.fd)
            tty.setcbreak(self.fd)
            atexit.register(self._restore)

    def events(self) -> list[Press]:
        if self.fd is None:
            return []
        while select.select([self.fd], [], [], 0)[0]:
            chunk = os.read(self.fd, 64)
            if not chunk:  # end of input: nothing more will come
                self.fd = None
                break
            self._buffer += chunk
        return self._parse(self.clock())

    def _parse(self, t: float) -> list[Press]:
        out: list[Press] = []
        data, self._buffer = self._buffer, b""
        i = 0
        while i < len(data):
            if data[i:i + 1] == b"\x1b" and data[i + 1:i + 2] in (b"[", b"O"):
                if i + 2 >= len(data):  # an escape sequence cut between reads: keep it
                    self._buffer = data[i:]
                    break
                key, i = data[i:i + 3].replace(b"\x1bO", b"\x1b["), i + 3
            else:
                key, i = data[i:i + 1], i + 1
            if key in KEYS:
                button, kind = KEYS[key]
                out.append(Press(button, kind, t))
        return out

    def _restore(self) -> None:
        if self._saved is not None and self.fd is not None:
            import termios  # noqa: PLC0415

            try:
                termios.tcsetattr(self.fd, termios.TCSADRAIN, self._saved)
            except Exception:  # the terminal may be gone (SSH dropped)
                pass
        self._saved = None

    def close(self) -> None:
        self._restore()
        self.fd = None


# --- a script of timed presses --------------------------------------------------------------


class ScriptError(ValueError):
    """A line of a button script is wrong; the message names the file and line."""


def parse_script(text: str, source: str = "<script>") -> list[Press]:
    """Lines `TIME BUTTON [KIND]`: `1.5 ok short`, `+0.8 next` (0.8 s after the previous line).

    TIME is seconds from the start of the script; KIND defaults to short; # starts a comment.
    """
    events: list[Press] = []
    last = 0.0
    for number, line in enumerate(text.splitlines(), 1):
        words = line.split("#", 1)[0].split()
        if not words:
            continue
        where = f"{source}:{number}"
        if len(words) not in (2, 3):
            raise ScriptError(f"{where}: expected 'TIME BUTTON [KIND]', got {line.strip()!r}")
        stamp, button = words[0], words[1].lower()
        kind = words[2].lower() if len(words) == 3 else "short"
        try:
            t = last + float(stamp[1:]) if stamp.startswith("+") else float(stamp)
        except ValueError:
            raise ScriptError(f"{where}: {stamp!r} is not a time in seconds") from None
        if t < last:
            raise ScriptError(f"{where}: time {t:g} is before the previous line's {last:g}")
        if button not in BUTTONS:
            raise ScriptError(f"{where}: unknown button {button!r} (prev, next, ok)")
        if kind not in KINDS:
            raise ScriptError(f"{where}: unknown kind {kind!r} (short, long, repeat)")
        events.append(Press(button, kind, t))
        last = t
    return events


class ScriptedButtons:
    """Presses from a script, each delivered once the clock reaches its time.

    script: a path to a script file, or events / (t, button, kind) tuples. Times count from
    `start()`, or from the first `events()` call if start() was not called. With
    `clock=None` the script is delivered in order ignoring time, one press per events() call
    (handy for stepping a demo as fast as it can go).
    """

    def __init__(self, script: str | Path | Iterable[Press | tuple[float, str, str]],
                 clock: Clock | None = time.monotonic) -> None:
        if isinstance(script, (str, Path)):
            path = Path(script)
            try:
                text = path.read_text(encoding="utf-8")
            except OSError as error:
                raise ScriptError(f"{path}: cannot read the button script ({error.strerror})") from None
            self.script = parse_script(text, str(path))
        else:
            self.script = [e if isinstance(e, Press) else Press(e[1], e[2], float(e[0])) for e in script]
            bad = [e for e in self.script if e.button not in BUTTONS or e.kind not in KINDS]
            if bad:
                raise ScriptError(f"bad scripted presses: {bad}")
        self.clock = clock
        self._t0: float | None = None
        self._next = 0

    def start(self, t0: float | None = None) -> None:
        if self.clock is not None:
            self._t0 = self.clock() if t0 is None else t0

    @property
    def done(self) -> bool:
        return self._next >= len(self.script)

    def events(self) -> list[Press]:
        if self.done:
            return []
        if self.clock is None:
            self._next += 1
            return [self.script[self._next - 1]]
        if self._t0 is None:
            self.start()
        assert self._t0 is not None
        elapsed = self.clock() - self._t0
        out: list[Press] = []
        while not self.done and self.script[self._next].t <= elapsed:
            e = self.script[self._next]
            out.append(Press(e.button, e.kind, self._t0 + e.t))
            self._next += 1
        return out

    def close(self) -> None:
        self._next = len(self.script)


class NoButtons:
    """No buttons at all (a display-only run): the service shows that, as for missing ones."""

    missing = "no buttons (buttons.spec = \"none\")"

    def events(self) -> list[Press]:
        return []

    def close(self) -> None:
        pass


class ResilientButtons:
    """Buttons that may be missing: opened by `factory`, reopened every `retry_s` seconds after
    any failure (no GPIO on this machine, a pin busy, a wire pulled), never raising.

    `missing` is the reason while there are no buttons ("" when they work); the service
    shows it with how to wire them. While missing, `events()` returns nothing.
    """

    def __init__(self, factory: Callable[[], ButtonSource], description: str, *, retry_s: float = 10.0,
                 clock: Clock = time.monotonic) -> None:
        self.factory = factory
        self.description = description
        self.retry_s = retry_s
        self.clock = clock
        self.missing = ""
        self._source: ButtonSource | None = None
        self._retry_at = 0.0
        self._closed = False
        self._open()

    def _open(self) -> None:
        self._retry_at = self.clock() + self.retry_s
        try:
            with warnings.catch_warnings():  # gpiozero warns of each pin library it tries; the reason says it
                warnings.simplefilter("ignore")
                self._source = self.factory()
        except Exception as error:  # gpiozero raises many kinds (BadPinFactory, PinInvalidPin...)
            self._fail(error)
            return
        if self.missing:
            log.info("%s: working again", self.description)
        self.missing = ""

    def _fail(self, error: Exception) -> None:
        reason = f"{type(error).__name__}: {error}" if str(error) else type(error).__name__
        if reason != self.missing:
            log.error("%s unavailable (%s); retrying every %g s", self.description, reason, self.retry_s)
        self.missing = reason
        self._source = None

    def events(self) -> list[Press]:
        if self._closed:
            return []
        if self._source is None:
            if self.clock() >= self._retry_at:
                self._open()
            if self._source is None:
                return []
        try:
            return self._source.events()
        except Exception as error:
            source, self._source = self._source, None
            try:
                source.close()
            except Exception:
                pass
            self._retry_at = self.clock() + self.retry_s
            self._fail(error)
            return []

    def close(self) -> None:
        self._closed = True
        if self._source is not None:
            self._source.close()
            self._source = None


BUTTONS_SPEC_HELP = 'buttons spec: "gpio" (layout from the config), "three", "encoder", "keyboard", "script:FILE", "none"'


def parse_buttons_spec(spec: str) -> tuple[str, str | None]:
    """(kind, argument) of a buttons spec, without opening anything. Raises ValueError."""
    kind, _, rest = spec.strip().partition(":")
    kind = kind.lower()
    if kind in ("gpio", "three", "encoder", "keyboard", "none") and not rest:
        return kind, None
    if kind == "script" and rest:
        return kind, rest
    raise ValueError(f"{spec!r} is not a button source; {BUTTONS_SPEC_HELP}")


def open_buttons(spec: str, settings: ButtonSettings | Mapping[str, Any] | None = None, *,
                 pin_factory: Any = None, clock: Clock = time.monotonic) -> ButtonSource:
    """The button source a spec names. Raises ValueError for a bad spec or settings."""
    if settings is None:
        settings = ButtonSettings()
    elif not isinstance(settings, ButtonSettings):
        settings = ButtonSettings.from_mapping(settings)
    kind, argument = parse_buttons_spec(spec)
    if kind == "gpio":
        kind = "encoder" if settings.layout == "encoder" else "three"
    if kind == "three":
        return GpioButtons(settings.pins, pin_factory, settings=settings, clock=clock)
    if kind == "encoder":
        pins = settings.encoder_pins
        return RotaryEncoderButtons(pins["a"], pins["b"], pins["push"], pin_factory, settings=settings, clock=clock)
    if kind == "keyboard":
        return KeyboardButtons(clock=clock)
    if kind == "script":
        assert argument is not None
        return ScriptedButtons(argument, clock=clock)
    return NoButtons()

