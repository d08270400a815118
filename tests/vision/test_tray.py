"""Finding the tray's floor in a picture of the empty tray."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from vision.synth import BackgroundSpec, CameraSpec, SceneSpec, TraySpec, render
from vision.synth.geometry import Camera
from vision.tray import find_tray


def overlap(a: list[tuple[float, float]], b: np.ndarray, shape: tuple[int, int]) -> float:
    masks = []
    for polygon in (np.asarray(a, np.float32), b.astype(np.float32)):
        mask = np.zeros(shape, np.uint8)
        cv2.fillPoly(mask, [np.round(polygon).astype(np.int32)], 1)
        masks.append(mask.astype(bool))
    return float((masks[0] & masks[1]).sum() / (masks[0] | masks[1]).sum())


@pytest.mark.parametrize("floor, counter, tilt", [
    ((40, 110, 40), ("wood", (60, 95, 140)), 0.0),
    ((200, 200, 205), ("plastic", (40, 40, 40)), 12.0),
    ((30, 30, 150), ("card", (180, 190, 200)), 20.0),
])
def test_the_floor_of_an_empty_tray_is_found(floor, counter, tilt) -> None:
    inner = (150.0, 110.0, 490.0, 370.0)
    scene = SceneSpec(background=BackgroundSpec("felt", floor), camera=CameraSpec(tilt_deg=tilt),
                      tray=TraySpec(inner=inner, counter=BackgroundSpec(*counter)), noise_sigma=2.0, jpeg_quality=85)
    image = render(scene).image
    x0, y0, x1, y1 = inner
    truth = Camera.from_spec(scene.camera, scene.width, scene.height).project(
        np.array([[x0, y0, 0], [x1, y0, 0], [x1, y1, 0], [x0, y1, 0]], float))
    found = find_tray(image)
    assert found is not None and 3 <= len(found) <= 12
    # the floor's edge under the rim's inner faces is hidden, and the outline stays a little inside
    assert overlap(found, truth, image.shape[:2]) > 0.8
    grown = truth + (truth - truth.mean(axis=0)) * 0.03
    assert all(cv2.pointPolygonTest(grown.astype(np.float32), point, False) >= 0 for point in found)


def test_no_tray_when_the_floor_fills_the_picture_or_nothing_stands_out() -> None:
    plain = np.full((480, 640, 3), 120, np.uint8)
    assert find_tray(plain) is None
    noise = np.random.default_rng(1).integers(0, 256, (480, 640, 3), dtype=np.uint8)
    assert find_tray(noise) is None
    assert find_tray(np.zeros((10, 10, 3), np.uint8)) is None
