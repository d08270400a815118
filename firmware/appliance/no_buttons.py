"""Scoring with no buttons: what the device does when it cannot read its buttons (no GPIO
on this machine, a pin in use, a wire off) and no game is under way.

Nobody can start a game or pick a box, but the camera still reads every throw: the screen
scores it in every box of the config's default game, as `cubilete score` does, and its
bottom line says which pins the buttons go on. When the buttons come back the main menu
returns.
"""

from __future__ import annotations

from dataclasses import dataclass

import engine
from firmware.appliance.inputs import Press, ThrowSeen
from firmware.appliance.mode import Appliance, Mode
from firmware.ui.catalogue import game_name, say, short
from firmware.ui.screens import DieIcon, Label, Names, OptionRow, Screen, TurnScreen



def wiring_hint(pins: tuple[int, ...]) -> Label:
    """How to add the buttons: the BCM pins they go on (to ground)."""
    return say("buttons_wire", pins=" ".join(str(p) for p in pins)) if pins else say("buttons_missing")


@dataclass
class ScoreWithoutButtons(Mode):
    """Every throw scored in every box of the default game; nothing is recorded."""

    pins: tuple[int, ...] = ()
    last: ThrowSeen | None = None
    needs_camera = True

    def _rules(self, app: Appliance) -> tuple[engine.GameDef, engine.Rules]:
        try:
            game, options = engine.resolve_game(app.defaults.game, dict(app.defaults.options))
            return game, game.rules(options)
        except (engine.RuleError, KeyError, ValueError):
            game, options = engine.resolve_game("generala", {})
            return game, game.rules(options)

    def view(self, app: Appliance) -> Screen:
        game, rules = self._rules(app)
        name = game_name(game.id, Names.of(game))
        title = name.es if app.lang == "es" else name.en
        hint = app.flash_label or wiring_hint(self.pins)
        if self.last is None:
            return TurnScreen(player=title, throw=0, throws=rules.throws, selected=None, message=hint)
        dice = tuple(d.value for d in self.last.reading.dice)
        icons = tuple(DieIcon(d.value, unsure=not d.sure) for d in self.last.reading.dice)
        if len(dice) != rules.dice:
            return TurnScreen(player=title, throw=1, throws=rules.throws, dice=icons, selected=None,
                              message=say("dice_seen", seen=len(dice), expected=rules.dice))
        scored = engine.score_roll(rules, dice)
        options = tuple(OptionRow(short(Names.of(rules.category(category))), points)
                        for category, points in sorted(scored.points, key=lambda item: -item[1]))
        return TurnScreen(player=title, throw=1, throws=rules.throws, dice=icons, options=options,
                          selected=None, message=hint)

    def on_throw(self, app: Appliance, seen: ThrowSeen) -> Mode | None:
        self.last = seen
        return None

    def on_press(self, app: Appliance, press: Press) -> Mode | None:
        return None  # a press means the buttons are back: the machine leaves this mode then
