"""The appliance's views: what the modes put on screen, built from the game's state.

Pure functions from a session, a state or a settled throw to the `firmware.ui.screens`
parts (dice icons, option rows, the final table); the modes choose which screen to show.
"""

from __future__ import annotations

from dataclasses import replace
from decimal import Decimal

import engine
from engine import ScoreOption
from firmware.appliance.inputs import ThrowSeen
from firmware.appliance.session import GameSession
from firmware.appliance.settings import BRIGHTNESS_STEPS
from firmware.appliance.throws import left_to_right
from firmware.localformat import MoneyStyle, format_money, format_number
from firmware.ui.catalogue import say, short
from firmware.ui.screens import DieIcon, FinalRow, Label, Names, OptionRow


def dice_icons(session: GameSession) -> tuple[DieIcon, ...]:
    """The current dice left to right as on the tray, marked held / unsure / turned."""
    turn = session.state.turn
    if turn.throw_number == 0:
        return ()
    pending = set(session.pending_confirmation)
    held = set(turn.held)
    return tuple(DieIcon(turn.dice[i], held=i in held, unsure=i in pending, turned=i in turn.turned)
                 for i in session.display_order)


def box_name(option: ScoreOption) -> Names:
    """A box (or the hand it holds) by its short display name."""
    return short(Names(es=option.name_es, en=option.name_en))


def option_row(option: ScoreOption) -> OptionRow:
    return OptionRow(box_name(option), option.points if option.allowed else None, option.reasons)


def total_after(state: engine.GameState, event: dict) -> int | None:
    """The current player's total once `event` (a box filled) is recorded; None if the rules
    would refuse it."""
    try:
        return engine.apply(state, event).totals[state.current_player]
    except engine.RuleError:
        return None


def correction_icons(session: GameSession, values: dict[int, int] | None = None) -> tuple[DieIcon, ...]:
    """The session's dice, left to right, with the answers so far shown in place."""
    icons = list(dice_icons(session))
    for position, index in enumerate(session.display_order):
        if values and index in values:
            icons[position] = replace(icons[position], value=values[index], unsure=False)
    return tuple(icons)


def reading_icons(seen: ThrowSeen) -> tuple[DieIcon, ...]:
    """The dice of a throw not recorded yet, left to right, the held ones marked."""
    reading = seen.reading
    return tuple(DieIcon(reading.dice[r].value, held=seen.moved[r] == "held" if r < len(seen.moved) else False)
                 for r in left_to_right(reading))


def last_fill(state: engine.GameState) -> tuple[str, Names, int] | None:
    """Who filled the last box, which and for how much (what an undo takes back)."""
    before = state.undo_point
    if before is None:
        return None
    player = before.turn.player
    for category, mark in state.sheets[player].items():
        if mark is not None and before.sheets[player][category] is None:
            definition = state.rules.category(category)
            return state.players[player], short(Names.of(definition)), mark.points
    return None


def final_rows(state: engine.GameState, stake_given: bool) -> tuple[FinalRow, ...]:
    winners = set(state.winners)
    net: dict[int, Decimal] = {p: Decimal(0) for p in range(len(state.players))}
    if stake_given:
        for payment in engine.settlement(state):
            for payer in payment.payers:
                net[payer] -= payment.amount / len(payment.payers)
            for payee in payment.payees:
                net[payee] += payment.amount / len(payment.payees)
    rows = [FinalRow(name, total, p in winners, int((net[p] * 100).to_integral_value()) if stake_given else None)
            for p, (name, total) in enumerate(zip(state.players, state.totals))]
    order = sorted(range(len(rows)), key=lambda p: (-rows[p].winner, -rows[p].points, p))
    return tuple(rows[p] for p in order)


def stake_label(stake: Decimal, money: MoneyStyle) -> Label:
    if stake == 0:
        return say("no_stake")
    return Names(es=format_money(stake, money, "es"), en=format_money(stake, money, "en"))


def brightness_level(contrast: int) -> int:
    """The settings menu's brightness level (0-based) of a panel contrast (1 to 255, the
    config's business); a contrast between levels counts as the nearest."""
    return min(range(len(BRIGHTNESS_STEPS)), key=lambda i: (abs(BRIGHTNESS_STEPS[i] - contrast), i))


def brightness_label(contrast: int) -> str:
    """The brightness as people read it: "4/5", never the panel's raw contrast."""
    return f"{brightness_level(contrast) + 1}/{len(BRIGHTNESS_STEPS)}"


def next_brightness(contrast: int, delta: int) -> int:
    """The contrast of the level `delta` steps from this one, round the levels."""
    return BRIGHTNESS_STEPS[(brightness_level(contrast) + delta) % len(BRIGHTNESS_STEPS)]


def number_label(value: float, places: int, money: MoneyStyle) -> Names:
    """A number with decimals as each language writes it on this device ("171,4" / "171.4",
    or the config's decimal separator in both)."""
    text = f"{value:.{places}f}"
    return Names(es=format_number(text, "es", money), en=format_number(text, "en", money))
