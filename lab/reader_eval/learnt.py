"""Held-out photos the networks learnt all the same: the held-out photos (`evaluate.HELD_OUT`,
every tenth train photo) are kept from the networks, but the sets hold augmented copies of one
photo (`scenes`), the same throw seen from another side (`scenes`) and one camera shot under
two names (`shots`), and the copy of a held-out photo among the photos the networks fit on was
learnt. Reading such a photo measures what the networks remember, not how they read a scene
they never saw: `decide` reports the held-out photos none of whose scene, throw or shot the
networks fit on on rows of their own.

The photos the training scripts fit on are the train photos less the held-out ones and less
every train photo of a test photo's shot, scene or throw (`scripts/photo_sets.py`).
"""

from __future__ import annotations

import collections
import functools
from pathlib import Path

from lab.reader_eval import scenes
from lab.reader_eval.evaluate import HELD_OUT, load_manifest
from lab.reader_eval.shots import camera_shot, shots_in_tests


@functools.lru_cache(maxsize=4)
def learnt_held_out(root: Path) -> frozenset[str]:
    """"set/image" of every held-out photo, in the sets under `root`, that shows the scene, throw
    or camera shot of a photo the networks fit on."""
    root = Path(root).resolve()
    held = {f"{m.parent.name}/{p.image}" for m in sorted(root.glob("*/manifest.jsonl"))
            for p in load_manifest(m, HELD_OUT)}
    left_out = scenes.scene_copies(root).train
    test_shots = shots_in_tests(root)
    fitting, held_dice = [], {}
    for name, split, dice in scenes.manifest_photos(root):
        if split != "train":
            continue
        if name in held:
            held_dice[name] = dice
        elif name not in left_out and camera_shot(name) not in test_shots:
            fitting.append((name, dice))
    fitting_shots = {shot for name, _ in fitting if (shot := camera_shot(name)) is not None}
    by_values: dict[tuple[int, ...], list[tuple[str, tuple]]] = collections.defaultdict(list)
    by_count: dict[int, list[tuple[str, tuple]]] = collections.defaultdict(list)
    for name, dice in fitting:
        if len(dice) >= scenes.MIN_DICE:
            by_values[tuple(sorted(d.value for d in dice))].append((name, dice))
            by_count[len(dice)].append((name, dice))
    learnt = set()
    for name, dice in held_dice.items():
        shot = camera_shot(name)
        if shot is not None and shot in fitting_shots:
            learnt.add(name)
        elif len(dice) >= scenes.MIN_DICE and (
                any(scenes.same_scene(dice, theirs) for _, theirs in by_values.get(tuple(sorted(d.value for d in dice)), ()))
                or any(scenes.same_throw((name, dice), other) for other in by_count.get(len(dice), ()))):
            learnt.add(name)
    return frozenset(learnt)
