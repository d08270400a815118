"""Procedural textures: die faces (body, pips, rounded corners) and tray surfaces.

Everything is drawn with numpy and OpenCV from a seed, so the same spec always gives the
same pixels. Die face textures are cached: a frame sequence reuses them.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import cv2
import numpy as np

from .spec import BGR, BackgroundSpec, DieSpec

PIP_LAYOUT: dict[int, tuple[tuple[int, int], ...]] = {
    # pip positions in units of pip_spread from the face centre, (u right, v down)
    1: ((0, 0),),
    2: ((-1, -1), (1, 1)),
    3: ((-1, -1), (0, 0), (1, 1)),
    4: ((-1, -1), (1, -1), (-1, 1), (1, 1)),
    5: ((-1, -1), (1, -1), (0, 0), (-1, 1), (1, 1)),
    6: ((-1, -1), (-1, 0), (-1, 1), (1, -1), (1, 0), (1, 1)),
}

TEXTURE_SIZES = (24, 32, 48, 64, 96, 128, 192)


@dataclass(frozen=True)
class DieLook:
    """The parts of a DieSpec that decide what its faces look like."""

    body_bgr: BGR
    body2_bgr: BGR | None
    pip_bgr: BGR
    style: str
    opacity: float
    pip_radius: float
    pip_spread: float
    one_pip_scale: float
    pip_depth: float
    corner_radius: float
    texture_seed: int

    @classmethod
    def of(cls, die: DieSpec) -> "DieLook":
        return cls(
            tuple(map(float, die.body_bgr)), None if die.body2_bgr is None else tuple(map(float, die.body2_bgr)),
            tuple(map(float, die.pip_bgr)), die.style,
            die.opacity if die.style == "translucent" else 1.0,
            die.pip_radius, die.pip_spread, die.one_pip_scale, die.pip_depth, die.corner_radius,
            die.texture_seed,
        )


def texture_size_for(pixels: float) -> int:
    """The smallest cached texture size that is at least as fine as `pixels` on screen."""
    for size in TEXTURE_SIZES:
        if size >= pixels * 1.25:
            return size
    return TEXTURE_SIZES[-1]


def gaussian_field(rng: np.random.Generator, height: int, width: int) -> np.ndarray:
    """Unit Gaussian noise (float32), drawn by OpenCV (faster than numpy) from a seed taken from rng."""
    field = np.empty((height, width), np.float32)
    cv2.setRNGSeed(int(rng.integers(2**31)))
    cv2.randn(field, 0.0, 1.0)
    return field


def smooth_noise(rng: np.random.Generator, height: int, width: int, cell: float, octaves: int = 1) -> np.ndarray:
    """Value noise in about -1..1 with features of `cell` px (float32, height x width)."""
    total = np.zeros((height, width), np.float32)
    amplitude, norm = 1.0, 0.0
    for _ in range(octaves):
        gh, gw = max(2, int(height / cell) + 2), max(2, int(width / cell) + 2)
        grid = rng.uniform(-1, 1, (gh, gw)).astype(np.float32)
        total += amplitude * cv2.resize(grid, (width, height), interpolation=cv2.INTER_CUBIC)
        norm += amplitude
        amplitude *= 0.5
        cell = max(1.0, cell / 2)
    return total / norm


def rounded_square_coverage(size: int, radius_frac: float, grow: float = 0.0) -> np.ndarray:
    """Anti-aliased coverage (0..1) of a square with rounded corners filling size x size px."""
    c = (size - 1) / 2
    coords = np.abs(np.arange(size, dtype=np.float32) - c)
    qx, qy = np.meshgrid(coords, coords)
    half = size / 2 + grow
    r = radius_frac * size
    dx, dy = qx - (half - r), qy - (half - r)
    outside = np.hypot(np.maximum(dx, 0), np.maximum(dy, 0))
    sdf = outside + np.minimum(np.maximum(dx, dy), 0) - r
    return np.clip(0.5 - sdf, 0, 1)


def _edge_distance(size: int) -> np.ndarray:
    c = (size - 1) / 2
    coords = (size / 2) - np.abs(np.arange(size, dtype=np.float32) - c)
    return np.minimum.outer(coords, coords)


@lru_cache(maxsize=256)
def face_texture(look: DieLook, value: int, size: int, pips_only: bool = False) -> np.ndarray:
    """The face showing `value`, as a size x size BGRA uint8 image seen from outside.

    Alpha is the coverage of the rounded face times the body opacity (1 under the pips);
    with `pips_only` it is the coverage of the pips alone (the far faces of a translucent
    die, seen through its body).
    """
    rng = np.random.default_rng([look.texture_seed, value, size])
    body = np.empty((size, size, 3), np.float32)
    body[:] = look.body_bgr
    if look.style == "marbled":
        second = np.array(look.body2_bgr if look.body2_bgr is not None else _contrast_colour(look.body_bgr), np.float32)
        # swirls: stripes bent by smooth noise, with soft edges where the two colours blend
        warp = smooth_noise(rng, size, size, size / 2.0, octaves=2)
        yy, xx = np.mgrid[0:size, 0:size].astype(np.float32) / size
        direction = rng.uniform(0, np.pi)
        bands = np.sin((xx * np.cos(direction) + yy * np.sin(direction)) * rng.uniform(4, 8) + 4.0 * warp)
        mix = np.clip(0.5 + 0.7 * bands, 0, 1)
        mix = (mix * mix * (3 - 2 * mix))[..., None]
        body = body * (1 - mix) + second * mix
    grain = smooth_noise(rng, size, size, max(2.0, size / 10))
    body *= (1 + 0.012 * grain)[..., None]

    # Light reaches the very rim a little less (the rounded edges are shaded by the
    # renderer from their own normals, see edge_weights).
    band = max(1.0, look.corner_radius * size * 0.8)
    edge = np.clip(_edge_distance(size) / band, 0, 1)
    body *= (0.92 + 0.08 * (edge * edge * (3 - 2 * edge)))[..., None]

    pips = np.zeros((size, size), np.float32)
    shade = np.ones((size, size), np.float32)
    yy, xx = np.mgrid[0:size, 0:size].astype(np.float32)
    c = (size - 1) / 2
    # drilled and painted by machines, but not perfectly: a little jitter in place and size,
    # the same at every texture size so a die does not change as it comes nearer
    jitter = np.random.default_rng([look.texture_seed, value, 1])
    for pu, pv in PIP_LAYOUT[value]:
        radius = look.pip_radius * size * (look.one_pip_scale if value == 1 else 1.0) * jitter.uniform(0.95, 1.05)
        px = c + (pu * look.pip_spread + jitter.normal(0, 0.008)) * size
        py = c + (pv * look.pip_spread + jitter.normal(0, 0.008)) * size
        dx, dy = xx - px, yy - py
        dist = np.hypot(dx, dy)
        softness = max(0.6, size / 64)  # moulded pips have slightly soft rims
        inside = np.clip((radius - dist) / softness + 0.5, 0, 1)
        pips = np.maximum(pips, inside)
        if look.pip_depth > 0:
            # a drilled pip: its upper-left inner wall is in shadow, its rim a dark ring
            side = np.clip((-(dx + dy) / (1.414 * radius)), 0, 1)
            ring = np.exp(-(((radius - dist) / (0.3 * radius)) ** 2))
            shade -= inside * look.pip_depth * (0.25 * side + 0.3 * ring)
    pip_colour = np.array(look.pip_bgr, np.float32)
    colour = body * (1 - pips[..., None]) + pip_colour * pips[..., None]
    colour *= np.clip(shade, 0.3, 1)[..., None]

    coverage = rounded_square_coverage(size, look.corner_radius)
    alpha = coverage * pips if pips_only else coverage * (look.opacity + (1 - look.opacity) * pips)
    out = np.dstack([np.clip(colour, 0, 255), alpha * 255])
    return np.round(out).astype(np.uint8)


@lru_cache(maxsize=64)
def edge_weights(size: int, corner_radius: float) -> np.ndarray:
    """How much each texel lies on the rounded edge towards each side of the face (top,
    right, bottom, left in texture coordinates): float32 size x size x 4, 1 at the rim,
    0 on the flat part."""
    band = max(1.0, corner_radius * size * 0.8)
    c = np.arange(size, dtype=np.float32) + 0.5
    near = np.clip(1 - c / band, 0, 1) ** 2
    far = near[::-1]
    ones = np.ones(size, np.float32)
    return np.stack([np.outer(near, ones), np.outer(ones, far), np.outer(far, ones), np.outer(ones, near)], axis=-1)


def _contrast_colour(bgr: BGR) -> tuple[float, float, float]:
    b, g, r = bgr
    return (min(255, b * 0.5 + 110), min(255, g * 0.5 + 110), min(255, r * 0.5 + 110))


def background_texture(spec: BackgroundSpec, width: int, height: int, scale: float = 1.0) -> np.ndarray:
    """A width x height float32 BGR patch of the surface, `scale` texture px per plane px
    (below 1 for the wide, far-reaching views of a tilted camera, to bound the memory used)."""
    rng = np.random.default_rng([spec.seed, 7919])
    base = np.array(spec.bgr, np.float32)
    second = np.array(spec.bgr2, np.float32) if spec.bgr2 is not None else base * 0.7
    t = spec.texture
    out = np.empty((height, width, 3), np.float32)
    out[:] = base
    if spec.kind == "felt":
        blotches = smooth_noise(rng, height, width, 120 * scale, octaves=3)
        fibres = cv2.GaussianBlur(gaussian_field(rng, height, width), (0, 0), 0.8 * scale)
        pills = smooth_noise(rng, height, width, 6 * scale)
        out *= (1 + t * (0.06 * blotches + 0.10 * fibres + 0.04 * pills))[..., None]
    elif spec.kind == "wood":
        out = _wood(rng, spec, base, second, width, height, scale)
    elif spec.kind == "plastic":
        low = smooth_noise(rng, height, width, 200 * scale, octaves=2)
        fine = gaussian_field(rng, height, width)
        out *= (1 + t * (0.03 * low + 0.012 * fine))[..., None]
    elif spec.kind == "leather":
        bumps = smooth_noise(rng, height, width, 2.5 * scale, octaves=2)
        relief = 0.5 * (cv2.Sobel(bumps, cv2.CV_32F, 1, 0, ksize=3) + cv2.Sobel(bumps, cv2.CV_32F, 0, 1, ksize=3))
        creases = np.abs(smooth_noise(rng, height, width, 70 * scale, octaves=3))
        crease = np.clip(1 - creases / 0.06, 0, 1)
        blotches = smooth_noise(rng, height, width, 150 * scale, octaves=2)
        out *= (1 + t * (0.12 * relief + 0.05 * blotches))[..., None]
        out = out * (1 - 0.5 * t * crease[..., None]) + second * (0.5 * t * crease[..., None])
    elif spec.kind == "board":
        out = _board(rng, spec, width, height, scale)
    elif spec.kind == "card":
        low = smooth_noise(rng, height, width, 150 * scale, octaves=2)
        grain = cv2.GaussianBlur(gaussian_field(rng, height, width), (0, 0), 0.7 * scale)
        flecks = np.zeros((height, width), np.float32)
        n = int(height * width * 0.0003 / scale ** 2)
        flecks[rng.integers(0, height, n), rng.integers(0, width, n)] = 1.0
        flecks = cv2.GaussianBlur(flecks, (0, 0), 0.7 * scale) * 3
        out *= (1 + t * (0.03 * low + 0.04 * grain - 0.35 * np.clip(flecks, 0, 1)))[..., None]
    return np.clip(out, 0, 255)


# A board game's tiles (BGR): forest, pasture, field, hills, mountains, desert, sea
_BOARD_TILES = ((40, 95, 45), (70, 170, 120), (60, 190, 215), (50, 90, 165), (120, 120, 125), (130, 185, 210),
                (170, 110, 40))
_TOKEN_INKS = ((30, 30, 30), (40, 40, 170))


def _board(rng: np.random.Generator, spec: BackgroundSpec, width: int, height: int, scale: float) -> np.ndarray:
    """Hexagonal tiles of a board game, each its own colour and pattern, most with a round
    number token (a number and dots beneath it, the dots as big as a small die's pips), and
    small pieces (roads, round harbour markers with a dot): busy art with pips that are no die."""
    t = spec.texture
    radius = float(rng.uniform(35, 120)) * scale  # a tile's, texture px
    yy, xx = np.mgrid[0:height, 0:width].astype(np.float32)
    x0, y0 = rng.uniform(0, 2 * radius, 2)
    q = (np.float32(np.sqrt(3) / 3) * (xx + x0) - np.float32(1 / 3) * (yy + y0)) / np.float32(radius)
    r = np.float32(2 / 3) * (yy + y0) / np.float32(radius)
    del xx, yy
    # the nearest tile centre: round cube coordinates, fixing the coordinate that moved most
    cx, cz = q, r
    cy = -cx - cz
    rx, ry, rz = np.round(cx), np.round(cy), np.round(cz)
    dx, dy, dz = np.abs(rx - cx), np.abs(ry - cy), np.abs(rz - cz)
    fix_x = (dx > dy) & (dx > dz)
    fix_y = ~fix_x & (dy > dz)
    rx = np.where(fix_x, -ry - rz, rx)
    rz = np.where(~fix_x & ~fix_y, -rx - ry, rz)
    del q, r, cx, cy, cz, dx, dy, dz, fix_x, fix_y, ry
    cols, rows = rx.astype(np.int32), rz.astype(np.int32)
    c0, r0 = int(cols.min()), int(rows.min())
    shape = (int(rows.max()) - r0 + 1, int(cols.max()) - c0 + 1)
    tile = ((rows - r0) * shape[1] + (cols - c0)).astype(np.int32)
    n_tiles = shape[0] * shape[1]
    colours = np.array(_BOARD_TILES, np.float32)[rng.integers(len(_BOARD_TILES), size=n_tiles)]
    colours *= rng.uniform(0.8, 1.15, (n_tiles, 1)).astype(np.float32)
    out = colours[tile]
    strength = rng.uniform(0.1, 0.45, n_tiles).astype(np.float32)[tile]
    blotches = smooth_noise(rng, height, width, max(2.0, radius * float(rng.uniform(0.08, 0.25))), octaves=2)
    out *= (1 + t * strength * blotches)[..., None]
    edges = cv2.morphologyEx(tile.astype(np.float32), cv2.MORPH_GRADIENT,
                             np.ones((max(2, round(rng.uniform(1.5, 4.5) * scale)),) * 2, np.uint8)) != 0
    out[edges] = np.array(rng.choice([(170, 215, 225), (40, 50, 60)]), np.float32)
    out = np.clip(out, 0, 255).astype(np.uint8)  # OpenCV writes text on 8-bit pictures only
    cream = np.array((175, 215, 230), np.float32)
    for tr in range(shape[0]):
        for tc in range(shape[1]):
            if rng.random() > 0.75:
                continue
            q_, r_ = tc + c0, tr + r0
            px = radius * (np.sqrt(3) * q_ + np.sqrt(3) / 2 * r_) - x0
            py = radius * 1.5 * r_ - y0
            if not (-radius < px < width + radius and -radius < py < height + radius):
                continue
            disc = max(3, round(radius * rng.uniform(0.28, 0.42)))
            centre = (round(px + rng.uniform(-0.2, 0.2) * radius), round(py + rng.uniform(-0.2, 0.2) * radius))
            cv2.circle(out, centre, disc, tuple(float(v) for v in cream * rng.uniform(0.85, 1.05)), -1, cv2.LINE_AA)
            ink = _TOKEN_INKS[int(rng.integers(len(_TOKEN_INKS)))]
            number = str(int(rng.choice([2, 3, 4, 5, 6, 8, 9, 10, 11, 12])))
            font_scale = disc / 22.0
            (tw, th), _ = cv2.getTextSize(number, cv2.FONT_HERSHEY_DUPLEX, font_scale, max(1, round(disc / 10)))
            cv2.putText(out, number, (centre[0] - tw // 2, centre[1] + th // 3), cv2.FONT_HERSHEY_DUPLEX, font_scale,
                        ink, max(1, round(disc / 10)), cv2.LINE_AA)
            dots = int(rng.integers(1, 6))
            dot = max(1, round(disc * 0.09))
            for k in range(dots):
                cv2.circle(out, (round(centre[0] + (k - (dots - 1) / 2) * 2.6 * dot), round(centre[1] + 0.6 * disc)),
                           dot, ink, -1, cv2.LINE_AA)
    for _ in range(int(rng.integers(0, 2 + width * height // int((3 * radius) ** 2 + 1)))):
        colour = tuple(float(v) for v in rng.choice([(40, 40, 180), (170, 80, 30), (230, 230, 230), (40, 130, 230)]))
        px, py = float(rng.uniform(0, width)), float(rng.uniform(0, height))
        if rng.random() < 0.5:  # a road along a tile's edge
            angle = rng.choice([30.0, 90.0, 150.0]) + rng.normal(0, 4)
            box = ((px, py), (0.85 * radius, max(2.0, 0.13 * radius)), angle)
            cv2.fillConvexPoly(out, np.round(cv2.boxPoints(box)).astype(np.int32), colour, cv2.LINE_AA)
        else:  # a round marker with a dot, as a harbour's
            size = max(3, round(radius * rng.uniform(0.12, 0.25)))
            cv2.circle(out, (round(px), round(py)), size, colour, -1, cv2.LINE_AA)
            cv2.circle(out, (round(px), round(py)), max(1, size // 3), (235, 235, 235) if sum(colour) < 500 else (30, 30, 30),
                       -1, cv2.LINE_AA)
    return out.astype(np.float32)


def _wood(rng: np.random.Generator, spec: BackgroundSpec, base: np.ndarray, second: np.ndarray,
          width: int, height: int, scale: float) -> np.ndarray:
    """Planks with grain, computed straight in the image's frame (no big rotated canvas)."""
    t = spec.texture
    theta = rng.uniform(0, np.pi)
    yy, xx = np.mgrid[0:height, 0:width].astype(np.float32) / np.float32(scale)  # in plane px
    along = xx * np.float32(np.cos(theta)) + yy * np.float32(np.sin(theta))
    across = -xx * np.float32(np.sin(theta)) + yy * np.float32(np.cos(theta))
    del xx, yy
    along -= along.min()
    across -= across.min()
    plank_w = rng.uniform(90, 220)
    plank = np.floor(across / plank_w).astype(np.int32)
    plank_shift = rng.uniform(-0.12, 0.12, int(plank.max()) + 1).astype(np.float32)

    def noise_along(cell_along: float, cell_across: float) -> np.ndarray:
        grid = rng.uniform(-1, 1, (int(across.max() / cell_across) + 4, int(along.max() / cell_along) + 4))
        return cv2.remap(grid.astype(np.float32), along / np.float32(cell_along), across / np.float32(cell_across),
                         cv2.INTER_CUBIC, borderMode=cv2.BORDER_REFLECT)

    streak = noise_along(90.0, 2.0)  # long thin streaks along the grain
    warp = noise_along(60.0, 60.0)
    period = rng.uniform(3.0, 8.0)
    grain = np.sin((across + 8 * warp) * np.float32(2 * np.pi / period) + plank * np.float32(1.7))
    mix = np.clip(0.5 + 0.35 * grain * (0.5 + 0.5 * streak) + 0.4 * streak, 0, 1) * np.float32(t)
    seams = (np.abs(across - (plank + 0.5) * np.float32(plank_w)) > plank_w / 2 - 1.2).astype(np.float32)
    tone = 1 + t * plank_shift[plank] - 0.35 * seams
    out = base * (1 - mix)[..., None] + second * mix[..., None]
    out *= tone[..., None]
    return out
