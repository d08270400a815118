"""How a game goes: corrections, undo, instant wins, the spare-throw bank, de mano and de huevo,
the options offered to the display, the order of play, winners and settlement."""

from __future__ import annotations

from decimal import Decimal
from fractions import Fraction

import pytest

import engine
from engine import events as ev

ALL = [0, 1, 2, 3, 4]


def play(name: str, players, *log: dict, **options) -> engine.GameState:
    return engine.replay([engine.new_game(name, list(players), options), *log])


# --- corrections --------------------------------------------------------------------------------

def test_a_corrected_reading_is_what_scores() -> None:
    state = play("generala", ["Ana"], ev.throw(0, [1, 2, 3, 4, 6]), ev.reading_corrected(0, [1, 2, 3, 4, 5]))
    assert state.turn.dice == (1, 2, 3, 4, 5) and state.turn.last_throw.corrected
    assert engine.score_options(state)[0].points == 25


def test_a_correction_can_make_and_unmake_an_instant_win() -> None:
    state = play("generala", ["Ana", "Bea"], ev.throw(0, [3, 3, 3, 3, 5]))
    assert not state.finished
    won = engine.apply(state, ev.reading_corrected(0, [3, 3, 3, 3, 3]))
    assert won.finished and won.winners == (0,) and engine.turn_actions(won).may_correct
    back = engine.apply(won, ev.reading_corrected(0, [3, 3, 3, 3, 5]))
    assert not back.finished and back.instant_win is None


def test_a_correction_names_the_dice_as_they_show_after_a_turn_over() -> None:
    state = play("cacho", ["Ana"], ev.throw(0, [1, 1, 2, 2, 6]), ev.throw(0, [1, 1, 2, 2, 5], [4]),
                 ev.die_turned(0, 0, 6))
    assert state.turn.dice == (6, 1, 2, 2, 5)
    fixed = engine.apply(state, ev.reading_corrected(0, [6, 1, 2, 2, 6]))
    assert fixed.turn.dice == (6, 1, 2, 2, 6) and fixed.turn.thrown_values == (1, 1, 2, 2, 6)


# --- undo ---------------------------------------------------------------------------------------

def test_undo_returns_to_just_before_the_box_was_filled() -> None:
    before = play("generala", ["Ana", "Bea"], ev.throw(0, [6, 6, 6, 2, 2]))
    filled = engine.apply(before, ev.category_scored(0, "twos"))
    undone = engine.apply(filled, ev.turn_undone())
    assert undone == before
    assert engine.apply(undone, ev.category_scored(0, "full_house")).totals == (35, 0)


def test_undo_drops_the_throws_of_the_next_turn_and_goes_back_one_box_at_a_time() -> None:
    log = [engine.new_game("generala", ["Ana", "Bea"]), ev.throw(0, [6, 6, 6, 2, 2]), ev.category_scored(0, "twos"),
           ev.throw(1, [1, 1, 1, 2, 2]), ev.category_scored(1, "ones"), ev.throw(0, [4, 4, 1, 2, 2])]
    state = engine.replay(log)
    once = engine.apply(state, ev.turn_undone())
    assert once == engine.replay(log[:4]) and once.current_player == 1
    twice = engine.apply(once, ev.turn_undone())
    assert twice == engine.replay(log[:2])
    with pytest.raises(engine.NothingToUndo):
        engine.apply(twice, ev.turn_undone())


def test_undo_of_the_last_box_reopens_a_finished_game() -> None:
    state = play("crag", ["Ana"])
    for category in state.rules.category_ids:
        state = engine.apply(state, ev.throw(0, [1, 2, 4]))
        state = engine.apply(state, ev.category_scored(0, category))
    assert state.finished and engine.turn_actions(state).may_undo
    reopened = engine.apply(state, ev.turn_undone())
    assert not reopened.finished and engine.score_options(reopened)


# --- instant wins ---------------------------------------------------------------------------------

def test_generala_servida_wins_even_with_the_generala_box_filled() -> None:
    state = play("generala", ["Ana", "Bea"], ev.throw(0, [2, 2, 2, 1, 1]), ev.throw(0, [2, 2, 2, 2, 2], [3, 4]),
                 ev.category_scored(0, "generala", 60), ev.throw(1, [1, 2, 3, 3, 4]), ev.category_scored(1, "threes"),
                 ev.throw(0, [5, 5, 5, 5, 5]))
    assert state.instant_win.rule == "generala_servida" and state.winners == (0,)


def test_classic_a_scratched_generala_cancels_the_instant_win() -> None:
    state = play("generala-classic", ["Ana", "Bea"], ev.throw(0, [1, 2, 3, 3, 4]), ev.category_scratched(0, "generala"),
                 ev.throw(1, [1, 2, 3, 3, 4]), ev.category_scored(1, "threes"), ev.throw(0, [5, 5, 5, 5, 5]))
    assert not state.finished


def test_classic_double_generala_needs_a_scored_generala_and_is_no_instant_win() -> None:
    log = [ev.throw(0, [2, 2, 2, 1, 1]), ev.throw(0, [2, 2, 2, 2, 2], [3, 4])]
    state = play("generala-classic", ["Ana", "Bea"], *log, double_generala=True)
    options = {o.category: o.points for o in engine.score_options(state)}
    assert options["generala"] == 60 and options["double_generala"] == 0
    state = engine.apply(state, ev.category_scored(0, "generala", 60))
    state = engine.apply(state, ev.throw(1, [1, 2, 3, 3, 4]))
    state = engine.apply(state, ev.category_scored(1, "threes"))
    state = engine.apply(state, ev.throw(0, [5, 5, 5, 5, 5]))
    assert not state.finished
    assert {o.category: o.points for o in engine.score_options(state)}["double_generala"] == 120


def test_classic_without_double_a_second_generala_servida_still_wins() -> None:
    state = play("generala-classic", ["Ana", "Bea"], ev.throw(0, [2, 2, 2, 1, 1]), ev.throw(0, [2, 2, 2, 2, 2], [3, 4]),
                 ev.category_scored(0, "generala", 60), ev.throw(1, [1, 2, 3, 3, 4]), ev.category_scored(1, "threes"),
                 ev.throw(0, [5, 5, 5, 5, 5]))
    assert state.finished and state.winners == (0,)


def cacho_sheet(fills: list[tuple[list[dict], str]]) -> engine.GameState:
    """A one-player cacho game: each fill is its throws then the box."""
    state = play("cacho", ["Ana"])
    for throws, box in fills:
        for event in throws:
            state = engine.apply(state, event)
        state = engine.apply(state, ev.category_scored(0, box))
    return state


def test_panza_de_oro_wins_when_the_last_of_its_boxes_is_filled() -> None:
    straight = [ev.throw(0, [1, 2, 3, 4, 5])]
    full = [ev.throw(0, [2, 2, 3, 3, 3])]
    grande = [ev.throw(0, [1, 1, 4, 4, 3]), ev.throw(0, [4, 4, 4, 4, 3], [0, 1]), ev.die_turned(0, 4, 4)]
    state = cacho_sheet([(straight, "straight"), (full, "full_house"), (grande, "grande_1")])
    assert state.sheets[0].points("grande_1") == 50 and not state.finished
    state = engine.apply(state, ev.throw(0, [6, 6, 6, 6, 2]))
    best = engine.score_options(state)[0]
    assert (best.category, best.points, best.reasons) == ("four_of_a_kind", 45, ("de_mano", "instant_win"))
    state = engine.apply(state, ev.category_scored(0, "four_of_a_kind"))
    assert state.finished and state.instant_win.rule == "panza_de_oro" and state.instant_win.at == "fill"


def test_a_de_huevo_poker_is_no_panza_de_oro() -> None:
    grande = [ev.throw(0, [1, 1, 4, 4, 3]), ev.throw(0, [4, 4, 4, 4, 3], [0, 1]), ev.die_turned(0, 4, 4)]
    poker_de_huevo = [ev.throw(0, [6, 6, 1, 2, 3]), ev.throw(0, [6, 6, 6, 6, 3], [2, 3]), ev.die_turned(0, 4, 4)]
    state = cacho_sheet([([ev.throw(0, [1, 2, 3, 4, 5])], "straight"), ([ev.throw(0, [2, 2, 3, 3, 3])], "full_house"),
                         (grande, "grande_1"), (poker_de_huevo, "four_of_a_kind")])
    assert state.sheets[0].points("four_of_a_kind") == 40 and not state.finished


def test_four_of_every_face_and_a_grande_wins() -> None:
    fills = [([ev.throw(0, [f, f, f, f, (f % 6) + 1])], name)
             for f, name in enumerate(("ones", "twos", "threes", "fours", "fives"), start=1)]
    fills.append(([ev.throw(0, [1, 1, 5, 5, 2]), ev.throw(0, [5, 5, 5, 5, 2], [0, 1]), ev.die_turned(0, 4, 5)],
                  "grande_1"))
    state = cacho_sheet(fills)
    assert not state.finished
    state = engine.apply(state, ev.throw(0, [6, 6, 6, 6, 1]))
    assert "instant_win" in engine.score_options(state)[0].reasons
    state = engine.apply(state, ev.category_scored(0, "sixes", 24))
    assert state.instant_win.rule == "four_of_every_face"


def test_dormida_needs_all_five_thrown_together_never_a_turned_die() -> None:
    state = play("cacho", ["Ana", "Bea"], ev.throw(0, [1, 1, 4, 4, 3]), ev.throw(0, [4, 4, 4, 4, 4], ALL))
    assert state.instant_win.rule == "dormida"
    state = play("cacho", ["Ana", "Bea"], ev.throw(0, [4, 4, 1, 4, 3]), ev.throw(0, [4, 4, 4, 4, 4], [2, 4]))
    assert not state.finished
    state = play("cacho", ["Ana", "Bea"], ev.throw(0, [1, 1, 4, 4, 3]), ev.throw(0, [4, 4, 4, 4, 3], ALL),
                 ev.die_turned(0, 4, 4))
    assert not state.finished and state.turn.dice == (4, 4, 4, 4, 4)


# --- de mano and de huevo ----------------------------------------------------------------------------

def test_a_combination_that_needs_a_turned_die_is_de_huevo_by_default() -> None:
    log = [ev.throw(0, [1, 1, 2, 2, 4]), ev.throw(0, [1, 2, 3, 4, 2], ALL)]
    state = play("cacho", ["Ana"], *log, throws=3)
    turned = engine.apply(state, ev.die_turned(0, 4, 5))  # 1-2-3-4-5 needs the turned die
    assert {o.category: (o.points, o.reasons) for o in engine.score_options(turned)}["straight"] == (20, ("de_huevo",))
    lenient = engine.apply(play("cacho", ["Ana"], *log, throws=3, turn_breaks_de_mano=False), ev.die_turned(0, 4, 5))
    assert {o.category: o.points for o in engine.score_options(lenient)}["straight"] == 25


def test_a_combination_made_before_the_turn_stays_de_mano() -> None:
    state = play("cacho", ["Ana"], ev.throw(0, [1, 1, 2, 2, 4]), ev.throw(0, [2, 2, 2, 2, 5], ALL),
                 ev.die_turned(0, 4, 2))
    options = {o.category: o.points for o in engine.score_options(state)}
    assert options["four_of_a_kind"] == 45 and options["grande_1"] == 50


def test_a_second_throw_of_all_five_without_a_combination_still_needs_a_turn() -> None:
    state = play("cacho", ["Ana"], ev.throw(0, [1, 1, 2, 2, 4]), ev.throw(0, [1, 1, 2, 3, 4], ALL))
    assert engine.turn_actions(state).must_turn


# --- goldene fünfzig: the bank of spare throws --------------------------------------------------------

def test_unused_throws_go_to_the_bank_and_come_back_as_extra_throws() -> None:
    state = play("goldene-fuenfzig", ["Ana", "Bea"], ev.throw(0, [1, 2, 3, 4, 5]), ev.category_scored(0, "straight", 20))
    assert state.banks == (2, 0)
    state = engine.apply(state, ev.throw(1, [1, 2, 2, 3, 4]))
    state = engine.apply(state, ev.category_scored(1, "twos"))
    assert engine.turn_actions(state).max_throws == 5 and engine.turn_actions(state).bank == 2
    for _ in range(5):
        state = engine.apply(state, ev.throw(0, [6, 6, 6, 2, 3], ALL))
    with pytest.raises(engine.TooManyThrows):
        engine.apply(state, ev.throw(0, [6, 6, 6, 2, 3], ALL))
    state = engine.apply(state, ev.category_scored(0, "sixes", 18))
    assert state.banks == (0, 2)


def test_five_of_a_kind_is_the_golden_fifty_and_never_an_instant_win() -> None:
    state = play("goldene-fuenfzig", ["Ana", "Bea"], ev.throw(0, [5, 5, 5, 5, 5]))
    assert not state.finished and engine.score_options(state)[0].category == "fifty"


# --- what the display is offered ----------------------------------------------------------------------

def test_options_are_best_first_with_reasons() -> None:
    state = play("general", ["Ana"], ev.throw(0, [6, 6, 6, 2, 2]))
    options = engine.score_options(state)
    assert [(o.category, o.points) for o in options[:3]] == [("full_house", 35), ("sixes", 18), ("twos", 4)]
    assert options[0].reasons == ("served",)
    assert [o.points for o in options] == sorted((o.points for o in options), reverse=True)
    assert {o.category for o in options} == set(state.rules.category_ids)
    assert all(o.reasons == ("scratch",) for o in options if o.points == 0)


def test_filled_boxes_are_not_offered() -> None:
    state = play("general", ["Ana"], ev.throw(0, [6, 6, 6, 2, 2]), ev.category_scored(0, "full_house"),
                 ev.throw(0, [6, 6, 6, 2, 2]))
    assert "full_house" not in {o.category for o in engine.score_options(state)}


def test_turn_actions_at_the_start_of_a_turn() -> None:
    actions = engine.turn_actions(play("crag", ["Ana"]))
    assert actions.may_throw and actions.must_throw_all and actions.rethrowable == (0, 1, 2)
    assert not actions.may_fill and not actions.may_correct and not actions.may_undo


# --- order of play ---------------------------------------------------------------------------------

def test_general_roll_off_by_hand_rank_then_pip_total() -> None:
    hands = {"A": [[6, 6, 5, 4, 2]], "B": [[1, 1, 1, 2, 2]], "C": [[1, 1, 2, 3, 5]], "D": [[2, 3, 4, 5, 6]]}
    result = engine.roll_off_order(engine.GAMES["general"], hands)
    assert result.settled and result.order == ("C", "A", "D", "B")
    assert engine.partnerships_from_order(result.order) == (("C", "A"), ("D", "B"))


def test_generala_roll_off_by_pip_total_with_ties_throwing_again() -> None:
    game = engine.GAMES["generala"]
    first = engine.roll_off_order(game, {0: [[6, 6, 6, 6, 6]], 1: [[1, 2, 3, 4, 5]], 2: [[5, 4, 3, 2, 1]]})
    assert not first.settled and first.tied == ((1, 2),) and first.groups == ((1, 2), (0,))
    second = engine.roll_off_order(game, {0: [[6, 6, 6, 6, 6]], 1: [[1, 2, 3, 4, 5], [6, 6, 1, 1, 1]],
                                          2: [[5, 4, 3, 2, 1], [1, 1, 1, 1, 2]]})
    assert second.settled and second.order == (2, 1, 0)


def test_hand_ranks_low_to_high() -> None:
    hands = [[1, 2, 3, 4, 6], [1, 1, 2, 3, 4], [1, 1, 2, 2, 4], [1, 1, 1, 2, 4], [1, 1, 3, 4, 5], [1, 1, 1, 2, 2],
             [1, 1, 1, 1, 2], [1, 1, 1, 1, 1]]
    assert [engine.hand_rank(h) for h in hands] == list(range(8))


def test_a_roll_off_hand_has_the_games_dice() -> None:
    with pytest.raises(engine.WrongDiceCount):
        engine.roll_off_order(engine.GAMES["crag"], {0: [[1, 2, 3, 4, 5]]})


# --- winners and settlement ----------------------------------------------------------------------------

def finished_crag(points_per_player: list[list[int]]) -> list[dict]:
    """A crag game where each player fills aces with the given number of aces, rest scratched."""
    players = [chr(ord("A") + i) for i in range(len(points_per_player))]
    log = [engine.new_game("crag", players, stake="0.10")]
    categories = engine.GAMES["crag"].default_rules.category_ids
    for category in categories:
        for player, aces in enumerate(points_per_player):
            dice = [1] * aces[0] + [2] * (3 - aces[0]) if category == "aces" else [2, 2, 3]
            log += [ev.throw(player, dice)]
            log += [ev.category_scored(player, category)] if category == "aces" else [ev.category_scratched(player, category)]
    return log


def test_tied_winners_share_and_split_each_losers_payment() -> None:
    state = engine.replay(finished_crag([[3], [3], [1]]))
    assert state.totals == (3, 3, 1) and state.winners == (0, 1)
    payments = engine.settlement(state)
    assert [(p.payers, p.payees, p.points, p.amount) for p in payments] == [
        ((2,), (0,), Fraction(1), Decimal("0.10")), ((2,), (1,), Fraction(1), Decimal("0.10"))]
    thirds = engine.settlement(state, "0.01")
    assert [p.amount for p in thirds] == [Decimal("0.01"), Decimal("0.01")]


def test_settlement_needs_a_finished_game() -> None:
    with pytest.raises(engine.GameNotFinished):
        engine.settlement(play("crag", ["Ana"]))


def test_after_an_instant_win_each_loser_pays_the_instant_win_points_whatever_the_totals() -> None:
    state = play("generala", ["Ana", "Bea", "Cai"], ev.throw(0, [1, 2, 3, 4, 6]), ev.category_scored(0, "ones", 1),
                 ev.throw(1, [6, 6, 6, 2, 2]), ev.category_scored(1, "full_house", 35),
                 ev.throw(2, [1, 1, 2, 3, 4]), ev.category_scored(2, "ones", 2),
                 ev.throw(0, [4, 4, 4, 4, 4]))
    assert state.winners == (0,) and state.totals[1] > state.totals[0]
    assert state.rules.instant_win_points == 50
    payments = engine.settlement(state, "0.10")
    assert [(p.payers, p.payees, p.points, p.amount) for p in payments] == [
        ((1,), (0,), Fraction(50), Decimal("5.00")), ((2,), (0,), Fraction(50), Decimal("5.00"))]


def test_split_shares_are_rounded_down_and_the_cent_left_over_goes_to_the_first_winner() -> None:
    state = engine.replay(finished_crag([[3], [3], [0]]))
    assert state.totals == (3, 3, 0) and state.winners == (0, 1)
    payments = engine.settlement(state, "0.01")
    assert [(p.payers, p.payees, p.amount) for p in payments] == [
        ((2,), (0,), Decimal("0.02")), ((2,), (1,), Decimal("0.01"))]


def test_a_loser_never_pays_more_than_the_margin_times_the_stake() -> None:
    state = engine.replay(finished_crag([[3], [3], [0]]))
    for stake in ("0.01", "0.005", "0.333", "1", "0.07"):
        paid = sum(p.amount for p in engine.settlement(state, stake))
        assert Decimal(stake) * 3 - Decimal("0.01") < paid <= Decimal(stake) * 3, stake


def test_payments_are_whole_cents_however_fine_the_stake() -> None:
    state = engine.replay(finished_crag([[3], [3], [0]]))
    assert [p.amount for p in engine.settlement(state, "0.015")] == [Decimal("0.02"), Decimal("0.02")]  # 0.045 owed
    assert engine.settlement(state, "0.0001") == []  # 0.0003 owed: no cent


def test_nobody_is_listed_as_paying_nothing() -> None:
    state = engine.replay(finished_crag([[3], [3], [1]]))
    assert engine.settlement(state, 0) == []
    assert all(p.amount > 0 for p in engine.settlement(state, "0.004"))


def test_partnerships_win_and_pay_as_sides() -> None:
    log = [engine.new_game("general", ["A", "B", "C", "D"], partnerships=[[0, 1], [2, 3]])]
    categories = engine.GAMES["general"].default_rules.category_ids
    for category in categories:
        for player in range(4):
            log += [ev.throw(player, [1, 1, 2, 3, 6] if player == 2 else [1, 2, 2, 3, 6])]
            log += [ev.category_scored(player, category)] if category == "ones" else [ev.category_scratched(player, category)]
    state = engine.replay(log)
    assert state.totals == (1, 1, 2, 1)
    assert state.winners == (2, 3)
    payments = engine.settlement(state, 1)
    assert [(p.payers, p.payees, p.amount) for p in payments] == [((0, 1), (2, 3), Decimal(1))]


def test_the_roll_off_can_be_recorded_and_must_agree_with_the_order_of_play() -> None:
    hands = {"A": [[6, 6, 5, 4, 2]], "B": [[1, 1, 1, 2, 2]], "C": [[1, 1, 2, 3, 5]], "D": [[2, 3, 4, 5, 6]]}
    event = engine.new_game("general", ["C", "A", "D", "B"], roll_off=hands, partnerships=[[0, 1], [2, 3]])
    assert engine.replay([event]).players == ("C", "A", "D", "B")
    with pytest.raises(engine.RollOffMismatch, match="order of play is C, A, D, B"):
        engine.new_game("general", ["A", "C", "D", "B"], roll_off=hands)
    with pytest.raises(engine.RollOffMismatch, match="partners"):
        engine.new_game("general", ["C", "A", "D", "B"], roll_off=hands, partnerships=[[0, 2], [1, 3]])
    with pytest.raises(engine.RollOffMismatch, match="not decided"):
        engine.new_game("generala", ["A", "B"], roll_off={"A": [[1, 2, 3, 4, 5]], "B": [[5, 4, 3, 2, 1]]})
    with pytest.raises(engine.RollOffMismatch, match="exactly the players"):
        engine.new_game("generala", ["A", "B"], roll_off={"A": [[1, 2, 3, 4, 5]]})
    tied_then_settled = {"A": [[1, 2, 3, 4, 5], [6, 6, 6, 6, 6]], "B": [[5, 4, 3, 2, 1], [1, 1, 1, 1, 1]]}
    assert engine.new_game("generala", ["B", "A"], roll_off=tied_then_settled)["roll_off"] == tied_then_settled


def test_a_throw_nobody_made_can_be_taken_back() -> None:
    state = play("cacho", ["Ana", "Bea"], ev.throw(0, [1, 1, 2, 2, 4]), ev.throw(0, [1, 1, 2, 2, 5], [4]),
                 ev.die_turned(0, 4, 2))
    back = engine.apply(state, ev.throw_undone(0))
    assert back == play("cacho", ["Ana", "Bea"], ev.throw(0, [1, 1, 2, 2, 4]))
    assert engine.turn_actions(back).may_throw
    first = engine.apply(back, ev.throw_undone(0))
    assert first.turn.throw_number == 0 and not engine.turn_actions(first).may_undo_throw
    with pytest.raises(engine.NoThrowToUndo):
        engine.apply(first, ev.throw_undone(0))
    with pytest.raises(engine.WrongPlayer):
        engine.apply(state, ev.throw_undone(1))


def test_an_instant_win_by_a_throw_nobody_made_is_taken_back_with_it() -> None:
    won = play("generala", ["Ana", "Bea"], ev.throw(0, [6, 6, 6, 6, 6]))
    assert won.finished and engine.turn_actions(won).may_undo_throw
    back = engine.apply(won, ev.throw_undone(0))
    assert not back.finished and back.turn.throw_number == 0


def test_a_state_is_immutable_so_copies_are_itself() -> None:
    import copy

    state = play("generala", ["Ana"], ev.throw(0, [6, 6, 6, 6, 5]))
    assert copy.deepcopy(state) is state and copy.copy(state) is state
