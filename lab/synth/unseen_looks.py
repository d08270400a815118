"""Dice looks the training scenes never draw: a judge of how the reader meets dice it never saw.

Every die the training scripts render is drawn by `looks.random_die_look`: a body and pip colour
from its palette, and moulding from its ranges (pip size and spread, corner rounding, the one's
pip). A bar's own dice need not be among them. `unseen_die_look` draws a die outside them on
purpose: a body and pip colour pair no training die has (`looks.UNSEEN_COLOURS`) and at least one
moulding outside the training's ranges (UNSEEN_MOULDINGS); opaque, see-through and marbled as
often as game scenes draw them, the rest drawn as the training draws it. `with_unseen_looks` gives a scene's dice such looks and changes nothing else (camera,
light, floor, where the dice lie and which face is up), so a set of these scenes differs from the
game scenes of the same seed in the dice alone.

They are still the renderer's dice: the judge says how the reader meets new looks, not new
cameras (`lab.reader_eval.worse_cameras` asks that of real photos).
"""

from __future__ import annotations

import dataclasses
from typing import Any, Callable

import numpy as np

from .looks import (LOOK_WEIGHTS, MARBLED_PIPS, READABLE_PIPS_L, UNSEEN_COLOURS, choice, jittered,
                    pip_lightness_contrast, random_die_look)
from .spec import BGR, DIE_STYLES, SceneSpec

# Each a way a die is moulded that `random_die_look` never draws: DieSpec fields and the ranges
# they are drawn from (pips far apart enough that a six's pips never touch)
UNSEEN_MOULDINGS: dict[str, dict[str, tuple[float, float]]] = {
    "small pips": {"pip_radius": (0.055, 0.072), "pip_spread": (0.22, 0.29)},
    "big pips": {"pip_radius": (0.118, 0.13), "pip_spread": (0.295, 0.31)},
    "round corners": {"corner_radius": (0.25, 0.32)},
    "big one": {"one_pip_scale": (1.75, 2.1)},
}

LOOKS_STREAM = 7  # the scene's looks draw from their own generator: the scene itself is the seed's
MATCHED_SET_PROB = 0.5  # as in game scenes: half the scenes are one set of dice


def unseen_die_look(rng: np.random.Generator) -> dict[str, Any]:
    """DieSpec keyword arguments of a die whose colours and moulding the training never draws
    (see the module docstring), opaque, see-through or marbled as often as a game scene's."""
    style = choice(rng, DIE_STYLES, [LOOK_WEIGHTS[s] for s in DIE_STYLES])
    look = random_die_look(rng, (style,))  # the style's own draws: a see-through die's opacity
    body, pips = choice(rng, UNSEEN_COLOURS)
    look["body_bgr"] = jittered(rng, body, 10)
    look["pip_bgr"] = jittered(rng, pips, 6)
    if style == "marbled":
        swirl, other_pips = choice(rng, UNSEEN_COLOURS)
        look["body2_bgr"] = jittered(rng, swirl, 10)
        look["pip_bgr"] = readable_pips(look["body_bgr"], look["body2_bgr"], (look["pip_bgr"], other_pips))
    moulding = UNSEEN_MOULDINGS[choice(rng, tuple(UNSEEN_MOULDINGS))]
    for name, (lo, hi) in moulding.items():
        look[name] = float(rng.uniform(lo, hi))
    return look


def readable_pips(body: BGR, body2: BGR, unseen: tuple[BGR, BGR]) -> BGR:
    """A marbled die's pips: the first of its two colour pairs' pips that reads on both swirl
    colours (as a maker picks them, `looks.readable_pips`), else the one of those and the usual
    marbled pips that stands out most."""
    for pips in unseen:
        if pip_lightness_contrast(pips, (body, body2)) >= READABLE_PIPS_L:
            return pips
    return max((*unseen, *MARBLED_PIPS), key=lambda pips: pip_lightness_contrast(pips, (body, body2)))


def with_unseen_looks(scene: SceneSpec, rng: np.random.Generator,
                      draw: Callable[[np.random.Generator], dict[str, Any]] = unseen_die_look) -> SceneSpec:
    """The scene with its dice given unseen looks: one look for all of them in MATCHED_SET_PROB of
    the scenes (each die its own texture seed), otherwise one each."""
    matched = rng.random() < MATCHED_SET_PROB
    set_look = draw(rng)
    dice = []
    for die in scene.dice:
        look = dict(set_look, texture_seed=int(rng.integers(2**31))) if matched else draw(rng)
        dice.append(dataclasses.replace(die, **look))
    return dataclasses.replace(scene, dice=tuple(dice))


def looks_rng(seed: int, index: int) -> np.random.Generator:
    """The generator of scene `index`'s unseen looks in a set of seed `seed`."""
    return np.random.default_rng([seed, index, LOOKS_STREAM])
