"""Buttons: press timing (short, long, repeat, debounce) with an injected clock, GPIO buttons and
the rotary encoder through gpiozero's MockFactory, the keyboard through a pipe, and scripts."""

from __future__ import annotations

import os
import time

import pytest
from gpiozero.pins.mock import MockFactory

from hardware.buttons import (
    Press,
    ButtonSettings,
    GpioButtons,
    KeyboardButtons,
    MissableButtons,
    NoButtons,
    PressTracker,
    ResilientButtons,
    RotaryEncoderButtons,
    ScriptedButtons,
    ScriptError,
    open_buttons,
    parse_buttons_spec,
    parse_script,
)


class Clock:
    def __init__(self, t: float = 100.0) -> None:
        self.t = t

    def __call__(self) -> float:
        return self.t


def kinds(events: list[Press]) -> list[tuple[str, str]]:
    return [(e.button, e.kind) for e in events]


# --- the pure press logic -------------------------------------------------------------------


def test_a_quick_press_is_short_and_reported_on_release_after_debounce():
    ok = PressTracker("ok", long_press_s=0.7, debounce_s=0.02)
    assert ok.edge(True, 0.0) == []
    assert ok.poll(0.1) == []
    assert ok.edge(False, 0.2) == []
    assert ok.poll(0.21) == []  # the release is not stable yet
    assert ok.poll(0.23) == [Press("ok", "short", 0.2)]
    assert ok.poll(1.0) == []


def test_holding_ok_gives_one_long_press_at_the_threshold_and_nothing_on_release():
    ok = PressTracker("ok", long_press_s=0.7)
    ok.edge(True, 0.0)
    assert ok.poll(0.69) == []
    assert ok.poll(0.75) == [Press("ok", "long", 0.7)]
    assert ok.poll(3.0) == []
    ok.edge(False, 3.1)
    assert ok.poll(3.5) == []


def test_a_long_press_released_between_polls_is_still_long():
    ok = PressTracker("ok", long_press_s=0.7)
    events = ok.edge(True, 0.0) + ok.edge(False, 0.9) + ok.poll(1.0)
    assert events == [Press("ok", "long", 0.7)]


def test_a_press_shorter_than_the_long_time_is_short_even_if_polled_late():
    ok = PressTracker("ok", long_press_s=0.7)
    events = ok.edge(True, 0.0) + ok.edge(False, 0.5) + ok.poll(2.0)
    assert events == [Press("ok", "short", 0.5)]


def test_a_release_pending_debounce_does_not_turn_a_short_press_long():
    ok = PressTracker("ok", long_press_s=0.7, debounce_s=0.02)
    assert ok.edge(True, 0.0) + ok.edge(False, 0.69) + ok.poll(0.705) == []
    assert kinds(ok.poll(0.72)) == [("ok", "short")]


def test_a_tap_between_two_polls_is_not_lost():
    ok = PressTracker("ok")
    events = ok.edge(True, 0.0) + ok.edge(False, 0.05) + ok.poll(0.5)
    assert kinds(events) == [("ok", "short")]


def test_contact_bounce_gives_one_press():
    ok = PressTracker("ok", debounce_s=0.02)
    events = []
    for i, level in enumerate([True, False, True, False, True]):
        events += ok.edge(level, i * 0.002)
    events += ok.edge(False, 0.3)
    events += ok.edge(True, 0.302)  # bounce on release
    events += ok.edge(False, 0.304)
    events += ok.poll(0.4)
    assert events == [Press("ok", "short", 0.304)]


def test_a_glitch_shorter_than_debounce_is_ignored():
    ok = PressTracker("ok", debounce_s=0.02)
    assert ok.edge(True, 0.0) + ok.edge(False, 0.005) + ok.poll(1.0) == []


def test_holding_next_repeats_from_the_long_time_at_the_repeat_interval():
    nxt = PressTracker("next", long_press_s=0.7, repeat_interval_s=0.2)
    nxt.edge(True, 0.0)
    events = []
    t = 0.0
    while t < 1.55:
        t = round(t + 0.05, 2)
        events += nxt.poll(t)
    assert [e.kind for e in events] == ["repeat"] * 5
    assert [round(e.t, 2) for e in events] == [0.7, 0.9, 1.1, 1.3, 1.5]
    nxt.edge(False, 1.6)
    assert nxt.poll(2.0) == []


def test_after_a_stall_repeats_do_not_pile_up():
    nxt = PressTracker("next", long_press_s=0.7, repeat_interval_s=0.1)
    nxt.edge(True, 0.0)
    assert len(nxt.poll(0.7)) == 1
    assert len(nxt.poll(5.0)) == 1  # the main loop was busy for 4 s: one step, not forty
    assert nxt.poll(5.05) == []
    assert len(nxt.poll(5.1)) == 1


def test_a_button_held_when_tracking_starts_is_ignored_until_released():
    ok = PressTracker("ok", pressed=True, t=0.0)
    assert ok.poll(5.0) + ok.edge(False, 6.0) + ok.poll(6.1) == []
    events = ok.edge(True, 7.0) + ok.edge(False, 7.1) + ok.poll(7.2)
    assert kinds(events) == [("ok", "short")]


# --- GPIO through gpiozero's mock pins ---------------------------------------------------------


@pytest.fixture
def factory():
    pins = MockFactory()
    yield pins
    pins.reset()


def test_gpio_buttons_report_presses_on_their_pins(factory):
    clock = Clock()
    buttons = GpioButtons({"prev": 5, "next": 6, "ok": 13}, factory, clock=clock)
    ok = factory.pin(13)
    ok.drive_low()
    clock.t += 0.1
    ok.drive_high()
    clock.t += 0.05
    assert buttons.events() == [Press("ok", "short", 100.1)]
    prev = factory.pin(5)
    prev.drive_low()
    clock.t += 0.1
    prev.drive_high()
    clock.t += 0.05
    assert kinds(buttons.events()) == [("prev", "short")]
    buttons.close()


def test_gpio_long_ok_is_back_and_held_next_scrolls(factory):
    clock = Clock(0.0)
    buttons = GpioButtons(pin_factory=factory, settings=ButtonSettings(repeat_interval_s=0.2), clock=clock)
    factory.pin(13).drive_low()
    clock.t = 0.8
    assert kinds(buttons.events()) == [("ok", "long")]
    factory.pin(13).drive_high()
    clock.t = 1.0
    assert buttons.events() == []
    factory.pin(6).drive_low()
    seen = []
    for step in range(1, 13):
        clock.t = 1.0 + step * 0.1
        seen += buttons.events()
    assert kinds(seen) == [("next", "repeat")] * 3  # at 1.7, 1.9, 2.1
    factory.pin(6).drive_high()
    clock.t = 3.0
    assert buttons.events() == []
    buttons.close()


def test_gpio_buttons_use_pull_ups_so_a_press_is_a_pin_driven_low(factory):
    buttons = GpioButtons(pin_factory=factory, clock=Clock())
    assert factory.pin(13).pull == "up"
    assert not buttons.buttons["ok"].is_pressed
    buttons.close()


def test_gpio_buttons_need_all_three_pins(factory):
    with pytest.raises(ValueError, match="ok"):
        GpioButtons({"prev": 5, "next": 6}, factory)


def turn(a, b, clockwise: bool) -> None:
    """One detent of a quadrature encoder: A and B go low and back high, A first when clockwise."""
    first, second = (a, b) if clockwise else (b, a)
    first.drive_low()
    second.drive_low()
    first.drive_high()
    second.drive_high()


def test_rotary_encoder_turns_are_prev_next_and_its_switch_is_ok(factory):
    clock = Clock()
    encoder = RotaryEncoderButtons(17, 27, 22, factory, clock=clock)
    a, b, push = factory.pin(17), factory.pin(27), factory.pin(22)
    turn(a, b, clockwise=True)
    turn(a, b, clockwise=True)
    turn(a, b, clockwise=False)
    assert kinds(encoder.events()) == [("next", "short"), ("next", "short"), ("prev", "short")]
    push.drive_low()
    clock.t += 1.0
    assert kinds(encoder.events()) == [("ok", "long")]
    push.drive_high()
    clock.t += 0.1
    assert encoder.events() == []
    encoder.close()


def test_open_buttons_follows_the_config_layout(factory):
    three = open_buttons("gpio", {"layout": "three", "pin_prev": 4, "pin_next": 6, "pin_ok": 13},
                         pin_factory=factory, clock=Clock())
    assert isinstance(three, GpioButtons) and three.buttons["prev"].pin.info.name == "GPIO4"
    three.close()
    encoder = open_buttons("gpio", {"layout": "encoder"}, pin_factory=factory, clock=Clock())
    assert isinstance(encoder, RotaryEncoderButtons)
    encoder.close()
    assert isinstance(open_buttons("none"), NoButtons)


def test_bad_button_specs_say_what_is_allowed():
    with pytest.raises(ValueError, match="keyboard"):
        parse_buttons_spec("joystick")
    assert parse_buttons_spec("script:/tmp/x") == ("script", "/tmp/x")


# --- keyboard -------------------------------------------------------------------------------


def test_keyboard_keys_become_button_events_without_blocking():
    read_fd, write_fd = os.pipe()
    with os.fdopen(read_fd, "rb", buffering=0) as stream:
        keys = KeyboardButtons(stream, clock=Clock())
        assert keys.events() == []  # nothing typed: returns at once
        os.write(write_fd, b"d\x1b[C\x1b[D\r\x7fb")
        assert kinds(keys.events()) == [("next", "short"), ("next", "short"), ("prev", "short"),
                                        ("ok", "short"), ("ok", "long"), ("ok", "long")]
        os.write(write_fd, b"\x1b[")  # an arrow cut in two reads
        assert keys.events() == []
        os.write(write_fd, b"C")
        assert kinds(keys.events()) == [("next", "short")]
        os.close(write_fd)
        assert keys.events() == []  # end of input: quiet from now on
        keys.close()


# --- scripts --------------------------------------------------------------------------------


def test_a_script_is_read_with_relative_times_and_comments():
    events = parse_script("# demo\n1.5 ok short\n+0.5 next\n  \n3 ok long  # back\n")
    assert events == [Press("ok", "short", 1.5), Press("next", "short", 2.0),
                      Press("ok", "long", 3.0)]


@pytest.mark.parametrize("text, fragment", [
    ("1 ok short extra", "expected"),
    ("x ok", "not a time"),
    ("1 up", "unknown button"),
    ("1 ok double", "unknown kind"),
    ("2 ok\n1 ok", "before the previous"),
])
def test_script_errors_name_the_line(text, fragment):
    with pytest.raises(ScriptError, match=fragment) as error:
        parse_script(text, "demo.txt")
    assert "demo.txt:" in str(error.value)


def test_scripted_presses_arrive_when_their_time_comes(tmp_path):
    path = tmp_path / "presses.txt"
    path.write_text("0.5 next\n1.0 ok\n", encoding="utf-8")
    clock = Clock(10.0)
    script = ScriptedButtons(path, clock=clock)
    script.start()
    assert script.events() == []
    clock.t = 10.6
    assert script.events() == [Press("next", "short", 10.5)]
    clock.t = 12.0
    assert kinds(script.events()) == [("ok", "short")]
    assert script.done


def test_a_script_without_a_clock_delivers_one_press_per_poll():
    script = ScriptedButtons([(0, "next", "short"), (5, "ok", "long")], clock=None)
    assert kinds(script.events()) == [("next", "short")]
    assert kinds(script.events()) == [("ok", "long")]
    assert script.events() == [] and script.done


def test_a_missing_script_file_is_a_clear_error(tmp_path):
    with pytest.raises(ScriptError, match="cannot read"):
        ScriptedButtons(tmp_path / "nope.txt")


def test_without_any_input_the_keyboard_is_just_quiet():
    class Closed:
        def fileno(self) -> int:
            raise ValueError("I/O operation on closed file")

    keys = KeyboardButtons(Closed())
    assert keys.events() == []
    keys.close()


def test_on_a_terminal_keys_arrive_unbuffered_and_the_terminal_is_restored():
    import pty
    import termios

    master, slave = pty.openpty()
    try:
        with os.fdopen(slave, "rb", buffering=0, closefd=False) as stream:
            before = termios.tcgetattr(slave)
            assert before[3] & termios.ICANON
            keys = KeyboardButtons(stream, clock=Clock())
            during = termios.tcgetattr(slave)
            assert not during[3] & termios.ICANON and not during[3] & termios.ECHO
            assert during[3] & termios.ISIG  # Ctrl-C still stops the program
            os.write(master, b"d")  # no Enter needed
            deadline = time.monotonic() + 2
            events = []
            while not events and time.monotonic() < deadline:
                events = keys.events()
            assert kinds(events) == [("next", "short")]
            keys.close()
            assert termios.tcgetattr(slave)[3] == before[3]
    finally:
        os.close(master)
        os.close(slave)


def test_only_sources_that_can_lack_buttons_say_whether_they_are_missing() -> None:
    """The service shows "no buttons" for these (MissableButtons) and never for the others."""
    def broken() -> GpioButtons:
        raise RuntimeError("no GPIO here")

    resilient = ResilientButtons(broken, "buttons (test)")
    assert isinstance(resilient, MissableButtons) and resilient.missing == "RuntimeError: no GPIO here"
    assert isinstance(NoButtons(), MissableButtons) and NoButtons().missing
    assert not isinstance(ScriptedButtons([(0.0, "ok", "short")]), MissableButtons)
