"""Rendered synthetic scenes: deterministic, and their labels agree with their pixels."""

from __future__ import annotations

import dataclasses
import itertools

import cv2
import numpy as np
import pytest

from lab.synth import (BACKGROUND_KINDS, DIE_STYLES, FACE_OCCLUDER, BackgroundSpec, BlurSpec, CameraSpec,
                          DieSpec, Lamp, LightingSpec, Occluder, SceneSpec, TraySpec, clear_caches, random_scene,
                          render)

FLAT_LIGHT = LightingSpec(ambient=1.0, shadow_strength=0.0)
GREY_TABLE = BackgroundSpec("plastic", (120, 120, 120), texture=0.0)


def plain_scene(dice, tilt=0.0, width=400, height=300, **kw) -> SceneSpec:
    return SceneSpec(width=width, height=height, background=GREY_TABLE, lighting=FLAT_LIGHT,
                     camera=CameraSpec(tilt_deg=tilt, yaw_deg=0.0), dice=tuple(dice), **kw)


def count_blobs(mask: np.ndarray, min_area: int) -> int:
    n, _, stats, _ = cv2.connectedComponentsWithStats(mask.astype(np.uint8), connectivity=8)
    return int(np.sum(stats[1:, cv2.CC_STAT_AREA] >= min_area))


def top_face_pips(image: np.ndarray, face_map: np.ndarray, index: int, dark_pips: bool) -> int:
    face = (face_map == index).astype(np.uint8)
    face = cv2.erode(face, np.ones((3, 3), np.uint8))
    grey = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    pips = (grey < 110) if dark_pips else (grey > 150)
    return count_blobs(pips & face.astype(bool), min_area=4)


def test_the_same_scene_renders_the_same_pixels_even_with_cold_caches():
    scene = random_scene(np.random.default_rng(11), occluder_prob=1.0, cocked_prob=0.3)
    first = render(scene)
    clear_caches()
    second = render(scene)
    assert np.array_equal(first.image, second.image)
    assert first.labels == second.labels
    assert first.jpeg == second.jpeg


def test_a_new_frame_seed_changes_only_the_sensor_noise():
    scene = random_scene(np.random.default_rng(12), jpeg_quality=None, noise_sigma=3.0)
    a = render(scene).image.astype(np.int16)
    b = render(dataclasses.replace(scene, seed=scene.seed + 1)).image.astype(np.int16)
    diff = a - b
    assert np.abs(diff).max() > 0
    assert abs(float(diff.mean())) < 0.1
    assert 2.0 < float(diff.std()) < 8.0  # two frames of noise about sigma 3


@pytest.mark.parametrize("value,angle,size,tilt", [
    (v, a, s, t) for (v, a), s, t in itertools.product(
        zip(range(1, 7), (0.0, 12.0, 33.0, 45.0, 71.0, 88.0)), (40.0, 64.0), (0.0, 25.0))
])
def test_the_top_face_shows_as_many_pips_as_its_value(value, angle, size, tilt):
    light = DieSpec(value=value, center=(130, 150), size=size, angle=angle, pip_depth=0.0, gloss=0.0)
    dark = DieSpec(value=7 - value, center=(270, 150), size=size, angle=-angle, body_bgr=(30, 30, 30),
                   pip_bgr=(245, 245, 245), pip_depth=0.0, gloss=0.0)
    out = render(plain_scene([light, dark], tilt=tilt))
    assert [lab.value for lab in out.labels] == [value, 7 - value]
    assert top_face_pips(out.image, out.face_map, 0, dark_pips=True) == value
    assert top_face_pips(out.image, out.face_map, 1, dark_pips=False) == 7 - value


def test_label_boxes_hold_the_top_face_pixels_and_centres():
    scene = random_scene(np.random.default_rng(13), n_dice=8, cocked_prob=0.3)
    out = render(scene)
    for lab in out.labels:
        ys, xs = np.nonzero(out.face_map == lab.index)
        assert len(xs) > 0.6 * lab.size ** 2
        x0, y0, x1, y1 = lab.box
        assert xs.min() >= x0 - 1.5 and xs.max() <= x1 + 1.5
        assert ys.min() >= y0 - 1.5 and ys.max() <= y1 + 1.5
        # the box is tight: the face reaches (nearly) every side of it
        assert xs.min() <= x0 + 2.5 and xs.max() >= x1 - 2.5 and ys.min() <= y0 + 2.5 and ys.max() >= y1 - 2.5
        assert x0 < lab.center[0] < x1 and y0 < lab.center[1] < y1
        assert lab.size ** 2 == pytest.approx(len(xs), rel=0.15)


@pytest.mark.parametrize("yaw,corner", [(0.0, (400, 60)), (0.0, (400, 300)), (90.0, (400, 300)),
                                         (200.0, (400, 300)), (292.0, (40, 300))])
def test_flat_dice_of_one_height_never_hide_each_others_top_faces(yaw, corner):
    # rows of dice seen obliquely, off the camera's axis: a die may hide a neighbour's side,
    # never its top (drawing them by the depth of their centres got this wrong)
    dice = [DieSpec(value=1 + (r * 4 + c) % 6, center=(corner[0] + 51 * c, corner[1] + 51 * r), size=50)
            for r in range(3) for c in range(4)]
    scene = dataclasses.replace(plain_scene(dice, tilt=30.0, width=640, height=480),
                                camera=CameraSpec(tilt_deg=30.0, yaw_deg=yaw, fov_deg=70))
    out = render(scene)
    in_view = [lab for lab in out.labels
               if lab.box[0] >= 0 and lab.box[1] >= 0 and lab.box[2] <= 639 and lab.box[3] <= 479]
    assert len(in_view) >= 6
    assert min(lab.visible for lab in in_view) > 0.995


def test_labels_report_the_spec_and_cocked_dice():
    dice = [DieSpec(value=4, center=(120, 150), size=50, angle=10),
            DieSpec(value=2, center=(240, 150), size=50, angle=10, cocked_deg=20, cocked_side=1),
            DieSpec(value=6, center=(330, 150), size=40, lift=30)]
    out = render(plain_scene(dice))
    assert [lab.value for lab in out.labels] == [4, 2, 6]
    assert [lab.cocked for lab in out.labels] == [False, True, True]
    assert out.labels[1].tilt_deg == pytest.approx(20.0)
    straight = out.labels[0]
    # straight overhead, the top face 50 px nearer the camera is seen magnified about the image centre
    focal = 200 / np.tan(np.radians(30))
    expect = np.array([199.5, 149.5]) + (np.array([120, 150]) - [199.5, 149.5]) * focal / (focal - 50)
    assert straight.center == pytest.approx(tuple(expect), abs=1e-6)
    assert straight.size == pytest.approx(50 * focal / (focal - 50), rel=1e-6)
    assert straight.angle == pytest.approx(10.0, abs=0.01)


def test_an_occluder_hides_the_dice_under_it():
    dice = [DieSpec(value=5, center=(200, 150), size=50), DieSpec(value=3, center=(80, 80), size=50)]
    hand = Occluder("hand", center=(200, 170), size=220, angle=-90)
    out = render(plain_scene(dice, occluders=(hand,)))
    assert (out.face_map == FACE_OCCLUDER).any()
    assert out.labels[0].visible < 0.5
    assert out.labels[1].visible == pytest.approx(1.0)


def test_an_empty_tray_renders_and_dice_out_of_the_picture_are_not_visible():
    assert render(plain_scene([])).labels == []
    dice = [DieSpec(value=3, center=(-100, -100), size=50), DieSpec(value=2, center=(375, 150), size=50),
            DieSpec(value=5, center=(200, 150), size=50)]
    out = render(plain_scene(dice))
    gone, half, whole = (lab.visible for lab in out.labels)
    assert gone == 0.0 and 0.3 < half < 0.7 and whole == 1.0


def test_frames_differ_only_where_a_die_moved_was_removed_or_was_added():
    rng = np.random.default_rng(14)
    scene = random_scene(rng, n_dice=4, touching=False, jpeg_quality=None, noise_sigma=0.0, blur=BlurSpec(),
                         tray=None)
    moved = dataclasses.replace(scene.dice[0], center=(scene.dice[0].center[0] + 25, scene.dice[0].center[1]))
    added = dataclasses.replace(scene.dice[1], value=7 - scene.dice[1].value)
    frames = [scene, dataclasses.replace(scene, dice=(moved, *scene.dice[1:3], added), seed=5)]
    a, b = (render(s) for s in frames)
    changed = np.abs(a.image.astype(np.int16) - b.image.astype(np.int16)).max(axis=2) > 0
    allowed = np.zeros_like(changed)
    for out, idx in ((a, (0, 3)), (b, (0, 3))):
        for lab in out.labels:
            if lab.index in idx:
                x0, y0, x1, y1 = lab.box
                m = 1.2 * lab.size  # the die's sides and its shadow
                allowed[max(0, int(y0 - m)):int(y1 + m), max(0, int(x0 - m)):int(x1 + m)] = True
    assert changed[allowed].any()
    assert not changed[~allowed].any()


def test_frames_with_noise_differ_elsewhere_only_by_noise():
    scene = random_scene(np.random.default_rng(15), n_dice=3, touching=False, jpeg_quality=None, noise_sigma=4.0)
    moved = dataclasses.replace(scene.dice[0], center=(scene.dice[0].center[0] + 30, scene.dice[0].center[1] + 10))
    a = render(scene)
    b = render(dataclasses.replace(scene, dice=(moved, *scene.dice[1:]), seed=scene.seed + 1))
    diff = cv2.blur(np.abs(a.image.astype(np.float32) - b.image.astype(np.float32)).mean(axis=2), (9, 9))
    where_moved = np.zeros(diff.shape, bool)
    for lab in a.labels[:1] + b.labels[:1]:
        x0, y0, x1, y1 = lab.box
        m = 1.3 * lab.size
        where_moved[max(0, int(y0 - m)):int(y1 + m), max(0, int(x0 - m)):int(x1 + m)] = True
    assert diff[~where_moved].max() < 12  # |n1 - n2| averages about 1.1 * 1.4 * sigma
    assert diff[where_moved].max() > 25


def test_a_rolling_die_is_smeared_along_its_path_and_keeps_its_label():
    still = DieSpec(value=4, center=(200, 150), size=50, angle=10, lift=10)
    rolling = dataclasses.replace(still, motion_px=16, motion_deg=0)
    a, b = render(plain_scene([still])), render(plain_scene([rolling]))
    assert a.labels == b.labels
    grey_a = cv2.cvtColor(a.image, cv2.COLOR_BGR2GRAY).astype(float)
    grey_b = cv2.cvtColor(b.image, cv2.COLOR_BGR2GRAY).astype(float)
    # the smear softens edges across the motion (x) far more than along it (y)
    def edge(g, dx, dy):
        return np.abs(cv2.Sobel(g, cv2.CV_64F, dx, dy)).sum()
    assert edge(grey_b, 1, 0) < 0.7 * edge(grey_a, 1, 0)
    assert edge(grey_b, 0, 1) > 0.8 * edge(grey_a, 0, 1)


OPTION_MATRIX = [
    dict(background=kind, style=DIE_STYLES[k % 3], tilt=(0.0, 30.0)[k % 2], tray=k % 2 == 0,
         occluder=("hand", "arm", "cup", "ellipse", "polygon")[k % 5], blur=k % 3, jpeg=(None, 40, 90)[k % 3])
    for k, kind in enumerate(BACKGROUND_KINDS * 2)
]


@pytest.mark.parametrize("opts", OPTION_MATRIX, ids=lambda o: "-".join(str(v) for v in o.values()))
def test_every_option_renders(opts):
    w, h = 320, 240
    tray = TraySpec(inner=(20, 20, 300, 220), wall_height=12) if opts["tray"] else None
    dice = (
        DieSpec(value=1, center=(110, 120), size=32, angle=20, style=opts["style"], body2_bgr=(30, 30, 200),
                opacity=0.6, texture_seed=3),
        DieSpec(value=6, center=(143, 120), size=32, angle=0, style=opts["style"], cocked_deg=15, cocked_side=2),
        DieSpec(value=3, center=(220, 150), size=28, orientation=(0, 1, 0, 0, 0, 1, 1, 0, 0), lift=5),  # 5 up
    )
    occ = Occluder(opts["occluder"], center=(250, 60), size=90, angle=135,
                   points=((230, 0), (300, 0), (280, 80)))
    blur = (BlurSpec(), BlurSpec(defocus_px=1.5), BlurSpec(motion_px=4, motion_deg=30))[opts["blur"]]
    lamps = (Lamp(100, 80, 500, 60), Lamp(250, 200, 400, 30, 0.5))
    scene = SceneSpec(w, h, background=BackgroundSpec(opts["background"], (90, 120, 150), gloss=0.5, seed=2),
                      lighting=LightingSpec(lamps=lamps, gradient=0.3, vignette=0.3, tint_bgr=(0.9, 1, 1)),
                      camera=CameraSpec(tilt_deg=opts["tilt"], yaw_deg=10), dice=dice, occluders=(occ,),
                      tray=tray, blur=blur, noise_sigma=3, jpeg_quality=opts["jpeg"], seed=1)
    out = render(scene)
    assert out.image.shape == (h, w, 3) and out.image.dtype == np.uint8
    assert out.face_map.shape == (h, w)
    assert [lab.value for lab in out.labels] == [1, 6, 5]
    assert (out.jpeg is not None) == (opts["jpeg"] is not None)
    assert 20 < out.image.mean() < 235
