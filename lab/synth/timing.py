"""How long rendering takes: `python -m lab.synth --bench`.

Measures on one thread (cv2.setNumThreads(1)) with CPU time, so other work on the machine
disturbs the figures less than wall-clock time would; both are printed.
"""

from __future__ import annotations

import dataclasses
import time
from typing import Callable

import cv2
import numpy as np
from .random_scene import random_scene
from .renderer import clear_caches, render
from .spec import Occluder, SceneSpec


def _measure(fn: Callable[[int], object], n: int) -> tuple[float, float]:
    cpu, wall = [], []
    for i in range(n):
        c, w = time.process_time(), time.perf_counter()
        fn(i)
        cpu.append(time.process_time() - c)
        wall.append(time.perf_counter() - w)
    return float(np.median(cpu)) * 1000, float(np.median(wall)) * 1000


def _moving_die(scene: SceneSpec, i: int) -> SceneSpec:
    die = scene.dice[0]
    die = dataclasses.replace(die, center=(die.center[0] + 0.7 * i, die.center[1]), angle=die.angle + 3 * i)
    return dataclasses.replace(scene, dice=(die, *scene.dice[1:]), seed=i)


def _hand(scene: SceneSpec, i: int) -> SceneSpec:
    hand = Occluder("hand", center=(80 + 12 * i, scene.height * 0.6), size=0.5 * scene.height, angle=-60)
    return dataclasses.replace(scene, occluders=(hand,), seed=i)


def run_bench(scenes: int = 6, frames: int = 15, width: int = 640, height: int = 480) -> list[str]:
    threads = cv2.getNumThreads()
    cv2.setNumThreads(1)
    try:
        return _run(scenes, frames, width, height)
    finally:
        cv2.setNumThreads(threads)


def _run(scenes: int, frames: int, width: int, height: int) -> list[str]:
    cases: dict[str, list[tuple[float, float]]] = {k: [] for k in (
        "new scene (tray, light, camera, dice)", "same scene, new noise", "same scene, new noise, JPEG q85",
        "one die moving and turning", "a hand moving over the dice")}
    for k in range(scenes):
        scene = random_scene(np.random.default_rng([2718, k]), width=width, height=height, jpeg_quality=None,
                             noise_sigma=3.0, occluders=())

        def cold(i: int) -> None:
            clear_caches()
            render(dataclasses.replace(scene, seed=i))

        names = list(cases)
        cases[names[0]].append(_measure(cold, 3))
        render(scene)
        cases[names[1]].append(_measure(lambda i: render(dataclasses.replace(scene, seed=i)), frames))
        cases[names[2]].append(_measure(lambda i: render(dataclasses.replace(scene, seed=i, jpeg_quality=85)), frames))
        cases[names[3]].append(_measure(lambda i: render(_moving_die(scene, i)), frames))
        cases[names[4]].append(_measure(lambda i: render(_hand(scene, i)), frames))
    lines = [f"render {width}x{height}, 5 dice, one thread; median over {scenes} scenes x {frames} frames"]
    for name, figures in cases.items():
        cpu = np.median([c for c, _ in figures])
        wall = np.median([w for _, w in figures])
        lines.append(f"  {name:40s} {cpu:7.1f} ms CPU  {wall:7.1f} ms wall")
    return lines
