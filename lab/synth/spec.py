"""What a synthetic scene is made of: plain, frozen, hashable descriptions.

Units and frames
- The tray plane is measured in "plane px": with the camera straight overhead
  (tilt 0, yaw 0) a point (x, y) of the tray surface is seen at image pixel (x, y).
- Heights are measured up from the tray surface in the same unit.
- A die's `size` is its edge length in plane px; how big its top face looks in the image
  depends on the camera (the labels report the measured image size).
- Image coordinates: x right, y down, pixel centres at integers.
- Colours are BGR tuples of 0..255.

Everything is frozen so a scene can be hashed (the renderer caches the parts of a scene
that do not change from frame to frame) and changed with `dataclasses.replace`.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

BGR = tuple[float, float, float]
Point = tuple[float, float]

DIE_STYLES = ("opaque", "translucent", "marbled")
BACKGROUND_KINDS = ("felt", "wood", "plastic", "leather", "card")  # the surfaces random scenes draw from
# and those only scenes of their own ask for (`lab.synth.boards`): a board game's hex tiles and tokens
FLOOR_KINDS = BACKGROUND_KINDS + ("board",)
OCCLUDER_KINDS = ("hand", "arm", "cup", "ellipse", "polygon")


@dataclass(frozen=True)
class DieSpec:
    """One die lying in the tray.

    With `orientation` left None the die rests flat with `value` on top, turned by
    `angle` degrees about the vertical, and (when `cocked_deg` > 0) tipped up by that
    many degrees about a bottom edge, raising the side that faces the image direction
    `angle + 90 * cocked_side` degrees, as when it leans against a neighbour or the rim.
    `center` is the point of the tray under the die's centre before tipping; a tipped die
    pivots about its bottom edge, which stays where it was.

    `orientation` (a 3x3 rotation, die frame -> world, row-major, 9 floats) overrides
    value/angle/cocked: the value is then the face pointing most upward. `lift` raises the
    die off the tray (a die in the air while tumbling).
    """

    value: int
    center: Point
    size: float
    angle: float = 0.0
    body_bgr: BGR = (235.0, 235.0, 235.0)
    pip_bgr: BGR = (25.0, 25.0, 25.0)
    style: str = "opaque"  # one of DIE_STYLES
    cocked_deg: float = 0.0
    cocked_side: int = 0
    orientation: tuple[float, ...] | None = None
    lift: float = 0.0
    body2_bgr: BGR | None = None  # second colour of a marbled die
    opacity: float = 1.0  # body opacity; translucent dice use about 0.5..0.8
    pip_radius: float = 0.095  # pip radius as a fraction of the edge
    pip_spread: float = 0.27  # centre-to-corner-pip offset along an edge, fraction of edge
    one_pip_scale: float = 1.25  # the 1's pip is often bigger
    pip_depth: float = 0.5  # 0 flat paint .. 1 deeply drilled (shaded inner wall)
    corner_radius: float = 0.16  # rounding of the corners, fraction of the edge
    gloss: float = 0.5  # how strong the specular highlights of the lamps are
    texture_seed: int = 0  # marbling and surface grain
    motion_px: float = 0.0  # motion blur of this die alone (rolling), length in image px
    motion_deg: float = 0.0  # direction of that blur, image degrees

    def __post_init__(self) -> None:
        if self.orientation is None and not 1 <= self.value <= 6:
            raise ValueError(f"die value must be 1..6, got {self.value}")
        if self.size <= 0:
            raise ValueError(f"die size must be positive, got {self.size}")
        if self.style not in DIE_STYLES:
            raise ValueError(f"die style must be one of {DIE_STYLES}, got {self.style!r}")
        if self.orientation is not None and len(self.orientation) != 9:
            raise ValueError("orientation must be 9 floats (a row-major 3x3 rotation)")
        if not 0 <= self.cocked_deg < 90:
            raise ValueError(f"cocked_deg must be 0..90, got {self.cocked_deg}")
        if not 0 < self.opacity <= 1:
            raise ValueError(f"opacity must be in (0, 1], got {self.opacity}")
        if self.lift < 0:
            raise ValueError(f"lift must not be negative (the tray is at 0), got {self.lift}")


@dataclass(frozen=True)
class BackgroundSpec:
    """The tray surface (and, with a tray, the counter around it)."""

    kind: str = "felt"  # one of FLOOR_KINDS
    bgr: BGR = (60.0, 110.0, 40.0)
    bgr2: BGR | None = None  # second colour (wood grain, leather creases); derived if None
    texture: float = 1.0  # strength of the texture, 0 = flat colour
    gloss: float = 0.0  # lamp reflections on the surface, 0..1
    seed: int = 0

    def __post_init__(self) -> None:
        if self.kind not in FLOOR_KINDS:
            raise ValueError(f"background kind must be one of {FLOOR_KINDS}, got {self.kind!r}")


@dataclass(frozen=True)
class TraySpec:
    """A rectangular tray with a rim, standing on a counter.

    `inner` is the floor rectangle (x0, y0, x1, y1) in plane px; the walls stand outside it.
    """

    inner: tuple[float, float, float, float]
    wall_height: float = 25.0
    wall_thickness: float = 12.0
    wall_bgr: BGR = (40.0, 40.0, 45.0)
    counter: BackgroundSpec = field(default_factory=lambda: BackgroundSpec("wood", (60.0, 95.0, 140.0)))


@dataclass(frozen=True)
class Lamp:
    """A light above the tray at plane position (x, y) and `height` plane px up.

    The first lamp of a scene is the key light: it sets the shading of the die faces and
    casts the shadows. Every lamp makes specular highlights (glare) on glossy surfaces;
    `radius` is the lamp's size (bigger = broader, softer highlights and shadows).
    """

    x: float
    y: float
    height: float
    radius: float = 40.0
    intensity: float = 1.0


@dataclass(frozen=True)
class LightingSpec:
    lamps: tuple[Lamp, ...] = ()  # empty: one lamp high above the image centre
    ambient: float = 0.45  # share of light that is not from the key lamp (0..1)
    shadow_strength: float = 0.45  # 0 no cast shadows .. 1 black shadows
    gradient: float = 0.0  # brightness change across the image (0.3 = +-30 %)
    gradient_deg: float = 0.0  # direction the light increases in, image degrees
    vignette: float = 0.0  # darkening of the corners (0.3 = 30 % darker)
    exposure: float = 1.0
    tint_bgr: BGR = (1.0, 1.0, 1.0)  # colour of the light (warm bar light: b < r)


@dataclass(frozen=True)
class CameraSpec:
    """A pinhole camera looking at the point of the tray at the image centre.

    `tilt_deg` is the angle between the optical axis and the vertical (the camera sits on
    the side of the tray that is at the bottom of the image, so the far side looks smaller).
    `yaw_deg` turns the view about the vertical. `fov_deg` is the horizontal field of view.
    The camera's distance is set so the tray plane at the image centre is 1 plane px per px.
    """

    tilt_deg: float = 0.0
    yaw_deg: float = 0.0
    fov_deg: float = 60.0

    def __post_init__(self) -> None:
        if not 0 <= self.tilt_deg < 80:
            raise ValueError(f"camera tilt must be 0..80 degrees, got {self.tilt_deg}")
        if not 10 <= self.fov_deg <= 120:
            raise ValueError(f"camera field of view must be 10..120 degrees, got {self.fov_deg}")


@dataclass(frozen=True)
class Occluder:
    """Something above the dice: a hand, an arm, the dice cup, or a plain shape.

    Placed in image pixels (it is in the air, so plane coordinates mean little): `center`,
    `size` (hand length / cup diameter / ellipse major axis / arm width), `angle` (degrees,
    the direction the fingers or the arm point to, image frame). `points` is the outline of
    a "polygon" occluder. `height` sets how far its shadow falls from it.
    """

    kind: str
    center: Point = (0.0, 0.0)
    size: float = 150.0
    angle: float = 0.0
    bgr: BGR = (120.0, 150.0, 200.0)
    points: tuple[Point, ...] = ()
    aspect: float = 0.6  # minor/major axis of an ellipse
    height: float = 80.0
    texture_seed: int = 0

    def __post_init__(self) -> None:
        if self.kind not in OCCLUDER_KINDS:
            raise ValueError(f"occluder kind must be one of {OCCLUDER_KINDS}, got {self.kind!r}")
        if self.kind == "polygon" and len(self.points) < 3:
            raise ValueError("a polygon occluder needs at least 3 points")


@dataclass(frozen=True)
class BlurSpec:
    defocus_px: float = 0.0  # radius of the out-of-focus disc, px
    motion_px: float = 0.0  # length of camera-shake motion blur, px
    motion_deg: float = 0.0
    sharpen: float = 0.0  # the camera's own sharpening (unsharp mask amount; phones use ~0.5..1)


@dataclass(frozen=True)
class SceneSpec:
    """A whole scene. `seed` only drives the per-frame randomness (sensor noise), so a frame
    sequence is the same SceneSpec with dice moved and a new seed per frame."""

    width: int = 640
    height: int = 480
    background: BackgroundSpec = field(default_factory=BackgroundSpec)
    lighting: LightingSpec = field(default_factory=LightingSpec)
    camera: CameraSpec = field(default_factory=CameraSpec)
    dice: tuple[DieSpec, ...] = ()
    occluders: tuple[Occluder, ...] = ()
    tray: TraySpec | None = None
    blur: BlurSpec = field(default_factory=BlurSpec)
    noise_sigma: float = 0.0  # sensor noise at mid-grey, in 0..255 levels
    jpeg_quality: int | None = None  # None: no JPEG round trip
    seed: int = 0

    def __post_init__(self) -> None:
        if self.width < 16 or self.height < 16:
            raise ValueError(f"image too small: {self.width}x{self.height}")
        if self.jpeg_quality is not None and not 1 <= self.jpeg_quality <= 100:
            raise ValueError(f"jpeg_quality must be 1..100, got {self.jpeg_quality}")
        # lists are accepted for convenience but stored as tuples to stay hashable
        object.__setattr__(self, "dice", tuple(self.dice))
        object.__setattr__(self, "occluders", tuple(self.occluders))


@dataclass(frozen=True)
class DieLabel:
    """The truth about one die in a rendered image."""

    index: int  # position in SceneSpec.dice
    value: int  # the face pointing most upward
    center: Point  # centre of the top face, image px
    box: tuple[float, float, float, float]  # x0, y0, x1, y1 around the top face, image px
    size: float  # side of the top face in the image, px (square root of its area)
    angle: float  # rotation of the top face in the image, degrees in [0, 90)
    cocked: bool  # top face more than COCKED_DEG off flat (or the die is in the air)
    visible: float  # share of the top face in the image and not hidden by occluders or other dice, 0..1
    tilt_deg: float  # angle between the top face's normal and the vertical


@dataclass(frozen=True, eq=False)
class Rendered:
    image: np.ndarray  # BGR uint8, height x width x 3
    labels: list[DieLabel]
    face_map: np.ndarray  # uint8: index of the die whose top face shows at a pixel, 255 none
    jpeg: bytes | None = None  # the encoded image when the scene asks for JPEG
