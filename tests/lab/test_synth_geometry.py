"""The synthetic die is a real die and the camera is a real pinhole camera."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from lab.synth import CameraSpec, DieSpec
from lab.synth.geometry import FACE_AXES, FACE_NORMALS, UP, Camera, die_pose


def test_opposite_faces_add_to_seven_and_textures_are_not_mirrored():
    for value, normal in FACE_NORMALS.items():
        assert np.allclose(np.array(FACE_NORMALS[7 - value]), -np.array(normal))
        u, v = (np.array(a, float) for a in FACE_AXES[value])
        # seen from outside, texture x runs right and y down: u x v points into the die
        assert np.allclose(np.cross(u, v), -np.array(normal))


def test_one_two_three_meet_at_a_corner_counter_clockwise_seen_from_outside():
    n1, n2, n3 = (np.array(FACE_NORMALS[v], float) for v in (1, 2, 3))
    # with z pointing into the tray the frame is right-handed; the triple product fixes the handedness
    assert np.dot(np.cross(n1, n2), n3) == pytest.approx(1.0)


@pytest.mark.parametrize("value,angle", list(itertools.product(range(1, 7), (0.0, 17.0, 90.0, 233.0))))
def test_a_flat_die_shows_its_value_on_top(value, angle):
    pose = die_pose(DieSpec(value=value, center=(100, 100), size=50, angle=angle))
    assert pose.top_value() == value
    assert pose.top_tilt_deg() == pytest.approx(0.0, abs=1e-6)
    assert pose.corners()[:, 2].max() == pytest.approx(0.0)  # resting on the tray
    assert pose.corners()[:, 2].min() == pytest.approx(-50.0)


@pytest.mark.parametrize("side", range(4))
def test_a_cocked_die_pivots_on_one_bottom_edge_and_raises_the_named_side(side):
    tipped = die_pose(DieSpec(value=3, center=(100, 100), size=40, angle=30, cocked_deg=20, cocked_side=side))
    assert tipped.top_value() == 3
    assert tipped.top_tilt_deg() == pytest.approx(20.0)
    on_tray = tipped.corners()[np.isclose(tipped.corners()[:, 2], 0.0, atol=1e-6)]
    assert len(on_tray) == 2  # resting on an edge
    # the raised side is the named one
    a = np.radians(30 + 90 * side)
    raised = np.array([np.cos(a), np.sin(a), 0.0])
    lift = (tipped.corners() - tipped.corners().mean(axis=0)) @ raised
    assert tipped.corners()[np.argmax(lift), 2] < -10


def test_orientation_overrides_value_and_the_face_most_up_counts():
    # a quarter turn about x brings face 3 (-y) to the top (-z)
    rot = np.array([[1, 0, 0], [0, 0, -1], [0, 1, 0]], float)
    pose = die_pose(DieSpec(value=1, center=(0, 0), size=30, orientation=tuple(rot.ravel())))
    assert np.allclose(pose.face_normal(3), UP)
    assert pose.top_value() == 3


def test_straight_down_camera_maps_the_tray_one_to_one():
    cam = Camera.from_spec(CameraSpec(tilt_deg=0, yaw_deg=0, fov_deg=60), 640, 480)
    pts = np.array([[0, 0, 0], [639, 479, 0], [320.5, 100.25, 0]], float)
    assert np.allclose(cam.project(pts), pts[:, :2], atol=1e-9)


def test_tilted_camera_sees_the_far_side_smaller():
    cam = Camera.from_spec(CameraSpec(tilt_deg=30, yaw_deg=0, fov_deg=60), 640, 480)
    near = cam.project(np.array([[300, 400, 0], [340, 400, 0]], float))
    far = cam.project(np.array([[300, 80, 0], [340, 80, 0]], float))
    assert np.linalg.norm(far[1] - far[0]) < np.linalg.norm(near[1] - near[0])
    centre = cam.project(np.array([[319.5, 239.5, 0]], float))[0]
    assert np.allclose(centre, [319.5, 239.5])


@pytest.mark.parametrize("value", range(1, 7))
def test_resting_orientation_matches_a_flat_die_and_a_quarter_roll_brings_up_a_neighbour(value):
    from lab.synth import resting_orientation, turned

    flat = die_pose(DieSpec(value=value, center=(50, 50), size=40, angle=25))
    same = die_pose(DieSpec(value=1, center=(50, 50), size=40, orientation=resting_orientation(value, 25)))
    assert np.allclose(flat.rotation, same.rotation)
    # roll over one of its bottom edges: about a horizontal axis along that edge
    edge = (-np.sin(np.radians(25)), np.cos(np.radians(25)), 0.0)
    rolled = die_pose(DieSpec(value=1, center=(50, 50), size=40, orientation=turned(resting_orientation(value, 25), edge, 90)))
    assert rolled.top_value() not in (value, 7 - value)
    assert rolled.top_tilt_deg() == pytest.approx(0.0, abs=1e-6)
    half = die_pose(DieSpec(value=1, center=(50, 50), size=40,
                            orientation=turned(resting_orientation(value, 25), edge, 30)))
    assert half.top_tilt_deg() == pytest.approx(30.0)
