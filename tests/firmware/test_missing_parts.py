"""A missing part is a message and a retry, never an exit: buttons that cannot be opened,
and what the device does without them (it scores each throw and says where they go)."""

from __future__ import annotations

from pathlib import Path

from gpiozero.pins.mock import MockFactory

from firmware.appliance import ButtonsBack, ButtonsMissing, Tick
from firmware.appliance.menus import MainMenu
from firmware.appliance.no_buttons import ScoreWithoutButtons
from firmware.ui import render
from firmware.ui.screens import MessageScreen, TurnScreen
from hardware.buttons import Press, ResilientButtons, open_buttons
from tests.firmware.appliance_support import later, new_app, press, seen


class Clock:
    def __init__(self) -> None:
        self.t = 0.0

    def __call__(self) -> float:
        return self.t


def test_buttons_that_cannot_be_opened_are_retried_and_come_back() -> None:
    clock = Clock()
    factory = MockFactory()
    attempts: list[int] = []

    def opener():  # type: ignore[no-untyped-def]
        attempts.append(1)
        if len(attempts) < 3:
            raise RuntimeError("no GPIO here")
        return open_buttons("gpio", pin_factory=factory, clock=clock)

    buttons = ResilientButtons(opener, "buttons (gpio)", retry_s=5.0, clock=clock)
    assert buttons.missing == "RuntimeError: no GPIO here" and buttons.events() == []
    clock.t = 4.0
    assert buttons.events() == [] and len(attempts) == 1  # not before retry_s
    clock.t = 5.0
    buttons.events()
    assert len(attempts) == 2 and buttons.missing
    clock.t = 10.0
    assert buttons.events() == [] and buttons.missing == ""
    pin = factory.pin(13)
    pin.drive_low()
    clock.t = 10.1
    pin.drive_high()
    clock.t = 10.15  # past the debounce time
    assert buttons.events() == [Press("ok", "short", 10.1)]
    buttons.close()


def test_a_source_that_fails_later_is_dropped_and_reopened() -> None:
    clock = Clock()

    class Flaky:
        def __init__(self) -> None:
            self.calls = 0

        def events(self) -> list[Press]:
            raise OSError("wire pulled")

        def close(self) -> None:
            pass

    buttons = ResilientButtons(Flaky, "buttons", retry_s=1.0, clock=clock)
    assert buttons.missing == ""
    assert buttons.events() == [] and buttons.missing == "OSError: wire pulled"


def test_without_buttons_the_device_scores_each_throw_and_says_where_they_go(tmp_path: Path) -> None:
    app = new_app(tmp_path)
    assert isinstance(app.mode, MainMenu)
    app.handle(ButtonsMissing("BadPinFactory", (5, 6, 13)))
    assert isinstance(app.mode, ScoreWithoutButtons) and "(no buttons)" in app.status()
    screen = app.screen()
    assert isinstance(screen, TurnScreen) and screen.message.en == "Buttons: GPIO 5 6 13"
    app.handle(seen([6, 6, 6, 6, 6]))
    screen = app.screen()
    assert screen.options[0].label.en == "Generala" and screen.options[0].points > 0
    assert [d.value for d in screen.dice] == [6, 6, 6, 6, 6]
    render(screen, "es")
    render(screen, "en")
    app.handle(seen([6, 6, 6]))
    assert app.screen().message.en == "3 of 5 dice seen"
    assert app.log.games() == []  # nothing is recorded without buttons
    app.handle(ButtonsBack())
    assert isinstance(app.mode, MainMenu) and app.flash_label.en == "Buttons ready"


def test_buttons_lost_in_a_game_are_a_notice_and_the_game_goes_on(tmp_path: Path) -> None:
    app = new_app(tmp_path)
    press(app, "ok", "prev", "ok")  # new game, start
    later(app)
    app.handle(seen([1, 2, 3, 4, 5]))
    app.handle(ButtonsMissing("OSError", (5, 6, 13)))
    screen = app.screen()
    assert isinstance(screen, MessageScreen) and screen.title.en == "No buttons"
    assert screen.lines[0].en == "Buttons: GPIO 5 6 13"
    app.handle(Tick(app.now + 31))
    screen = app.screen()
    assert isinstance(screen, TurnScreen) and screen.options  # the throw's options still show
