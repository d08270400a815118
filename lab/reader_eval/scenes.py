"""Scenes: which labelled photos show the same dice lying the same way, whatever the crop, turn,
mirror image, scale or colours. The sets were gathered from public collections whose exports
put augmented copies of one photo in both their train and test splits (rune55: `00019_jpg_3f66fd19`
in test and `00019_jpg_76c950ac` in train), and such a copy carries no camera name (`shots`).

The labels find them: two photos show one scene when they have the same dice values (at least
MIN_DICE dice) and one similarity (turn, mirror, scale, shift) takes every labelled die of one
onto a die of the same value of the other, within TOLERANCE of a die's size, at the scale their
dice's sizes have. Three or more dice thrown again do not land in the same figure with the same
values; a photo of one or two dice says nothing.

A throw photographed again from another side of the tray is no such copy (the figure changes
with the view), but the names tell it: the same phone (`shots`), within THROW_SECONDS, as many
labelled dice, and their values the same but for at most one die (labellers disagree on a die
now and then: rune55 labels one marbled die 2 and then 1). rune55 has such pairs across its
splits (`PXL_20240219_192244622` in test and `_192243315` in train, 24 dice 1.3 s apart). Loose
too: two throws of a few dice moments apart can have values that close.

The training scripts leave out every train photo of a test photo's scene or throw, `decide` and
the held-out bench do not tune on them, and the suite bench reports each set's test photos whose
scene or throw is in no train split on a row of their own.
"""

from __future__ import annotations

import collections
import functools
import itertools
import json
from dataclasses import dataclass
from pathlib import Path
from statistics import median
from typing import Iterable, Sequence

from lab.reader_eval.label_fixes import fixed_row
from lab.reader_eval.shots import camera_shot, shot_time

MIN_DICE = 3
# Loose on purpose: copies were labelled apart, and their boxes moved by up to a fifth of a die
# (at 0.2, 2 of the 29 nell-byler copies that camera names find are lost). A photo wrongly taken
# for a copy (three dice of one value in a similar triangle can be) is only left out of training
# and of the unseen rows; a copy missed would be learnt and then read as unseen.
TOLERANCE = 0.3  # of the median die's box side
SCALE_SLACK = 1.33  # the layout's scale and the dice sizes' may differ by this factor
# A photographer walking round the tray takes the next view within seconds; gathering and
# throwing the dice again takes longer than that
THROW_SECONDS = 15.0


@dataclass(frozen=True)
class Die:
    value: int
    centre: complex  # x + iy, pixels
    side: float  # the label box's longer side


def dice_of_row(row: dict) -> tuple[Die, ...]:
    """The labelled dice of a manifest row, less those marked ignore."""
    dice = []
    for d in row.get("dice", []):
        if d.get("ignore"):
            continue
        x0, y0, x1, y1 = (float(v) for v in d["box"])
        dice.append(Die(int(d["value"]), complex((x0 + x1) / 2, (y0 + y1) / 2), max(x1 - x0, y1 - y0)))
    return tuple(dice)


def same_scene(a: Sequence[Die], b: Sequence[Die]) -> bool:
    """Whether two photos' labelled dice are one scene (module doc)."""
    if len(a) < MIN_DICE or len(a) != len(b):
        return False
    if collections.Counter(d.value for d in a) != collections.Counter(d.value for d in b):
        return False
    size_ratio = median(d.side for d in b) / max(median(d.side for d in a), 1e-6)
    reach = TOLERANCE * median(d.side for d in b)
    first, second = a[0], a[1]
    for p, q in itertools.permutations(b, 2):
        if p.value != first.value or q.value != second.value or first.centre == second.centre:
            continue
        for mirrored in (False, True):
            def place(z: complex, m: bool = mirrored) -> complex:
                return z.conjugate() if m else z
            turn = (q.centre - p.centre) / (place(second.centre) - place(first.centre))
            if not 1 / SCALE_SLACK < abs(turn) / size_ratio < SCALE_SLACK:
                continue
            if all(any(o.value == d.value and abs(p.centre + turn * (place(d.centre) - place(first.centre)) - o.centre) < reach
                       for o in b) for d in a):
                return True
    return False


def same_throw(a: tuple[str, Sequence[Die]], b: tuple[str, Sequence[Die]]) -> bool:
    """Whether two photos ((image, dice)) show one throw from two sides (module doc)."""
    (image_a, dice_a), (image_b, dice_b) = a, b
    shot_a, shot_b = camera_shot(image_a), camera_shot(image_b)
    if shot_a is None or shot_b is None or len(dice_a) < MIN_DICE or len(dice_a) != len(dice_b):
        return False
    (camera_a, time_a), (camera_b, time_b) = shot_time(shot_a), shot_time(shot_b)
    if camera_a != camera_b or abs(time_a - time_b) > THROW_SECONDS:
        return False
    values_a, values_b = (collections.Counter(d.value for d in dice) for dice in (dice_a, dice_b))
    return sum((values_a - values_b).values()) <= 1


@dataclass(frozen=True)
class SceneCopies:
    """Photos named "set/image": train photos of a test photo's scene, and those test photos."""

    train: frozenset[str]
    tests: frozenset[str]


def manifest_photos(root: Path) -> Iterable[tuple[str, str, tuple[Die, ...]]]:
    """(set/image, split, dice) of every photo of every set under `root`, labels read with
    their reviewed fixes (`label_fixes`), as the training scripts and benches read them."""
    for manifest in sorted(root.glob("*/manifest.jsonl")):
        for line in manifest.read_text().splitlines():
            if line.strip():
                row = fixed_row(manifest.parent.name, json.loads(line))
                yield f"{manifest.parent.name}/{row['image']}", str(row.get("split", "")), dice_of_row(row)


Photo = tuple[str, tuple[Die, ...]]  # ("set/image", its labelled dice)


def copies_among(photos: Iterable[Photo], others: Iterable[Photo]) -> dict[str, frozenset[str]]:
    """For each of `photos` that shows the scene or the throw of any of `others`, those others.
    Scenes are compared only with photos of the same dice values, throws only with photos of the
    same dice count, so this takes seconds; a photo of fewer than MIN_DICE dice matches none."""
    by_values: dict[tuple[int, ...], list[Photo]] = collections.defaultdict(list)
    by_count: dict[int, list[Photo]] = collections.defaultdict(list)
    for name, dice in others:
        if len(dice) >= MIN_DICE:
            by_values[tuple(sorted(d.value for d in dice))].append((name, dice))
            by_count[len(dice)].append((name, dice))
    found = {}
    for name, dice in photos:
        if len(dice) < MIN_DICE:
            continue
        matched = {other for other, theirs in by_values.get(tuple(sorted(d.value for d in dice)), ())
                   if same_scene(dice, theirs)}
        matched |= {other for other, theirs in by_count.get(len(dice), ()) if same_throw((name, dice), (other, theirs))}
        if matched:
            found[name] = frozenset(matched)
    return found


@functools.lru_cache(maxsize=4)
def scene_copies(root: Path) -> SceneCopies:
    """The train photos, in any set under `root`, that show a test photo's scene or throw, and
    those test photos."""
    photos = list(manifest_photos(root))
    copies = copies_among([(name, dice) for name, split, dice in photos if split == "test"],
                          [(name, dice) for name, split, dice in photos if split == "train"])
    return SceneCopies(frozenset().union(*copies.values()), frozenset(copies))
