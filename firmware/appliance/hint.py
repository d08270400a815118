"""A hint on demand (turn menu > Hint): what the advisor would do now and the sheet's expected
final total after it, from the game's table of optimal play (`advisor`). Off in tournament mode
(`[game] tournament = true`); a game whose table is neither shipped nor solved on this device
says how to make it rather than solving for minutes in the middle of a turn."""

from __future__ import annotations

from dataclasses import dataclass

from advisor.advise import advise
from advisor.tables import find
from firmware.appliance.inputs import Press
from firmware.appliance.mode import Appliance, Mode, is_back, is_ok
from firmware.appliance.views import number_label
from firmware.ui.catalogue import say
from firmware.ui.screens import Label, MessageScreen, Names, Screen


def may_hint(app: Appliance) -> bool:
    """A hint is offered during a sheet game's turn of a person (the device's own turn shows
    its move anyway), unless the device is set for tournaments."""
    session = app.session
    return (session is not None and not app.defaults.tournament and not session.state.finished
            and session.state.rules.match is None and session.state.current_player not in session.state.device_seats)


@dataclass
class Hint(Mode):
    back: Mode
    lines: tuple[Label, ...] = ()
    in_game = True

    @classmethod
    def of(cls, app: Appliance, back: Mode) -> "Hint":
        session = app.session
        assert session is not None
        state = session.state
        table = find(state.game.id, dict(state.options), app.log.state_dir)
        if table is None:
            return cls(back, (say("hint_no_table"), f"cubilete solve {state.game.id}"))
        advice = advise(state, table, top=2)
        dice = advice.dice
        lines: list[Label] = []
        for choice in advice.choices:
            lines.append(Names(choice.text(dice, "es"), choice.text(dice, "en")))
            lines.append(say("hint_expected", x=number_label(choice.expected, 1, app.defaults.money)))
        return cls(back, tuple(lines))

    def view(self, app: Appliance) -> Screen:
        return MessageScreen(say("hint"), self.lines, icon="info")

    def on_press(self, app: Appliance, press: Press) -> Mode | None:
        return self.back if (is_ok(press) or is_back(press)) else None
