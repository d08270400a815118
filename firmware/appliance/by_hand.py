"""Dice by hand: the players enter a throw with the buttons when there is no camera (the
`manual` camera spec, a camera lost) or it cannot read the throw, or put every die of the
current throw right when the camera was unsure.

A throw: after the first throw of a turn, first which dice were thrown again (a yes / no per
die, left to right; dice the rules keep aside are not asked about), then each thrown die's
value (1 to 6, as when correcting a die). It is recorded as a throw event with
`source: "hand"`, checked by the engine like any throw. Correcting: every die's value, from
what the camera read, recorded as one reading_corrected event. Turning a die over (cacho's
volteo, GAMES.md): a die the rules let turn, recorded as a die_turned event.

Long OK steps back one answer (out of the mode before the first one); nothing is recorded
until the last value is given.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import engine
from engine import turn_actions
from engine.dice import opposite
from firmware.appliance.corrections import ValueChoice, record_values
from firmware.appliance.inputs import Press
from firmware.appliance.mode import Appliance, Mode, is_back, is_ok, step
from firmware.appliance.session import GameSession
from firmware.ui.catalogue import rule_message, say
from firmware.ui.screens import CorrectionScreen, DieIcon, Label, Screen


def may_enter(session: GameSession) -> bool:
    """A throw may be entered by hand now, or the current throw waits for the players."""
    return bool(session.pending_confirmation) or turn_actions(session.state).may_throw


@dataclass
class EnterDice(Mode):
    """Entering a throw (or, `correcting`, the current throw's dice) die by die."""

    back: Mode
    correcting: bool = False
    asked: tuple[int, ...] = ()  # engine indices asked "thrown again?", left to right
    thrown: dict[int, bool] = field(default_factory=dict)  # answers so far
    entered: dict[int, int] = field(default_factory=dict)  # engine index -> value given
    choice: ValueChoice | None = None
    selected: int = 0  # yes / no while asking
    in_game = True

    @classmethod
    def of(cls, app: Appliance, back: Mode) -> "EnterDice":
        session = app.session
        assert session is not None
        if session.pending_confirmation:
            return cls(back=back, correcting=True)
        actions = turn_actions(session.state)
        asked: tuple[int, ...] = ()
        if not actions.must_throw_all:
            rethrowable = set(actions.rethrowable)
            asked = tuple(i for i in session.display_order if i in rethrowable)
        return cls(back=back, asked=asked)

    # -- where we are ------------------------------------------------------------------------------

    def _session(self, app: Appliance) -> GameSession:
        assert app.session is not None
        return app.session

    def _asking(self) -> int | None:
        """The die asked about now (thrown again?), or None once every answer is in."""
        for index in self.asked:
            if index not in self.thrown:
                return index
        return None

    def _to_enter(self, session: GameSession) -> tuple[int, ...]:
        """Engine indices whose values are entered, left to right."""
        if self.correcting or not self.asked:
            return session.display_order
        return tuple(i for i in session.display_order if self.thrown.get(i))

    def _entering(self, session: GameSession) -> int | None:
        for index in self._to_enter(session):
            if index not in self.entered:
                return index
        return None

    def _value_choice(self, session: GameSession, index: int) -> ValueChoice:
        if self.choice is None:
            turn = session.state.turn
            value = turn.dice[index] if turn.throw_number and index < len(turn.dice) else 1
            self.choice = ValueChoice(value, full=True, selected=value - 1)
        return self.choice

    # -- the screen --------------------------------------------------------------------------------

    def _icons(self, session: GameSession) -> tuple[DieIcon, ...]:
        turn = session.state.turn
        icons = []
        for index in session.display_order:
            if index in self.entered:
                icons.append(DieIcon(self.entered[index]))
            elif turn.throw_number == 0 or (not self.correcting and self.thrown.get(index, not self.asked)):
                icons.append(DieIcon(None))  # to be thrown: its value is not known yet
            else:
                icons.append(DieIcon(turn.dice[index], held=not self.correcting))
        return tuple(icons)

    def view(self, app: Appliance) -> Screen:
        session = self._session(app)
        title: Label = app.flash_label or say("by_hand")
        asking = self._asking()
        if asking is not None:
            position = session.display_order.index(asking)
            return CorrectionScreen(title=title, dice=self._icons(session), die=position,
                                    prompt=say("die_thrown_q", die=position + 1),
                                    choices=(say("yes"), say("no")), selected=self.selected)
        index = self._entering(session)
        if index is None:  # every value given, not recorded while dice rolled: OK tries again
            return CorrectionScreen(title=title, dice=self._icons(session), die=None, prompt=say("hand_record"))
        position = session.display_order.index(index)
        choice = self._value_choice(session, index)
        return CorrectionScreen(title=title, dice=self._icons(session), die=position,
                                prompt=choice.prompt(position + 1), choices=choice.labels(),
                                selected=choice.selected)

    # -- the buttons -------------------------------------------------------------------------------

    def on_press(self, app: Appliance, press: Press) -> Mode | None:
        session = self._session(app)
        if is_back(press):
            return self._step_back(session)
        asking = self._asking()
        if asking is not None:
            if step(press):
                self.selected = 1 - self.selected
            elif is_ok(press):
                self.thrown[asking] = self.selected == 0
                self.selected = 0
                if self._asking() is None and not any(self.thrown.values()):
                    app.flash(rule_message("nothing_thrown"))
                    self.thrown.clear()
            return None
        index = self._entering(session)
        if index is None:
            return self._record(app, session)
        choice = self._value_choice(session, index)
        value = choice.press(press)
        if value is None:
            return None
        self.entered[index] = value
        self.choice = None
        if self._entering(session) is not None:
            return None
        return self._record(app, session)

    def _step_back(self, session: GameSession) -> Mode | None:
        self.choice = None
        entered = [i for i in self._to_enter(session) if i in self.entered]
        if entered:
            del self.entered[entered[-1]]
            return None
        answered = [i for i in self.asked if i in self.thrown]
        if answered:
            del self.thrown[answered[-1]]
            self.selected = 0
            return None
        return self.back

    def _record(self, app: Appliance, session: GameSession) -> Mode | None:
        """Record what was entered; None while dice roll (the next OK tries again)."""
        turn = session.state.turn
        values = list(turn.dice) if turn.throw_number else [0] * session.state.rules.dice
        for index, value in self.entered.items():
            values[index] = value
        if self.correcting:
            return record_values(app, values)
        if app.refuse_if_busy():
            return None
        event = engine.events.throw(session.state.current_player, values, sorted(self.entered),
                                    source=engine.events.SOURCE_HAND)
        if not app.record(event):
            return app.game_mode()
        app.link = None  # the dice on the tray, if any, were not matched to this throw
        return app.game_mode()


@dataclass
class TurnOverByHand(Mode):
    """Cacho without a camera (or with it lost): turn a die over to its opposite face by hand.
    Prev / next choose among the dice the rules let turn (left to right), the prompt says
    what it becomes; OK records the die_turned event, long OK goes back."""

    back: Mode
    position: int = 0  # among the turnable dice, left to right
    in_game = True

    @classmethod
    def on_die(cls, session: GameSession, index: int, back: Mode) -> "TurnOverByHand":
        """Opened on die `index` (engine index): the one the device asks to turn for its seat."""
        mode = cls(back=back)
        turnable = mode._turnable(session)
        mode.position = turnable.index(index) if index in turnable else 0
        return mode

    def _turnable(self, session: GameSession) -> tuple[int, ...]:
        """Engine indices of the dice that may be turned now, left to right."""
        allowed = set(turn_actions(session.state).turnable)
        return tuple(i for i in session.display_order if i in allowed)

    def view(self, app: Appliance) -> Screen:
        session = app.session
        assert session is not None
        title: Label = app.flash_label or say("turn_a_die")
        turnable = self._turnable(session)
        icons = tuple(DieIcon(session.state.turn.dice[i], turned=i in session.state.turn.turned)
                      for i in session.display_order)
        if not turnable:
            return CorrectionScreen(title=title, dice=icons, die=None, prompt=rule_message("turn_die_once"))
        self.position %= len(turnable)
        index = turnable[self.position]
        value = session.state.turn.dice[index]
        return CorrectionScreen(title=title, dice=icons, die=session.display_order.index(index),
                                prompt=say("turned_to", a=value, b=opposite(value)))

    def on_press(self, app: Appliance, press: Press) -> Mode | None:
        session = app.session
        assert session is not None
        if is_back(press):
            return self.back
        turnable = self._turnable(session)
        if not turnable:
            return None
        if step(press):
            self.position = (self.position + step(press)) % len(turnable)
            return None
        if not is_ok(press) or app.refuse_if_busy():
            return None
        index = turnable[self.position % len(turnable)]
        value = opposite(session.state.turn.dice[index])
        if not app.record(engine.events.die_turned(session.state.current_player, index, value)):
            return None
        app.flash(say("die_turned", die=session.die_number(index)))
        return app.game_mode()
