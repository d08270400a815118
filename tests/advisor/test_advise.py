"""Advice for a turn: the expected totals agree with the solver's, every choice is one the
rules allow, and the commands print it."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import numpy as np
import pytest

import engine
from advisor.advise import advise, best_choice, turn_solver
from advisor.dice_space import probability
from advisor.model import NotASheetGame
from advisor.solver import Rows, solve
from advisor.tables import Table, build, find, game_model, load, save, shipped_path
from engine import events as ev
from cli.main import main
from tests.advisor.reference import Reference, one_player


@pytest.fixture(scope="module")
def generala() -> Table:
    return build("generala")  # solved here, in float64 (the shipped file holds float32)


def table_within(state: engine.GameState) -> Table:
    """A table solved only for the positions this sheet can lead to."""
    model = game_model(state.game.id, dict(state.options))
    position = model.position(state.sheets[0], state.banks[0])
    values = solve(model, within=position.open_boxes)
    return Table(state.game.id, dict(state.options), model, values, 0.0, 0.0)


def test_before_the_first_throw_the_advice_is_to_throw_and_expect_the_optimal_total(generala: Table) -> None:
    state = engine.replay([engine.new_game("generala", ["Ana"])])
    advice = advise(state, generala)
    assert [c.action for c in advice.choices] == ["throw"]
    assert advice.best.expected == pytest.approx(155.2996, abs=5e-5) and advice.best.rethrow == (0, 1, 2, 3, 4)


def test_the_best_choice_after_each_first_throw_averages_to_the_optimal_total(generala: Table) -> None:
    start = engine.replay([engine.new_game("generala", ["Ana"])])
    model = generala.model
    position = model.position(start.sheets[0])
    after_first = turn_solver(model).run(Rows.one(position.open_boxes), generala.flat)["E1"][0]
    total = 0.0
    for r, roll in enumerate(model.space.rolls):
        thrown = dataclasses.replace(engine.apply(start, ev.throw(0, roll)), instant_win=None)  # played as a box
        best = advise(thrown, generala).best.expected
        assert best == pytest.approx(after_first[r], abs=1e-9), roll
        total += probability(roll) * best
    assert total == pytest.approx(generala.expected, abs=1e-9)


def test_keeps_never_free_a_locked_die(generala: Table) -> None:
    state = engine.replay([engine.new_game("generala", ["Ana"]), ev.throw(0, [6, 6, 1, 2, 3]),
                           ev.throw(0, [6, 6, 4, 4, 5], [2, 3, 4])])  # the two sixes are now locked
    keeps = [c for c in advise(state, generala).choices if c.action == "keep"]
    assert keeps and all(c.keep.count(6) == 2 and not {0, 1} & set(c.rethrow) for c in keeps)


def test_advice_is_what_the_brute_force_finds_with_a_joker_on_the_sheet() -> None:
    marks = {"ones": 3, "twos": 6, "threes": 9, "fives": 15, "sixes": 18, "three_of_a_kind": 20, "four_of_a_kind": 0,
             "small_straight": 30, "large_straight": 0, "yahtzee": 50, "chance": 22}
    start = one_player("yahtzee", marks)
    table = table_within(start)
    reference = Reference()
    for dice in ([4, 4, 4, 4, 4], [6, 6, 6, 6, 6], [4, 4, 4, 2, 2], [1, 2, 3, 4, 6]):
        state = engine.apply(start, ev.throw(0, dice))
        advice = advise(state, table)
        allowed = {o.category for o in engine.score_options(state) if o.allowed}
        assert {c.category for c in advice.choices if c.action == "fill"} == allowed
        assert advice.best.expected - state.sheets[0].total == pytest.approx(
            reference.after_throw(start, 1, (), tuple(sorted(dice))), abs=1e-9)
    five_fours = advise(engine.apply(start, ev.throw(0, [4] * 5)), table).best
    assert (five_fours.action, five_fours.category, five_fours.points, five_fours.bonus) == ("fill", "fours", 20, 100)


def test_cacho_advice_turns_a_die_when_a_turn_is_required() -> None:
    marks = {"ones": 2, "twos": 4, "threes": 6, "fours": 8, "fives": 10, "sixes": 12, "full_house": 30,
             "four_of_a_kind": 40, "grande_1": 50, "grande_2": 0}
    start = one_player("cacho", marks)
    state = engine.replay([engine.new_game("cacho", ["solo"])])
    state = dataclasses.replace(state, sheets=start.sheets)
    state = engine.apply(engine.apply(state, ev.throw(0, [2, 3, 1, 1, 1])), ev.throw(0, [2, 3, 4, 5, 6], [2, 3, 4]))
    advice = advise(state, table_within(state))
    assert all(c.action == "fill" and c.turn for c in advice.choices)
    assert (advice.best.category, advice.best.points, advice.best.turn) == ("straight", 20, (4,))
    assert advice.best.text(advice.dice) == "turn 6, fill Straight 20"


def test_the_practice_move_is_a_legal_event_all_game_long(generala: Table) -> None:
    """An optimal player plays a whole game of generala through the fold."""
    rng = np.random.default_rng(7)
    state = engine.replay([engine.new_game("generala", ["Bot"])])
    while not state.finished:
        choice = best_choice(state, generala)
        if choice.action in ("throw", "keep"):
            values = list(state.turn.dice) if state.turn.throws else [1] * 5
            for i in choice.rethrow:
                values[i] = int(rng.integers(1, 7))
            state = engine.apply(state, ev.throw(0, values, choice.rethrow))
        else:
            state = engine.apply(state, ev.category_scored(0, choice.category, choice.points))
    assert state.sheets[0].is_full or state.instant_win is not None


def test_poker_dice_gets_no_advice() -> None:
    state = engine.replay([engine.new_game("poker-dice", ["Ana"]), ev.throw(0, [1, 1, 2, 3, 4])])
    with pytest.raises(NotASheetGame):
        advise(state)


# --- tables and commands ---------------------------------------------------------------------------

def test_a_table_round_trips_through_its_file_and_refuses_other_options(tmp_path: Path, generala: Table) -> None:
    path = tmp_path / "generala.npz"
    assert save(generala, path) < 20_000
    again = load(path, "generala")
    assert again.expected == generala.expected
    assert np.allclose(again.values, generala.values, atol=1e-4)
    with pytest.raises(ValueError):
        load(path, "generala", {"held_dice_locked": False})


def test_solve_command_prints_the_optimum_and_writes_the_table(tmp_path: Path, capsys) -> None:
    out = tmp_path / "crag.npz"
    assert main(["solve", "crag", "--out", str(out), "--quiet"]) == 0
    printed = capsys.readouterr().out
    assert "crag: optimal expected total 149.8476" in printed and out.is_file()
    assert load(out, "crag").expected == pytest.approx(149.8476, abs=5e-5)


def test_advise_command_prints_the_best_choices(tmp_path: Path, capsys) -> None:
    code = main(["advise", "generala", "--dice", "6", "6", "6", "2", "3", "--state-dir", str(tmp_path), "--top", "3"])
    out = capsys.readouterr().out
    assert code == 0 and out.splitlines()[1].split() == ["keep", "6", "6", "6", "expected", "total", "159.67"]
    code = main(["advise", "generala", "--dice", "6", "6", "6", "2", "3", "--throw", "3", "--held", "3",
                 "--sheet", "sixes=24,generala=x", "--json", "--state-dir", str(tmp_path)])
    data = json.loads(capsys.readouterr().out)
    assert code == 0 and data["throw"] == 3 and all(c["action"] == "fill" for c in data["choices"])
    assert "sixes" not in {c["category"] for c in data["choices"]}


@pytest.mark.parametrize("words", [
    ["poker-dice", "--dice", "1", "2", "3", "4", "5"], ["generala", "--dice", "1", "2", "3"],
    ["generala", "--dice", "1", "2", "3", "4", "9"], ["generala", "--sheet", "nope=3"],
    ["generala", "--dice", "1", "2", "3", "4", "5", "--throw", "4"], ["no-such-game"],
])
def test_advise_command_errors_are_one_line_and_exit_2(words, tmp_path: Path, capsys) -> None:
    assert main(["advise", *words, "--state-dir", str(tmp_path)]) == 2
    assert len(capsys.readouterr().err.strip().splitlines()) == 1


SHIPPED = {"general": 155.9994, "generala": 155.2996, "generala-classic": 158.7513, "yacht": 169.6091,
           "crag": 149.8476, "cacho": 206.4462, "goldene-fuenfzig": 172.2406, "escalero": 149.3563}


@pytest.mark.parametrize("game", sorted(SHIPPED))
def test_the_small_tables_are_shipped_and_fit_the_rules(game: str) -> None:
    """Every sheet game but the three with an upper bonus (megabytes, solved on the device)
    has its table in the package, for the rules and solver of this version."""
    table = find(game)
    assert table is not None and table.path == shipped_path(game)
    assert table.expected == pytest.approx(SHIPPED[game], abs=5e-5)
    model = table.model
    assert table.values[model.open_sets - 1, 0, 0, 0] == pytest.approx(table.expected, abs=1e-4)


def test_a_shipped_table_is_what_the_solver_makes_today() -> None:
    shipped = find("crag")
    assert np.allclose(shipped.values, solve(game_model("crag")), atol=1e-4)
