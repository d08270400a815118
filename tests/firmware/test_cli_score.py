"""`cubilete score` and `cubilete games`: one JSON object out, one line and exit 2 on bad input."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

import engine
from cli.main import main


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    try:
        code = main(list(argv))
    except SystemExit as exit_:  # argparse's own usage errors
        code = exit_.code
    out, err = capsys.readouterr()
    return code, out, err


def score(capsys, *argv: str) -> dict:
    code, out, err = run(capsys, "score", *argv)
    assert code == 0 and err == ""
    assert len(out.strip().splitlines()) == 1
    return json.loads(out)


def test_score_prints_every_category_of_the_game(capsys) -> None:
    result = score(capsys, "generala", "2", "3", "4", "5", "1")
    assert list(result) == ["game", "dice", "throw", "served", "instant_win", "options"]
    assert (result["game"], result["dice"], result["throw"], result["served"], result["instant_win"]) == (
        "generala", [2, 3, 4, 5, 1], 1, True, False)
    assert [o["category"] for o in result["options"]] == list(engine.GAMES["generala"].default_rules.category_ids)
    points = {o["category"]: o["points"] for o in result["options"]}
    assert points["straight"] == 25 and points["generala"] == 0 and points["ones"] == 1


def test_a_later_throw_with_held_dice_is_not_served(capsys) -> None:
    result = score(capsys, "generala", "2", "3", "4", "5", "1", "--throw", "3", "--held", "2")
    assert result["served"] is False and {o["category"]: o["points"] for o in result["options"]}["straight"] == 20


def test_in_cacho_a_later_throw_of_all_five_is_de_mano(capsys) -> None:
    all_five = score(capsys, "cacho", "2", "3", "4", "5", "6", "--throw", "2")
    assert all_five["served"] is True and {o["category"]: o["points"] for o in all_five["options"]}["straight"] == 25
    held = score(capsys, "cacho", "2", "3", "4", "5", "6", "--throw", "2", "--held", "2")
    assert held["served"] is False and {o["category"]: o["points"] for o in held["options"]}["straight"] == 20


def test_instant_wins_presets_and_options(capsys) -> None:
    assert score(capsys, "generala", "3", "3", "3", "3", "3")["instant_win"] is True
    assert score(capsys, "cacho", "4", "4", "4", "4", "4")["instant_win"] is True
    assert score(capsys, "yacht", "4", "4", "4", "4", "4")["instant_win"] is False
    preset = score(capsys, "yacht-1938", "3", "3", "3", "3", "3")
    assert preset["game"] == "yacht-1938"
    assert {o["category"]: o["points"] for o in preset["options"]}["four_of_a_kind"] == 12
    wrapped = score(capsys, "generala-classic", "3", "4", "5", "6", "1", "--throw", "2", "--option", "wrap_straights=on",
                    "--option", "first_throw_bonus=5")
    assert {o["category"]: o["points"] for o in wrapped["options"]}["straight"] == 20
    served = score(capsys, "generala-classic", "6", "6", "6", "2", "2", "--option", "first_throw_bonus=5")
    assert {o["category"]: o["points"] for o in served["options"]}["full_house"] == 35


@pytest.mark.parametrize("argv, words", [
    (["generala", "1", "2", "3", "4"], "5 dice, got 4"),
    (["crag", "1", "2", "3", "4"], "3 dice, got 4"),
    (["generala", "1", "2", "3", "4", "7"], "1 to 6, not 7"),
    (["generala", "1", "2", "3", "4", "0"], "1 to 6, not 0"),
    (["generala", "1", "2", "3", "4", "x"], "not 'x'"),
    (["parchis", "1", "2", "3", "4", "5"], "unknown game 'parchis'"),
    (["generala", "1", "2", "3", "4", "5", "--option", "wrap_straights=on"], "no option 'wrap_straights'"),
    (["cacho", "1", "2", "3", "4", "5", "--option", "throws=4"], "throws=4 is not allowed; allowed: 2, 3"),
    (["cacho", "1", "2", "3", "4", "5", "--option", "throws"], "KEY=VALUE"),
    (["cacho", "1", "2", "3", "4", "5", "--throw", "3"], "--throw must be 1 to 2"),
    (["generala", "1", "2", "3", "4", "5", "--throw", "0"], "--throw must be 1 to 3"),
    (["generala", "1", "2", "3", "4", "5", "--held", "1"], "--held needs --throw 2"),
    (["generala", "1", "2", "3", "4", "5", "--throw", "2", "--held", "5"], "--held must be 0 to 4"),
    (["generala", "1", "2", "3", "4", "5", "--throw", "two"], "invalid int value"),
])
def test_bad_input_is_one_line_on_stderr_and_exit_2(capsys, argv, words) -> None:
    code, out, err = run(capsys, "score", *argv)
    assert code == 2 and out == ""
    assert len(err.strip().splitlines()) == 1 and words in err


def test_goldene_fuenfzig_throws_beyond_the_third_come_from_the_bank(capsys) -> None:
    assert score(capsys, "goldene-fuenfzig", "5", "5", "5", "5", "5", "--throw", "5", "--held", "3")["throw"] == 5


def test_games_lists_every_game_option_and_preset(capsys) -> None:
    code, out, err = run(capsys, "games")
    assert code == 0 and err == ""
    for game in engine.GAMES.values():
        assert f"{game.id}: " in out
        for option in game.options:
            assert f"option {option.key}=" in out
    assert "yacht-1938: " in out and "reconstructed" in out
    code, out, _ = run(capsys, "games", "--json")
    data = json.loads(out)
    assert [g["id"] for g in data["games"]] == list(engine.GAMES)
    cacho = next(g for g in data["games"] if g["id"] == "cacho")
    assert {"key": "throws", "default": 2, "allowed": [2, 3],
            "description": "throws per turn; with 3, turning a die over is optional"} in cacho["options"]


def test_the_installed_command_prints_one_json_object() -> None:
    done = subprocess.run([sys.executable, "-m", "cli.main", "score", "crag", "6", "6", "1"],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert {o["category"]: o["points"] for o in json.loads(done.stdout)["options"]}["crag"] == 50
