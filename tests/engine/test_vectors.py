"""The test vectors of GAMES.md, written out here so they run without ../shared."""

from __future__ import annotations

from decimal import Decimal
from fractions import Fraction

import pytest

import engine
from engine import events as ev


def points(game: str, dice, throw: int = 1, held: int = 0, **options) -> dict[str, int]:
    game_def, resolved = engine.resolve_game(game, options)
    return dict(engine.score_roll(game_def.rules(resolved), tuple(dice), throw, held).points)


def instant(game: str, dice, throw: int = 1, held: int = 0, **options) -> bool:
    game_def, resolved = engine.resolve_game(game, options)
    return engine.score_roll(game_def.rules(resolved), tuple(dice), throw, held).instant_win


# --- generala ------------------------------------------------------------------------------------

def test_generala_straight_served_and_on_the_third_throw() -> None:
    assert points("generala", [2, 3, 4, 5, 1])["straight"] == 25
    assert points("generala", [2, 3, 4, 5, 1], throw=3, held=2)["straight"] == 20


@pytest.mark.parametrize("dice, straight", [
    ([1, 3, 4, 5, 6], True), ([1, 1, 3, 4, 5], True), ([1, 2, 3, 4, 6], False),
])
def test_generala_ace_stands_in_for_2_or_6_only(dice, straight) -> None:
    assert (points("generala", dice, throw=2, held=1)["straight"] > 0) is straight


def test_generala_five_of_a_face_on_the_first_throw_wins_at_once() -> None:
    assert instant("generala", [3, 3, 3, 3, 3])
    assert not instant("generala", [3, 3, 3, 3, 3], throw=2)


# --- generala-classic --------------------------------------------------------------------------

def test_classic_full_house_on_the_first_throw_earns_the_bonus() -> None:
    assert points("generala-classic", [6, 6, 6, 2, 2])["full_house"] == 40


def test_classic_wrapped_straight_with_the_option() -> None:
    assert points("generala-classic", [3, 4, 5, 6, 1], wrap_straights=True)["straight"] > 0
    assert points("generala-classic", [4, 5, 6, 1, 2], wrap_straights=True)["straight"] > 0
    assert points("generala-classic", [4, 5, 6, 1, 2])["straight"] == 0


# --- yacht -------------------------------------------------------------------------------------

def test_yacht_four_of_a_kind_scarne_and_1938() -> None:
    assert points("yacht", [6, 6, 6, 6, 5])["four_of_a_kind"] == 29
    six_sixes = points("yacht", [6, 6, 6, 6, 6])
    assert (six_sixes["four_of_a_kind"], six_sixes["yacht"]) == (0, 50)
    assert points("yacht-1938", [3, 3, 3, 3, 3])["four_of_a_kind"] == 12


# --- crag --------------------------------------------------------------------------------------

def test_crag_and_thirteen() -> None:
    crag = points("crag", [6, 6, 1])
    assert (crag["crag"], crag["thirteen"]) == (50, 26)
    thirteen = points("crag", [2, 5, 6])
    assert (thirteen["thirteen"], thirteen["crag"]) == (26, 0)


# --- cacho -------------------------------------------------------------------------------------

def cacho_game(**options) -> engine.GameState:
    return engine.replay([engine.new_game("cacho", ["Ana", "Bea"], options)])


def test_cacho_second_throw_with_held_dice_needs_a_turn_and_is_de_huevo() -> None:
    state = cacho_game()
    state = engine.apply(state, ev.throw(0, [2, 3, 1, 1, 1]))
    state = engine.apply(state, ev.throw(0, [2, 3, 4, 5, 6], thrown=[2, 3, 4]))
    actions = engine.turn_actions(state)
    assert actions.must_turn and not actions.may_fill
    assert all("turn_required" in o.reasons and not o.allowed for o in engine.score_options(state))
    with pytest.raises(engine.TurnRequired):
        engine.apply(state, ev.category_scored(0, "straight"))
    state = engine.apply(state, ev.die_turned(0, 4, 1))  # the 6 becomes a 1: 1-2-3-4-5
    assert state.turn.dice == (2, 3, 4, 5, 1)
    best = engine.score_options(state)[0]
    assert (best.category, best.points, best.reasons) == ("straight", 20, ("de_huevo",))


def test_cacho_second_throw_of_all_five_showing_a_straight_is_de_mano_without_a_turn() -> None:
    state = cacho_game()
    state = engine.apply(state, ev.throw(0, [2, 2, 1, 1, 4]))
    state = engine.apply(state, ev.throw(0, [2, 3, 4, 5, 6]))
    assert not engine.turn_actions(state).must_turn
    best = engine.score_options(state)[0]
    assert (best.category, best.points, best.reasons) == ("straight", 25, ("de_mano",))
    state = engine.apply(state, ev.category_scored(0, "straight", 25))
    assert state.sheets[0]["straight"].served


def test_cacho_five_of_a_face_on_the_first_throw_is_dormida() -> None:
    assert instant("cacho", [4, 4, 4, 4, 4])
    state = engine.apply(cacho_game(), ev.throw(0, [4, 4, 4, 4, 4]))
    assert state.finished and state.instant_win.rule == "dormida" and state.winners == (0,)


# --- the General sample sheet ----------------------------------------------------------------------

SAMPLE_SHEET = {  # category -> points of A, B, C, D
    "ones": (0, 0, 4, 3),
    "twos": (4, 6, 6, 4),
    "threes": (9, 9, 6, 6),
    "fours": (8, 8, 12, 12),
    "fives": (20, 10, 15, 20),
    "sixes": (12, 0, 18, 18),
    "straight": (25, 25, 20, 25),
    "full_house": (35, 30, 30, 30),
    "four_of_a_kind": (40, 40, 45, 40),
    "small_general": (0, 0, 0, 60),
}
FACE_OF = {"ones": 1, "twos": 2, "threes": 3, "fours": 4, "fives": 5, "sixes": 6}


def throws_for(category: str, wanted: int) -> list[tuple[list[int], list[int] | None]]:
    """Throws (values, thrown) that make `wanted` points in `category` of General."""
    if category in FACE_OF:
        face = FACE_OF[category]
        count = wanted // face
        filler = [v for v in (2, 3, 4, 5, 6, 1) if v != face]
        dice = [face] * count + [filler[i % 2] for i in range(5 - count)]
        return [(dice, None)]
    made = {"straight": [1, 2, 3, 4, 5], "full_house": [6, 6, 6, 2, 2], "four_of_a_kind": [5, 5, 5, 5, 2],
            "small_general": [4, 4, 4, 4, 4]}[category]
    served = {"straight": 25, "full_house": 35, "four_of_a_kind": 45}.get(category)
    if wanted == 0:
        return [([1, 2, 2, 3, 6], None)]
    if wanted == served:
        return [(made, None)]
    return [([1, 1, 2, 3, 6], None), (made, [0, 1, 2, 3, 4])]


def play_sample_sheet() -> list[dict]:
    log = [engine.new_game("general", ["A", "B", "C", "D"], stake="0.01")]
    for category, row in SAMPLE_SHEET.items():
        for player, wanted in enumerate(row):
            for values, thrown in throws_for(category, wanted):
                log.append(ev.throw(player, values, thrown))
            log.append(ev.category_scored(player, category, wanted))
    return log


def test_the_general_sample_sheet_played_as_events() -> None:
    state = engine.replay(play_sample_sheet())
    assert state.finished
    assert state.totals == (153, 128, 156, 218)
    for category, row in SAMPLE_SHEET.items():
        assert tuple(state.sheets[p].points(category) for p in range(4)) == row
    assert state.winners == (3,)
    payments = engine.settlement(state, 1)  # 1 cent a point, in cents
    assert [(p.payers, p.payees, p.amount) for p in payments] == [
        ((0,), (3,), Decimal(65)), ((1,), (3,), Decimal(90)), ((2,), (3,), Decimal(62))]
    in_euros = engine.settlement(state)  # the stake of game_started: 0.01 a point
    assert [p.amount for p in in_euros] == [Decimal("0.65"), Decimal("0.90"), Decimal("0.62")]
    assert [p.points for p in in_euros] == [Fraction(65), Fraction(90), Fraction(62)]


def test_general_four_of_a_kind_on_a_later_throw_scores_40() -> None:
    assert points("general", [5, 5, 5, 5, 2], throw=2, held=3)["four_of_a_kind"] == 40
    assert points("general", [5, 5, 5, 5, 2])["four_of_a_kind"] == 45


def test_general_big_general_wins_even_with_small_general_filled() -> None:
    log = [engine.new_game("general", ["A", "B"])]
    log += [ev.throw(0, [1, 1, 2, 3, 6]), ev.throw(0, [4, 4, 4, 4, 4], [0, 1, 2, 3, 4]),
            ev.category_scored(0, "small_general", 60)]
    log += [ev.throw(1, [1, 2, 2, 3, 6]), ev.category_scored(1, "twos", 4)]
    log += [ev.throw(0, [6, 6, 6, 6, 6])]
    state = engine.replay(log)
    assert state.finished and state.winners == (0,)
    assert state.instant_win.rule == "big_general"


def test_cacho_turn_choices_show_what_each_turn_gives() -> None:
    state = cacho_game()
    state = engine.apply(state, ev.throw(0, [2, 3, 1, 1, 1]))
    state = engine.apply(state, ev.throw(0, [2, 3, 4, 5, 6], thrown=[2, 3, 4]))
    best = engine.turn_choices(state)[0]
    assert (best.die, best.value, best.dice) == (4, 1, (2, 3, 4, 5, 1))
    assert (best.best.category, best.best.points) == ("straight", 20)
    assert len(engine.turn_choices(state)) == 5


# --- yahtzee -------------------------------------------------------------------------------------

def test_yahtzee_straights() -> None:
    assert points("yahtzee", [1, 2, 3, 4, 6])["small_straight"] == 30
    large = points("yahtzee", [2, 3, 4, 5, 6])
    assert (large["large_straight"], large["small_straight"]) == (40, 30)


def yahtzee_with_a_yahtzee_and_sixes(**options) -> engine.GameState:
    log = [engine.new_game("yahtzee", ["Ana"], options),
           ev.throw(0, [2, 2, 2, 2, 2]), ev.category_scored(0, "yahtzee", 50),
           ev.throw(0, [6, 6, 6, 6, 1]), ev.category_scored(0, "sixes", 24),
           ev.throw(0, [6, 6, 6, 6, 6])]
    return engine.replay(log)


def test_yahtzee_joker_full_house_25_plus_the_100_bonus() -> None:
    state = yahtzee_with_a_yahtzee_and_sixes()
    full = next(o for o in engine.score_options(state) if o.category == "full_house")
    assert (full.points, full.bonus, full.allowed) == (25, 100, True)
    assert "joker" in full.reasons and "extra_bonus" in full.reasons
    state = engine.apply(state, ev.category_scored(0, "full_house", 25))
    assert state.sheets[0]["full_house"].points == 25 and state.sheets[0]["full_house"].bonus == 100
    assert state.totals == (50 + 24 + 25 + 100,)


def test_yahtzee_upper_boxes_totalling_63_earn_the_35_bonus() -> None:
    log = [engine.new_game("yahtzee", ["Ana"])]
    for face in range(1, 7):  # three of each face: 3 + 6 + ... + 18 = 63
        log += [ev.throw(0, [face, face, face, 7 - face if face != 3 else 1, 7 - face if face != 3 else 1]),
                ev.category_scored(0, ("ones", "twos", "threes", "fours", "fives", "sixes")[face - 1], 3 * face)]
    state = engine.replay(log)
    sheet = state.sheets[0]
    assert sheet.box_total == 63 and state.totals == (63 + 35,)
    assert [(line.id, points) for line, points in sheet.line_points] == [("upper_bonus", 35), ("yahtzee_bonus", 0)]


# --- yatzy ---------------------------------------------------------------------------------------

def test_yatzy_pairs_straight_and_full_house() -> None:
    pairs = points("yatzy", [6, 6, 5, 5, 1])
    assert (pairs["one_pair"], pairs["two_pairs"]) == (12, 22)
    assert points("yatzy", [1, 2, 3, 4, 5])["small_straight"] == 15
    assert points("yatzy", [3, 3, 3, 2, 2])["full_house"] == 13


# --- escalero ------------------------------------------------------------------------------------

def test_escalero_served_on_any_throw_of_all_five() -> None:
    assert points("escalero", [1, 2, 3, 4, 5], throw=2)["straight"] == 25
    assert points("escalero", [6, 6, 6, 6, 6], throw=3, held=2)["grande"] == 50
    assert points("escalero", [1, 2, 3, 4, 5], throw=2, served_first_throw_only=True)["straight"] == 20


# --- poker dice ----------------------------------------------------------------------------------

@pytest.mark.parametrize("better, worse", [
    ([5, 5, 5, 2, 2], [4, 4, 4, 6, 6]), ([2, 3, 4, 5, 6], [1, 2, 3, 4, 5]), ([6, 6, 3, 3, 2], [6, 6, 3, 3, 1]),
])
def test_poker_dice_the_better_hand_wins_the_round(better, worse) -> None:
    for first, second in ((better, worse), (worse, better)):
        state = engine.replay([
            engine.new_game("poker-dice", ["Ana", "Bea"]),
            ev.throw(0, first), ev.category_scored(0, "hand"), ev.throw(1, second), ev.category_scored(1, "hand")])
        winner = 0 if first is better else 1
        assert state.match.round_winners == (winner,)
        assert state.totals == tuple(1 if p == winner else 0 for p in range(2))
