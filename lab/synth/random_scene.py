"""Random scenes: `random_scene(rng, ...)` draws everything from the generator it is given,
so a seed gives the same scene on every machine."""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

from .geometry import Camera
from .looks import choice, random_background, random_die_look, random_lighting, random_occluder, random_tray
from .placement import Placer, world_size
from .spec import BACKGROUND_KINDS, DIE_STYLES, BlurSpec, CameraSpec, DieSpec, Occluder, SceneSpec

def random_scene(
    rng: np.random.Generator,
    n_dice: int = 5,
    width: int = 640,
    height: int = 480,
    size_range: tuple[float, float] = (40, 90),
    touching: bool = True,
    max_tilt_deg: float = 30,
    *,
    min_tilt_deg: float = 0,
    max_view_deg: float = 35,
    cocked_prob: float = 0.0,
    tray_prob: float = 0.3,
    occluder_prob: float = 0.0,
    matched_set_prob: float = 0.5,
    styles: tuple[str, ...] = DIE_STYLES,
    backgrounds: tuple[str, ...] = BACKGROUND_KINDS,
    touch_prob: float = 0.4,
    noise_range: tuple[float, float] = (1.0, 6.0),
    jpeg_range: tuple[int, int] | None = (55, 95),
    blur_prob: float = 0.5,
    **overrides: Any,
) -> SceneSpec:
    """A random scene of `n_dice` dice whose top faces measure `size_range` px in the image.

    The camera leans `min_tilt_deg` to `max_tilt_deg` off vertical, and dice are only placed where the
    camera sees them at most `max_view_deg` off vertical (at the far edge of a tilted wide
    view the side faces would otherwise show more than the top).
    `touching` allows dice to touch (`touch_prob` of them are placed against another die,
    0 to 2 px away); without it dice keep a tenth of their size apart. `cocked_prob` is the
    chance that a die leans against a neighbour (labelled cocked). `overrides` replace
    SceneSpec fields of the result (e.g. `noise_sigma=0, jpeg_quality=None`).
    """
    unknown = set(overrides) - {f.name for f in dataclasses.fields(SceneSpec)}
    if unknown:
        raise TypeError(f"random_scene() got unknown options: {', '.join(sorted(unknown))}")
    lo_size, hi_size = size_range
    if not 0 < lo_size <= hi_size:
        raise ValueError(f"size_range must be 0 < min <= max, got {size_range}")
    if not 0 <= min_tilt_deg <= max_tilt_deg:
        raise ValueError(f"the camera's tilt must be 0 <= min <= max degrees, got {min_tilt_deg} to {max_tilt_deg}")
    if n_dice * lo_size ** 2 > 0.6 * width * height:
        raise ValueError(f"could not place {n_dice} dice of {size_range} px in a {width}x{height} image: "
                         "they would cover most of it")
    options = _Options(n_dice, width, height, (lo_size, hi_size), touching, min_tilt_deg, max_tilt_deg, max_view_deg,
                       cocked_prob, tray_prob, occluder_prob, matched_set_prob, tuple(styles), tuple(backgrounds),
                       touch_prob, noise_range, jpeg_range, blur_prob)
    for attempt in range(40):
        # crowded scenes that failed try again with smaller dice (never below the smallest size)
        scene = _attempt(rng, options, shrink=0.95 ** attempt)
        if scene is not None:
            return dataclasses.replace(scene, **overrides)
    raise ValueError(f"could not place {n_dice} dice of {size_range} px in a {width}x{height} image")


def first_that_fits(draw: Callable[[], SceneSpec | None], tries: int = 20) -> SceneSpec | None:
    """The first scene `draw` makes in `tries` calls; a call gives none by returning None (its
    drawn sizes were too big to try) or when `random_scene` could not place the dice. None when
    no call gave one."""
    for _ in range(tries):
        try:
            scene = draw()
        except ValueError:
            continue
        if scene is not None:
            return scene
    return None


@dataclass(frozen=True)
class _Options:
    n_dice: int
    width: int
    height: int
    size_range: tuple[float, float]
    touching: bool
    min_tilt_deg: float
    max_tilt_deg: float
    max_view_deg: float
    cocked_prob: float
    tray_prob: float
    occluder_prob: float
    matched_set_prob: float
    styles: tuple[str, ...]
    backgrounds: tuple[str, ...]
    touch_prob: float
    noise_range: tuple[float, float]
    jpeg_range: tuple[int, int] | None
    blur_prob: float


def _attempt(rng: np.random.Generator, o: _Options, shrink: float) -> SceneSpec | None:
    """One try at a scene; None when the dice did not fit."""
    width, height, styles, touching = o.width, o.height, o.styles, o.touching
    with_tray = rng.random() < o.tray_prob
    camera_spec = CameraSpec(
        tilt_deg=float(rng.uniform(o.min_tilt_deg, o.max_tilt_deg)),
        yaw_deg=float(rng.uniform(-12, 12) if with_tray else rng.uniform(0, 360)),
        fov_deg=float(rng.uniform(50, 66)),  # Pi camera modules: about 53 to 66 degrees across
    )
    camera = Camera.from_spec(camera_spec, width, height)
    tray = random_tray(rng, camera, width, height) if with_tray else None
    lo, hi = o.size_range
    hi = lo + (hi - lo) * shrink
    matched = rng.random() < o.matched_set_prob
    set_look = random_die_look(rng, styles)
    set_size = rng.uniform(lo, hi)
    placer = Placer(camera, width, height, tray, 0.0 if touching else 0.1 * lo, o.max_view_deg)
    walls = placer.visible_walls()
    # a cocked die leans on something: place the flat dice first
    cocked_flags = sorted((rng.random() < o.cocked_prob for _ in range(o.n_dice)))
    dice: list[DieSpec] = []
    for cocked in cocked_flags:
        look = dict(set_look, texture_seed=int(rng.integers(2**31))) if matched else random_die_look(rng, styles)
        image_size = float(np.clip(set_size * rng.uniform(0.97, 1.03), lo, hi) if matched else rng.uniform(lo, hi))
        placed = None
        for _ in range(60):
            touch = touching and rng.random() < o.touch_prob
            die, wall = _candidate(rng, placer, dice, walls, look, image_size, cocked, touch, touching)
            if die is None:
                continue
            if placer.fits(die, against_wall=wall):
                placed = die
                break
        if placed is None:
            return None
        placer.add(placed)
        dice.append(placed)
    order = rng.permutation(len(dice))  # the flat-first order should not show in the scene's dice order
    dice = [dice[i] for i in order]

    occluders: tuple[Occluder, ...] = ()
    if rng.random() < o.occluder_prob:
        occluders = (random_occluder(rng, width, height),)
    blur = BlurSpec()
    if rng.random() < o.blur_prob:
        # the camera's own softness and processing: defocus, shake, sharpening
        blur = BlurSpec(defocus_px=float(rng.uniform(0, 1.5)),
                        motion_px=float(rng.uniform(0, 3) if rng.random() < 0.3 else 0),
                        motion_deg=float(rng.uniform(0, 180)),
                        sharpen=float(rng.uniform(0.2, 1.0) if rng.random() < 0.6 else 0.0))
    jpeg = None
    if o.jpeg_range is not None and rng.random() < 0.85:
        jpeg = int(rng.integers(o.jpeg_range[0], o.jpeg_range[1] + 1))
    return SceneSpec(
        width=width, height=height,
        background=random_background(rng, o.backgrounds),
        lighting=random_lighting(rng, width, height, camera.focal),
        camera=camera_spec,
        dice=tuple(dice),
        occluders=occluders,
        tray=tray,
        blur=blur,
        noise_sigma=float(rng.uniform(*o.noise_range)),
        jpeg_quality=jpeg,
        seed=int(rng.integers(2**31)),
    )


def _candidate(rng: np.random.Generator, placer: Placer, dice: list[DieSpec], walls: list[int], look: dict[str, Any],
               image_size: float, cocked: bool, touch: bool, touching: bool) -> tuple[DieSpec | None, int | None]:
    """A die to try: against a wall (cocked), against another die (`touch`, or cocked when
    dice may touch), or anywhere. Returns the die (None to draw again) and the wall it
    leans on, if any."""
    camera, tray = placer.camera, placer.tray
    value = int(rng.integers(1, 7))
    angle = float(rng.uniform(0, 360))
    wall = None
    if cocked and walls and (not dice or rng.random() < 0.4):
        wall = choice(rng, tuple(walls))
        along = float(rng.uniform(0.1, 0.9))
        size = world_size(camera, placer.against_wall(
            DieSpec(value=value, center=(0, 0), size=image_size), wall, along).center, image_size)
        # the raised edge rests on the wall's inner face, below its top
        tilt = min(float(rng.uniform(8, 32)), math.degrees(math.asin(min(1.0, tray.wall_height / size))) * 0.9)
        if tilt < 6:
            return None, None
        side = int(rng.integers(4))
        toward = (-90.0, 0.0, 90.0, 180.0)[wall]  # image direction from the tray's middle to the wall
        die = DieSpec(value=value, center=(0, 0), size=size, angle=toward - 90 * side + float(rng.uniform(-8, 8)),
                      cocked_deg=tilt, cocked_side=side, **look)
        die = placer.against_wall(die, wall, along)
    elif dice and ((cocked and touching) or touch):
        other = dice[int(rng.integers(len(dice)))]
        direction = float(rng.uniform(0, 2 * math.pi))
        size = world_size(camera, other.center, image_size)
        extra: dict[str, Any] = {}
        if cocked:
            side = int(rng.integers(4))
            # raise the side that faces the neighbour so the die leans on it
            toward = math.degrees(direction + math.pi)
            angle = toward - 90 * side + float(rng.uniform(-8, 8))
            tilt = min(float(rng.uniform(8, 32)), math.degrees(math.asin(min(1.0, other.size / size))) * 0.9)
            extra = {"cocked_deg": tilt, "cocked_side": side}
        die = DieSpec(value=value, center=other.center, size=size, angle=angle, **look, **extra)
        gap = 0.0 if cocked else float(rng.uniform(0, 2.0))
        die = placer.next_to(die, other, direction, gap)
    else:
        # a lone cocked die (nothing to lean on) rests on something small under it
        xy = placer.random_point(rng)
        extra = {"cocked_deg": float(rng.uniform(8, 20)), "cocked_side": int(rng.integers(4))} if cocked else {}
        die = DieSpec(value=value, center=xy, size=world_size(camera, xy, image_size), angle=angle,
                      **look, **extra)
    return die, wall
