"""Held-out photos the networks learnt all the same. The held-out photos (every tenth train
photo) are kept from the networks, but the sets hold augmented copies of one photo (`scenes`),
the same throw seen from another side (`scenes`) and one camera shot under two names (`shots`),
and the copy of a held-out photo among the photos the networks fit on was learnt: reading it
measures what the networks remember, not how they read a scene they never saw. Of the 110
rune55 photos `decide` read as held out, 71 were so learnt, and 9 of nell-byler's 16
(2026-11-30). The benches' held-out split and `decide` leave them out (`evaluate.load_split`).

The photos the training scripts fit on are the train photos less the held-out ones and less
every train photo of a test photo's shot, scene or throw (`scripts/photo_sets.py`).
"""

from __future__ import annotations

import collections
import functools
from pathlib import Path

from lab.reader_eval import scenes
from lab.reader_eval.shots import camera_shot, shots_in_tests

Dice = tuple[scenes.Die, ...]


@functools.lru_cache(maxsize=4)
def learnt_held_out(root: Path, held: frozenset[str]) -> frozenset[str]:
    """Those of the held-out photos `held` ("set/image", every tenth train photo of each set under
    `root`) that show the scene, throw or camera shot of a photo the networks fit on."""
    left_out = scenes.scene_copies(Path(root).resolve()).train
    test_shots = shots_in_tests(root)
    fitting: list[tuple[str, Dice]] = []
    held_dice: dict[str, Dice] = {}
    for name, split, dice in scenes.manifest_photos(root):
        if split != "train":
            continue
        if name in held:
            held_dice[name] = dice
        elif name not in left_out and camera_shot(name) not in test_shots:
            fitting.append((name, dice))
    fitting_shots = {shot for name, _ in fitting if (shot := camera_shot(name)) is not None}
    by_values: dict[tuple[int, ...], list[Dice]] = collections.defaultdict(list)
    by_count: dict[int, list[tuple[str, Dice]]] = collections.defaultdict(list)
    for name, dice in fitting:
        if len(dice) >= scenes.MIN_DICE:
            by_values[tuple(sorted(d.value for d in dice))].append(dice)
            by_count[len(dice)].append((name, dice))

    def seen(name: str, dice: Dice) -> bool:
        if (shot := camera_shot(name)) is not None and shot in fitting_shots:
            return True
        if len(dice) < scenes.MIN_DICE:
            return False  # one or two dice say nothing of a scene
        return (any(scenes.same_scene(dice, theirs) for theirs in by_values.get(tuple(sorted(d.value for d in dice)), ()))
                or any(scenes.same_throw((name, dice), other) for other in by_count.get(len(dice), ())))

    return frozenset(name for name, dice in held_dice.items() if seen(name, dice))
