"""The practice opponent: a seat the device plays itself.

When a game is set up, one seat may be the device (DEVICE_NAME, the same in both languages);
the game_started event lists it in `device_seats`, so a resumed game knows whose turns the
device plays. On those turns people throw the device's dice (the camera reads them as
usual, or they are entered by hand), the screen says which dice it keeps ("Set 6 6 6 aside,
throw") and people set those aside; when it stands, the screen shows the box it fills and a
short OK records it as any player's category_scored / category_scratched. Its moves are
`advisor.opponent.device_move` of the game's state, a function of the recorded events
alone, so a restart after a power cut shows the same move again.

It plays the game's table when it is shipped or was solved ahead (`cubilete solve`); without
one it plays `advisor.opponent`'s greedy policy, never solving mid-turn, and says so when
the game starts or resumes.

People may keep other dice than it asked for: the throw is recorded as thrown (the dice
were thrown, nothing takes that back) and the device plans again from what is held, saying
so. A throw after it stood is refused, as one after the last throw: its box is for the dice
it stood on.

Offered for the games with a score sheet (poker dice has none, and no advisor), and not in
tournament mode (no advice of any kind then).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import engine
from advisor.advise import Choice, prepare
from advisor.opponent import Move, device_move
from advisor.tables import Table, find
from firmware.appliance import by_hand
from firmware.appliance.inputs import Press
from firmware.appliance.mode import Appliance, Mode, is_back, is_ok
from firmware.appliance.settings import GameDefaults
from firmware.appliance.views import dice_icons, option_row
from firmware.ui.catalogue import say
from firmware.ui.screens import Label, MessageScreen, Names, Screen, TurnScreen

log = logging.getLogger(__name__)

DEVICE_NAME = "Cubilete"


def offered(game: engine.GameDef, defaults: GameDefaults) -> bool:
    """The device may take a seat in this game (a sheet game, not a tournament)."""
    return game.default_rules.match is None and not defaults.tournament


@dataclass
class Opponent:
    """The device's player for one game: the game's table (None: the greedy policy) and the
    move for the last state it was asked about (a state is never changed, so the same object
    means the same move; the screen asks for it at every frame)."""

    table: Table | None
    _state: engine.GameState | None = field(default=None, repr=False)
    _move: Move | None = None

    @classmethod
    def load(cls, state: engine.GameState, state_dir: str | Path | None) -> "Opponent":
        """The table shipped or solved here (never solved now), made ready to advise."""
        table = find(state.game.id, dict(state.options), state_dir)
        if table is not None:
            prepare(table)
        log.info("the device plays %s %s", state.game.id, "by its table" if table else "the greedy policy")
        return cls(table)

    @property
    def optimal(self) -> bool:
        return self.table is not None

    def move(self, state: engine.GameState) -> Move | None:
        """Its move now; None if neither its table nor the greedy policy can make one (a bug:
        the seat is then played with the buttons like a person's, rather than the screen
        failing at every frame)."""
        if state is not self._state:
            self._state, self._move = state, None
            try:
                self._move = device_move(state, self.table)
            except Exception:
                log.exception("the device's move failed; trying the greedy policy")
                try:
                    self._move = device_move(state, None)
                except Exception:
                    log.exception("the greedy move failed too; people play the device's seat")
        return self._move


def simple_play_notice(state: engine.GameState) -> MessageScreen:
    """Said when a game starts or resumes with a device seat and no table for it."""
    return MessageScreen(say("device_no_table", player=state.players[state.device_seats[0]]),
                         (say("device_simple"), say("hint_no_table"), f"cubilete solve {state.game.id}"),
                         icon="info")


def kept_values(event: dict[str, Any]) -> tuple[int, ...]:
    """The values of the dice a throw event did not throw, sorted."""
    thrown = set(event["thrown"])
    return tuple(sorted(v for i, v in enumerate(event["values"]) if i not in thrown))


def refusal(move: Move | None, state: engine.GameState, event: dict[str, Any]) -> Label | None:
    """Why this event may not be recorded on the device's turn: a throw after it stood."""
    if move is None or event["type"] != engine.events.THROW or state.turn.throw_number == 0:
        return None
    if move.choice.action == "fill":
        return say("device_stands", player=state.players[state.current_player])
    return None


def replanned(move: Move | None, event: dict[str, Any]) -> Label | None:
    """What to say when people kept other dice than the device asked for (it plans again)."""
    if move is None or event["type"] != engine.events.THROW or move.choice.action != "keep":
        return None
    if kept_values(event) == move.choice.keep:
        return None
    return say("device_replans", dice=_dice(move.choice.keep))


def _dice(values: tuple[int, ...]) -> str:
    return " ".join(map(str, values))


def instruction(choice: Choice, state: engine.GameState) -> Label:
    """What people do for the device now."""
    name = state.players[state.current_player]
    if choice.action == "throw":
        return say("device_throw", player=name)
    if choice.action == "keep":
        return say("device_keep", dice=_dice(choice.keep)) if choice.keep else say("device_rethrow_all")
    if choice.turn:
        return say("device_turn", value=state.turn.dice[choice.turn[0]])
    return say("device_scratches" if choice.points == 0 else "device_scores", player=name)


@dataclass
class DeviceTurn(Mode):
    """A turn the device plays: its dice, what people do for it, the box it fills."""

    in_game = True
    needs_camera = True

    def view(self, app: Appliance) -> Screen:
        session = app.session
        assert session is not None
        state = session.state
        move = app.device_move()
        if move is None:  # no longer its turn (the game moved on under this screen): the next press leaves
            return app.game_mode().view(app)
        choice = move.choice
        options: tuple[Any, ...] = ()
        selected = None
        if choice.action == "fill" and not choice.turn:
            rows = engine.score_options(state)
            options = tuple(option_row(o) for o in rows)
            selected = next((i for i, o in enumerate(rows) if o.category == choice.category), None)
        return TurnScreen(player=session.player_name, throw=state.turn.throw_number, throws=state.max_throws,
                          dice=dice_icons(session), options=options, selected=selected,
                          message=app.flash_label or instruction(choice, state),
                          total=state.sheets[state.current_player].total)

    def on_press(self, app: Appliance, press: Press) -> Mode | None:
        if is_back(press):
            return app.turn_menu(back=self)
        if not is_ok(press):
            return None
        session = app.session
        assert session is not None
        move = app.device_move()
        if move is None:
            return app.game_mode()
        choice = move.choice
        if choice.action in ("throw", "keep"):
            if app.manual_camera or not app.camera_ok:
                return by_hand.EnterDice.of(app, back=self)
            return None  # people throw the dice; the camera brings the throw
        if choice.turn:
            if app.manual_camera or not app.camera_ok:  # no camera to see it turned: by hand, on its die
                return by_hand.TurnOverByHand.on_die(session, choice.turn[0], back=self)
            return None  # a die to turn over: the camera sees it turned
        if app.refuse_if_busy():
            return None
        player = session.state.current_player
        name = Names(es=choice.name_es, en=choice.name_en)
        if choice.points == 0:
            event = engine.events.category_scratched(player, choice.category)
        else:
            event = engine.events.category_scored(player, choice.category, choice.points)
        who = session.player_name
        if not app.record(event):
            return None
        if choice.points == 0:
            app.flash(say("scratched", player=who, category=name))
        else:
            app.flash(say("scored", player=who, category=name, points=choice.points))
        return app.game_mode()
