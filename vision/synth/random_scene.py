"""Random scenes: dice sets, trays, lights and cameras like the ones a bar device meets.

`random_scene(rng, ...)` draws everything from the generator it is given, so a seed gives
the same scene on every machine. Dice never overlap: their footprints on the tray (the
outline of the solid seen from above) may touch but not intersect, which is enough for two
solids standing on the tray not to intersect either.
"""

from __future__ import annotations

import dataclasses
import math
from typing import Any, Iterable

import cv2
import numpy as np

from .geometry import Camera, DiePose, die_pose
from .spec import (BACKGROUND_KINDS, DIE_STYLES, BackgroundSpec, BlurSpec, CameraSpec, DieSpec, Lamp,
                   LightingSpec, Occluder, SceneSpec, TraySpec)

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
_FLOORS = {
    "felt": ((50, 110, 30), (40, 40, 150), (120, 60, 25), (35, 35, 35), (110, 110, 110)),
    "wood": ((40, 80, 130), (60, 105, 160), (30, 55, 90), (90, 140, 190)),
    "plastic": ((225, 225, 225), (170, 170, 170), (40, 40, 40), (150, 110, 60), (180, 200, 210)),
    "leather": ((30, 60, 105), (25, 25, 30), (40, 40, 110), (50, 95, 150)),
    "card": ((195, 195, 190), (170, 185, 195), (150, 150, 150)),
}


def _choice(rng: np.random.Generator, items: tuple, weights: Iterable[float] | None = None) -> Any:
    if weights is None:
        return items[int(rng.integers(len(items)))]
    w = np.array(list(weights), float)
    return items[int(rng.choice(len(items), p=w / w.sum()))]


def _jitter(rng: np.random.Generator, bgr: tuple, amount: float = 18) -> tuple[float, float, float]:
    return tuple(float(np.clip(c + rng.normal(0, amount), 0, 255)) for c in bgr)


def random_die_look(rng: np.random.Generator, styles: tuple[str, ...] = DIE_STYLES) -> dict[str, Any]:
    """Colours and moulding of a random die, as DieSpec keyword arguments."""
    style = _choice(rng, tuple(styles), [{"opaque": 6, "translucent": 2, "marbled": 2}[s] for s in styles])
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
        look["body_bgr"] = _jitter(rng, _choice(rng, _TRANSLUCENT_BODIES))
        look["pip_bgr"] = _jitter(rng, (240, 240, 240), 8)
        look["opacity"] = float(rng.uniform(0.5, 0.8))
    elif style == "marbled":
        a = _choice(rng, _OPAQUE_LOOKS, [w for *_, w in _OPAQUE_LOOKS])
        b = _choice(rng, _OPAQUE_LOOKS, [w for *_, w in _OPAQUE_LOOKS])
        look["body_bgr"] = _jitter(rng, a[0])
        look["body2_bgr"] = _jitter(rng, b[0])
        mean = (sum(a[0]) + sum(b[0])) / 6
        look["pip_bgr"] = (240.0, 240.0, 240.0) if mean < 130 else (25.0, 25.0, 25.0)
    else:
        body, pips, _ = _choice(rng, _OPAQUE_LOOKS, [w for *_, w in _OPAQUE_LOOKS])
        look["body_bgr"] = _jitter(rng, body, 12)
        look["pip_bgr"] = _jitter(rng, _choice(rng, pips), 8)
    return look


def random_background(rng: np.random.Generator, kinds: tuple[str, ...] = BACKGROUND_KINDS) -> BackgroundSpec:
    kind = _choice(rng, tuple(kinds))
    bgr = _jitter(rng, _choice(rng, _FLOORS[kind]), 10)
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


def _overlap(a: np.ndarray, b: np.ndarray) -> bool:
    area, _ = cv2.intersectConvexConvex(a.astype(np.float32), b.astype(np.float32))
    return area > 1e-3  # a corner poking 0.03 px into a neighbour


def _world_size(camera: Camera, xy: tuple[float, float], image_size: float) -> float:
    """Edge length that makes a die at xy show a top face of about image_size px."""
    s = image_size
    for _ in range(3):
        depth = float(camera.depth(np.array([[xy[0], xy[1], -s]]))[0])
        s = image_size * depth / camera.focal
    return s


class _Placer:
    """Places dice one by one without overlaps, inside the image and the tray."""

    def __init__(self, camera: Camera, width: int, height: int, tray: TraySpec | None, min_gap: float):
        self.camera, self.width, self.height, self.tray = camera, width, height, tray
        self.min_gap = min_gap
        self.placed: list[tuple[DieSpec, np.ndarray]] = []
        self.floor_to_plane = camera.image_to_plane(0.0)

    def fits(self, die: DieSpec, against_wall: int | None = None) -> bool:
        pose = die_pose(die)
        img = self.camera.project(pose.corners())
        m = 3.0
        if img.min() < m or img[:, 0].max() > self.width - 1 - m or img[:, 1].max() > self.height - 1 - m:
            return False
        foot = pose.footprint()
        if self.tray is not None:
            # keep off the walls (a near wall would hide the die), except the one leant on
            keep = [self.tray.wall_height * 1.8 + 2] * 4
            if against_wall is not None:
                keep[against_wall] = -0.01
            x0, y0, x1, y1 = self.tray.inner
            if foot[:, 1].min() < y0 + keep[0] or foot[:, 0].max() > x1 - keep[1]:
                return False
            if foot[:, 1].max() > y1 - keep[2] or foot[:, 0].min() < x0 + keep[3]:
                return False
        grown = self._grow(foot, self.min_gap)
        return not any(_overlap(grown, other) for _, other in self.placed)

    @staticmethod
    def _grow(foot: np.ndarray, gap: float) -> np.ndarray:
        if gap <= 0:
            return foot
        c = foot.mean(axis=0)
        d = foot - c
        n = np.linalg.norm(d, axis=1, keepdims=True)
        return c + d * (n + gap) / n

    def add(self, die: DieSpec) -> None:
        self.placed.append((die, die_pose(die).footprint()))

    def random_point(self, rng: np.random.Generator) -> tuple[float, float]:
        p = np.array([[rng.uniform(0, self.width - 1), rng.uniform(0, self.height - 1)]])
        x, y = (self.floor_to_plane @ np.array([p[0, 0], p[0, 1], 1.0]))[:2] / (
            self.floor_to_plane @ np.array([p[0, 0], p[0, 1], 1.0]))[2]
        return float(x), float(y)

    def visible_walls(self) -> list[int]:
        """Walls (0 top, 1 right, 2 bottom, 3 left of the tray plane) whose inner face the
        camera sees: a die leaning on one of them is not hidden behind it."""
        if self.tray is None:
            return []
        x0, y0, x1, y1 = self.tray.inner
        h = self.tray.wall_height / 2
        walls = [((x0 + x1) / 2, y0, (0, 1)), (x1, (y0 + y1) / 2, (-1, 0)), ((x0 + x1) / 2, y1, (0, -1)),
                 (x0, (y0 + y1) / 2, (1, 0))]
        return [k for k, (x, y, n) in enumerate(walls)
                if self.camera.faces_camera(np.array([x, y, -h]), np.array([n[0], n[1], 0.0]))]

    def against_wall(self, die: DieSpec, wall: int, along: float) -> DieSpec:
        """Move `die` so its footprint touches the inner face of `wall`, `along` (0..1) the way along it."""
        x0, y0, x1, y1 = self.tray.inner
        foot = die_pose(die).footprint() - np.array(die.center)
        if wall in (0, 2):
            x = x0 + (x1 - x0) * along
            y = y0 - foot[:, 1].min() if wall == 0 else y1 - foot[:, 1].max()
        else:
            y = y0 + (y1 - y0) * along
            x = x1 - foot[:, 0].max() if wall == 1 else x0 - foot[:, 0].min()
        return dataclasses.replace(die, center=(float(x), float(y)))

    def next_to(self, die: DieSpec, other: DieSpec, direction: float, gap: float) -> DieSpec:
        """Slide `die` out from `other`'s centre along `direction` until it just clears it."""
        ux, uy = math.cos(direction), math.sin(direction)
        other_foot = die_pose(other).footprint()
        lo, hi = 0.0, (die.size + other.size) * 1.2

        def at(t: float) -> DieSpec:
            return dataclasses.replace(die, center=(other.center[0] + ux * t, other.center[1] + uy * t))

        for _ in range(18):
            mid = (lo + hi) / 2
            if _overlap(die_pose(at(mid)).footprint(), other_foot):
                lo = mid
            else:
                hi = mid
        return at(hi + gap)


def random_scene(
    rng: np.random.Generator,
    n_dice: int = 5,
    width: int = 640,
    height: int = 480,
    size_range: tuple[float, float] = (40, 90),
    touching: bool = True,
    max_tilt_deg: float = 30,
    *,
    cocked_prob: float = 0.0,
    tray_prob: float = 0.3,
    occluder_prob: float = 0.0,
    matched_set_prob: float = 0.5,
    styles: tuple[str, ...] = DIE_STYLES,
    backgrounds: tuple[str, ...] = BACKGROUND_KINDS,
    touch_prob: float = 0.4,
    noise_range: tuple[float, float] = (1.0, 6.0),
    jpeg_range: tuple[int, int] | None = (55, 95),
    blur_prob: float = 0.3,
    **overrides: Any,
) -> SceneSpec:
    """A random scene of `n_dice` dice whose top faces measure `size_range` px in the image.

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
    if n_dice * lo_size ** 2 > 0.6 * width * height:
        raise ValueError(f"could not place {n_dice} dice of {size_range} px in a {width}x{height} image: "
                         "they would cover most of it")
    for attempt in range(40):
        scene = _attempt(rng, n_dice, width, height, (lo_size, hi_size), touching, max_tilt_deg, cocked_prob,
                         tray_prob, occluder_prob, matched_set_prob, tuple(styles), tuple(backgrounds), touch_prob,
                         noise_range, jpeg_range, blur_prob, shrink=0.95 ** attempt)
        if scene is not None:
            return dataclasses.replace(scene, **overrides)
    raise ValueError(f"could not place {n_dice} dice of {size_range} px in a {width}x{height} image")


def _attempt(rng, n_dice, width, height, size_range, touching, max_tilt_deg, cocked_prob, tray_prob, occluder_prob,
             matched_set_prob, styles, backgrounds, touch_prob, noise_range, jpeg_range, blur_prob,
             shrink) -> SceneSpec | None:
    with_tray = rng.random() < tray_prob
    camera_spec = CameraSpec(
        tilt_deg=float(rng.uniform(0, max_tilt_deg)),
        yaw_deg=float(rng.uniform(-12, 12) if with_tray else rng.uniform(0, 360)),
        fov_deg=float(rng.uniform(50, 72)),
    )
    camera = Camera.from_spec(camera_spec, width, height)
    tray = _random_tray(rng, camera, width, height) if with_tray else None
    lo, hi = size_range
    hi = lo + (hi - lo) * shrink  # crowded scenes that failed try again with smaller dice, never below lo
    matched = rng.random() < matched_set_prob
    set_look = random_die_look(rng, styles)
    set_size = rng.uniform(lo, hi)
    placer = _Placer(camera, width, height, tray, 0.0 if touching else 0.1 * lo)
    walls = placer.visible_walls()
    # a cocked die leans on something: place the flat dice first
    cocked_flags = sorted((rng.random() < cocked_prob for _ in range(n_dice)))
    dice: list[DieSpec] = []
    for cocked in cocked_flags:
        look = dict(set_look, texture_seed=int(rng.integers(2**31))) if matched else random_die_look(rng, styles)
        image_size = float(np.clip(set_size * rng.uniform(0.97, 1.03), lo, hi) if matched else rng.uniform(lo, hi))
        placed = None
        for _ in range(60):
            value = int(rng.integers(1, 7))
            angle = float(rng.uniform(0, 360))
            wall = None
            if cocked and walls and (not dice or rng.random() < 0.4):
                wall = _choice(rng, tuple(walls))
                along = float(rng.uniform(0.1, 0.9))
                size = _world_size(camera, placer.against_wall(
                    DieSpec(value=value, center=(0, 0), size=image_size), wall, along).center, image_size)
                # the raised edge rests on the wall's inner face, below its top
                tilt = min(float(rng.uniform(8, 32)), math.degrees(math.asin(min(1.0, tray.wall_height / size))) * 0.9)
                if tilt < 6:
                    continue
                side = int(rng.integers(4))
                toward = (-90.0, 0.0, 90.0, 180.0)[wall]  # image direction from the tray's middle to the wall
                die = DieSpec(value=value, center=(0, 0), size=size, angle=toward - 90 * side + float(rng.uniform(-8, 8)),
                              cocked_deg=tilt, cocked_side=side, **look)
                die = placer.against_wall(die, wall, along)
            elif dice and (cocked or (touching and rng.random() < touch_prob)):
                other = dice[int(rng.integers(len(dice)))]
                direction = float(rng.uniform(0, 2 * math.pi))
                size = _world_size(camera, other.center, image_size)
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
                die = DieSpec(value=value, center=xy, size=_world_size(camera, xy, image_size), angle=angle,
                              **look, **extra)
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
    if rng.random() < occluder_prob:
        occluders = (random_occluder(rng, width, height),)
    blur = BlurSpec()
    if rng.random() < blur_prob:
        blur = BlurSpec(defocus_px=float(rng.uniform(0, 1.5)),
                        motion_px=float(rng.uniform(0, 3) if rng.random() < 0.3 else 0),
                        motion_deg=float(rng.uniform(0, 180)))
    jpeg = None
    if jpeg_range is not None and rng.random() < 0.85:
        jpeg = int(rng.integers(jpeg_range[0], jpeg_range[1] + 1))
    return SceneSpec(
        width=width, height=height,
        background=random_background(rng, backgrounds),
        lighting=random_lighting(rng, width, height, camera.focal),
        camera=camera_spec,
        dice=tuple(dice),
        occluders=occluders,
        tray=tray,
        blur=blur,
        noise_sigma=float(rng.uniform(*noise_range)),
        jpeg_quality=jpeg,
        seed=int(rng.integers(2**31)),
    )


def _random_tray(rng: np.random.Generator, camera: Camera, width: int, height: int) -> TraySpec:
    """A tray whose floor fills most of the picture, its rim near the image border."""
    to_plane = camera.image_to_plane(0.0)
    margin = rng.uniform(-10, 50)
    corners = np.array([[margin, margin], [width - 1 - margin, margin], [width - 1 - margin, height - 1 - margin],
                        [margin, height - 1 - margin]])
    h = np.column_stack([corners, np.ones(4)]) @ to_plane.T
    plane = h[:, :2] / h[:, 2:3]
    inner = (float(np.sort(plane[:, 0])[1]), float(np.sort(plane[:, 1])[1]),
             float(np.sort(plane[:, 0])[2]), float(np.sort(plane[:, 1])[2]))
    wall = _jitter(rng, _choice(rng, ((40, 40, 45), (60, 90, 130), (30, 50, 90), (200, 200, 200), (35, 30, 80))), 10)
    counter = random_background(rng, ("wood", "plastic", "card"))
    return TraySpec(inner=inner, wall_height=float(rng.uniform(10, 35)), wall_thickness=float(rng.uniform(6, 20)),
                    wall_bgr=wall, counter=counter)


def random_occluder(rng: np.random.Generator, width: int, height: int) -> Occluder:
    """A hand reaching in from an edge, a forearm, or the upturned cup."""
    kind = _choice(rng, ("hand", "hand", "arm", "cup"))
    skin = _choice(rng, ((140, 170, 225), (95, 130, 185), (60, 85, 130), (165, 190, 230)))
    if kind == "cup":
        return Occluder(kind="cup", center=(float(rng.uniform(0.2, 0.8) * width), float(rng.uniform(0.2, 0.8) * height)),
                        size=float(rng.uniform(0.3, 0.45) * min(width, height)),
                        bgr=_jitter(rng, _choice(rng, ((30, 45, 80), (20, 20, 25), (40, 70, 120), (25, 30, 60)))),
                        height=30.0, texture_seed=int(rng.integers(2**31)))
    edge_angle = float(rng.uniform(0, 360))
    a = math.radians(edge_angle)
    # start outside the picture in direction -angle and reach into it
    cx = width / 2 - math.cos(a) * width * rng.uniform(0.1, 0.45)
    cy = height / 2 - math.sin(a) * height * rng.uniform(0.1, 0.45)
    return Occluder(kind=kind, center=(float(cx), float(cy)), size=float(rng.uniform(0.35, 0.6) * min(width, height)),
                    angle=edge_angle, bgr=_jitter(rng, skin, 10), height=float(rng.uniform(40, 150)),
                    texture_seed=int(rng.integers(2**31)))
