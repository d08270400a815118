"""Random scenes: seeded, dice never overlap, sizes as asked; the manifest and its CLI."""

from __future__ import annotations

import dataclasses
import json

import cv2
import numpy as np
import pytest

from lab.synth import DIE_STYLES, FACE_NONE, FACE_SIDE, LOOK_STYLES, SceneSpec, random_scene, render, steep, write_manifest
from lab.synth.__main__ import main as synth_main
from lab.synth.geometry import die_pose


def test_the_same_seed_gives_the_same_scene():
    a = random_scene(np.random.default_rng(21), cocked_prob=0.2, occluder_prob=0.5)
    b = random_scene(np.random.default_rng(21), cocked_prob=0.2, occluder_prob=0.5)
    c = random_scene(np.random.default_rng(22), cocked_prob=0.2, occluder_prob=0.5)
    assert a == b and hash(a) == hash(b)
    assert a != c


def _footprint_overlap_px(scene: SceneSpec, scale: int = 4) -> int:
    """Pixels (at `scale` per plane px) covered by two footprints, each shrunk by half a plane px."""
    feet = [die_pose(d).footprint() for d in scene.dice]
    lo = np.min([f.min(axis=0) for f in feet], axis=0) - 2
    hi = np.max([f.max(axis=0) for f in feet], axis=0) + 2
    size = np.ceil((hi - lo) * scale).astype(int)
    count = np.zeros((size[1], size[0]), np.uint8)
    for foot in feet:
        c = foot.mean(axis=0)
        d = foot - c
        n = np.linalg.norm(d, axis=1, keepdims=True)
        shrunk = c + d * (n - 0.5) / n
        mask = np.zeros_like(count)
        cv2.fillPoly(mask, [np.round((shrunk - lo) * scale).astype(np.int32)], 1)
        count += mask
    return int(np.count_nonzero(count > 1))


@pytest.mark.parametrize("seed", range(12))
def test_dice_touch_but_never_overlap(seed):
    rng = np.random.default_rng(seed)
    scene = random_scene(rng, n_dice=10 if seed % 2 else 5, touch_prob=0.9, cocked_prob=0.3 if seed % 3 == 0 else 0)
    assert len(scene.dice) == (10 if seed % 2 else 5)
    assert _footprint_overlap_px(scene) == 0


def _gap(a: np.ndarray, b: np.ndarray) -> float:
    """Distance between two convex outlines that do not overlap (vertex to outline, both ways)."""
    def one_way(p: np.ndarray, q: np.ndarray) -> float:
        q = q.astype(np.float32).reshape(-1, 1, 2)
        return min(-cv2.pointPolygonTest(q, (float(x), float(y)), True) for x, y in p)
    return min(one_way(a, b), one_way(b, a))


def test_overlapping_names_dice_that_would_intersect():
    from lab.synth import DieSpec, overlapping

    a = DieSpec(value=1, center=(100, 100), size=40)
    beside = DieSpec(value=2, center=(140.5, 100), size=40)
    into = DieSpec(value=3, center=(130, 110), size=40, angle=30)
    above = DieSpec(value=4, center=(100, 100), size=40, lift=45)
    assert overlapping([a, beside]) == []
    assert overlapping([a, beside, into]) == [(0, 2), (1, 2)]
    assert overlapping([a, above]) == []
    scene = random_scene(np.random.default_rng(3), n_dice=8)
    assert overlapping(scene.dice) == []


def test_touching_dice_are_really_placed_against_each_other():
    gaps = []
    for seed in range(6):
        scene = random_scene(np.random.default_rng(100 + seed), n_dice=6, touch_prob=1.0)
        feet = [die_pose(d).footprint() for d in scene.dice]
        gaps += [min(_gap(feet[i], feet[j]) for j in range(len(feet)) if j != i) for i in range(len(feet))]
    gaps = np.array(gaps)
    assert np.mean(gaps <= 2.05) > 0.8  # nearly every die lies 0..2 px from another
    assert gaps.min() >= -0.05


def test_apart_dice_keep_their_distance():
    scene = random_scene(np.random.default_rng(31), n_dice=6, touching=False)
    feet = [die_pose(d).footprint() for d in scene.dice]
    for i, a in enumerate(feet):
        for b in feet[i + 1:]:
            assert _gap(a, b) > 2


def test_top_faces_measure_the_asked_sizes_and_lie_inside_the_image():
    sizes = []
    for seed in range(6):
        scene = random_scene(np.random.default_rng(40 + seed), size_range=(40, 90), jpeg_quality=None)
        out = render(scene)
        for lab in out.labels:
            sizes.append(lab.size)
            x0, y0, x1, y1 = lab.box
            assert 0 <= x0 < x1 <= scene.width - 1 and 0 <= y0 < y1 <= scene.height - 1
    assert 40 * 0.93 <= min(sizes) and max(sizes) <= 90 * 1.07


@pytest.mark.parametrize("max_view", [20.0, 35.0])
def test_dice_lie_where_the_camera_sees_them_steeply_enough(max_view):
    from lab.synth.geometry import Camera
    from lab.synth.placement import view_angle_deg

    for seed in range(4):
        scene = random_scene(np.random.default_rng(60 + seed), max_tilt_deg=30, max_view_deg=max_view)
        camera = Camera.from_spec(scene.camera, scene.width, scene.height)
        assert all(view_angle_deg(camera, die_pose(d).center) <= max_view for d in scene.dice)


def test_overrides_replace_scene_fields_and_unknown_options_are_refused():
    scene = random_scene(np.random.default_rng(5), noise_sigma=0.0, jpeg_quality=None, seed=77)
    assert (scene.noise_sigma, scene.jpeg_quality, scene.seed) == (0.0, None, 77)
    with pytest.raises(TypeError, match="colour"):
        random_scene(np.random.default_rng(5), colour="red")


def test_write_manifest_describes_every_image(tmp_path):
    path = write_manifest(tmp_path / "set", 3, seed=4, n_dice=5, cocked_prob=0.5)
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    assert len(lines) == 3
    ignored = 0
    for entry in lines:
        assert set(entry) == {"image", "width", "height", "split", "dice"}
        assert entry["split"] == "test" and (entry["width"], entry["height"]) == (640, 480)
        image = cv2.imread(str(tmp_path / "set" / entry["image"]))
        assert image is not None and image.shape == (480, 640, 3)
        assert len(entry["dice"]) == 5
        for die in entry["dice"]:
            assert set(die) <= {"value", "box", "ignore"} and 1 <= die["value"] <= 6
            x0, y0, x1, y1 = die["box"]
            assert 0 <= x0 < x1 < 640 and 0 <= y0 < y1 < 480
            ignored += die.get("ignore", False)
    assert ignored > 0  # cocked dice are marked


def test_the_manifest_images_are_the_rendered_scenes(tmp_path):
    from lab.synth.manifest import scene_rng

    path = write_manifest(tmp_path, 2, seed=9)
    second = json.loads(path.read_text().splitlines()[1])
    again = render(random_scene(scene_rng(9, 1)))
    assert np.array_equal(cv2.imread(str(tmp_path / second["image"])), again.image)
    assert [d["value"] for d in second["dice"]] == [lab.value for lab in again.labels]


def test_cli_writes_a_set(tmp_path, capsys):
    assert synth_main(["--out", str(tmp_path), "--n", "2", "--seed", "3", "--dice", "3", "--min-size", "30",
                       "--max-size", "50", "--width", "320", "--height", "240"]) == 0
    lines = (tmp_path / "manifest.jsonl").read_text().splitlines()
    assert len(lines) == 2 and all(len(json.loads(x)["dice"]) == 3 for x in lines)
    assert "2 scenes" in capsys.readouterr().out


def test_cli_limits_styles_and_surfaces(tmp_path):
    assert synth_main(["--out", str(tmp_path), "--n", "1", "--styles", "translucent", "--backgrounds", "wood",
                       "--tray", "0", "--width", "320", "--height", "240", "--min-size", "30", "--max-size", "40"]) == 0
    with pytest.raises(SystemExit):
        synth_main(["--out", str(tmp_path), "--styles", "glass"])


def test_cli_refuses_nonsense_sizes(tmp_path):
    with pytest.raises(SystemExit) as exit_info:
        synth_main(["--out", str(tmp_path), "--min-size", "90", "--max-size", "40"])
    assert exit_info.value.code == 2


def test_impossible_scenes_are_refused_with_a_reason():
    with pytest.raises(ValueError, match="could not place"):
        random_scene(np.random.default_rng(1), n_dice=40, width=160, height=120, size_range=(40, 50))


def test_scenes_are_plain_values_that_replace_works_on():
    scene = random_scene(np.random.default_rng(8))
    moved = dataclasses.replace(scene.dice[0], center=(scene.dice[0].center[0] + 5, scene.dice[0].center[1]))
    frame = dataclasses.replace(scene, dice=(moved, *scene.dice[1:]), seed=1)
    assert frame.background == scene.background and frame != scene


def test_cli_bench_prints_render_times(capsys):
    from lab.synth.timing import run_bench

    lines = run_bench(scenes=1, frames=2, width=200, height=150)
    assert len(lines) == 6 and all("ms CPU" in line for line in lines[1:])


def test_cli_needs_an_output_folder_unless_benching():
    with pytest.raises(SystemExit) as exit_info:
        synth_main(["--n", "1"])
    assert exit_info.value.code == 2


@pytest.mark.parametrize("bad", [dict(value=7), dict(size=0), dict(style="glass"), dict(cocked_deg=95),
                                 dict(opacity=0), dict(lift=-1), dict(orientation=(1, 0, 0))])
def test_impossible_dice_are_refused(bad):
    from lab.synth import DieSpec

    with pytest.raises(ValueError):
        DieSpec(**{"value": 3, "center": (10, 10), "size": 20, **bad})


def test_smoky_dice_are_dark_see_through_dice_drawn_only_when_asked_for():
    smoky = random_scene(np.random.default_rng(5), n_dice=12, size_range=(30, 40), styles=("smoky",),
                         matched_set_prob=0.0)
    assert all(d.style == "translucent" and d.opacity < 0.8 and sum(d.body_bgr) < 3 * 110 for d in smoky.dice)
    assert len({tuple(round(c, -2) for c in d.pip_bgr) for d in smoky.dice}) > 1
    # seeded game scenes keep the looks they always had
    assert "smoky" in LOOK_STYLES and "smoky" not in DIE_STYLES


def test_marbled_dice_have_pips_that_read_on_both_swirl_colours():
    from lab.synth.looks import MARBLED_PIPS, READABLE_PIPS_L, pip_lightness_contrast

    marbled = [d for seed in range(8) for d in random_scene(np.random.default_rng(seed), n_dice=12,
                                                             size_range=(30, 40), styles=("marbled",)).dice]
    assert len(marbled) == 96 and all(d.style == "marbled" and d.body2_bgr is not None for d in marbled)
    for die in marbled:
        # never pips as dark as a dark swirl or as light as a light one (black on a black and
        # white marble); when no colour stands out by READABLE_PIPS_L, the one that stands out most
        bodies = (die.body_bgr, die.body2_bgr)
        best = max(pip_lightness_contrast(pip, bodies) for pip in MARBLED_PIPS)
        assert pip_lightness_contrast(die.pip_bgr, bodies) >= min(READABLE_PIPS_L, best), die


def test_the_camera_tilt_can_be_bounded_below() -> None:
    for i in range(4):
        spec = random_scene(np.random.default_rng([4, i]), min_tilt_deg=40, max_tilt_deg=50, max_view_deg=60)
        assert 40 <= spec.camera.tilt_deg <= 50
    with pytest.raises(ValueError, match="tilt"):
        random_scene(np.random.default_rng(1), min_tilt_deg=30, max_tilt_deg=20)


def test_steep_scenes_show_side_faces_as_big_as_the_top() -> None:
    for i in range(4):
        spec = steep.steep_spec(np.random.default_rng([3, i]))
        assert steep.STEEP_TILT_DEG[0] <= spec.camera.tilt_deg <= steep.STEEP_TILT_DEG[1]
        assert 1 <= len(spec.dice) <= 5
        face_map = render(spec).face_map
        # game scenes (the camera at most 30 degrees off vertical) show a fifth to half as much side as top
        assert (face_map == FACE_SIDE).sum() >= 0.8 * (face_map < len(spec.dice)).sum()


def test_crowded_scenes_pack_many_dice_seen_obliquely_some_hiding_others() -> None:
    from lab.synth.crowded import CROWDED_DICE, CROWDED_TILT_DEG, crowded_spec

    partly_hidden = 0
    for i in range(4):
        spec = crowded_spec(np.random.default_rng([6, i]))
        assert CROWDED_TILT_DEG[0] <= spec.camera.tilt_deg <= CROWDED_TILT_DEG[1]
        assert CROWDED_DICE[0] <= len(spec.dice) <= CROWDED_DICE[1]
        labels = render(spec).labels
        assert len(labels) == len(spec.dice)
        partly_hidden += sum(label.visible < 0.98 for label in labels)
    # seen from the side, packed dice hide parts of the ones behind them
    assert partly_hidden >= 2


def test_blending_scenes_lay_dice_of_one_colour_on_a_floor_of_nearly_that_colour() -> None:
    from lab.synth.blending import BLENDING_LIGHTNESS, blending_spec
    from lab.synth.looks import pip_lightness_contrast

    for i in range(6):
        spec = blending_spec(np.random.default_rng([5, i]))
        assert 1 <= len(spec.dice) <= 8 and all(d.style == "opaque" for d in spec.dice)
        body = np.array(spec.dice[0].body_bgr)
        assert all(np.abs(np.array(d.body_bgr) - body).max() < 30 for d in spec.dice)
        floor = np.array(spec.background.bgr)
        # the floor is the dice' colour, a little lighter or darker; the pips stand out from both
        assert np.abs(floor - body).max() <= (BLENDING_LIGHTNESS[1] - 1) * 255 + 40
        assert pip_lightness_contrast(spec.dice[0].pip_bgr, (spec.dice[0].body_bgr,)) > 10
        image = render(spec).image
        assert image.shape[:2] == (spec.height, spec.width)


def test_board_scenes_lay_dice_among_a_board_games_tiles_and_tokens() -> None:
    from lab.synth.boards import BOARD_DICE, BOARD_TOP_PX, boards_spec
    from lab.synth.looks import random_background

    for i in range(3):
        spec = boards_spec(np.random.default_rng([8, i]))
        assert spec.background.kind == "board"
        assert BOARD_DICE[0] <= len(spec.dice) <= BOARD_DICE[1]
        rendered = render(spec)
        assert len(rendered.labels) == len(spec.dice)
        assert all(0.8 * BOARD_TOP_PX[0] * spec.width / 640 <= label.size <= 1.2 * BOARD_TOP_PX[1] for label in rendered.labels)
        floor = rendered.image[rendered.face_map == FACE_NONE]
        # many colours, not a plain surface: the tiles' and the tokens'
        hues = cv2.cvtColor(floor.reshape(-1, 1, 3), cv2.COLOR_BGR2HSV)[:, 0, 0]
        assert len(np.unique(hues // 15)) >= 5
    # a floor only its own scenes draw: random surfaces never are boards
    assert all(random_background(np.random.default_rng([9, i])).kind != "board" for i in range(200))


def test_camouflaged_dice_are_marbled_dice_whose_pips_vanish_on_one_swirl_colour():
    from lab.synth.looks import READABLE_PIPS_L, pip_lightness_contrast

    camouflaged = random_scene(np.random.default_rng(5), n_dice=12, size_range=(30, 40), styles=("camouflaged",),
                               matched_set_prob=0.0).dice
    assert all(d.style == "marbled" for d in camouflaged)
    for die in camouflaged:
        # the pips show on the first swirl colour and hardly on the second
        assert pip_lightness_contrast(die.pip_bgr, (die.body_bgr,)) >= READABLE_PIPS_L - 10
        assert pip_lightness_contrast(die.pip_bgr, (die.body2_bgr,)) < 10
    assert "camouflaged" in LOOK_STYLES and "camouflaged" not in DIE_STYLES
