"""Every event that breaks a rule is refused with the error naming that rule, and the game
is exactly as it was before."""

from __future__ import annotations

import copy
import json

import pytest

import engine
from engine import events as ev

ALL = [0, 1, 2, 3, 4]


def game(name: str = "generala", players=("Ana", "Bea"), *log: dict, **options) -> tuple[list[dict], engine.GameState]:
    events = [engine.new_game(name, list(players), options), *log]
    return events, engine.replay(events)


def refused(events: list[dict], event: dict, error: type[engine.RuleError]) -> engine.RuleError:
    """Applying `event` raises `error`; the state and the event are untouched."""
    state = engine.replay(events)
    before = copy.deepcopy(event)
    with pytest.raises(error) as raised:
        engine.apply(state, event)
    assert event == before
    assert state == engine.replay(events)
    assert raised.value.rule == error.rule and str(raised.value)
    return raised.value


# --- throws ----------------------------------------------------------------------------------------

def test_a_fourth_throw_is_refused() -> None:
    log, _ = game("generala", ("Ana",), ev.throw(0, [1, 2, 2, 3, 6]), ev.throw(0, [1, 2, 2, 3, 5], ALL),
                  ev.throw(0, [1, 2, 2, 3, 4], ALL), held_dice_locked=False)
    error = refused(log, ev.throw(0, [1, 1, 1, 1, 1], ALL), engine.TooManyThrows)
    assert "at most 3 throws" in str(error)


def test_the_first_throw_is_of_all_the_dice() -> None:
    log, _ = game()
    refused(log, ev.throw(0, [1, 2, 3, 4, 5], [0, 1, 2]), engine.FirstThrowNotAllDice)


def test_a_throw_throws_at_least_one_die() -> None:
    log, _ = game("generala", ("Ana",), ev.throw(0, [1, 2, 2, 3, 6]))
    refused(log, ev.throw(0, [1, 2, 2, 3, 6], []), engine.NothingThrown)


def test_a_die_set_aside_stays_set_aside_in_the_reglamento() -> None:
    log, _ = game("generala", ("Ana",), ev.throw(0, [1, 2, 2, 3, 6]), ev.throw(0, [1, 2, 2, 5, 5], [3, 4]))
    error = refused(log, ev.throw(0, [4, 2, 2, 5, 5], [0]), engine.LockedDieRethrown)
    assert error.rule == "held_dice_locked"
    state = engine.replay(log)
    assert engine.turn_actions(state).rethrowable == (3, 4)
    # Throwing the dice thrown last time again is fine.
    assert engine.apply(state, ev.throw(0, [1, 2, 2, 6, 6], [3, 4])).turn.throw_number == 3


def test_dice_entered_by_hand_obey_the_same_rules() -> None:
    hand = ev.SOURCE_HAND
    log, _ = game()
    refused(log, ev.throw(0, [1, 2, 3, 4, 5], [0, 1, 2], source=hand), engine.FirstThrowNotAllDice)
    log, _ = game("generala", ("Ana",), ev.throw(0, [1, 2, 2, 3, 6], source=hand),
                  ev.throw(0, [1, 2, 2, 5, 5], [3, 4], source=hand))
    refused(log, ev.throw(0, [4, 2, 2, 5, 5], [0], source=hand), engine.LockedDieRethrown)
    refused(log, ev.throw(0, [1, 2, 2, 6, 6], [], source=hand), engine.NothingThrown)


def test_a_throw_by_hand_plays_as_the_same_throw_by_the_camera() -> None:
    throws = [([1, 2, 2, 3, 6], None), ([1, 2, 2, 5, 5], [3, 4]), ([2, 2, 2, 5, 5], [0])]
    by_camera = [ev.throw(0, values, thrown) for values, thrown in throws]
    by_hand = [ev.throw(0, values, thrown, source=ev.SOURCE_HAND) for values, thrown in throws]
    assert all(e["source"] == "hand" for e in by_hand) and all("source" not in e for e in by_camera)
    _, camera_state = game("generala", ("Ana",), *by_camera, held_dice_locked=False)
    _, hand_state = game("generala", ("Ana",), *by_hand, held_dice_locked=False)
    assert hand_state == camera_state


def test_after_the_first_throw_all_five_may_be_thrown_again_even_when_locked() -> None:
    log, state = game("generala", ("Ana",), ev.throw(0, [1, 2, 2, 3, 6]), ev.throw(0, [1, 2, 4, 3, 5], ALL))
    assert engine.turn_actions(state).rethrowable == (0, 1, 2, 3, 4)


def test_without_locked_dice_a_held_die_may_be_thrown_later() -> None:
    log, state = game("generala-classic", ("Ana",), ev.throw(0, [1, 2, 2, 3, 6]), ev.throw(0, [1, 2, 2, 5, 5], [3, 4]))
    assert engine.apply(state, ev.throw(0, [4, 2, 2, 5, 5], [0])).turn.dice == (4, 2, 2, 5, 5)


def test_a_held_die_keeps_its_value() -> None:
    log, _ = game("generala", ("Ana",), ev.throw(0, [1, 2, 2, 3, 6]))
    refused(log, ev.throw(0, [1, 2, 2, 4, 4], [4]), engine.HeldDieChanged)


@pytest.mark.parametrize("values, error", [([1, 2, 3, 4], engine.WrongDiceCount), ([1, 2, 3, 4, 7], engine.BadDieValue),
                                           ([0, 2, 3, 4, 5], engine.BadDieValue)])
def test_dice_are_the_games_count_of_values_1_to_6(values, error) -> None:
    log, _ = game()
    refused(log, ev.throw(0, values, range(len(values))), error)


def test_the_wrong_player_is_refused() -> None:
    log, _ = game()
    refused(log, ev.throw(1, [1, 2, 3, 4, 5]), engine.WrongPlayer)
    refused(log, ev.throw(7, [1, 2, 3, 4, 5]), engine.WrongPlayer)
    log.append(ev.throw(0, [1, 2, 3, 4, 5]))
    refused(log, ev.category_scored(1, "straight"), engine.WrongPlayer)


def test_nothing_after_the_game_is_over() -> None:
    log, state = game("generala", ("Ana", "Bea"), ev.throw(0, [2, 2, 2, 2, 2]))
    assert state.finished
    refused(log, ev.throw(1, [1, 2, 3, 4, 5]), engine.GameOver)
    refused(log, ev.throw(0, [1, 2, 3, 4, 5]), engine.GameOver)
    refused(log, ev.category_scored(0, "twos"), engine.GameOver)  # only the win's own box
    refused(log, ev.category_scratched(0, "generala"), engine.GameOver)
    refused(log, ev.category_scored(1, "generala"), engine.WrongPlayer)
    refused(log, ev.category_scored(0, "generala", 50), engine.PointsMismatch)
    log.append(ev.category_scored(0, "generala"))  # the players confirm the win: written in its box
    refused(log, ev.category_scored(1, "ones"), engine.GameOver)
    refused(log, ev.category_scored(0, "generala"), engine.GameOver)
    refused(log, ev.reading_corrected(0, [2, 2, 2, 2, 3]), engine.GameOver)


def test_a_box_is_filled_only_after_a_throw() -> None:
    log, _ = game()
    refused(log, ev.category_scored(0, "ones"), engine.NoThrowYet)
    refused(log, ev.category_scratched(0, "ones"), engine.NoThrowYet)


# --- filling -------------------------------------------------------------------------------------

def test_a_filled_box_cannot_be_filled_again() -> None:
    log, _ = game("generala", ("Ana",), ev.throw(0, [1, 2, 2, 3, 6]), ev.category_scored(0, "twos"),
                  ev.throw(0, [2, 2, 2, 3, 6]))
    refused(log, ev.category_scored(0, "twos"), engine.CategoryFilled)
    refused(log, ev.category_scratched(0, "twos"), engine.CategoryFilled)


def test_an_unknown_category_is_refused() -> None:
    log, _ = game("generala", ("Ana",), ev.throw(0, [1, 2, 2, 3, 6]))
    refused(log, ev.category_scored(0, "small_general"), engine.UnknownCategory)


def test_claimed_points_must_match() -> None:
    log, state = game("generala", ("Ana",), ev.throw(0, [1, 2, 2, 3, 6]))
    refused(log, ev.category_scored(0, "twos", 6), engine.PointsMismatch)
    assert engine.apply(state, ev.category_scored(0, "twos", 4)).totals == (4,)


def test_a_box_the_dice_do_not_make_is_a_scratch() -> None:
    _, state = game("generala", ("Ana",), ev.throw(0, [1, 2, 2, 3, 6]), ev.category_scored(0, "generala"))
    mark = state.sheets[0]["generala"]
    assert (mark.points, mark.scratched) == (0, True)


# --- cacho: turning over, crossing out, grandes -------------------------------------------------------

def cacho(*log: dict, **options):
    return game("cacho", ("Ana", "Bea"), *log, **options)


def test_dice_are_turned_only_in_cacho() -> None:
    log, _ = game("generala", ("Ana",), ev.throw(0, [1, 2, 2, 3, 6]), ev.throw(0, [1, 2, 2, 3, 5], [4]))
    refused(log, ev.die_turned(0, 0, 6), engine.TurningNotInGame)


def test_a_die_is_turned_only_after_the_second_throw() -> None:
    log, _ = cacho(ev.throw(0, [1, 2, 2, 3, 6]))
    refused(log, ev.die_turned(0, 0, 6), engine.TurnTooEarly)


def test_a_turned_die_shows_the_opposite_face() -> None:
    log, state = cacho(ev.throw(0, [1, 2, 2, 3, 6]), ev.throw(0, [1, 2, 2, 3, 5], [4]))
    error = refused(log, ev.die_turned(0, 4, 3), engine.TurnedDieNotOpposite)
    assert "shows 2, not 3" in str(error)
    assert engine.apply(state, ev.die_turned(0, 4, 2)).turn.dice == (1, 2, 2, 3, 2)


def test_at_most_two_dice_are_turned_and_each_once() -> None:
    log, _ = cacho(ev.throw(0, [1, 2, 2, 3, 6]), ev.throw(0, [5, 2, 2, 5, 5], [0, 3, 4]), ev.die_turned(0, 1, 5))
    refused(log, ev.die_turned(0, 1, 2), engine.DieAlreadyTurned)
    log.append(ev.die_turned(0, 2, 5))  # four of a kind 40 becomes a grande 50
    refused(log, ev.die_turned(0, 0, 2), engine.TooManyTurnedDice)


def test_a_second_die_is_turned_only_if_that_improves_the_score() -> None:
    log, state = cacho(ev.throw(0, [1, 2, 2, 3, 6]), ev.throw(0, [5, 2, 2, 5, 5], [0, 3, 4]), ev.die_turned(0, 1, 5))
    assert engine.turn_actions(state).turnable == (2,)
    refused(log, ev.die_turned(0, 0, 2), engine.SecondTurnMustImprove)


def test_no_throw_after_a_die_was_turned() -> None:
    log, _ = cacho(ev.throw(0, [1, 2, 2, 3, 6]), ev.throw(0, [1, 2, 2, 3, 5], [4]), ev.die_turned(0, 4, 2),
                   throws=3)
    refused(log, ev.throw(0, [1, 2, 2, 3, 4], [4]), engine.ThrowAfterTurnOver)


def test_a_turn_is_required_after_the_second_throw() -> None:
    log, _ = cacho(ev.throw(0, [1, 2, 2, 3, 6]), ev.throw(0, [1, 2, 2, 3, 5], [4]))
    refused(log, ev.category_scored(0, "twos"), engine.TurnRequired)
    refused(log, ev.category_scratched(0, "grande_1"), engine.TurnRequired)


def test_with_three_throws_turning_is_optional() -> None:
    _, state = cacho(ev.throw(0, [1, 2, 2, 3, 6]), ev.throw(0, [1, 2, 2, 3, 5], [4]), throws=3)
    actions = engine.turn_actions(state)
    assert actions.may_turn and not actions.must_turn and actions.may_throw
    assert engine.apply(state, ev.category_scored(0, "twos")).totals == (4, 0)


def test_standing_on_the_first_throw_needs_no_turn() -> None:
    _, state = cacho(ev.throw(0, [1, 2, 2, 3, 6]))
    actions = engine.turn_actions(state)
    assert not actions.must_turn and not actions.may_turn
    assert engine.apply(state, ev.category_scored(0, "twos")).totals == (4, 0)


def test_crossing_out_while_a_box_scores_is_refused() -> None:
    log, state = cacho(ev.throw(0, [1, 2, 2, 3, 6]))
    error = refused(log, ev.category_scratched(0, "grande_1"), engine.CrossingOutNotAllowed)
    assert "ones" in str(error)
    refused(log, ev.category_scored(0, "full_house"), engine.CrossingOutNotAllowed)
    options = engine.score_options(state)
    assert not engine.turn_actions(state).may_cross_out
    assert all(o.allowed == (o.points > 0) for o in options)


def test_crossing_out_is_allowed_when_no_open_box_scores() -> None:
    log = [engine.new_game("cacho", ["Ana"])]
    for face, dice in zip(("ones", "twos", "threes", "fours", "fives", "sixes"),
                          ([1, 2, 2, 3, 4], [2, 3, 3, 4, 4], [3, 4, 4, 5, 5], [4, 5, 5, 6, 6], [5, 6, 6, 1, 1], [6, 1, 1, 2, 2])):
        log += [ev.throw(0, dice), ev.category_scored(0, face)]
    log.append(ev.throw(0, [1, 1, 2, 2, 4]))
    state = engine.replay(log)
    assert engine.turn_actions(state).may_cross_out
    assert all(o.allowed and o.points == 0 for o in engine.score_options(state))
    assert engine.apply(state, ev.category_scratched(0, "four_of_a_kind")).sheets[0]["four_of_a_kind"].scratched


def test_a_grande_fills_the_first_grande_box() -> None:
    log, state = cacho(ev.throw(0, [5, 5, 5, 1, 2]), ev.throw(0, [5, 5, 5, 5, 5], [3, 4]))
    assert [o.category for o in engine.score_options(state) if o.category.startswith("grande")] == ["grande_1"]
    refused(log, ev.category_scored(0, "grande_2"), engine.CategoryNotOpenYet)


# --- corrections, undo, events --------------------------------------------------------------------

def test_nothing_to_correct_before_a_throw_and_nothing_to_undo_before_a_fill() -> None:
    log, _ = game()
    refused(log, ev.reading_corrected(0, [1, 2, 3, 4, 5]), engine.NothingToCorrect)
    refused(log, ev.turn_undone(), engine.NothingToUndo)


def test_a_correction_after_the_game_ended_by_filling_is_refused() -> None:
    log, state = game("crag", ("Ana",))
    for category in [c.id for c in state.rules.categories]:
        log += [ev.throw(0, [1, 2, 4]), ev.category_scored(0, category)]
    assert engine.replay(log).finished
    refused(log, ev.reading_corrected(0, [1, 2, 3]), engine.GameOver)


@pytest.mark.parametrize("event, error", [
    ({"type": "throw", "v": 1, "player": 0, "values": [1, 2, 3, 4, 5]}, engine.MalformedEvent),
    ({"type": "throw", "v": 1, "player": 0, "values": [1, 2, 3, 4, 5], "thrown": ALL, "x": 1}, engine.MalformedEvent),
    ({"type": "throw", "v": 1, "player": True, "values": [1, 2, 3, 4, 5], "thrown": ALL}, engine.MalformedEvent),
    ({"type": "throw", "v": 1, "player": 0, "values": [1, 2, 3, 4, 5], "thrown": [0, 0, 1, 2, 3]}, engine.MalformedEvent),
    ({"type": "throw", "v": 2, "player": 0, "values": [1, 2, 3, 4, 5], "thrown": ALL}, engine.UnsupportedEventVersion),
    ({"type": "throw", "v": 1, "player": 0, "values": [1, 2, 3, 4, 5], "thrown": ALL, "source": "guess"},
     engine.MalformedEvent),
    ({"type": "dice_thrown", "v": 1}, engine.MalformedEvent),
    (["throw"], engine.MalformedEvent),
    ({"type": "game_started", "v": 1, "game": "general", "options": {}, "players": ["X"]}, engine.GameAlreadyStarted),
])
def test_malformed_events_are_refused(event, error) -> None:
    log, _ = game()
    refused(log, event, error)


def test_a_log_starts_with_game_started() -> None:
    with pytest.raises(engine.GameNotStarted):
        engine.replay([ev.throw(0, [1, 2, 3, 4, 5])])
    with pytest.raises(engine.GameNotStarted):
        engine.replay([])


@pytest.mark.parametrize("kwargs, error", [
    ({"game": "parchis", "players": ["A"]}, engine.UnknownGame),
    ({"game": "cacho", "players": ["A"], "options": {"throws": 4}}, engine.BadOptionValue),
    ({"game": "cacho", "players": ["A"], "options": {"throws": "2"}}, engine.BadOptionValue),
    ({"game": "cacho", "players": ["A"], "options": {"held_dice_locked": True}}, engine.UnknownOption),
    ({"game": "cacho", "players": []}, engine.BadPlayers),
    ({"game": "cacho", "players": ["Ana", "ana"]}, engine.BadPlayers),
    ({"game": "cacho", "players": ["Ana", " "]}, engine.BadPlayers),
    ({"game": "cacho", "players": ["A"], "stake": "ten"}, engine.BadStake),
    ({"game": "cacho", "players": ["A"], "stake": "-1"}, engine.BadStake),
    ({"game": "generala", "players": ["A", "B", "C", "D"], "partnerships": [[0, 1], [2, 3]]}, engine.BadPartnerships),
    ({"game": "general", "players": ["A", "B", "C"], "partnerships": [[0, 1], [2]]}, engine.BadPartnerships),
    ({"game": "general", "players": ["A", "B", "C", "D"], "partnerships": [[0, 1], [1, 3]]}, engine.BadPartnerships),
    ({"game": "generala", "players": ["A", "Cubilete"], "device_seats": [2]}, engine.BadPlayers),
    ({"game": "generala", "players": ["A", "Cubilete"], "device_seats": [-1]}, engine.BadPlayers),
    ({"game": "generala", "players": ["A", "Cubilete"], "device_seats": [1, 1]}, engine.MalformedEvent),
])
def test_a_bad_game_start_is_refused(kwargs, error) -> None:
    with pytest.raises(error):
        engine.new_game(**kwargs)


def test_new_game_records_every_option_so_the_log_does_not_depend_on_defaults() -> None:
    event = engine.new_game("yacht-1938", ["A"])
    assert event["game"] == "yacht" and event["options"] == {"rules": "1938"}
    assert engine.new_game("generala-classic", ["A"])["options"] == {
        "held_dice_locked": False, "generala_points": 60, "first_throw_bonus": 10, "double_generala": False,
        "wrap_straights": False}
    assert json.loads(json.dumps(event)) == event


def test_the_devices_seats_are_recorded_and_replayed_and_the_rules_ignore_them() -> None:
    started = engine.new_game("generala", ["Ana", "Cubilete"], device_seats=[1])
    assert started["device_seats"] == [1] and json.loads(json.dumps(started)) == started
    throws = [ev.throw(0, [6, 6, 6, 2, 3]), ev.category_scored(0, "sixes", 18), ev.throw(1, [1, 2, 3, 4, 5])]
    with_device = engine.replay([started, *throws])
    people = engine.replay([engine.new_game("generala", ["Ana", "Cubilete"]), *throws])
    assert with_device.device_seats == (1,) and people.device_seats == ()
    assert with_device.sheets == people.sheets and with_device.turn == people.turn
    # A log written before device seats existed has no such field: every player is a person.
    assert "device_seats" not in engine.new_game("generala", ["Ana", "Bea"])
    assert "device_seats" not in engine.new_game("generala", ["Ana", "Bea"], device_seats=[])
