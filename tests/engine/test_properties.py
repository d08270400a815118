"""Property tests: random legal games of every game and option set run to their end with a
valid state after every event; the log round-trips through JSON to the same game; random
(mostly illegal) events are refused with a RuleError and change nothing."""

from __future__ import annotations

import json
from decimal import Decimal

import pytest

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import engine
from engine import events as ev

SETTINGS = settings(max_examples=12, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


@st.composite
def game_starts(draw, game_id: str) -> dict:
    game = engine.GAMES[game_id]
    options = {o.key: draw(st.sampled_from(o.allowed)) for o in game.options}
    partnerships = game.default_rules.partnerships and draw(st.booleans())
    players = 4 if partnerships else draw(st.integers(1, 3))
    names = [f"P{i}" for i in range(players)]
    stake = draw(st.sampled_from([None, "0.01", "1", "0.05"]))
    return engine.new_game(game_id, names, options, stake=stake,
                           partnerships=[[0, 1], [2, 3]] if partnerships else None)


def legal_event(data, state: engine.GameState) -> dict:
    """One legal event chosen among what the current player may do."""
    actions = engine.turn_actions(state)
    player = actions.player
    choices = []
    if actions.may_throw:
        choices.append("throw")
    if actions.may_turn:
        choices.append("turn")
    if actions.may_fill:
        choices.append("fill")
    if actions.may_correct:
        choices.append("correct")
    if actions.may_undo_throw:
        choices.append("undo_throw")
    if actions.may_undo:
        choices.append("undo")
    weights = {"throw": 6, "turn": 2, "fill": 6, "correct": 1, "undo_throw": 1, "undo": 1}
    choice = data.draw(st.sampled_from([c for c in choices for _ in range(weights[c])]))
    dice = st.integers(1, 6)
    n = state.rules.dice
    if choice == "throw":
        if actions.must_throw_all:
            thrown = list(range(n))
        else:
            thrown = sorted(data.draw(st.sets(st.sampled_from(actions.rethrowable), min_size=1)))
        values = [data.draw(dice) if i in thrown else state.turn.dice[i] for i in range(n)]
        return ev.throw(player, values, thrown)
    if choice == "turn":
        die = data.draw(st.sampled_from(actions.turnable))
        return ev.die_turned(player, die, 7 - state.turn.dice[die])
    if choice == "fill":
        option = data.draw(st.sampled_from([o for o in engine.score_options(state) if o.allowed]))
        if option.points == 0 and data.draw(st.booleans()):
            return ev.category_scratched(player, option.category)
        return ev.category_scored(player, option.category, option.points)
    if choice == "correct":  # only the dice of the throw it corrects (GAMES.md)
        thrown = state.turn.last_throw.thrown
        return ev.reading_corrected(player, [data.draw(dice) if i in thrown else state.turn.dice[i] for i in range(n)])
    if choice == "undo_throw":
        return ev.throw_undone(player)
    return ev.turn_undone()


def expected_total(rules, sheet) -> int:
    """The sheet's total written out again: the boxes, each bonus earned with a fill, and the
    threshold bonuses (63 in the upper boxes)."""
    marks = [m for m in sheet.marks if m is not None]
    total = sum(m.points + m.bonus for m in marks)
    for bonus in rules.threshold_bonuses:
        if sum(sheet.points(box) or 0 for box in bonus.boxes) >= bonus.threshold:
            total += bonus.bonus
    return total


def check_state(state: engine.GameState) -> None:
    if state.rules.match is not None:
        check_match_state(state)
        return
    rules = state.rules
    assert state.totals == tuple(expected_total(rules, s) for s in state.sheets)
    for sheet in state.sheets:
        for category, mark in sheet.items():
            if mark is not None:
                assert mark.scratched == (mark.points == 0)
                assert 0 <= mark.points <= 120
                assert 1 <= mark.throw <= state.max_throws + 10
                assert mark.bonus in ((0, rules.extra_bonus.bonus) if rules.extra_bonus else (0,))
    filled = [s.filled_count for s in state.sheets]
    current = state.current_player
    if not all(s.is_full for s in state.sheets):
        assert all(f == filled[current] + (1 if p < current else 0) for p, f in enumerate(filled))
    assert 0 <= state.turn.throw_number <= state.max_throws
    if state.turn.throws:
        assert len(state.turn.dice) == rules.dice and all(1 <= v <= 6 for v in state.turn.dice)
    assert all(b >= 0 for b in state.banks)
    if not rules.spare_throw_bank:
        assert set(state.banks) == {0}
    assert state.finished == (state.instant_win is not None or all(s.is_full for s in state.sheets))
    check_end(state)


def check_match_state(state: engine.GameState) -> None:
    """A match: totals are rounds won; a player's box holds a hand exactly while they have
    stood this round; the current player is a contender still to stand."""
    rules, match = state.rules, state.match
    players = len(state.players)
    assert state.totals == tuple(match.round_winners.count(p) for p in range(players))
    assert match.round == len(match.round_winners) + 1
    assert state.finished == (max(state.totals) >= rules.match.rounds_to_win)
    for p, sheet in enumerate(state.sheets):
        assert (sheet["hand"] is not None) == (match.hands[p] is not None)
        assert match.hands[p] is None or p in match.contenders
    if not state.finished:
        assert state.current_player in match.contenders and match.hands[state.current_player] is None
    assert 0 <= state.turn.throw_number <= state.max_throws <= rules.throws
    if match.play_off:
        assert state.max_throws == rules.match.play_off_throws and len(match.contenders) > 1
    check_end(state)


def check_end(state: engine.GameState) -> None:
    if state.finished:
        assert state.winners and not engine.score_options(state)
        payments = engine.settlement(state)
        assert all(p.amount > 0 and p.points >= 0 for p in payments)  # nobody listed as paying 0.00
        stake = Decimal(state.stake) if state.stake is not None else Decimal(1)
        for payer in {p.payers for p in payments}:
            paid = sum(p.amount for p in payments if p.payers == payer)
            owed = sum(p.points for p in payments if p.payers == payer)
            assert stake * owed.numerator / owed.denominator - Decimal("0.01") < paid
            assert paid <= stake * owed.numerator / owed.denominator  # never more than the margin
    else:
        assert state.winners == ()


@settings(max_examples=60, deadline=None, derandomize=True)
@given(st.data(), st.sampled_from(sorted(g for g in engine.GAMES if engine.GAMES[g].dice == 5)))
def test_a_correction_never_changes_a_held_die(data, game_id: str) -> None:
    state = engine.replay([engine.new_game(game_id, ["A"])])
    state = engine.apply(state, ev.throw(0, [data.draw(st.integers(1, 6)) for _ in range(5)]))
    actions = engine.turn_actions(state)
    if not actions.may_throw or not actions.rethrowable:
        return
    thrown = sorted(data.draw(st.sets(st.sampled_from(actions.rethrowable), min_size=1, max_size=4)))
    held = [i for i in range(5) if i not in thrown]
    state = engine.apply(state, ev.throw(0, [data.draw(st.integers(1, 6)) if i in thrown else state.turn.dice[i]
                                             for i in range(5)], thrown))
    die = data.draw(st.sampled_from(held))
    values = list(state.turn.dice)
    values[die] = data.draw(st.sampled_from([v for v in range(1, 7) if v != values[die]]))
    with pytest.raises(engine.RuleError) as refused:
        engine.apply(state, ev.reading_corrected(0, values))
    assert refused.value.rule == "held_die_unchanged"
    fixed = list(state.turn.dice)
    fixed[thrown[0]] = data.draw(st.integers(1, 6))
    assert engine.apply(state, ev.reading_corrected(0, fixed)).turn.dice == tuple(fixed)


def play_to_the_end(data, game_id: str) -> tuple[list[dict], engine.GameState]:
    log = [data.draw(game_starts(game_id))]
    state = engine.replay(log)
    undos = 0
    while not state.finished:
        event = legal_event(data, state)
        if event["type"] in ("turn_undone", "throw_undone"):
            undos += 1
            if undos > 3:
                continue
        state = engine.apply(state, event)
        log.append(event)
        check_state(state)
    return log, state


def make_test(game_id: str):
    @SETTINGS
    @given(st.data())
    def test(data) -> None:
        log, state = play_to_the_end(data, game_id)
        assert engine.replay(log) == state
        assert engine.replay(json.loads(json.dumps(log))) == state
    test.__name__ = f"test_random_legal_games_of_{game_id.replace('-', '_')}_run_to_the_end"
    return test


for _game_id in engine.GAMES:
    _test = make_test(_game_id)
    globals()[_test.__name__] = _test


any_int = st.integers(-2, 8)
random_events = st.one_of(
    st.builds(lambda p, vs, th: ev.throw(p, vs, th), any_int, st.lists(any_int, max_size=6), st.sets(any_int, max_size=6)),
    st.builds(lambda p, d, v: ev.die_turned(p, d, v), any_int, any_int, any_int),
    st.builds(lambda p, c, pts: ev.category_scored(p, c, pts), any_int,
              st.sampled_from(["ones", "sixes", "straight", "grande_2", "generala", "crag", "nope", "fifty"]),
              st.one_of(st.none(), st.integers(0, 60))),
    st.builds(lambda p, c: ev.category_scratched(p, c), any_int, st.sampled_from(["ones", "four_of_a_kind", "x"])),
    st.builds(lambda p, vs: ev.reading_corrected(p, vs), any_int, st.lists(any_int, max_size=6)),
    st.just(ev.turn_undone()),
    st.builds(ev.throw_undone, any_int),
    st.dictionaries(st.sampled_from(["type", "v", "player", "values", "thrown", "die", "category"]),
                    st.one_of(st.integers(-1, 3), st.text(max_size=3), st.lists(any_int, max_size=3), st.none())),
)


@settings(max_examples=40, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(st.data(), st.sampled_from(sorted(engine.GAMES)))
def test_random_events_are_applied_or_refused_without_changing_anything(data, game_id: str) -> None:
    log = [data.draw(game_starts(game_id))]
    state = engine.replay(log)
    for _ in range(data.draw(st.integers(5, 40))):
        if state.finished and data.draw(st.booleans()):
            break
        candidate = data.draw(random_events) if data.draw(st.booleans()) else (
            legal_event(data, state) if not state.finished else ev.turn_undone())
        before = repr(state), json.dumps(candidate, sort_keys=True)
        try:
            after = engine.apply(state, candidate)
        except engine.RuleError as error:
            assert (repr(state), json.dumps(candidate, sort_keys=True)) == before
            assert error.rule and str(error)
            assert engine.replay(log) == state
            continue
        log.append(candidate)
        state = after
        check_state(state)
    assert engine.replay(json.loads(json.dumps(log))) == state
