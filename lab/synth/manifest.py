"""Write a folder of synthetic scenes with a manifest the vision bench can read.

The manifest has the format of the dice-photo sets (one JSON object a line):
`{"image": "images/000000.jpg", "width", "height", "split", "dice": [{"value", "box":
[x0, y0, x1, y1]}]}`; a die that is cocked or mostly hidden carries `"ignore": true`
(the reader may report it or not; it counts neither way).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from .random_scene import random_scene
from .renderer import render
from .spec import DieLabel, SceneSpec
from .unseen_looks import looks_rng, with_unseen_looks

MIN_VISIBLE = 0.6  # a die with less of its top face in view is not a fair test


def scene_rng(seed: int, index: int) -> np.random.Generator:
    """The generator for scene `index` of a set: any scene can be remade on its own."""
    return np.random.default_rng([seed, index])


LOOKS = ("game", "unseen")  # the dice as random scenes draw them, or as no training scene does


def bench_scene(seed: int, index: int, looks: str = "game", **scene_options: Any) -> SceneSpec:
    """Scene `index` of a set of `seed` whose dice have `looks` (see `write_manifest`)."""
    if looks not in LOOKS:
        raise ValueError(f"looks must be one of {', '.join(LOOKS)}, got {looks!r}")
    scene = random_scene(scene_rng(seed, index), **scene_options)
    return with_unseen_looks(scene, looks_rng(seed, index)) if looks == "unseen" else scene


def ignored(label: DieLabel) -> bool:
    """A die the manifest marks ignore: cocked, or too little of its top face in view to be a fair test."""
    return label.cocked or label.visible < MIN_VISIBLE


def write_manifest(out_dir: str | Path, n: int, seed: int, split: str = "test", looks: str = "game",
                   **scene_options: Any) -> Path:
    """Render `n` random scenes into out_dir/images/ and describe them in out_dir/manifest.jsonl.

    `scene_options` go to `random_scene` (n_dice, width, height, size_range, ...). With `looks`
    "unseen" each scene's dice get looks no training scene draws (`unseen_looks`), the scene
    otherwise the same. Returns the manifest's path.
    """
    if looks not in LOOKS:
        raise ValueError(f"looks must be one of {', '.join(LOOKS)}, got {looks!r}")
    out = Path(out_dir)
    (out / "images").mkdir(parents=True, exist_ok=True)
    manifest = out / "manifest.jsonl"
    with manifest.open("w", encoding="utf-8") as f:
        for i in range(n):
            scene = bench_scene(seed, i, looks, **scene_options)
            rendered = render(scene)
            if rendered.jpeg is not None:
                rel = f"images/{i:06d}.jpg"
                (out / rel).write_bytes(rendered.jpeg)
            else:
                rel = f"images/{i:06d}.png"
                cv2.imwrite(str(out / rel), rendered.image)
            dice = []
            for label in rendered.labels:
                entry: dict[str, Any] = {"value": label.value, "box": [round(c, 1) for c in label.box]}
                if ignored(label):
                    entry["ignore"] = True
                dice.append(entry)
            f.write(json.dumps({"image": rel, "width": scene.width, "height": scene.height, "split": split,
                                "dice": dice}) + "\n")
    return manifest
