"""Putting the reading right: confirming unsure dice, correcting a die, and the questions the
tracker cannot answer alone (was this die thrown? was it turned over?).

Unsure dice are never scored silently: after a throw with an unsure die the machine stays
here until the players have answered for every one, and the answers are recorded as one
reading_corrected event (with the same values when the reader was right).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import engine
from firmware.appliance.inputs import Press, ThrowSeen
from firmware.appliance.mode import Appliance, Mode, is_back, is_ok, step
from firmware.appliance.throws import Answers, TurnOver, left_to_right
from firmware.appliance.views import correction_icons, reading_icons
from firmware.ui.catalogue import say
from firmware.ui.screens import CorrectionScreen, Label, Screen

ALL_VALUES = (1, 2, 3, 4, 5, 6)


def record_values(app: Appliance, values: list[int]) -> Mode | None:
    """Record the dice as the players say they show; then back to the game."""
    if app.refuse_if_busy():
        return None
    session = app.session
    assert session is not None
    changed = list(session.state.turn.dice) != values
    if not app.record(engine.events.reading_corrected(session.state.current_player, values)):
        return app.game_mode()
    if changed:
        app.flash(say("corrected"))
    return app.after_commit()


@dataclass
class ValueChoice:
    """Choosing a die's value: first the reader's guesses (and "other"), then 1 to 6."""

    value: int
    alternatives: tuple[int, ...] = ()
    full: bool = False
    selected: int = 0

    @property
    def short(self) -> tuple[int, ...]:
        guesses = [self.value] + [v for v in self.alternatives if v != self.value]
        return tuple(dict.fromkeys(guesses))[:3]

    def values(self) -> tuple[int, ...]:
        return ALL_VALUES if self.full else self.short

    def labels(self) -> tuple[Label, ...]:
        labels: tuple[Label, ...] = tuple(str(v) for v in self.values())
        return labels if self.full else labels + (say("other"),)

    def prompt(self, die: int) -> Label:
        if self.full:
            return say("die_value", die=die)
        short = self.short
        if len(short) >= 2:
            return say("die_which", die=die, a=short[0], b=short[1])
        return say("die_sure_q", die=die, a=short[0])

    def move(self, delta: int) -> None:
        self.selected = (self.selected + delta) % len(self.labels())

    def choose(self) -> int | None:
        """The value picked, or None after switching to the full list ("other")."""
        values = self.values()
        if self.selected < len(values):
            return values[self.selected]
        self.full, self.selected = True, self.value - 1
        return None

    def press(self, press: Press) -> int | None:
        """< > move through the values, OK picks one: the value picked, or None while the
        players are still choosing."""
        if step(press):
            self.move(step(press))
            return None
        return self.choose() if is_ok(press) else None


@dataclass
class ConfirmDice(Mode):
    """The reader was unsure of some dice of this throw: the players say what they show."""

    answers: dict[int, int] = field(default_factory=dict)
    choice: ValueChoice | None = None
    in_game = True

    def _current(self, app: Appliance) -> int | None:
        assert app.session is not None
        pending = app.session.pending_confirmation
        order = app.session.display_order
        for index in sorted(pending, key=order.index):
            if index not in self.answers:
                return index
        return None

    def _choice(self, app: Appliance, index: int) -> ValueChoice:
        assert app.session is not None
        if self.choice is None:
            seen = app.session.throw.dice[index]
            self.choice = ValueChoice(app.session.state.turn.dice[index], seen.alternatives)
        return self.choice

    def view(self, app: Appliance) -> Screen:
        session = app.session
        assert session is not None
        index = self._current(app)
        if index is None:  # answered: waiting only for the record
            index = session.pending_confirmation[0]
        choice = self._choice(app, index)
        number = session.die_number(index)
        return CorrectionScreen(title=app.flash_label or say("check_die"),
                                dice=correction_icons(session, self.answers), die=number - 1,
                                prompt=choice.prompt(number), choices=choice.labels(),
                                selected=choice.selected)

    def on_press(self, app: Appliance, press: Press) -> Mode | None:
        if is_back(press):
            return app.turn_menu(back=self)
        index = self._current(app)
        if index is None:
            return None
        choice = self._choice(app, index)
        value = choice.press(press)
        if value is None:
            return None
        self.answers[index] = value
        self.choice = None
        if self._current(app) is not None:
            return None
        assert app.session is not None
        values = list(app.session.state.turn.dice)
        for i, v in self.answers.items():
            values[i] = v
        mode = record_values(app, values)
        if mode is None:  # dice rolling: ask again once they stop
            self.answers.clear()
        return mode


@dataclass
class CorrectDie(Mode):
    """From the turn menu: pick a die (left to right), then its value."""

    back: Mode
    position: int = 0
    choice: ValueChoice | None = None
    in_game = True

    def view(self, app: Appliance) -> Screen:
        session = app.session
        assert session is not None
        icons = correction_icons(session)
        self.position = min(self.position, len(icons) - 1)
        if self.choice is None:
            return CorrectionScreen(title=app.flash_label or say("correct_die"), dice=icons, die=self.position,
                                    prompt=say("which_die"))
        return CorrectionScreen(title=app.flash_label or say("correct_die"), dice=icons, die=self.position,
                                prompt=self.choice.prompt(self.position + 1), choices=self.choice.labels(),
                                selected=self.choice.selected)

    def on_press(self, app: Appliance, press: Press) -> Mode | None:
        session = app.session
        assert session is not None
        if is_back(press):
            if self.choice is not None:
                self.choice = None
                return None
            return self.back
        dice = session.state.rules.dice
        if self.choice is None:
            if step(press):
                self.position = (self.position + step(press)) % dice
            elif is_ok(press):
                index = session.display_order[self.position]
                value = session.state.turn.dice[index]
                self.choice = ValueChoice(value, full=True, selected=value - 1)
            return None
        value = self.choice.press(press)
        if value is None:
            return None
        values = list(session.state.turn.dice)
        values[session.display_order[self.position]] = value
        return record_values(app, values)


@dataclass
class _YesNo(Mode):
    """Shared by the questions about a settled throw that is not recorded yet."""

    seen: ThrowSeen
    dice: tuple[int, ...]  # reading indices to ask about, in order
    back: Mode
    asked: int = 0
    selected: int = 0
    answers: dict[int, bool] = field(default_factory=dict)
    in_game = True

    def _title(self, r: int) -> Label:
        return say("check_die")

    def _prompt(self, number: int) -> Label:
        raise NotImplementedError

    def view(self, app: Appliance) -> Screen:
        r = self.dice[min(self.asked, len(self.dice) - 1)]
        position = left_to_right(self.seen.reading).index(r)
        return CorrectionScreen(title=app.flash_label or self._title(r), dice=reading_icons(self.seen),
                                die=position, prompt=self._prompt(position + 1),
                                choices=(say("yes"), say("no")), selected=self.selected)

    def on_press(self, app: Appliance, press: Press) -> Mode | None:
        if is_back(press):
            return self.back
        if step(press):
            self.selected = 1 - self.selected
            return None
        if not is_ok(press):
            return None
        self.answers[self.dice[self.asked]] = self.selected == 0
        self.asked += 1
        self.selected = 0
        if self.asked < len(self.dice):
            return None
        return self.done(app)

    def done(self, app: Appliance) -> Mode | None:
        raise NotImplementedError


@dataclass
class AskThrown(_YesNo):
    """The tracker could not tell whether a die was thrown or held: the players say."""

    previous: Answers = field(default_factory=Answers)  # answers to earlier questions

    def _prompt(self, number: int) -> Label:
        return say("die_thrown_q", die=number)

    def done(self, app: Appliance) -> Mode | None:
        app.mode = app.game_mode()
        answers = Answers({**self.previous.thrown, **self.answers})
        return app.take_throw(self.seen, answers) or app.mode


@dataclass
class ConfirmTurned(_YesNo):
    """Cacho: a die shows its opposite face without having moved. Turned over? Then it is
    recorded so; if not, it was thrown."""

    plan: TurnOver | None = None

    @classmethod
    def of(cls, seen: ThrowSeen, plan: TurnOver, back: Mode) -> "ConfirmTurned":
        return cls(seen=seen, dice=tuple(r for _, _, r in plan.turns), back=back, plan=plan)

    def _title(self, r: int) -> Label:
        value = self.seen.reading.dice[r].value
        return say("turned_to", a=engine.dice.opposite(value), b=value)

    def _prompt(self, number: int) -> Label:
        return say("die_turned_q", die=number)

    def done(self, app: Appliance) -> Mode | None:
        assert self.plan is not None and app.session is not None
        app.mode = app.game_mode()
        if all(self.answers.values()):
            if app.refuse_if_busy():
                return app.mode
            player = app.session.state.current_player
            for index, value, _ in self.plan.turns:
                if not app.record(engine.events.die_turned(player, index, value)):
                    return app.game_mode()
            app.link = self.plan.link
            return app.game_mode()
        thrown = {r: True for r, turned in self.answers.items() if not turned}
        return app.take_throw(self.seen, Answers(thrown)) or app.mode
