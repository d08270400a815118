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

import functools
from pathlib import Path

from lab.reader_eval import scenes
from lab.reader_eval.shots import camera_shot, shots_in_tests


@functools.lru_cache(maxsize=4)
def learnt_held_out(root: Path, held: frozenset[str]) -> frozenset[str]:
    """Those of the held-out photos `held` ("set/image", every tenth train photo of each set under
    `root`) that show the scene, throw or camera shot of a photo the networks fit on."""
    left_out = scenes.scene_copies(Path(root).resolve()).train
    test_shots = shots_in_tests(root)
    train = [(name, dice) for name, split, dice in scenes.manifest_photos(root) if split == "train"]
    held_photos = [(name, dice) for name, dice in train if name in held]
    fitting = [(name, dice) for name, dice in train
               if name not in held and name not in left_out and camera_shot(name) not in test_shots]
    fitting_shots = {shot for name, _ in fitting if (shot := camera_shot(name)) is not None}
    same_shot = {name for name, _ in held_photos if camera_shot(name) in fitting_shots}
    return frozenset(same_shot) | frozenset(scenes.copies_among(held_photos, fitting))
