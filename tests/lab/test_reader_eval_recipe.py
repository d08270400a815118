"""`lab.reader_eval.recipe`: a recipe passes when the mean of its seeds reads no worse than the
shipped pair and every seed alone is as safe; one lucky or unlucky seed decides neither."""

from __future__ import annotations

from pathlib import Path

import pytest

from lab.reader_eval import decide, recipe

PICTURES = {"photos": "/photos", "held-out": "abc", "negatives": 700, "synthetic": 200}


def summary(right: int, dice: int = 100, sure_wrong: int = 0, asked: int = 30, photos: int = 30 * 3) -> dict:
    return {"accuracy": right / dice, "dice": dice, "right": right, "exact_rate": 0.5, "sure_wrong": sure_wrong,
            "sure_right": right - 10, "photos": photos, "asked": asked, "asked_rate": asked / photos,
            "per_value": {"1": {"right": 1, "total": 1}}}


def figures(right_a: int, right_b: int = 95, sure_wrong: int = 1, no_dice: int = 2, asked_a: int = 30) -> decide.Figures:
    return decide.Figures({"a": summary(right_a, sure_wrong=sure_wrong, asked=asked_a), "b": summary(right_b)},
                          {11: summary(97, dice=100)}, {77: no_dice, 78: 0}, 20.0)


SHIPPED = figures(70)


def test_seeds_a_set_apart_by_more_than_one_die_pass_when_their_mean_loses_nothing() -> None:
    lucky, unlucky = figures(74), figures(66)
    assert decide.verdict(SHIPPED, unlucky) != []  # decide alone would fail the unlucky seed
    assert recipe.recipe_verdict(SHIPPED, {"seed0": lucky, "seed1": unlucky}) == []
    assert recipe.mean_figures([lucky, unlucky]).held_out["a"]["right"] == 70


def test_a_mean_that_loses_dice_or_asks_more_fails_though_one_seed_is_better() -> None:
    failed = recipe.recipe_verdict(SHIPPED, {"seed0": figures(73), "seed1": figures(63)})
    assert failed == ["mean of the seeds: dice scored without asking dropped (points): held-out a 2.00",
                      "mean of the seeds: right dice on the held-out photos fell from 165 to 163"]
    asking = recipe.recipe_verdict(SHIPPED, {"seed0": figures(70, asked_a=30), "seed1": figures(70, asked_a=37)})
    assert asking == ["mean of the seeds: photos asked about rose (points): held-out a 3.89"]


def test_every_seed_alone_must_be_as_safe_as_the_shipped_pair() -> None:
    failed = recipe.recipe_verdict(SHIPPED, {"seed0": figures(80), "seed1": figures(80, sure_wrong=2),
                                             "seed2": figures(80, no_dice=3)})
    assert failed == ["seed1: sure but wrong on the held-out pictures rose from 1 to 2",
                      "seed2: sure dice on the no-dice pictures rose from 2 to 3"]


def test_the_seed_that_ships_reads_the_most_dice_right_then_asks_least() -> None:
    assert recipe.chosen_seed({"seed0": figures(71), "seed1": figures(73), "seed2": figures(72)}) == "seed1"
    assert recipe.chosen_seed({"seed0": figures(73, asked_a=33), "seed1": figures(73, asked_a=31)}) == "seed1"


def test_the_scenes_of_unseen_looks_are_averaged_and_judged_like_the_game_scenes(capsys) -> None:
    def with_unseen(right: int, sure_wrong: int = 0) -> decide.Figures:
        f = figures(70)
        f.unseen = {11: summary(right, sure_wrong=sure_wrong)}
        return f

    shipped = with_unseen(90)
    assert recipe.mean_figures([with_unseen(88), with_unseen(92)]).unseen[11]["right"] == 90
    assert recipe.recipe_verdict(shipped, {"seed0": with_unseen(88), "seed1": with_unseen(92)}) == []
    assert recipe.recipe_verdict(shipped, {"seed0": with_unseen(87), "seed1": with_unseen(89)}) == [
        "mean of the seeds: dice scored without asking dropped (points): unseen looks 11 2.00"]
    assert recipe.recipe_verdict(shipped, {"seed0": with_unseen(92, 1), "seed1": with_unseen(92)}) == [
        "seed0: sure but wrong on the unseen looks pictures rose from 0 to 1"]
    lines = recipe.table(shipped, {"seed0": with_unseen(88), "seed1": with_unseen(92)}).splitlines()
    assert any(line.startswith("unseen looks seed 11") for line in lines)
    assert any(line.startswith("unseen looks sure, wrong") for line in lines)


def save(path: Path, figures_: decide.Figures, pictures: dict = PICTURES) -> Path:
    path.write_text(decide.saved_figures_json(pictures, figures_), encoding="utf-8")
    return path


def test_the_command_prints_every_seed_their_mean_and_spread_and_the_verdict(tmp_path: Path, capsys) -> None:
    shipped = save(tmp_path / "shipped.json", SHIPPED)
    seeds = [save(tmp_path / "seed0.json", figures(74)), save(tmp_path / "seed1.json", figures(68))]
    assert recipe.main(["--against", str(shipped), *map(str, seeds)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].split()[-4:] == ["seed0", "seed1", "mean", "spread"]
    (held_out_a,) = [line for line in out if line.startswith("held-out a")]
    assert held_out_a.split()[2:] == ["70.00", "/", "33.3", "74.00", "/", "33.3", "68.00", "/", "33.3",
                                      "71.00", "/", "33.3", "6.00", "/", "0.0"]
    (right,) = [line for line in out if line.startswith("held-out right dice")]
    assert right.split()[3:] == ["165", "169", "163", "166", "6"]
    assert out[-1] == "verdict: passes; the seed that ships: seed0"


def test_a_lesson_is_judged_against_the_mean_of_a_controls_seeds(tmp_path: Path, capsys) -> None:
    controls = [save(tmp_path / "control0.json", figures(74)), save(tmp_path / "control1.json", figures(70))]
    lesson = [save(tmp_path / "seed0.json", figures(75)), save(tmp_path / "seed1.json", figures(70))]
    # against the mean of the control (72 dice right on set a), not its better seed (74), the lesson's (72.5) passes
    assert recipe.main(["--against", str(controls[0]), "--against", str(controls[1]), *map(str, lesson)]) == 0
    out = capsys.readouterr().out.splitlines()
    (held_out_a,) = [line for line in out if line.startswith("held-out a")]
    assert held_out_a.split()[2:5] == ["72.00", "/", "33.3"]
    assert out[-1] == "verdict: passes; the seed that ships: seed0"
    worse = [save(tmp_path / "seed2.json", figures(69)), save(tmp_path / "seed3.json", figures(70))]
    assert recipe.main(["--against", str(controls[0]), "--against", str(controls[1]), *map(str, worse)]) == 0
    assert "right dice on the held-out photos fell from 167 to 164.5" in capsys.readouterr().out
    other = save(tmp_path / "control2.json", figures(70), {**PICTURES, "negatives": 10})
    assert recipe.main(["--against", str(controls[0]), "--against", str(other), *map(str, lesson)]) == 2
    assert "control2.json: measured on other pictures" in capsys.readouterr().err


def test_one_seed_or_figures_of_other_pictures_stop_it_with_a_clear_message(tmp_path: Path, capsys) -> None:
    shipped = save(tmp_path / "shipped.json", SHIPPED)
    with pytest.raises(SystemExit):
        recipe.main(["--against", str(shipped), str(save(tmp_path / "seed0.json", figures(70)))])
    assert "2 seeds or more" in capsys.readouterr().err
    other = save(tmp_path / "seed1.json", figures(70), {**PICTURES, "negatives": 10})
    assert recipe.main(["--against", str(shipped), str(tmp_path / "seed0.json"), str(other)]) == 2
    assert "measured on other pictures" in capsys.readouterr().err
    (tmp_path / "broken.json").write_text("{")
    assert recipe.main(["--against", str(shipped), str(tmp_path / "seed0.json"), str(tmp_path / "broken.json")]) == 2
    assert "not figures written by --save or --keep" in capsys.readouterr().err
    # figures measured before the gates read the dice scored without asking
    old = figures(70)
    del old.held_out["a"]["sure_right"]
    save(tmp_path / "old.json", old)
    assert recipe.main(["--against", str(shipped), str(tmp_path / "seed0.json"), str(tmp_path / "old.json")]) == 2
    assert "the held-out figures of a lack sure_right, which the gates judge" in capsys.readouterr().err
    twin = tmp_path / "again"
    twin.mkdir()
    save(twin / "seed0.json", figures(70))
    assert recipe.main(["--against", str(shipped), str(tmp_path / "seed0.json"), str(twin / "seed0.json")]) == 2
    assert "share a name" in capsys.readouterr().err


def test_the_kept_draws_are_figures_recipe_can_judge_together() -> None:
    # draws trained in separate sessions are judged together only if read on the same pictures
    kept = sorted((Path(decide.__file__).parent / "draws").glob("*.json"))
    assert any(path.name.startswith("shipped-") for path in kept)
    pictures = [decide.load_saved(path)[0] for path in kept]
    assert all(p == pictures[0] for p in pictures) and "libraries" in pictures[0]
