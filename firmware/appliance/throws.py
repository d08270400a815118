"""From what the tracker saw to what the game records: planning one throw.

The tracker says, for each die it sees now, how it moved since *its* previous settled throw.
The game needs the throw as the engine's event: every die by its index within the turn,
and which dice were thrown. Between the two sit settles the game refused (a cocked die, a
die out of view): `TrayLink` carries, for each die of the tracker's last settled reading,
the engine index of the recorded die it still is (held since the last recorded throw), so
a die held through a refused settle is still known to be held.

`plan_throw` never records anything. It says what to do: refuse with a message, ask the
players about a die, turn a die over, ignore, or record this event.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Union

from engine import GameState, turn_actions
from engine import events as engine_events
from engine.dice import opposite
from firmware.appliance.inputs import ThrowSeen
from firmware.appliance.session import StoredReading, ThrowView
from firmware.ui.catalogue import rule_message, say
from firmware.ui.screens import Names
from vision.reading import SURE_CONFIDENCE, Reading


@dataclass(frozen=True)
class TrayLink:
    """For each die of the tracker's last settled reading: the engine index of the recorded
    die it is (not moved since that throw was recorded), or None (thrown since, or unknown)."""

    index: tuple[int | None, ...] = ()

    def of(self, previous: int | None) -> int | None:
        """The engine index die `previous` of the last settle stands for, if still held."""
        if previous is None or not 0 <= previous < len(self.index):
            return None
        return self.index[previous]


@dataclass(frozen=True)
class Refuse:
    message: Names
    link: TrayLink | None


@dataclass(frozen=True)
class Ignore:
    message: Names | None
    link: TrayLink | None


@dataclass(frozen=True)
class Ask:
    """Ask whether each of these dice (indices into the reading) was thrown."""

    dice: tuple[int, ...]


@dataclass(frozen=True)
class TurnOver:
    """Dice turned over to their opposite face (cacho), no die thrown."""

    turns: tuple[tuple[int, int, int], ...]  # (engine index, new value, reading index)
    link: TrayLink


@dataclass(frozen=True)
class Record:
    event: dict[str, Any]
    reading: StoredReading
    link: TrayLink  # after it is recorded
    refused_link: TrayLink  # if the engine refuses it


Plan = Union[Refuse, Ignore, Ask, TurnOver, Record]


@dataclass(frozen=True)
class Answers:
    """The players' answers to `Ask`: reading index -> True (thrown) / False (held)."""

    thrown: dict[int, bool] = field(default_factory=dict)


def left_to_right(reading: Reading) -> tuple[int, ...]:
    """Reading indices ordered by the die's position on the tray, left to right."""
    return tuple(sorted(range(len(reading.dice)), key=lambda r: (reading.dice[r].center[0], r)))


def reading_die_number(reading: Reading, r: int) -> int:
    """The 1-based number the players see for die r of a reading."""
    return left_to_right(reading).index(r) + 1


def full_throw_problem(seen: ThrowSeen, dice: int) -> Names | None:
    """Why this settle is not a readable throw of all `dice` dice, or None."""
    reading = seen.reading
    if not reading.dice:
        return say("unreadable")
    if any(p.kind == "unreadable" for p in reading.problems):
        # Something die-sized the reader could not read: a die may be missing from the
        # reading, or one read may not be a die. Nothing is recorded until it is clear.
        return say("unread_object")
    if len(reading.dice) != dice:
        return say("dice_seen", seen=len(reading.dice), expected=dice)
    cocked = [r for r, die in enumerate(reading.dice) if die.cocked]
    if cocked:
        return say("die_cocked", die=reading_die_number(reading, cocked[0]))
    return None


def is_unsure(reading: Reading, r: int) -> bool:
    die = reading.dice[r]
    return die.confidence < SURE_CONFIDENCE or any(
        p.kind == "unsure" and p.die == r for p in reading.problems)


def plan_throw(seen: ThrowSeen, state: GameState, view: ThrowView, link: TrayLink | None,
               answers: Answers = Answers(), watched: bool = True) -> Plan:
    """watched: something moved in view since the tracker started (a hand, the cup)."""
    rules, turn = state.rules, state.turn
    reading = seen.reading
    n = rules.dice
    relation = _relate(seen, state, view, link, answers)
    problem = full_throw_problem(seen, n)
    if problem is not None:
        return Refuse(problem, _link_after_refusal(relation) if reading.dice else None)
    actions = turn_actions(state)
    first = turn.throw_number == 0

    if seen.moved and all(m == "new" for m in seen.moved) and not watched:
        # The tracker has just started (after a power cut) and found these dice lying there:
        # nobody threw them in view, so they are no throw. At a turn's start they are usually
        # the last player's dice, still on the tray; within a turn they are the recorded
        # throw's, and a die that reads otherwise (the reader's old mistake, which the players
        # had corrected) is for the players to check, not a throw. Dice that came to rest
        # after a hand or the cup was seen were thrown.
        if first:
            return Ignore(None, None)
        changed = any(kind != "held" for kind, _ in relation)
        return Ignore(say("check_die") if changed else None, TrayLink(tuple(base for _, base in relation)))

    if first:
        # A die still lying as the last recorded throw left it was not thrown. One held
        # only since a refused settle (a cocked die rethrown alone) was thrown this turn.
        if any(rel[0] == "held" for rel in relation):
            return Refuse(say("throw_all", n=n), _link_after_refusal(relation))
        order = left_to_right(reading)
        index = [0] * n
        for engine_index, r in enumerate(order):
            index[r] = engine_index
        return _record(seen, state, index, thrown=set(range(n)))

    questions = tuple(r for r, rel in enumerate(relation) if rel[0] == "ambiguous")
    if questions:
        return Ask(questions)
    thrown_r = [r for r, rel in enumerate(relation) if rel[0] == "thrown"]
    turned = [(rel[1], reading.dice[r].value, r) for r, rel in enumerate(relation) if rel[0] == "turned"]
    held_r = [r for r, rel in enumerate(relation) if rel[0] == "held"]

    if not thrown_r and turned:
        if rules.turn_over is None:
            return Refuse(rule_message("held_die_unchanged"), _link_after_refusal(relation))
        return TurnOver(tuple(turned), TrayLink(tuple(rel[1] for rel in relation)))
    if not thrown_r:
        changed = [r for r in held_r if reading.dice[r].value != turn.dice[relation[r][1]]
                   and not is_unsure(reading, r)]
        message = say("check_die") if changed else None
        return Ignore(message, TrayLink(tuple(rel[1] for rel in relation)))
    if not actions.may_throw:
        message = rule_message("no_throw_after_turn_over") if turn.turned else say("no_throws_left")
        return Refuse(message, _link_after_refusal(relation))

    # Turned dice among thrown ones were thrown too: the throw decides their face.
    taken = {rel[1] for rel in relation if rel[0] == "held"}
    free = [i for i in range(n) if i not in taken]
    moving = [r for r in left_to_right(reading) if relation[r][0] != "held"]
    index = [0] * n
    for r in held_r:
        index[r] = relation[r][1]
    for r, engine_index in zip(moving, free):
        index[r] = engine_index
    return _record(seen, state, index, thrown={index[r] for r in moving})


def _record(seen: ThrowSeen, state: GameState, index: list[int], thrown: set[int]) -> Record:
    """The throw event (held dice keep their recorded values) and its stored reading, which
    says which engine die each read die is (`index`): the unsure ones are found from it."""
    reading = seen.reading
    values = list(state.turn.dice) if state.turn.throw_number else [0] * state.rules.dice
    for r, die in enumerate(reading.dice):
        if index[r] in thrown:
            values[index[r]] = die.value
    event = engine_events.throw(state.current_player, values, thrown)
    stored = StoredReading(reading, tuple(seen.moved), tuple(index), round(seen.t, 3),
                           seen.previous if seen.tracked else None, seen.expected)
    refused = TrayLink(tuple(None if i in thrown else i for i in index))
    return Record(event, stored, TrayLink(tuple(index)), refused)


Relation = tuple[str, "int | None"]  # ("held"|"turned"|"ambiguous", engine index) or ("thrown", None)


def _relate(seen: ThrowSeen, state: GameState, view: ThrowView, link: TrayLink | None,
            answers: Answers) -> list[Relation]:
    """How each die seen now relates to the last recorded throw of the turn."""
    turn = state.turn
    relation: list[Relation] = []
    claimed: set[int] = set()
    for r, die in enumerate(seen.reading.dice):
        moved = seen.moved[r] if r < len(seen.moved) else "new"
        previous = seen.previous[r] if r < len(seen.previous) else None
        base = link.of(previous) if link is not None else None
        if turn.throw_number == 0:  # relative to the previous turn's last recorded throw
            relation.append(("held", base) if moved == "held" and base is not None else ("thrown", None))
            continue
        if r in answers.thrown:
            if answers.thrown[r] or base is None:
                relation.append(("thrown", None))
            else:
                relation.append(("held", base))
            continue
        if moved == "thrown":
            relation.append(("thrown", None))
        elif moved in ("held", "turned", "ambiguous") and base is not None:
            relation.append(("held" if moved == "held" else moved, base))
        elif moved in ("held", "new") or (moved in ("turned", "ambiguous") and link is None):
            # Not linked to the record (the tracker started after it, or its last settle was
            # unreadable): a die lying where a recorded die lay, showing its face, is that die.
            relation.append(_by_position(die.value, die.center, state, view, claimed))
        else:  # turned or ambiguous relative to a die thrown since the record
            relation.append(("thrown", None))
        kind, base = relation[-1]
        if base is not None:
            if base in claimed:  # two dice cannot be one recorded die: the second moved
                relation[-1] = ("thrown", None)
            claimed.add(base)
    return relation


def _by_position(value: int, center: tuple[float, float], state: GameState, view: ThrowView,
                 claimed: set[int]) -> Relation:
    best: tuple[float, int] | None = None
    for i, seen in enumerate(view.dice):
        if i in claimed or seen.center is None:
            continue
        distance = math.dist(center, seen.center)
        if distance <= max(seen.size, 1.0) * 0.5 and (best is None or distance < best[0]):
            best = (distance, i)
    if best is None:
        return ("thrown", None)
    i = best[1]
    if value == state.turn.dice[i]:
        return ("held", i)
    if value == opposite(state.turn.dice[i]):
        return ("turned", i)
    return ("ambiguous", i)


def _link_after_refusal(relation: list[Relation]) -> TrayLink:
    """Dice still held since the record keep their index; the rest are thrown since."""
    return TrayLink(tuple(rel[1] if rel[0] == "held" else None for rel in relation))
