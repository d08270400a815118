"""The events a game is a fold of: plain JSON-serialisable dicts, versioned.

Every event has "type" and "v" (the schema version, now 1). Players are indices into the
game_started "players" list (which is in play order); dice are indices 0..n-1 of the game's
dice, stable within a turn. The constructors below build valid events; `check_event`
verifies the shape of any event (field names and types) before the fold applies the rules.

    game_started       game: str            engine game id ("generala", "cacho", ...)
                       options: {str: ...}  every option of the game with its value (new_game
                                            fills in the defaults, so a log never depends on
                                            a later change of defaults)
                       players: [str]       names in play order, unique, at least one
                       stake: str           optional: money per point, a decimal ("0.01")
                       partnerships: [[int]] optional (General, 4 players): two sides of two
                       roll_off: {str: [[int]]} optional: each player's roll-off hands (first
                                            hand, then rethrows while tied); when given, the
                                            players must be in the order it decides, and
                                            partnerships must be the two lowest and the two
                                            highest hands
                       device_seats: [int]  optional: the players the device itself plays (the
                                            practice opponent: its dice are thrown by people,
                                            its keeps and boxes are the device's); distinct
                                            indices into players. The rules ignore it; the
                                            appliance reads it to know whose turns it plays,
                                            also when it resumes a game. Absent: every player
                                            is a person (every log written before it existed)
    throw              player: int          whose turn it is
                       values: [int]        every die after the throw, 1..6, by die index
                                            (held dice keep their values)
                       thrown: [int]        sorted indices of the dice thrown (all of them on
                                            the first throw of a turn)
                       source: str          optional: "hand" when the players entered the dice
                                            with the buttons (no camera, or the camera unsure);
                                            absent for a throw the camera read (every log
                                            written before it existed). The rules ignore it.
    die_turned         player: int
                       die: int             index of the die turned over (cacho)
                       value: int           its new face, which must be 7 - its old face
    category_scored    player: int
                       category: str        an open category id; dice that do not qualify
                                            score 0 (a scratch)
                       points: int          optional: if given, must equal what the engine
                                            computes (a guard against a stale display)
                                            After a throw that won the game at once, the one
                                            event accepted: the winner's win written in its
                                            box (engine.win_option), the players' confirmation
    category_scratched player: int
                       category: str        crossed out with 0 points
    reading_corrected  player: int
                       values: [int]        the dice of the current throw as they show now
                                            (a die turned over shows its turned face); replaces
                                            the camera's reading, before any box is filled
    throw_undone       player: int          takes back the last throw of the current turn (one
                                            the tracker saw but nobody made: a nudge, a bump);
                                            dice turned over after it go with it
    turn_undone        (no fields)          takes back the last filled box (of whichever
                                            player): the game returns to the moment before it
                                            was filled, dice showing; anything after it is
                                            dropped from the game (it stays in the log)
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any, Callable, Iterable, Mapping, Sequence

from engine.errors import MalformedEvent, UnsupportedEventVersion

VERSION = 1

GAME_STARTED = "game_started"
THROW = "throw"
DIE_TURNED = "die_turned"
CATEGORY_SCORED = "category_scored"
CATEGORY_SCRATCHED = "category_scratched"
READING_CORRECTED = "reading_corrected"

# Where a throw's values came from, when not the camera.
SOURCE_HAND = "hand"
THROW_SOURCES = (SOURCE_HAND,)
THROW_UNDONE = "throw_undone"
TURN_UNDONE = "turn_undone"


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_int_list(value: Any) -> bool:
    return isinstance(value, list) and all(_is_int(v) for v in value)


def _is_str(value: Any) -> bool:
    return isinstance(value, str)


def _is_source(value: Any) -> bool:
    return value in THROW_SOURCES


def _is_options(value: Any) -> bool:
    return isinstance(value, dict) and all(isinstance(k, str) for k in value) and all(
        isinstance(v, (bool, int, str)) for v in value.values())


def _is_names(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(v, str) for v in value)


def _is_sides(value: Any) -> bool:
    return isinstance(value, list) and all(_is_int_list(side) for side in value)


def _is_seats(value: Any) -> bool:
    return _is_int_list(value) and len(set(value)) == len(value)


def _is_roll_off(value: Any) -> bool:
    return isinstance(value, dict) and all(isinstance(k, str) and isinstance(v, list) and all(_is_int_list(h) for h in v)
                                           for k, v in value.items())


# type -> {field: (check, required)}
SCHEMA: dict[str, dict[str, tuple[Callable[[Any], bool], bool]]] = {
    GAME_STARTED: {"game": (_is_str, True), "options": (_is_options, True), "players": (_is_names, True),
                   "stake": (_is_str, False), "partnerships": (_is_sides, False),
                   "roll_off": (_is_roll_off, False), "device_seats": (_is_seats, False)},
    THROW: {"player": (_is_int, True), "values": (_is_int_list, True), "thrown": (_is_int_list, True),
            "source": (_is_source, False)},
    DIE_TURNED: {"player": (_is_int, True), "die": (_is_int, True), "value": (_is_int, True)},
    CATEGORY_SCORED: {"player": (_is_int, True), "category": (_is_str, True), "points": (_is_int, False)},
    CATEGORY_SCRATCHED: {"player": (_is_int, True), "category": (_is_str, True)},
    READING_CORRECTED: {"player": (_is_int, True), "values": (_is_int_list, True)},
    THROW_UNDONE: {"player": (_is_int, True)},
    TURN_UNDONE: {},
}

EVENT_TYPES = tuple(SCHEMA)


def check_event(event: Any) -> Mapping[str, Any]:
    """The event if its shape is right; MalformedEvent / UnsupportedEventVersion otherwise."""
    if not isinstance(event, Mapping):
        raise MalformedEvent(f"an event is a JSON object, not {type(event).__name__}")
    kind = event.get("type")
    if not isinstance(kind, str) or kind not in SCHEMA:
        raise MalformedEvent(f"unknown event type {kind!r}; types: {', '.join(EVENT_TYPES)}")
    if event.get("v") != VERSION or not _is_int(event.get("v")):
        raise UnsupportedEventVersion(f"{kind} event version {event.get('v')!r} is not supported (this engine reads v{VERSION})")
    fields = SCHEMA[kind]
    for name, (check, required) in fields.items():
        if name not in event:
            if required:
                raise MalformedEvent(f"{kind} event lacks the field {name!r}")
        elif not check(event[name]):
            raise MalformedEvent(f"{kind} event field {name!r} has a bad value: {event[name]!r}")
    extra = set(event) - set(fields) - {"type", "v"}
    if extra:
        raise MalformedEvent(f"{kind} event has unknown fields: {', '.join(sorted(extra))}")
    return event


def _event(kind: str, **fields: Any) -> dict[str, Any]:
    return {"type": kind, "v": VERSION, **{k: v for k, v in fields.items() if v is not None}}


def game_started(game: str, players: Sequence[str], options: Mapping[str, Any],
                 stake: Decimal | str | int | None = None,
                 partnerships: Iterable[Iterable[int]] | None = None,
                 roll_off: Mapping[str, Sequence[Sequence[int]]] | None = None,
                 device_seats: Iterable[int] | None = None) -> dict[str, Any]:
    """The raw first event. Prefer `engine.new_game`, which resolves presets and defaults.
    No device seat (None or empty) leaves the field out, as every earlier log has it."""
    seats = sorted(device_seats) if device_seats is not None else []
    return _event(GAME_STARTED, game=game, options=dict(options), players=list(players),
                  stake=None if stake is None else str(stake),
                  partnerships=None if partnerships is None else [list(side) for side in partnerships],
                  roll_off=None if roll_off is None else {name: [list(h) for h in hands]
                                                          for name, hands in roll_off.items()},
                  device_seats=seats or None)


def throw(player: int, values: Sequence[int], thrown: Iterable[int] | None = None,
          source: str | None = None) -> dict[str, Any]:
    """A throw; `thrown` defaults to every die (the first throw of a turn); `source` is
    SOURCE_HAND for dice entered by hand, None for the camera's."""
    indices = range(len(values)) if thrown is None else thrown
    return _event(THROW, player=player, values=list(values), thrown=sorted(indices), source=source)


def die_turned(player: int, die: int, value: int) -> dict[str, Any]:
    return _event(DIE_TURNED, player=player, die=die, value=value)


def category_scored(player: int, category: str, points: int | None = None) -> dict[str, Any]:
    return _event(CATEGORY_SCORED, player=player, category=category, points=points)


def category_scratched(player: int, category: str) -> dict[str, Any]:
    return _event(CATEGORY_SCRATCHED, player=player, category=category)


def reading_corrected(player: int, values: Sequence[int]) -> dict[str, Any]:
    return _event(READING_CORRECTED, player=player, values=list(values))


def throw_undone(player: int) -> dict[str, Any]:
    return _event(THROW_UNDONE, player=player)


def turn_undone() -> dict[str, Any]:
    return _event(TURN_UNDONE)
