"""Dice of unseen looks: outside every colour pair and moulding the training scenes draw, in
scenes otherwise the seed's game scenes; written by the manifest, the CLI and the vision bench."""

from __future__ import annotations

import ast
import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from lab.synth import DIE_STYLES, random_scene, render, write_manifest
from lab.synth.__main__ import main as synth_main
from lab.synth.looks import (LOOK_STYLES, READABLE_PIPS_L, UNSEEN_COLOURS, UNSEEN_MARGIN, colour_distance,
                             pip_lightness_contrast, random_die_look)
from lab.synth.manifest import bench_scene, scene_rng
from lab.synth.unseen_looks import UNSEEN_MOULDINGS, looks_rng, unseen_die_look, with_unseen_looks

MOULDING = ("pip_radius", "pip_spread", "one_pip_scale", "corner_radius")
TRAINING_DRAWS = 3000


def lab_colour(bgr) -> np.ndarray:
    return cv2.cvtColor(np.array([[bgr]], np.float32) / 255.0, cv2.COLOR_BGR2Lab)[0, 0]


@pytest.fixture(scope="module")
def training_looks() -> list[dict]:
    """Looks as the training scenes draw them, every style, many times over."""
    rng = np.random.default_rng(0)
    return [random_die_look(rng, LOOK_STYLES) for _ in range(TRAINING_DRAWS)]


def test_no_training_die_has_an_unseen_colour_pair(training_looks) -> None:
    # a body and pip pair as a training die has them would not be unseen: each unseen pair lies
    # an eighth of the lightness range (12 Lab units, body and pips together) from every drawn one
    drawn = np.array([np.concatenate([lab_colour(look["body_bgr"]), lab_colour(look["pip_bgr"])])
                      for look in training_looks])
    for body, pips in UNSEEN_COLOURS:
        pair = np.concatenate([lab_colour(body), lab_colour(pips)])
        nearest = float(np.linalg.norm(drawn - pair, axis=1).min())
        assert nearest >= 12.0, f"{body}, {pips} is {nearest:.1f} from a training die's colours"


def test_dice_of_any_colour_keep_clear_of_the_judges_colours_and_their_pips_read() -> None:
    rng = np.random.default_rng(7)
    looks = [random_die_look(rng, ("any colour",)) for _ in range(500)]
    assert {look["style"] for look in looks} == set(DIE_STYLES)
    for look in looks:
        bodies = (look["body_bgr"], look["body2_bgr"]) if look["style"] == "marbled" else (look["body_bgr"],)
        assert pip_lightness_contrast(look["pip_bgr"], bodies) >= READABLE_PIPS_L
        for body in bodies:
            assert min(colour_distance(body, look["pip_bgr"], *pair) for pair in UNSEEN_COLOURS) >= UNSEEN_MARGIN
    # and they are off the palette: far more colours than its dozen bodies
    assert len({tuple(round(c, -1) for c in look["body_bgr"]) for look in looks}) > 300


def test_every_unseen_die_is_moulded_outside_the_training_ranges(training_looks) -> None:
    ranges = {name: (min(look[name] for look in training_looks), max(look[name] for look in training_looks))
              for name in MOULDING}
    rng = np.random.default_rng(1)
    kinds, styles = set(), set()
    for _ in range(400):
        look = unseen_die_look(rng)
        outside = [name for name in MOULDING if not ranges[name][0] <= look[name] <= ranges[name][1]]
        assert outside, f"{look} is moulded as training dice are"
        kinds.add(tuple(sorted(outside)))
        styles.add(look["style"])
    assert len(kinds) >= len(UNSEEN_MOULDINGS) - 1  # small and big pips change the same fields
    assert styles == set(DIE_STYLES)  # as game scenes draw them


def test_marbled_unseen_dice_have_pips_that_read_on_both_swirl_colours() -> None:
    rng = np.random.default_rng(4)
    marbled = [look for look in (unseen_die_look(rng) for _ in range(600)) if look["style"] == "marbled"]
    assert len(marbled) > 60
    readable = [pip_lightness_contrast(look["pip_bgr"], (look["body_bgr"], look["body2_bgr"])) >= READABLE_PIPS_L
                for look in marbled]
    assert np.mean(readable) > 0.8


def test_the_six_pips_of_an_unseen_die_never_touch() -> None:
    rng = np.random.default_rng(2)
    for _ in range(400):
        look = unseen_die_look(rng)
        assert look["pip_spread"] - 2 * look["pip_radius"] > 0.01


def test_unseen_looks_change_the_dice_alone() -> None:
    scene = random_scene(scene_rng(3, 4))
    unseen = with_unseen_looks(scene, looks_rng(3, 4))
    assert unseen == with_unseen_looks(scene, looks_rng(3, 4))
    assert (unseen.camera, unseen.background, unseen.lighting, unseen.tray, unseen.seed) == \
        (scene.camera, scene.background, scene.lighting, scene.tray, scene.seed)
    for die, new in zip(scene.dice, unseen.dice):
        assert (new.value, new.center, new.size, new.angle, new.cocked_deg) == \
            (die.value, die.center, die.size, die.angle, die.cocked_deg)
        assert new.body_bgr != die.body_bgr
    labels, new_labels = render(scene).labels, render(unseen).labels
    assert [label.value for label in labels] == [label.value for label in new_labels]


def test_a_matched_set_shares_one_look_and_a_mixed_one_does_not() -> None:
    seen = set()
    for index in range(12):
        scene = with_unseen_looks(random_scene(scene_rng(5, index)), looks_rng(5, index))
        bodies = {die.body_bgr for die in scene.dice}
        assert len({die.texture_seed for die in scene.dice}) == len(scene.dice)
        seen.add(len(bodies) == 1)
    assert seen == {True, False}


def test_the_manifest_writes_the_same_scenes_with_unseen_dice(tmp_path: Path) -> None:
    game = write_manifest(tmp_path / "game", n=2, seed=6)
    unseen = write_manifest(tmp_path / "unseen", n=2, seed=6, looks="unseen")
    rows = [json.loads(line) for line in game.read_text().splitlines()]
    new_rows = [json.loads(line) for line in unseen.read_text().splitlines()]
    assert [[d["value"] for d in r["dice"]] for r in rows] == [[d["value"] for d in r["dice"]] for r in new_rows]
    first = cv2.imread(str(game.parent / rows[0]["image"]))
    assert not np.array_equal(first, cv2.imread(str(unseen.parent / new_rows[0]["image"])))
    with pytest.raises(ValueError, match="looks must be one of"):
        write_manifest(tmp_path / "bad", n=1, seed=6, looks="shiny")


def test_the_cli_writes_unseen_dice(tmp_path: Path) -> None:
    assert synth_main(["--out", str(tmp_path), "--n", "1", "--seed", "6", "--looks", "unseen"]) == 0
    assert (tmp_path / "manifest.jsonl").read_text().count("\n") == 1


def unseen_looks_used(source: str) -> list[str]:
    """What in a module's code (not its docstrings) would draw the judge's dice: an import of
    `unseen_looks` or of its functions, or scenes written with looks="unseen"."""
    used = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ImportFrom) and (node.module or "").endswith("unseen_looks"):
            used.append(f"from {node.module} import")
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            used += [f"import {alias.name}" for alias in node.names if alias.name.split(".")[-1] in UNSEEN_NAMES]
        elif isinstance(node, ast.Name) and node.id in UNSEEN_NAMES:
            used.append(node.id)
        elif isinstance(node, ast.Attribute) and node.attr in UNSEEN_NAMES:
            used.append(node.attr)
        elif isinstance(node, ast.keyword) and node.arg == "looks" and isinstance(node.value, ast.Constant) \
                and node.value.value == "unseen":
            used.append('looks="unseen"')
    return used


UNSEEN_NAMES = {"unseen_looks", "unseen_die_look", "with_unseen_looks"}


def test_the_check_for_unseen_dice_finds_code_and_lets_prose_be() -> None:
    assert unseen_looks_used('"""never the colours `lab.synth.unseen_looks` keeps"""\nx = 1\n') == []
    assert unseen_looks_used("from lab.synth.unseen_looks import unseen_die_look\n")
    assert unseen_looks_used("import lab.synth.unseen_looks\n")
    assert unseen_looks_used("from lab import synth\nsynth.unseen_looks.with_unseen_looks(s, r)\n")
    assert unseen_looks_used("write_manifest(out, n=3, seed=1, looks='unseen')\n") == ['looks="unseen"']


def test_no_training_script_draws_unseen_dice() -> None:
    # the judge is unseen only while no network learns from it
    root = Path(__file__).resolve().parents[2]
    for script in sorted((root / "scripts").glob("*.py")):
        assert unseen_looks_used(script.read_text()) == [], f"{script.name} draws the unseen looks"


def test_a_bench_scene_is_the_seeds_scene_with_its_looks() -> None:
    assert bench_scene(5, 2) == random_scene(scene_rng(5, 2))
    assert bench_scene(5, 2, "unseen") == with_unseen_looks(random_scene(scene_rng(5, 2)), looks_rng(5, 2))
    with pytest.raises(ValueError, match="looks must be one of"):
        bench_scene(5, 2, "palette")
