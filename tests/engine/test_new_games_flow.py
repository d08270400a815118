"""How the games beyond the seeds go: Yahtzee's joker and bonuses, Kniffel's options,
Escalero's served values, and a match of poker dice (rounds, throw limit, play-offs,
settlement per match)."""

from __future__ import annotations

from decimal import Decimal

import pytest

import engine
from engine import events as ev

UPPER = ("ones", "twos", "threes", "fours", "fives", "sixes")


def play(name: str, players, *log: dict, **options) -> engine.GameState:
    return engine.replay([engine.new_game(name, list(players), options), *log])


def allowed(state: engine.GameState) -> dict[str, int]:
    return {o.category: o.points for o in engine.score_options(state) if o.allowed}


# --- yahtzee: the joker and the bonuses --------------------------------------------------------

def yahtzee_then(*log: dict, yahtzee_points: int = 50, game: str = "yahtzee", **options) -> engine.GameState:
    first = [ev.throw(0, [2, 2, 2, 2, 2]), ev.category_scored(0, "yahtzee", 50)] if yahtzee_points else \
        [ev.throw(0, [1, 2, 3, 5, 5]), ev.category_scratched(0, "yahtzee")]
    return play(game, ["Ana"], *first, *log, **options)


def test_forced_joker_fills_the_matching_upper_box_first() -> None:
    state = yahtzee_then(ev.throw(0, [4, 4, 4, 4, 4]))
    assert allowed(state) == {"fours": 20}
    refused = next(o for o in engine.score_options(state) if o.category == "full_house")
    assert not refused.allowed and "joker_box" in refused.reasons and refused.points == 0  # no joker yet
    with pytest.raises(engine.JokerBoxRequired):
        engine.apply(state, ev.category_scored(0, "full_house"))
    filled = engine.apply(state, ev.category_scored(0, "fours", 20))
    assert filled.sheets[0]["fours"].bonus == 100 and filled.totals == (50 + 20 + 100,)


def test_forced_joker_with_the_upper_box_filled_goes_to_any_open_lower_box() -> None:
    state = yahtzee_then(ev.throw(0, [3, 3, 3, 1, 1]), ev.category_scored(0, "threes", 9), ev.throw(0, [3] * 5))
    assert allowed(state) == {"three_of_a_kind": 15, "four_of_a_kind": 15, "full_house": 25,
                              "small_straight": 30, "large_straight": 40, "chance": 15}


def test_forced_joker_with_no_lower_box_open_scratches_an_upper_box() -> None:
    log = [ev.throw(0, [5, 5, 5, 1, 2]), ev.category_scored(0, "fives", 15)]
    for box in ("three_of_a_kind", "four_of_a_kind", "full_house", "small_straight", "large_straight", "chance"):
        log += [ev.throw(0, [1, 2, 3, 4, 6]), ev.category_scored(0, box)]
    state = yahtzee_then(*log, ev.throw(0, [5, 5, 5, 5, 5]))
    assert allowed(state) == {box: 0 for box in UPPER if box != "fives"}
    assert engine.apply(state, ev.category_scratched(0, "ones")).totals[0] == state.totals[0] + 100


def test_free_joker_lets_any_open_box_take_the_dice_a_joker_once_the_upper_box_is_filled() -> None:
    state = yahtzee_then(ev.throw(0, [4, 4, 4, 4, 4]), joker="free")
    options = allowed(state)
    assert options["fours"] == 20 and options["full_house"] == 0 and options["chance"] == 20 and options["ones"] == 0
    state = yahtzee_then(ev.throw(0, [4, 4, 4, 4, 1]), ev.category_scored(0, "fours"), ev.throw(0, [4] * 5),
                         joker="free")
    options = allowed(state)
    assert options["full_house"] == 25 and options["large_straight"] == 40 and options["ones"] == 0


def test_no_yahtzee_bonus_when_the_yahtzee_box_holds_0_but_the_joker_still_applies() -> None:
    state = yahtzee_then(ev.throw(0, [6, 6, 6, 6, 6]), yahtzee_points=0)
    assert allowed(state) == {"sixes": 30}
    assert all(o.bonus == 0 and "extra_bonus" not in o.reasons for o in engine.score_options(state))
    assert engine.apply(state, ev.category_scored(0, "sixes")).totals == (30,)


def test_the_first_yahtzee_earns_no_bonus() -> None:
    state = play("yahtzee", ["Ana"], ev.throw(0, [1, 1, 1, 1, 1]))
    assert all(o.bonus == 0 for o in engine.score_options(state))


def test_the_upper_bonus_counts_once_at_63_and_the_sheet_shows_its_line() -> None:
    log = []
    for face, box in zip(range(1, 7), UPPER):
        dice = [face] * 4 + [1 if face != 1 else 2]
        log += [ev.throw(0, dice), ev.category_scored(0, box)]
    state = play("yahtzee", ["Ana"], *log)
    sheet = state.sheets[0]
    assert sheet.box_total == 4 * 21 and dict((line.id, p) for line, p in sheet.line_points)["upper_bonus"] == 35
    assert state.totals == (84 + 35,)


# --- kniffel -------------------------------------------------------------------------------------

def test_kniffel_has_no_joker_and_no_bonus_by_default() -> None:
    state = yahtzee_then(ev.throw(0, [4, 4, 4, 4, 4]), game="kniffel")
    options = allowed(state)
    assert options["full_house"] == 0 and options["ones"] == 0 and options["fours"] == 20
    assert all(o.bonus == 0 for o in engine.score_options(state))
    assert [line.id for line in state.sheets[0].lines] == ["upper_bonus"]


def test_kniffel_with_both_options_plays_as_yahtzee() -> None:
    log = [ev.throw(0, [4, 4, 4, 4, 4])]
    kniffel = yahtzee_then(*log, game="kniffel", extra_bonus=True, joker=True)
    yahtzee = yahtzee_then(*log)
    assert [(o.category, o.points, o.allowed, o.bonus) for o in engine.score_options(kniffel)] == \
        [(o.category, o.points, o.allowed, o.bonus) for o in engine.score_options(yahtzee)]


def test_kniffel_keeps_its_german_names_in_both_languages() -> None:
    names = {c.id: (c.name_en, c.name_es) for c in engine.GAMES["kniffel"].categories}
    assert names["small_straight"] == ("Kleine Straße", "Kleine Straße") and names["yahtzee"][0] == "Kniffel"


# --- escalero ------------------------------------------------------------------------------------

def test_escalero_served_grande_scores_80_and_the_game_goes_on() -> None:
    state = play("escalero", ["Ana", "Bea"], ev.throw(0, [1, 2, 2, 3, 3]), ev.throw(0, [5, 5, 5, 5, 5]))
    best = engine.score_options(state)[0]
    assert (best.category, best.points, best.reasons) == ("grande", 80, ("served",))
    assert not state.finished
    held = play("escalero", ["Ana"], ev.throw(0, [5, 5, 2, 3, 3]), ev.throw(0, [5, 5, 5, 5, 5], [2, 3, 4]))
    assert engine.score_options(held)[0].points == 50


# --- poker dice ----------------------------------------------------------------------------------

def stand(player: int, *throws: tuple[list[int], list[int] | None]) -> list[dict]:
    return [ev.throw(player, values, thrown) for values, thrown in throws] + [ev.category_scored(player, "hand")]


def test_the_others_may_not_take_more_throws_than_the_leader() -> None:
    state = play("poker-dice", ["Ana", "Bea"], *stand(0, ([6, 6, 6, 2, 1], None), ([6, 6, 6, 2, 3], [4])))
    assert state.max_throws == 2 and engine.turn_actions(state).max_throws == 2
    state = engine.apply(state, ev.throw(1, [1, 1, 2, 3, 4]))
    state = engine.apply(state, ev.throw(1, [1, 1, 1, 3, 4], [2]))
    assert not engine.turn_actions(state).may_throw
    with pytest.raises(engine.TooManyThrows):
        engine.apply(state, ev.throw(1, [1, 1, 1, 1, 4], [3]))


def test_the_option_names_the_hand_and_is_never_a_scratch() -> None:
    state = play("poker-dice", ["Ana"], ev.throw(0, [1, 2, 3, 4, 6]))
    (option,) = engine.score_options(state)
    assert (option.name_en, option.name_es, option.points, option.reasons) == ("Nothing", "Nada", 0, ())
    assert not engine.turn_actions(state).may_cross_out
    pair = play("poker-dice", ["Ana"], ev.throw(0, [1, 1, 3, 4, 6]))
    with pytest.raises(engine.CrossingOutNotAllowed):
        engine.apply(pair, ev.category_scratched(0, "hand"))


def test_equal_best_hands_play_off_with_one_throw_each() -> None:
    state = play("poker-dice", ["Ana", "Bea", "Cid"],
                 *stand(0, ([6, 6, 2, 3, 4], None)), *stand(1, ([6, 6, 4, 3, 2], None)),
                 *stand(2, ([1, 1, 2, 3, 4], None)))
    assert state.match.play_off and state.match.contenders == (0, 1) and state.match.round_winners == ()
    assert state.current_player == 0 and state.max_throws == 1
    assert state.sheets[0]["hand"] is None and state.match.last_hands[2] == (1, 1, 2, 3, 4)
    state = engine.apply(state, ev.throw(0, [2, 2, 3, 3, 5]))
    assert not engine.turn_actions(state).may_throw
    state = engine.apply(state, ev.category_scored(0, "hand"))
    assert state.current_player == 1
    state = engine.apply(engine.apply(state, ev.throw(1, [5, 5, 5, 1, 2])), ev.category_scored(1, "hand"))
    assert state.match.round_winners == (1,) and state.totals == (0, 1, 0)
    # round 2 is led by the second player in play order
    assert state.match.contenders == (1, 2, 0) and state.current_player == 1 and state.max_throws == 3


def test_a_match_ends_at_the_rounds_to_win_and_the_loser_pays_the_stake() -> None:
    log = stand(0, ([6, 6, 6, 6, 2], None)) + stand(1, ([1, 2, 2, 3, 4], None))
    log += stand(1, ([1, 2, 2, 3, 4], None)) + stand(0, ([6, 6, 6, 6, 2], None))  # Bea leads round 2
    state = play("poker-dice", ["Ana", "Bea"], *log, rounds_to_win=2)
    assert state.finished and state.winners == (0,) and state.totals == (2, 0)
    state2 = engine.replay([engine.new_game("poker-dice", ["Ana", "Bea"], {"rounds_to_win": 2}, stake="2.50"), *log])
    (payment,) = engine.settlement(state2)
    assert (payment.payers, payment.payees, payment.amount) == ((1,), (0,), Decimal("2.50"))


def test_undo_takes_back_the_stand_that_decided_a_round() -> None:
    before = play("poker-dice", ["Ana", "Bea"], *stand(0, ([6, 6, 6, 6, 2], None)), ev.throw(1, [1, 2, 2, 3, 4]))
    decided = engine.apply(before, ev.category_scored(1, "hand"))
    assert decided.match.round_winners == (0,)
    assert engine.apply(decided, ev.turn_undone()) == before


def test_aces_high_puts_the_ace_above_the_six_but_not_in_straights() -> None:
    strength = engine.GAMES["poker-dice"].rules({"aces_high": True}).match.strength
    assert strength((1, 1, 1, 2, 2)) > strength((6, 6, 6, 2, 2))
    assert strength((2, 3, 4, 5, 6)) > strength((1, 2, 3, 4, 5))
    low = engine.GAMES["poker-dice"].default_rules.match.strength
    assert low((6, 6, 6, 2, 2)) > low((1, 1, 1, 2, 2))
