"""A game is a fold over its events: `replay(events)` and `apply(state, event)`.

`apply` is pure: it returns a new state or raises a `RuleError` naming the rule the event
breaks, and the state passed in is never changed. The rules come from the game's `Rules`
data (`engine.rules`); this module knows no game by name.
"""

from __future__ import annotations

import dataclasses
from decimal import Decimal, InvalidOperation
from types import MappingProxyType
from typing import Any, Iterable, Mapping, Sequence

from engine import events as ev
from engine.dice import opposite
from engine.errors import (
    BadDieValue, BadPartnerships, BadPlayers, BadStake, CategoryFilled, CategoryNotOpenYet,
    CrossingOutNotAllowed, DieAlreadyTurned, FirstThrowNotAllDice, GameAlreadyStarted,
    GameNotStarted, GameOver, HeldDieChanged, JokerBoxRequired, LockedDieRethrown, MalformedEvent, NoThrowToUndo,
    NoThrowYet, NothingThrown, NothingToCorrect, NothingToUndo, PointsMismatch, RollOffMismatch,
    SecondTurnMustImprove, ThrowAfterTurnOver, TooManyThrows, TooManyTurnedDice,
    TurnRequired, TurnTooEarly, TurnedDieNotOpposite, TurningNotInGame, UnknownCategory,
    WrongDiceCount, WrongPlayer,
)
from engine.games import resolve_game
from engine.match import next_to_play, round_decided, stand, start_match
from engine.ordering import roll_off_order
from engine.rules import GameDef
from engine.scoring import (
    extra_bonus, joker_boxes, score_category, score_turn, second_turn_improves, sheet_win, throw_win,
    throw_win_box, turn_over_required,
)
from engine.sheet import Mark, Sheet
from engine.state import GameState, InstantWin, ThrowRecord, Turn


def new_game(game: str, players: Sequence[str], options: Mapping[str, Any] | None = None,
             stake: Decimal | str | int | None = None,
             partnerships: Iterable[Iterable[int]] | None = None,
             roll_off: Mapping[str, Sequence[Sequence[int]]] | None = None,
             device_seats: Iterable[int] | None = None) -> dict[str, Any]:
    """The game_started event for a game id or preset ("yacht-1938"), every option resolved
    (defaults filled in); `device_seats`: the players the device plays. Raises the same
    errors replaying it would."""
    game_def, resolved = resolve_game(game, options)
    event = ev.game_started(game_def.id, players, resolved, stake, partnerships, roll_off, device_seats)
    start(event)
    return event


def replay(events: Iterable[Mapping[str, Any]]) -> GameState:
    """The state after all events; the first must be game_started."""
    state: GameState | None = None
    for event in events:
        state = start(event) if state is None else apply(state, event)
    if state is None:
        raise GameNotStarted("a game needs a game_started event first")
    return state


def start(event: Mapping[str, Any]) -> GameState:
    """The state of a new game from its game_started event."""
    ev.check_event(event)
    if event["type"] != ev.GAME_STARTED:
        raise GameNotStarted(f"the first event must be game_started, not {event['type']}")
    game, options = resolve_game(event["game"], event["options"])
    rules = game.rules(options)
    players = _check_players(event["players"])
    stake = _check_stake(event.get("stake"))
    partnerships = _check_partnerships(event.get("partnerships"), len(players), rules.partnerships, game.id)
    if "roll_off" in event:
        _check_roll_off(game, event["roll_off"], players, partnerships)
    device_seats = _check_device_seats(event.get("device_seats", []), len(players))
    return GameState(
        game=game, options=MappingProxyType(options), rules=rules, players=players,
        sheets=tuple(rules.empty_sheet() for _ in players), turn=Turn(player=0),
        banks=(0,) * len(players), stake=stake, partnerships=partnerships,
        match=None if rules.match is None else start_match(len(players)),
        device_seats=device_seats,
    )


def apply(state: GameState, event: Mapping[str, Any]) -> GameState:
    """The state after one more event; raises a RuleError and changes nothing if illegal."""
    ev.check_event(event)
    kind = event["type"]
    if kind == ev.GAME_STARTED:
        raise GameAlreadyStarted("this game has already started; a new game needs a new log")
    if kind == ev.TURN_UNDONE:
        return _undo(state)
    if kind == ev.READING_CORRECTED:
        return _correct(state, event["player"], event["values"])
    if kind == ev.THROW_UNDONE:
        return _undo_throw(state, event["player"])
    if kind == ev.CATEGORY_SCORED and state.instant_win is not None and state.instant_win.open:
        return _record_throw_win(state, event["player"], event["category"], event.get("points"))
    _check_playing(state, event["player"])
    if kind == ev.THROW:
        return _throw(state, event["values"], event["thrown"])
    if kind == ev.DIE_TURNED:
        return _turn_over(state, event["die"], event["value"])
    if kind == ev.CATEGORY_SCORED:
        return _fill(state, event["category"], scratch=False, claimed=event.get("points"))
    return _fill(state, event["category"], scratch=True, claimed=None)


# --- game_started ----------------------------------------------------------------------------


def _check_players(names: Sequence[str]) -> tuple[str, ...]:
    if not names:
        raise BadPlayers("a game needs at least one player")
    if any(not name.strip() for name in names):
        raise BadPlayers("a player's name may not be empty")
    if len({name.strip().casefold() for name in names}) != len(names):
        raise BadPlayers(f"player names must differ: {', '.join(names)}")
    return tuple(names)


def _check_stake(stake: str | None) -> Decimal | None:
    if stake is None:
        return None
    try:
        value = Decimal(stake)
    except InvalidOperation:
        raise BadStake(f"the stake per point must be a decimal number, not {stake!r}") from None
    if not value.is_finite() or value < 0:
        raise BadStake(f"the stake per point must be zero or more, not {stake!r}")
    return value


def _check_partnerships(sides: Sequence[Sequence[int]] | None, players: int, allowed: bool,
                        game: str) -> tuple[tuple[int, ...], ...] | None:
    if sides is None:
        return None
    if not allowed:
        raise BadPartnerships(f"{game} is not played in partnerships")
    members = sorted(p for side in sides for p in side)
    if players != 4 or len(sides) != 2 or any(len(side) != 2 for side in sides) or members != [0, 1, 2, 3]:
        raise BadPartnerships("partnerships are two sides of two among exactly four players")
    return tuple(tuple(sorted(side)) for side in sides)


def _check_device_seats(seats: Sequence[int], players: int) -> tuple[int, ...]:
    if any(not 0 <= seat < players for seat in seats):
        raise BadPlayers(f"the device's seats are players 0..{players - 1}, not {list(seats)}")
    return tuple(sorted(seats))


def _check_roll_off(game: GameDef, hands: Mapping[str, Sequence[Sequence[int]]], players: tuple[str, ...],
                    partnerships: tuple[tuple[int, ...], ...] | None) -> None:
    if sorted(hands) != sorted(players):
        raise RollOffMismatch("the roll-off must list the hands of exactly the players of the game")
    result = roll_off_order(game, hands)
    if not result.settled:
        tied = " and ".join(", ".join(group) for group in result.tied)
        raise RollOffMismatch(f"the roll-off is not decided: {tied} tied and throw again")
    if result.order != players:
        raise RollOffMismatch(f"by the roll-off the order of play is {', '.join(result.order)}")
    if partnerships is not None and set(partnerships) != {(0, 1), (2, 3)}:
        raise RollOffMismatch("partners are the two lowest and the two highest roll-off hands")


# --- common checks -----------------------------------------------------------------------------


def _check_playing(state: GameState, player: int) -> None:
    if state.finished:
        raise GameOver(_game_over_message(state))
    _check_player(state, player)


def _check_player(state: GameState, player: int) -> None:
    if player != state.turn.player:
        who = state.players[player] if 0 <= player < len(state.players) else f"player {player}"
        raise WrongPlayer(f"it is {state.players[state.turn.player]}'s turn, not {who}'s")


def _game_over_message(state: GameState) -> str:
    if state.instant_win is not None:
        return (f"the game is over: {state.players[state.instant_win.player]} won at once "
                f"({state.instant_win.name_en})")
    return "the game is over: every box is filled"


def _check_dice(state: GameState, values: Sequence[int]) -> tuple[int, ...]:
    if len(values) != state.rules.dice:
        raise WrongDiceCount(f"{state.game.id} is played with {state.rules.dice} dice, not {len(values)}")
    for value in values:
        if not 1 <= value <= 6:
            raise BadDieValue(f"a die shows 1 to 6, not {value}")
    return tuple(values)


# --- throws -------------------------------------------------------------------------------------


def _throw(state: GameState, values: Sequence[int], thrown: Sequence[int]) -> GameState:
    rules, turn = state.rules, state.turn
    dice = _check_dice(state, values)
    if any(not 0 <= i < rules.dice for i in thrown) or len(set(thrown)) != len(thrown):
        raise MalformedEvent(f"thrown dice must be distinct indices 0..{rules.dice - 1}, not {list(thrown)}")
    if not thrown:
        raise NothingThrown("a throw throws at least one die")
    if turn.throw_number >= state.max_throws:
        bank = " (spare throws included)" if rules.spare_throw_bank else ""
        raise TooManyThrows(f"a turn is at most {state.max_throws} throws{bank}; fill a box")
    if turn.throw_number == 0 and len(thrown) != rules.dice:
        raise FirstThrowNotAllDice("the first throw of a turn is of all the dice")
    if turn.turned:
        raise ThrowAfterTurnOver("no throw after a die has been turned over; fill a box")
    if rules.held_dice_locked:
        rethrown = sorted(set(thrown) & turn.locked)
        if rethrown:
            raise LockedDieRethrown(
                f"a die set aside stays set aside for the rest of the turn (die {', '.join(str(i + 1) for i in rethrown)})")
    for i, before in enumerate(turn.dice):
        if i not in thrown and dice[i] != before:
            raise HeldDieChanged(f"held die {i + 1} showed {before} and now shows {dice[i]}; "
                                 f"correct the reading or count it as thrown")
    record = ThrowRecord(dice, tuple(sorted(thrown)))
    return _after_throw(state, dataclasses.replace(turn, throws=turn.throws + (record,)))


def _after_throw(state: GameState, turn: Turn) -> GameState:
    """The state with this turn, its instant win (if the throw made one) decided afresh."""
    won = throw_win(state.rules, turn, state.sheets[turn.player])
    instant = None if won is None else InstantWin(turn.player, won.id, won.name_en, won.name_es, "throw")
    return dataclasses.replace(state, turn=turn, instant_win=instant)


def _turn_over(state: GameState, die: int, value: int) -> GameState:
    rules, turn = state.rules, state.turn
    spec = rules.turn_over
    if spec is None:
        raise TurningNotInGame(f"dice are not turned over in {state.game.id}")
    if turn.throw_number < spec.from_throw:
        raise TurnTooEarly("a die is turned over only after the second throw")
    if not 0 <= die < rules.dice:
        raise MalformedEvent(f"there is no die {die} (dice are 0..{rules.dice - 1})")
    if die in turn.turned:
        raise DieAlreadyTurned(f"die {die + 1} has already been turned over")
    if len(turn.turned) >= spec.max_dice:
        raise TooManyTurnedDice(f"at most {spec.max_dice} dice are turned over")
    showing = turn.dice[die]
    if value != opposite(showing):
        raise TurnedDieNotOpposite(
            f"die {die + 1} showed {showing}, so turned over it shows {opposite(showing)}, not {value}")
    if turn.turned and not second_turn_improves(rules, turn, state.sheets[turn.player], die):
        raise SecondTurnMustImprove(
            f"a second die is turned over only if that improves the score; turning die {die + 1} does not")
    return dataclasses.replace(state, turn=dataclasses.replace(turn, turned=turn.turned + (die,)))


def _check_throw_may_change(state: GameState, player: int) -> None:
    """A correction or an undone throw is allowed during the turn, and after an instant win
    made by the dice of this turn's last throw (the reading may have been wrong)."""
    if state.finished and not (state.instant_win is not None and state.instant_win.open):
        raise GameOver(_game_over_message(state))
    _check_player(state, player)


def _undo_throw(state: GameState, player: int) -> GameState:
    turn = state.turn
    _check_throw_may_change(state, player)
    if not turn.throws:
        raise NoThrowToUndo("there is no throw to undo this turn")
    earlier = Turn(turn.player, turn.throws[:-1])
    if not earlier.throws:
        return dataclasses.replace(state, turn=earlier, instant_win=None)
    return _after_throw(state, earlier)


def _correct(state: GameState, player: int, values: Sequence[int]) -> GameState:
    turn = state.turn
    _check_throw_may_change(state, player)
    if not turn.throws:
        raise NothingToCorrect("there is no throw to correct this turn")
    showing = _check_dice(state, values)
    as_thrown = tuple(opposite(v) if i in turn.turned else v for i, v in enumerate(showing))
    last = turn.throws[-1]
    for i, before in enumerate(last.values):
        if i not in last.thrown and as_thrown[i] != before:
            raise HeldDieChanged(f"die {i + 1} was held with {before} and was not thrown again; a correction "
                                 f"changes only the dice of the throw it corrects (undo this throw to correct "
                                 f"the one where die {i + 1} was read)")
    record = ThrowRecord(as_thrown, last.thrown, corrected=True)
    return _after_throw(state, dataclasses.replace(turn, throws=turn.throws[:-1] + (record,)))


# --- filling a box ---------------------------------------------------------------------------------


def _fill(state: GameState, category_id: str, scratch: bool, claimed: int | None) -> GameState:
    rules, turn = state.rules, state.turn
    player = turn.player
    sheet = state.sheets[player]
    if not turn.throws:
        raise NoThrowYet("throw the dice before filling a box")
    if category_id not in sheet:
        raise UnknownCategory(f"{state.game.id} has no category {category_id!r}")
    if not sheet.is_open(category_id):
        raise CategoryFilled(f"{category_id} is already filled")
    category = rules.category(category_id)
    if category.opens_after is not None and sheet.is_open(category.opens_after):
        raise CategoryNotOpenYet(f"{category_id} is filled only after {category.opens_after}")
    if turn_over_required(rules, turn):
        raise TurnRequired("after the second throw a die must be turned over before a box is filled")
    allowed = joker_boxes(rules, turn, sheet)
    if allowed is not None and category_id not in allowed:
        raise JokerBoxRequired(f"five of a face with {rules.joker.box} filled (the joker) goes in "
                               f"{' or '.join(sorted(allowed))}")
    result = score_category(rules, category, turn, sheet)
    if scratch and rules.match is not None and result.points > 0:
        raise CrossingOutNotAllowed("in a match a player stands on the hand the dice show; it is not crossed out")
    points = 0 if scratch else result.points
    if points == 0 and rules.cross_out_only_when_nothing_scores:
        scoring = [r.category.id for r in score_turn(rules, turn, sheet)
                   if r.points > 0 and sheet.is_open(r.category.id) and _fillable(sheet, r.category.opens_after)]
        if scoring:
            raise CrossingOutNotAllowed(
                f"a box may be crossed out only when no open box scores; these score: {', '.join(scoring)}")
    if claimed is not None and claimed != points:
        raise PointsMismatch(f"{category_id} scores {points} with these dice, not {claimed}")
    mark = Mark(points=points, scratched=points == 0, served=points > 0 and result.served,
                throw=turn.throw_number, bonus=extra_bonus(rules, turn, sheet))
    new_sheet = sheet.with_mark(category_id, mark)
    sheets = state.sheets[:player] + (new_sheet,) + state.sheets[player + 1:]
    banks = state.banks
    if rules.spare_throw_bank:
        banks = banks[:player] + (banks[player] + rules.throws - turn.throw_number,) + banks[player + 1:]
    won = sheet_win(rules, new_sheet)
    instant = None if won is None else InstantWin(player, won.id, won.name_en, won.name_es, "fill")
    if state.match is not None and rules.match is not None:
        match = stand(rules.match, state.match, player, turn.dice, turn.throw_number)
        if round_decided(match):
            sheets = tuple(s.emptied() for s in sheets)
        return dataclasses.replace(state, sheets=sheets, match=match, turn=Turn(player=next_to_play(match)),
                                   undo_point=state)
    return dataclasses.replace(
        state, sheets=sheets, banks=banks, instant_win=instant,
        turn=Turn(player=(player + 1) % len(state.players)), undo_point=state,
    )


def _record_throw_win(state: GameState, player: int, category_id: str, claimed: int | None) -> GameState:
    """The players confirm the win the last throw made: it is written in its box (the
    first open one of the rule's boxes) with the points the box gives those dice. The game
    stays won; the throw can no longer be corrected or taken back (turn_undone can)."""
    win = state.instant_win
    assert win is not None
    _check_player(state, player)
    box = throw_win_box(state.rules, win.rule, state.sheets[player])
    if box is None:
        raise GameOver(f"{_game_over_message(state)}; the win has no open box to be written in")
    if category_id != box:
        raise GameOver(f"{_game_over_message(state)}; the win is written in {box}, not {category_id}")
    turn, sheet = state.turn, state.sheets[player]
    result = score_category(state.rules, state.rules.category(box), turn, sheet)
    if claimed is not None and claimed != result.points:
        raise PointsMismatch(f"{box} scores {result.points} with these dice, not {claimed}")
    mark = Mark(points=result.points, scratched=result.points == 0, served=result.served, throw=turn.throw_number)
    sheets = state.sheets[:player] + (sheet.with_mark(box, mark),) + state.sheets[player + 1:]
    return dataclasses.replace(state, sheets=sheets, instant_win=dataclasses.replace(win, box=box),
                               turn=Turn(player=(player + 1) % len(state.players)), undo_point=state)


def _fillable(sheet: Sheet, opens_after: str | None) -> bool:
    return opens_after is None or not sheet.is_open(opens_after)


def _undo(state: GameState) -> GameState:
    if state.undo_point is None:
        raise NothingToUndo("no box has been filled yet, so there is nothing to undo")
    return state.undo_point


__all__ = ["new_game", "replay", "start", "apply"]
