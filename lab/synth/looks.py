"""Random looks for synthetic scenes: dice sets, tray surfaces, lamps, trays, hands and cups,
with colours like the ones a bar device meets."""

from __future__ import annotations

import math
from typing import Any, Iterable

import cv2
import numpy as np

from .geometry import Camera
from .spec import (BACKGROUND_KINDS, DIE_STYLES, BackgroundSpec, Lamp, LightingSpec, Occluder, TraySpec)

_OPAQUE_LOOKS = (
    # (body, pip choices, weight)
    ((238, 240, 242), ((25, 25, 28), (30, 30, 160)), 4),  # white
    ((205, 230, 240), ((30, 30, 35),), 1),  # ivory
    ((35, 35, 38), ((235, 235, 235), (60, 200, 230), (40, 40, 190)), 3),  # black
    ((45, 40, 190), ((240, 240, 240), (20, 20, 20)), 3),  # red
    ((70, 150, 40), ((240, 240, 240), (40, 220, 240)), 2),  # green
    ((170, 90, 30), ((240, 240, 240),), 2),  # blue
    ((40, 210, 235), ((25, 25, 25), (40, 40, 180)), 2),  # yellow
    ((130, 50, 95), ((240, 240, 240),), 1),  # purple
    ((30, 120, 235), ((30, 30, 30), (240, 240, 240)), 1),  # orange
    ((160, 160, 40), ((240, 240, 240),), 1),  # teal
)
_TRANSLUCENT_BODIES = ((50, 40, 210), (70, 190, 60), (200, 110, 40), (40, 200, 235), (190, 190, 195), (130, 50, 120))
# smoky dice: dark see-through bodies whose pips, often red, show through from the faces below
_SMOKY_BODIES = ((45, 42, 40), (75, 40, 30), (40, 35, 70), (70, 70, 70), (80, 40, 75), (60, 70, 40))
_SMOKY_PIPS = ((45, 40, 205), (235, 235, 235), (40, 210, 235), (70, 190, 70))
# how often each look is drawn; "smoky" is a translucent die too, "camouflaged" a marbled one
# whose pips vanish on one of its swirl colours, and "any colour" an opaque, see-through or marbled
# die of colours off the palette, so none is one of DIE_STYLES and random scenes only draw them
# when asked to
LOOK_WEIGHTS = {"opaque": 6, "translucent": 2, "marbled": 2, "smoky": 1, "camouflaged": 1, "any colour": 2}
LOOK_STYLES = tuple(LOOK_WEIGHTS)
_FLOORS = {
    "felt": ((50, 110, 30), (40, 40, 150), (120, 60, 25), (35, 35, 35), (110, 110, 110)),
    "wood": ((40, 80, 130), (60, 105, 160), (30, 55, 90), (90, 140, 190)),
    "plastic": ((225, 225, 225), (170, 170, 170), (40, 40, 40), (150, 110, 60), (180, 200, 210)),
    "leather": ((30, 60, 105), (25, 25, 30), (40, 40, 110), (50, 95, 150)),
    "card": ((195, 195, 190), (170, 185, 195), (150, 150, 150)),
}


# (body, pips) colour pairs no die drawn here may have: the judge of dice the networks never saw
# (`unseen_looks`) gives its dice these, so a network that learnt them would be judged on its lessons.
# Each lies 14 Lab units or more (body and pips together) from every die of 20000 drawn here
# (a camouflaged die's pips are its second swirl's palette colour, so a palette body as pips on
# another palette body is no unseen pair)
UNSEEN_COLOURS: tuple[tuple[tuple[float, float, float], tuple[float, float, float]], ...] = (
    ((185.0, 140.0, 245.0), (40.0, 40.0, 40.0)),  # pink, black pips
    ((185.0, 140.0, 245.0), (245.0, 245.0, 245.0)),  # pink, white pips
    ((150.0, 150.0, 150.0), (40.0, 40.0, 190.0)),  # grey, red pips
    ((200.0, 195.0, 190.0), (95.0, 40.0, 25.0)),  # silver, navy pips
    ((238.0, 240.0, 242.0), (150.0, 80.0, 230.0)),  # white, pink pips
    ((238.0, 240.0, 242.0), (40.0, 70.0, 120.0)),  # white, brown pips
    ((205.0, 230.0, 240.0), (50.0, 30.0, 120.0)),  # cream, maroon pips
    ((230.0, 185.0, 205.0), (120.0, 40.0, 90.0)),  # lavender, purple pips
    ((60.0, 100.0, 150.0), (20.0, 20.0, 20.0)),  # wood brown, black pips
)
# how far (Lab units, body and pips together) an "any colour" die keeps from each of them: the
# judge's dice are jittered by 10 (body) and 6 (pips) units of BGR, a few Lab units
UNSEEN_MARGIN = 20.0


def choice(rng: np.random.Generator, items: tuple, weights: Iterable[float] | None = None) -> Any:
    if weights is None:
        return items[int(rng.integers(len(items)))]
    w = np.array(list(weights), float)
    return items[int(rng.choice(len(items), p=w / w.sum()))]


def jittered(rng: np.random.Generator, bgr: tuple, amount: float = 18) -> tuple[float, float, float]:
    return tuple(float(np.clip(c + rng.normal(0, amount), 0, 255)) for c in bgr)


def random_die_look(rng: np.random.Generator, styles: tuple[str, ...] = DIE_STYLES) -> dict[str, Any]:
    """Colours and moulding of a random die, as DieSpec keyword arguments; `styles` are some of
    LOOK_STYLES."""
    style = choice(rng, tuple(styles), [LOOK_WEIGHTS[s] for s in styles])
    look: dict[str, Any] = {
        "style": style,
        "pip_radius": float(rng.uniform(0.08, 0.11)),
        "pip_spread": float(rng.uniform(0.245, 0.295)),
        "one_pip_scale": float(rng.uniform(1.0, 1.6)),
        "pip_depth": float(rng.uniform(0.0, 0.8)),
        "corner_radius": float(rng.uniform(0.08, 0.22)),
        "gloss": float(rng.uniform(0.15, 0.9)),
        "texture_seed": int(rng.integers(2**31)),
    }
    if style == "translucent":
        look["body_bgr"] = jittered(rng, choice(rng, _TRANSLUCENT_BODIES))
        look["pip_bgr"] = jittered(rng, (240, 240, 240), 8)
        look["opacity"] = float(rng.uniform(0.5, 0.8))
    elif style == "smoky":
        look["style"] = "translucent"
        look["body_bgr"] = jittered(rng, choice(rng, _SMOKY_BODIES), 10)
        look["pip_bgr"] = jittered(rng, choice(rng, _SMOKY_PIPS), 12)
        look["opacity"] = float(rng.uniform(0.4, 0.75))
    elif style == "marbled":
        a = choice(rng, _OPAQUE_LOOKS, [w for *_, w in _OPAQUE_LOOKS])
        b = choice(rng, _OPAQUE_LOOKS, [w for *_, w in _OPAQUE_LOOKS])
        look["body_bgr"] = jittered(rng, a[0])
        look["body2_bgr"] = jittered(rng, b[0])
        look["pip_bgr"] = readable_pips(look["body_bgr"], look["body2_bgr"])
    elif style == "any colour":
        look.update(any_colour_look(rng))
    elif style == "camouflaged":
        look["style"] = "marbled"
        look["body_bgr"], look["body2_bgr"] = camouflage_colours(rng)
        look["pip_bgr"] = jittered(rng, look["body2_bgr"], 8)
        look["pip_depth"] = float(rng.uniform(0.0, 0.4))  # shallow: no shading to give the hidden pips away
    else:
        body, pips, _ = choice(rng, _OPAQUE_LOOKS, [w for *_, w in _OPAQUE_LOOKS])
        look["body_bgr"] = jittered(rng, body, 12)
        look["pip_bgr"] = jittered(rng, choice(rng, pips), 8)
    return look


def any_colour_look(rng: np.random.Generator) -> dict[str, Any]:
    """Style and colours of a die off the palette: opaque, see-through or marbled as often as
    random scenes draw them, its body (and a marbled die's second swirl) anywhere in the colour
    cube, its pips of any colour that is READABLE_PIPS_L lighter or darker than the body (and
    both swirls), and no body and pips within UNSEEN_MARGIN of a pair the judge keeps for itself."""
    style = choice(rng, DIE_STYLES, [LOOK_WEIGHTS[s] for s in DIE_STYLES])
    look: dict[str, Any] = {"style": style}
    if style == "translucent":
        look["opacity"] = float(rng.uniform(0.5, 0.8))
    while True:
        bodies = [tuple(float(c) for c in rng.uniform(0, 255, 3)) for _ in range(2 if style == "marbled" else 1)]
        pips = tuple(float(c) for c in rng.uniform(0, 255, 3))
        if pip_lightness_contrast(pips, tuple(bodies)) >= READABLE_PIPS_L and \
                all(colour_distance(body, pips, *unseen) >= UNSEEN_MARGIN for body in bodies for unseen in UNSEEN_COLOURS):
            break
    look["body_bgr"], look["pip_bgr"] = bodies[0], pips
    if style == "marbled":
        look["body2_bgr"] = bodies[1]
    return look


def colour_distance(body: tuple, pips: tuple, other_body: tuple, other_pips: tuple) -> float:
    """How far apart two dice's colours are: the Lab distance of their bodies and pips together."""
    lab = cv2.cvtColor(np.array([[body, pips, other_body, other_pips]], np.float32) / 255.0, cv2.COLOR_BGR2Lab)[0]
    return float(np.linalg.norm(np.concatenate([lab[0], lab[1]]) - np.concatenate([lab[2], lab[3]])))


# Pip colours of marbled dice. Their makers pick one that reads on both swirl colours: black
# pips on a white and black marble would vanish on the black, for any reader.
MARBLED_PIPS = ((240.0, 240.0, 240.0), (25.0, 25.0, 25.0), (40.0, 40.0, 190.0), (40.0, 200.0, 235.0))
# How much lighter or darker (Lab L) than both swirl colours the usual white or black pips must
# be. Lightness, because JPEG keeps little of the colour of something as small as a pip.
READABLE_PIPS_L = 25.0


def pip_lightness_contrast(pip: tuple, bodies: tuple) -> float:
    """How much lighter or darker (Lab L) the pip colour is than the nearer of the bodies' colours."""
    lab = cv2.cvtColor(np.array([[pip, *bodies]], np.float32) / 255.0, cv2.COLOR_BGR2Lab)[0]
    return float(np.abs(lab[1:, 0] - lab[0, 0]).min())


def readable_pips(body: tuple, body2: tuple) -> tuple[float, float, float]:
    """The pip colour of a marbled die of these two colours: white on a dark marble, black on
    a light one, unless that is hardly lighter or darker than one swirl colour; then the one
    of white, black, red and gold that stands out most from the nearer swirl colour. A
    function of the colours alone, so seeded scenes draw the same random numbers as before."""
    usual = MARBLED_PIPS[0 if (sum(body) + sum(body2)) / 6 < 130 else 1]
    if pip_lightness_contrast(usual, (body, body2)) >= READABLE_PIPS_L:
        return usual
    return max(MARBLED_PIPS, key=lambda pip: pip_lightness_contrast(pip, (body, body2)))


def camouflage_colours(rng: np.random.Generator) -> tuple[tuple, tuple]:
    """Two swirl colours of a marbled die whose pips are the second's colour, so a pip shows on
    the first and vanishes on the second (real marbled dice whose makers picked a pip colour
    close to one swirl): colours of opaque dice that differ by READABLE_PIPS_L in lightness."""
    weights = [w for *_, w in _OPAQUE_LOOKS]
    while True:
        a = jittered(rng, choice(rng, _OPAQUE_LOOKS, weights)[0])
        b = jittered(rng, choice(rng, _OPAQUE_LOOKS, weights)[0])
        if pip_lightness_contrast(a, (b,)) >= READABLE_PIPS_L:
            return a, b


def random_background(rng: np.random.Generator, kinds: tuple[str, ...] = BACKGROUND_KINDS) -> BackgroundSpec:
    kind = choice(rng, tuple(kinds))
    bgr = jittered(rng, choice(rng, _FLOORS[kind]), 10)
    gloss = {"plastic": rng.uniform(0.2, 0.8), "wood": rng.uniform(0, 0.4), "leather": rng.uniform(0, 0.3)}.get(kind, 0.0)
    return BackgroundSpec(kind=kind, bgr=bgr, texture=float(rng.uniform(0.5, 1.3)), gloss=float(gloss),
                          seed=int(rng.integers(2**31)))


def random_lighting(rng: np.random.Generator, width: int, height: int, focal: float) -> LightingSpec:
    lamps = tuple(
        Lamp(x=float(width / 2 + rng.uniform(-0.9, 0.9) * width), y=float(height / 2 + rng.uniform(-0.9, 0.9) * height),
             height=float(rng.uniform(1.5, 4.0) * focal), radius=float(np.exp(rng.uniform(np.log(4), np.log(150)))),
             intensity=float(1.0 if k == 0 else rng.uniform(0.3, 1.0)))
        for k in range(int(rng.integers(1, 4)))
    )
    warm = rng.uniform(0, 0.2)
    return LightingSpec(
        lamps=lamps,
        ambient=float(rng.uniform(0.3, 0.7)),
        shadow_strength=float(rng.uniform(0.2, 0.7)),
        gradient=float(rng.uniform(0, 0.35)),
        gradient_deg=float(rng.uniform(0, 360)),
        vignette=float(rng.uniform(0, 0.35)),
        exposure=float(rng.uniform(0.85, 1.12)),
        tint_bgr=(float(1 - warm), float(1 - warm * 0.4), 1.0),
    )


def random_tray(rng: np.random.Generator, camera: Camera, width: int, height: int) -> TraySpec:
    """A tray whose floor fills most of the picture, its rim near the image border."""
    to_plane = camera.image_to_plane(0.0)
    margin = rng.uniform(-10, 50)
    corners = np.array([[margin, margin], [width - 1 - margin, margin], [width - 1 - margin, height - 1 - margin],
                        [margin, height - 1 - margin]])
    h = np.column_stack([corners, np.ones(4)]) @ to_plane.T
    plane = h[:, :2] / h[:, 2:3]
    inner = (float(np.sort(plane[:, 0])[1]), float(np.sort(plane[:, 1])[1]),
             float(np.sort(plane[:, 0])[2]), float(np.sort(plane[:, 1])[2]))
    wall = jittered(rng, choice(rng, ((40, 40, 45), (60, 90, 130), (30, 50, 90), (200, 200, 200), (35, 30, 80))), 10)
    counter = random_background(rng, ("wood", "plastic", "card"))
    return TraySpec(inner=inner, wall_height=float(rng.uniform(10, 35)), wall_thickness=float(rng.uniform(6, 20)),
                    wall_bgr=wall, counter=counter)


def random_occluder(rng: np.random.Generator, width: int, height: int) -> Occluder:
    """A hand reaching in from an edge, a forearm, or the upturned cup."""
    kind = choice(rng, ("hand", "hand", "arm", "cup"))
    skin = choice(rng, ((140, 170, 225), (95, 130, 185), (60, 85, 130), (165, 190, 230)))
    if kind == "cup":
        return Occluder(kind="cup", center=(float(rng.uniform(0.2, 0.8) * width), float(rng.uniform(0.2, 0.8) * height)),
                        size=float(rng.uniform(0.3, 0.45) * min(width, height)),
                        bgr=jittered(rng, choice(rng, ((30, 45, 80), (20, 20, 25), (40, 70, 120), (25, 30, 60)))),
                        height=30.0, texture_seed=int(rng.integers(2**31)))
    edge_angle = float(rng.uniform(0, 360))
    a = math.radians(edge_angle)
    # start outside the picture in direction -angle and reach into it
    cx = width / 2 - math.cos(a) * width * rng.uniform(0.1, 0.45)
    cy = height / 2 - math.sin(a) * height * rng.uniform(0.1, 0.45)
    return Occluder(kind=kind, center=(float(cx), float(cy)), size=float(rng.uniform(0.35, 0.6) * min(width, height)),
                    angle=edge_angle, bgr=jittered(rng, skin, 10), height=float(rng.uniform(40, 150)),
                    texture_seed=int(rng.integers(2**31)))
