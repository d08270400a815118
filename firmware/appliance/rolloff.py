"""The roll-off for the order of play: each player throws all the dice once, the lowest hand
plays first (the engine ranks hands by the game's rule), tied players throw again.

Nothing is recorded until the game starts: the game_started event lists the players in
the order the roll-off gave. A roll-off hand with an unsure die is simply thrown again.
Without a camera (the `manual` spec, or the camera lost) each hand is entered by hand: OK,
then each die's value, left to right, as when entering a throw.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol

import engine
from firmware.appliance.corrections import ValueChoice
from firmware.appliance.inputs import Press, ThrowSeen
from firmware.appliance.mode import Appliance, Mode, is_back, is_ok
from firmware.appliance.throws import full_throw_problem, is_unsure, left_to_right, reading_die_number
from firmware.ui.catalogue import say
from firmware.ui.screens import CorrectionScreen, DieIcon, Screen, TurnScreen


class GameSetup(Protocol):
    """What the roll-off needs of the new-game menu it was started from (`menus.NewGameMenu`)."""

    partnerships: bool

    @property
    def definition(self) -> engine.GameDef: ...

    @property
    def offers_partnerships(self) -> bool: ...

    def start_game(self, app: Appliance, names_in_order: list[str], partnerships: Any = None,
                   roll_off: dict[str, list[list[int]]] | None = None) -> Mode | None: ...


@dataclass
class RollOff(Mode):
    menu: GameSetup
    names: tuple[str, ...]
    queue: list[int]  # players (menu order) still to throw in this round of the roll-off
    hands: dict[int, list[tuple[int, ...]]] = field(default_factory=dict)
    last: tuple[int, ...] = ()  # the last hand thrown, shown until the next
    entered: list[int] | None = None  # a hand being entered by hand, left to right
    choice: ValueChoice | None = None
    needs_camera = True

    @property
    def expected_dice(self) -> int:
        return self.menu.definition.dice

    @staticmethod
    def _by_hand(app: Appliance) -> bool:
        return app.manual_camera or not app.camera_ok

    def view(self, app: Appliance) -> Screen:
        player = self.names[self.queue[0]] if self.queue else ""
        if self.entered is not None:
            choice = self._choice()
            die = len(self.entered)
            icons = tuple(DieIcon(v) for v in self.entered) + (DieIcon(None),) * (self.expected_dice - die)
            return CorrectionScreen(title=app.flash_label or say("roll_off_throw", player=player),
                                    dice=icons, die=die, prompt=choice.prompt(die + 1), choices=choice.labels(),
                                    selected=choice.selected)
        hint = say("hand_first") if self._by_hand(app) else say("roll_off_throw", player=player)
        return TurnScreen(player=player, throw=0, throws=1,
                          dice=tuple(DieIcon(v) for v in self.last), options=(), selected=None,
                          message=app.flash_label or hint)

    def _choice(self) -> ValueChoice:
        if self.choice is None:
            self.choice = ValueChoice(1, full=True, selected=0)
        return self.choice

    def on_press(self, app: Appliance, press: Press) -> Mode | None:
        if self.entered is None:
            if is_back(press):
                return self.menu
            if is_ok(press) and self.queue and self._by_hand(app):
                self.entered, self.choice = [], None
            return None
        if is_back(press):  # a step back: the last value, or out of entering
            self.choice = None
            if self.entered:
                self.entered.pop()
            else:
                self.entered = None
            return None
        choice = self._choice()
        value = choice.press(press)
        if value is None:
            return None
        self.entered.append(value)
        self.choice = None
        if len(self.entered) < self.expected_dice:
            return None
        hand, self.entered = tuple(self.entered), None
        return self._take_hand(app, hand)

    def on_throw(self, app: Appliance, seen: ThrowSeen) -> Mode | None:
        if not self.queue:
            return None
        self.entered, self.choice = None, None  # the camera saw the hand: no need to enter it
        reading = seen.reading
        problem = full_throw_problem(seen, self.expected_dice)
        if problem is not None:
            app.flash(problem)
            return None
        if any(m == "held" for m in seen.moved):
            app.flash(say("throw_all", n=self.expected_dice))
            return None
        unsure = [r for r in range(len(reading.dice)) if is_unsure(reading, r)]
        if unsure:
            app.flash(say("unsure_rethrow", die=reading_die_number(reading, unsure[0])))
            return None
        return self._take_hand(app, tuple(reading.dice[r].value for r in left_to_right(reading)))

    def _take_hand(self, app: Appliance, hand: tuple[int, ...]) -> Mode | None:
        """The next player's hand, from the camera or the buttons; the game starts once the
        order is settled."""
        player = self.queue.pop(0)
        self.hands.setdefault(player, []).append(hand)
        self.last = hand
        app.flash(say("roll_off_hand", player=self.names[player], dice=" ".join(map(str, hand))))
        if self.queue:
            return None
        result = engine.roll_off_order(self.menu.definition, self.hands)
        if not result.settled:
            self.queue = [p for group in result.tied for p in group]
            app.flash(say("roll_off_again"))
            return None
        order = [self.names[p] for p in result.order]
        sides = None
        if self.menu.partnerships and self.menu.offers_partnerships:
            sides = engine.partnerships_from_order(range(4))
        hands = {self.names[p]: [list(hand) for hand in self.hands[p]] for p in result.order}
        mode = self.menu.start_game(app, order, sides, roll_off=hands)
        app.flash(say("first_player", player=order[0]))
        return mode
