"""Finding the tray's floor in a picture of the empty tray."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from lab.synth import BackgroundSpec, CameraSpec, SceneSpec, TraySpec, render
from lab.synth.geometry import Camera
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


def empty_tray_picture() -> np.ndarray:
    scene = SceneSpec(background=BackgroundSpec("felt", (40, 110, 40)),
                      tray=TraySpec(inner=(150.0, 110.0, 490.0, 370.0)), noise_sigma=2.0)
    return render(scene).image


def test_the_tray_reader_finds_the_tray_on_the_first_empty_still_frame() -> None:
    from vision.reading import Problem, Reading
    from vision.tray import TrayReader

    outlines = []

    def reader(frame, expected, tray):
        outlines.append(tray)
        return Reading((), (Problem("count", "expected 5, found 0"),))

    tray_reader = TrayReader("auto", read=reader)
    empty = empty_tray_picture()
    tray_reader(empty, 5)
    tray_reader(empty, 5)
    assert outlines[0] is None and outlines[1] is not None and len(outlines[1]) >= 3
    fixed = TrayReader([(0.0, 0.0), (100.0, 0.0), (100.0, 100.0)], read=reader)
    fixed(empty, 5)
    assert outlines[-1] == [(0.0, 0.0), (100.0, 0.0), (100.0, 100.0)]
    whole = TrayReader(None, read=reader)
    whole(empty, 5)
    assert outlines[-1] is None and not whole.looking


def test_cubilete_tray_prints_the_config_line(tmp_path, capsys) -> None:
    from cli.main import main

    photo = tmp_path / "empty.png"
    cv2.imwrite(str(photo), empty_tray_picture())
    assert main(["tray", str(photo), "--debug", str(tmp_path / "drawn.png")]) == 0
    line = capsys.readouterr().out.strip()
    assert line.startswith("tray = [[") and (tmp_path / "drawn.png").is_file()
    plain = tmp_path / "plain.png"
    cv2.imwrite(str(plain), np.full((480, 640, 3), 120, np.uint8))
    assert main(["tray", str(plain)]) == 1
    assert "no tray stands out" in capsys.readouterr().err
