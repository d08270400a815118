"""The appliance's state machine: inputs in, one screen out.

`Appliance.handle(input)` feeds it buttons, throws, the camera's state, USB export results
and the time; `Appliance.screen()` is what the display shows now. The current mode (menu,
turn, correction, final table...) decides what inputs mean; on top of it the machine keeps
the things that concern every mode: the camera-lost warning, USB export messages, start-up
notices (a bad config, a log moved aside), short messages that fade, and the guard that
refuses to record anything while dice are rolling.

At start the unfinished game in the log, if any, is replayed and the machine lands on the
screen it showed before (the turn, the question about an unsure die, the final table, the
turn of a seat the device plays itself: `practice`).

The dice fairness test (`firmware.fairness_report`) is run at start and whenever a game is
closed: while it rejects fair dice the home screen says so, and a notice says it at start
and after each game, so players see it without opening the settings.
"""

from __future__ import annotations

import logging
import math
import sqlite3
import time
from dataclasses import dataclass
from typing import Any, Callable

from advisor.opponent import Move
from engine import RuleError
from firmware.appliance import corrections, menus, play, practice
from firmware.appliance.inputs import (
    ButtonsBack, ButtonsMissing, CameraBack, CameraLost, Input, MotionSeen, ObjectOnTray, Press, ReadingUnstable,
    ThrowSeen, Tick, TrayCleared,
    UsbExportDone, UsbExportFailed, UsbExportStarted,
)
from firmware.appliance.mode import Mode
from firmware.appliance.no_buttons import ScoreWithoutButtons, wiring_hint
from firmware.appliance.session import GameSession, StoredReading
from firmware.appliance.settings import GameDefaults, Prefs
from firmware.appliance.throws import Answers, TrayLink
from firmware.eventlog import EventLog, EventLogError
from firmware.fairness_report import CACHE_FILE, fairness_report
from firmware.ui.catalogue import rule_message, say
from firmware.ui.screens import (
    Label, MessageScreen, Screen, camera_lost_screen, usb_done_screen, usb_exporting_screen, usb_failed_screen,
)

log = logging.getLogger(__name__)

FLASH_S = 3.0
# Motion or a hand with nothing after it for this long: the scene went still unchanged (the
# tracker reports nothing then) or the tracker lost the throw; buttons record again.
BUSY_TIMEOUT_S = 3.0
USB_DONE_S = 10.0
# The tracker takes a still object into the tray picture after about this long.
OBJECT_S = 10.0
NOTICE_S = 30.0


@dataclass
class _Overlay:
    screen: Screen
    until: float | None  # monotonic deadline, None = until a button is pressed


class Appliance:
    def __init__(self, eventlog: EventLog, prefs: Prefs | None = None,
                 defaults: GameDefaults = GameDefaults(), notices: tuple[MessageScreen, ...] = (),
                 clock: Callable[[], float] = time.monotonic,
                 on_prefs: Callable[[Prefs], None] | None = None,
                 on_usb_request: Callable[[str], None] | None = None,
                 on_record: Callable[[str, int, str], None] | None = None,
                 scoreboard_url: str | None = None,
                 manual_camera: bool = False) -> None:
        self.log = eventlog
        self.prefs = prefs or Prefs()
        self.defaults = defaults
        self.scoreboard_url = scoreboard_url  # shown with its QR code in the settings
        self.dice_warning = False  # the last fairness test (settings > dice fairness) rejected fair dice
        self.clock = clock
        self.on_prefs = on_prefs
        self.on_usb_request = on_usb_request  # asks the exporter to copy every game to a stick
        self.on_record = on_record  # told (game id, seq, event type) of every event once it is committed
        self.usb_device: str | None = None  # the stick an export last went to, while it is usable
        self.now = clock()
        self.session: GameSession | None = None
        self.opponent: practice.Opponent | None = None  # the device's player, in a game with a device seat
        self.link: TrayLink | None = None
        self.deferred: ThrowSeen | None = None  # a throw seen while a die waited for confirmation
        self.camera_ok = True
        self.manual_camera = manual_camera  # every throw entered by hand (by_hand.EnterDice)
        self.camera_retry_s: float | None = None
        self._camera_dismissed = False
        self.buttons_missing = False
        self._busy_until = 0.0
        self.watched = False  # motion seen since start (dice found lying there were not thrown)
        self._flash: Label | None = None
        self._flash_until = 0.0
        # Start-up notices last NOTICE_S from the first tick: the clock may jump then (the
        # camera's first frame brings its own time).
        self._overlays: list[_Overlay] = [_Overlay(n, math.inf) for n in notices]
        self._usb: _Overlay | None = None
        self._started = False
        self.mode: Mode = self._boot()
        self.check_fairness()
        self._started = True

    # -- start-up ---------------------------------------------------------------------------------

    def _boot(self) -> Mode:
        record = self.log.unfinished()
        if record is None:
            return menus.MainMenu()
        try:
            self.session = GameSession.resume(self.log, record)
        except (RuleError, KeyError, ValueError, TypeError) as error:
            # A log this engine cannot replay must not stop the device: close the game
            # (its events stay in the log for the export) and start from the menu.
            log.error("cannot resume game %s: %s; it is closed, its events are kept", record.game_id, error)
            self.log.end_game(record.game_id)
            self._overlays.append(_Overlay(MessageScreen(say("abandoned"), (str(error)[:60],), icon="warning"),
                                           self.now + NOTICE_S))
            return menus.MainMenu()
        log.info("resumed game %s at event %d", record.game_id, self.session.events)
        self._load_opponent()
        return self.game_mode()

    def _load_opponent(self) -> None:
        """The device's player when the game has a seat it plays; a notice when it has no
        table to play by (it plays the greedy policy then)."""
        self.opponent = None
        session = self.session
        if session is None or not session.state.device_seats or session.state.rules.match is not None:
            return
        self.opponent = practice.Opponent.load(session.state, self.log.state_dir)
        if not self.opponent.optimal:
            self._notify(practice.simple_play_notice(session.state))

    def check_fairness(self) -> None:
        """Run the dice fairness test over the log; while it rejects fair dice, a notice says
        so (at start, and each time a game is closed) and the home screen keeps saying it."""
        try:
            report = fairness_report(self.log, self.log.state_dir / CACHE_FILE)
        except (sqlite3.Error, OSError, EventLogError) as error:
            log.error("dice fairness not checked: %s", error)
            return
        self.dice_warning = report.device.warning
        if self.dice_warning:
            log.warning("dice fairness: %d first throws, p = %.2g: the dice may be loaded",
                        report.device.throws, report.device.p_value)
            self._notify(MessageScreen(say("fairness_alert"), (say("fairness_alert_line"), say("fairness_see")),
                                       icon="warning"))

    def _notify(self, screen: MessageScreen) -> None:
        """A notice over the screen until a press, for NOTICE_S (from the first tick when it
        comes at start, as the start-up notices: the clock may jump then)."""
        self._overlays.append(_Overlay(screen, self.now + NOTICE_S if self._started else math.inf))

    # -- what modes use ------------------------------------------------------------------------------

    @property
    def lang(self) -> str:
        return self.prefs.language

    @property
    def busy(self) -> bool:
        """Dice rolling or a hand over the tray: nothing may be recorded from a button now."""
        return self.now < self._busy_until

    @property
    def flash_label(self) -> Label | None:
        return self._flash if self.now < self._flash_until else None

    def flash(self, label: Label, seconds: float = FLASH_S) -> None:
        log.info("message: %s", getattr(label, "en", label))
        self._flash = label
        self._flash_until = self.now + seconds

    def refuse_if_busy(self) -> bool:
        """True (and say so) when a button must not record anything now."""
        if self.busy:
            self.flash(say("moving"))
            return True
        return False

    def game_mode(self) -> Mode:
        """The screen the game is at, from its state alone (also where a restart lands)."""
        session = self.session
        if session is None:
            return menus.MainMenu()
        if session.pending_confirmation:
            return corrections.ConfirmDice()
        win = session.state.instant_win
        if win is not None and win.open:
            return play.WinConfirm()  # the winning throw, shown and confirmed like any score
        if session.state.finished:
            return play.GameOver()
        if self.device_move() is not None:
            return practice.DeviceTurn()
        return play.TurnMode()

    def device_move(self) -> Move | None:
        """The device's move on a turn of a seat it plays (None on a person's turn)."""
        session = self.session
        if session is None or self.opponent is None:
            return None
        state = session.state
        if state.finished or state.current_player not in state.device_seats:
            return None
        return self.opponent.move(state)

    def after_commit(self) -> Mode:
        """Where to go once a correction is recorded: the game, or the throw that came while
        the players were answering (it waited for them)."""
        self.mode = self.game_mode()
        if self.deferred is not None and self.session is not None and not self.session.pending_confirmation:
            seen, self.deferred = self.deferred, None
            return play.take_throw(self, seen) or self.mode
        return self.mode

    def record(self, event: dict[str, Any], reading: StoredReading | None = None,
               snapshot: bytes | None = None) -> bool:
        """Record a game event; a rule broken becomes a message and nothing is recorded."""
        assert self.session is not None
        move = self.device_move()
        refused = practice.refusal(move, self.session.state, event)
        if refused is not None:
            log.info("refused %s: the device stood", event.get("type"))
            self.flash(refused)
            return False
        try:
            stored = self.session.record(event, reading, snapshot)
        except RuleError as error:
            log.info("refused %s: %s", event.get("type"), error)
            self.flash(rule_message(error.rule, str(error)))
            return False
        except (sqlite3.Error, OSError, EventLogError) as error:
            # Nothing was recorded, so nothing may look recorded: say so, keep the screen.
            log.error("could not record %s: %s", event.get("type"), error)
            self.flash(say("not_saved"), seconds=10.0)
            return False
        if self.on_record is not None:
            self.on_record(self.session.game_id, stored.seq, stored.event["type"])
        replanned = practice.replanned(move, event)
        if replanned is not None:
            log.info("the device asked to keep %s; it plans again", move.choice.keep if move else ())
            self.flash(replanned)
        return True

    def turn_menu(self, back: Mode) -> Mode:
        return play.TurnMenu(back=back)

    def take_throw(self, seen: ThrowSeen, answers: Answers = Answers()) -> Mode | None:
        """A settled throw during a game (also once the players answered a question about it)."""
        return play.take_throw(self, seen, answers)

    def start_game(self, session: GameSession) -> Mode:
        """Play a game just begun in the log (GameSession.start: its game_started is seq 0)."""
        self.session = session
        if self.on_record is not None:
            self.on_record(session.game_id, 0, "game_started")
        self.link = None
        self.deferred = None
        self._load_opponent()
        return self.game_mode()

    def close_game(self) -> None:
        closed = self.session is not None
        if self.session is not None:
            self.session.end()
        self.session = None
        self.opponent = None
        self.link = None
        self.deferred = None
        if closed:
            self.check_fairness()

    @property
    def can_request_usb_export(self) -> bool:
        return self.usb_device is not None and self.on_usb_request is not None

    def request_usb_export(self) -> None:
        """The menu's "copy every game to the stick": the exporter does it and reports back."""
        if self.usb_device is None or self.on_usb_request is None:
            return
        try:
            self.on_usb_request(self.usb_device)
        except (OSError, ValueError) as error:
            log.error("could not ask for a USB export to %s: %s", self.usb_device, error)
            self.flash(say("usb_request_failed"))
            return
        log.info("asked for an export of every game to %s", self.usb_device)
        self.flash(say("usb_requested"))

    def set_prefs(self, prefs: Prefs) -> None:
        self.prefs = prefs
        if self.on_prefs is not None:
            self.on_prefs(prefs)

    @property
    def expected_dice(self) -> int | None:
        """How many dice the tracker should expect (None outside a game)."""
        if self.session is not None:
            return self.session.state.rules.dice
        return getattr(self.mode, "expected_dice", None)

    # -- inputs ----------------------------------------------------------------------------------------

    def handle(self, event: Input) -> None:
        if isinstance(event, Tick):
            self._tick(event.now)
        elif isinstance(event, Press):
            self._press(event)
        elif isinstance(event, ThrowSeen):
            self._busy_until = 0.0
            self._throw(event)
        elif isinstance(event, MotionSeen):
            self._busy_until = self.now + BUSY_TIMEOUT_S
            self.watched = True
        elif isinstance(event, TrayCleared):
            self._busy_until = 0.0
        elif isinstance(event, ObjectOnTray):
            self._busy_until = 0.0  # nothing moves: the buttons may record again
            if self.mode.in_game or self.mode.needs_camera:
                self.flash(say("object_on_tray"), seconds=OBJECT_S)
        elif isinstance(event, ReadingUnstable):
            self._busy_until = 0.0  # the dice lie still; the reading is what wavers
            if self.mode.in_game or self.mode.needs_camera:
                self.flash(say("unstable"))
        elif isinstance(event, CameraLost):
            if self.camera_ok:
                self._camera_dismissed = False
            self.camera_ok = False
            self.camera_retry_s = event.retry_in_s
        elif isinstance(event, CameraBack):
            self.camera_ok = True
            self.camera_retry_s = None
        elif isinstance(event, ButtonsMissing):
            self._buttons_missing(event)
        elif isinstance(event, ButtonsBack):
            self.buttons_missing = False
            if isinstance(self.mode, ScoreWithoutButtons):
                self.mode = menus.MainMenu()
            self.flash(say("buttons_back"))
        elif isinstance(event, UsbExportStarted):
            self.usb_device = event.device or self.usb_device
            self._usb = _Overlay(usb_exporting_screen(), None)
        elif isinstance(event, UsbExportDone):
            self.usb_device = event.device or self.usb_device
            self._usb = _Overlay(usb_done_screen(event.games), self.now + USB_DONE_S)
        elif isinstance(event, UsbExportFailed):
            # The stick may be gone or unusable; plugging it in again starts a new export.
            self.usb_device = None
            self._usb = _Overlay(usb_failed_screen(event.message[:60], event.safe_to_remove), None)

    def _buttons_missing(self, event: ButtonsMissing) -> None:
        """No buttons: outside a game the screen scores each throw by itself; in a game a
        notice says so (the game's screen goes on showing each throw's options)."""
        if self.buttons_missing:
            return
        self.buttons_missing = True
        if self.session is None and isinstance(self.mode, menus.MainMenu):
            self.mode = ScoreWithoutButtons(pins=event.pins)
            return
        self._overlays.append(_Overlay(MessageScreen(say("buttons_missing"),
                                                     (wiring_hint(event.pins), say("buttons_scoring")),
                                                     icon="warning"), self.now + NOTICE_S))

    def _tick(self, now: float) -> None:
        self.now = now
        for overlay in self._overlays:
            if overlay.until == math.inf:
                overlay.until = now + NOTICE_S
        self._overlays = [o for o in self._overlays if o.until is None or now < o.until]
        if self._usb is not None and self._usb.until is not None and now >= self._usb.until:
            self._usb = None

    def _press(self, press: Press) -> None:
        # A button first clears whatever covers the screen; it does nothing else.
        if self._overlays:
            self._overlays.pop(0)
            return
        if self._usb is not None:  # the export goes on; its result will show again
            self._usb = None
            return
        if self._camera_covers():
            self._camera_dismissed = True
            return
        self._go(self.mode.on_press(self, press))

    def _throw(self, seen: ThrowSeen) -> None:
        if not self.mode.in_game:
            self._go(self.mode.on_throw(self, seen))
            return
        self._go(play.take_throw(self, seen))

    def _go(self, mode: Mode | None) -> None:
        if mode is not None:
            self.mode = mode

    # -- output -----------------------------------------------------------------------------------------

    def _camera_covers(self) -> bool:
        return not self.camera_ok and not self._camera_dismissed and (self.mode.in_game or self.mode.needs_camera)

    @property
    def covered(self) -> bool:
        """A message covers the mode's screen (a press only clears it)."""
        return bool(self._overlays) or self._usb is not None or self._camera_covers()

    def screen(self) -> Screen:
        if self._overlays:
            return self._overlays[0].screen
        if self._usb is not None:
            return self._usb.screen
        if self._camera_covers():
            return camera_lost_screen(self.camera_retry_s)
        return self.mode.view(self)

    def status(self) -> str:
        """One line for systemd's STATUS= and the journal."""
        camera = ("" if self.camera_ok else " (camera lost)") + (" (no buttons)" if self.buttons_missing else "")
        session = self.session
        if session is None or not self.mode.in_game:
            return f"{self.mode.name()}{camera}"
        state = session.state
        if state.finished:
            return f"{state.game.id}: game over{camera}"
        turn = state.turn
        return (f"{state.game.id}: {session.player_name} throw {turn.throw_number}/{state.max_throws}, "
                f"round {state.round}/{state.rounds}{camera}")
