"""Cheap per-frame motion and foreground checks on a small copy of each camera frame.

The throw tracker calls `MotionDetector.update` on every frame; the full dice reader runs
only once the dice have stopped. Everything here works on a frame shrunk to about 160 px
wide (area averaging, which also averages the sensor noise away), so a 640x480 frame costs
well under a millisecond.

What a bar camera sees, and how this copes:
- Auto-exposure steps, a slowly changing lamp, mains flicker rolling through a rolling
  shutter and soft shadows change the light, not the things in the tray: motion is looked
  for in each pixel's brightness relative to its surroundings (a few dice wide), where
  those cancel; the comparison with the empty tray divides out the frame's overall gain.
- Sensor noise and JPEG artefacts: the area averaging and a threshold on the summed
  change of the three channels.
- Soft shadows of people passing: a pixel that got uniformly darker in every channel
  (same colour, less light) is a shadow, not a thing in the tray.
- A shadow lying on the tray in the first frame (the device started while someone stood
  by) is learnt as the empty tray; when it goes, the tray there is uniformly brighter than
  that background, with the same texture, and bigger than a few dice, or longer than a
  die's face, or touching the edge of the view, or within half a die of a ghost healed in
  the last second (what is left of the shadow as it goes); and lighter by the same factor
  in every channel. Such a patch is the shadow's ghost: the background is healed there at
  once (a thing brighter than the tray, a white die or a sleeve, brings outlines and pips,
  so its texture differs; a die's plain white face is too small and too short to be taken
  for a ghost, and a hand is tinted: they stay foreground).
- The background (the empty tray) adapts slowly, and only where nothing is in the tray,
  so dice that lie still for minutes stay foreground.
- Hands, arms and cups are big foreground blobs, or blobs that cross the edge of the view;
  dice are small ones that never cross it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import cv2
import numpy as np


@dataclass(frozen=True)
class MotionConfig:
    """Tuning of the motion check. Thresholds are on the sum of the three channels' change,
    in grey levels of the small frame."""

    width: int = 160  # the small frame's width; its height keeps the aspect ratio
    change_threshold: float = 0.25  # relative change of a pixel's detail (summed over B, G, R) that is change
    drift_threshold: float = 0.5  # the same against the start of the still period (dice creeping)
    detail_window: float = 0.1  # detail = pixel / mean brightness of a window this share of the frame wide
    detail_floor: float = 12.0  # grey levels added to that mean, so noise in the dark is not detail
    min_changed_pixels: int = 3  # this many changed small pixels is motion
    foreground_threshold: float = 54.0  # a pixel differs from the empty tray (sum over B, G, R)
    shadow_ratio: tuple[float, float] = (0.3, 0.93)  # darker by a factor in this range ...
    shadow_colour_tolerance: float = 0.12  # ... and by the same factor in every channel
    lifted_texture_max: float = 0.1  # share of a uniformly lighter patch whose texture changed, at most, for a ghost
    lifted_min_dice: float = 4.0  # ... and its area, at least, in dice (a die's plain face is no ghost)
    lifted_colour_spread: float = 0.15  # ... and its channels lifted alike: median (max - min) / mean ratio, at most
    ghost_memory_s: float = 1.0  # a lifted patch within half a die of a ghost healed this recently is more of it
    background_time_constant_s: float = 3.0  # how fast the empty tray follows the light
    reference_refresh_s: float = 2.0  # a still scene is compared with itself this long ago at most
    default_die_fraction: float = 0.09  # die side / frame width until a reading says better
    foreign_area_dice: float = 4.5  # a blob bigger than this many dice (not counting known ones) is a hand or a cup
    border_area_dice: float = 0.8  # a blob crossing the edge of the view bigger than this
    foreign_memory_s: float = 0.5  # what remains of a hand going away stays foreign this long
    roi: tuple[float, float, float, float] | None = None  # (x0, y0, x1, y1) fractions of the frame


@dataclass
class MotionSample:
    """What one frame shows at motion scale. The arrays belong to the detector and are
    overwritten by the next frame: copy what you keep."""

    t: float
    moving: bool  # something changed since the previous frame or since the scene went still
    changed_pixels: int
    still_for: float  # seconds since the last frame with motion
    foreground: np.ndarray  # uint8 0/1 mask: differs from the empty tray (not a shadow)
    foreground_pixels: int
    foreign: bool  # a hand, an arm or a cup is in view
    foreign_mask: np.ndarray  # uint8 0/1: the blobs judged foreign
    gain: float  # the median brightness of this frame relative to the background


@dataclass
class _State:
    background: np.ndarray  # float32 HxWx3, the empty tray at the reference exposure
    valid: np.ndarray  # bool HxW: the background there was seen empty (not learnt with a die on it)
    previous: np.ndarray  # float32 HxWx3, previous frame, gain-corrected
    previous_detail: np.ndarray  # float32 HxWx3, previous frame over its local brightness
    reference: np.ndarray  # float32 HxWx3, detail of the first frame of the current still period
    background_mask: np.ndarray  # uint8 HxW: pixels that looked like the background last frame
    last_motion_t: float
    reference_t: float
    last_t: float
    healed: np.ndarray | None = None  # uint8 HxW: where a shadow's ghost was healed (and half a die around)
    healed_t: float = float("-inf")  # when a ghost was last healed


@dataclass
class MotionDetector:
    """Motion, foreground and foreign objects of a frame stream, on a small copy of each frame.

    The first frame is taken as the empty tray; `mark_unknown` tells the detector where it was
    not (dice lying there at start), and `heal` / `relearn` fix the background once the tracker
    knows better from a reading.
    """

    config: MotionConfig = field(default_factory=MotionConfig)
    die_size: float | None = None  # die side in full-frame px, from the readings
    _state: _State | None = None
    _shape: tuple[int, int] | None = None  # full-frame (height, width) the state was built for
    _scale: float = 1.0  # small px per full-frame px
    _offset: tuple[int, int] = (0, 0)  # the ROI's top-left corner in the full frame
    free_motion: np.ndarray | None = None  # uint16 HxW: frames of free motion since reset_history
    known_dice: np.ndarray | None = None  # uint8 HxW: where the tracker knows dice lie (their footprints)
    _previous_foreign: np.ndarray | None = None
    _primary_foreign_t: float = float("-inf")
    _previous_foreground: np.ndarray | None = None

    # -- geometry ------------------------------------------------------------------------

    def small_size(self, frame_shape: tuple[int, ...]) -> tuple[int, int]:
        """(width, height) of the small frame for a full frame of this shape."""
        x0, y0, x1, y1 = self._roi_box(frame_shape)
        width = min(self.config.width, x1 - x0)
        return width, max(1, round((y1 - y0) * width / (x1 - x0)))

    def _roi_box(self, frame_shape: tuple[int, ...]) -> tuple[int, int, int, int]:
        height, width = frame_shape[:2]
        if self.config.roi is None:
            return 0, 0, width, height
        fx0, fy0, fx1, fy1 = self.config.roi
        return round(fx0 * width), round(fy0 * height), round(fx1 * width), round(fy1 * height)

    def to_full(self, x: float, y: float) -> tuple[float, float]:
        """A small-frame point in full-frame coordinates."""
        return x / self._scale + self._offset[0], y / self._scale + self._offset[1]

    def to_small(self, x: float, y: float) -> tuple[float, float]:
        """A full-frame point in small-frame coordinates."""
        return (x - self._offset[0]) * self._scale, (y - self._offset[1]) * self._scale

    @property
    def scale(self) -> float:
        return self._scale

    def die_side_small(self) -> float:
        """The side of a die in small px (from the readings, or a guess from the frame width)."""
        if self._state is None:
            return 1.0
        if self.die_size:
            return max(1.0, self.die_size * self._scale)
        return max(1.0, self.config.default_die_fraction * self._state.background.shape[1])

    # -- per frame ------------------------------------------------------------------------

    def shrink(self, frame: np.ndarray) -> np.ndarray:
        x0, y0, x1, y1 = self._roi_box(frame.shape)
        view = frame[y0:y1, x0:x1] if self.config.roi is not None else frame
        width, height = self.small_size(frame.shape)
        if view.shape[1] >= 4 * width:
            # Halving with bilinear sampling averages 2x2 pixels and is several times cheaper
            # than area averaging the full frame; the area step then averages the rest.
            view = cv2.resize(view, (view.shape[1] // 2, view.shape[0] // 2), interpolation=cv2.INTER_LINEAR)
        small = cv2.resize(view, (width, height), interpolation=cv2.INTER_AREA)
        if small.ndim == 2:
            small = cv2.cvtColor(small, cv2.COLOR_GRAY2BGR)
        return small.astype(np.float32)

    def update(self, frame: np.ndarray, t: float) -> MotionSample:
        small = self.shrink(frame)
        if self._state is None or self._shape != frame.shape[:2]:
            return self._start(frame, small, t)
        state = self._state
        corrected, gain = self._correct_exposure(small, state)

        detail = self._detail(small)
        changed = _changed(detail, state.previous_detail, self.config.change_threshold)
        drifted = _changed(detail, state.reference, self.config.drift_threshold)
        changed_pixels = max(_clustered(changed), _clustered(drifted))
        moving = changed_pixels >= self.config.min_changed_pixels
        if moving:
            # the change happened between the previous frame and this one: credit half the interval
            state.last_motion_t = (t + state.last_t) / 2
            state.reference = detail
            state.reference_t = t
        elif t - state.reference_t > self.config.reference_refresh_s:
            # Creeping dice are caught within a refresh period; beyond it, slow changes of the
            # light must not add up to "motion".
            state.reference = detail
            state.reference_t = t

        foreground, unlike_tray = self._foreground(corrected, state.background)
        self._heal_lifted_shadows(corrected, detail, foreground, unlike_tray, t)
        foreground_pixels = cv2.countNonZero(foreground)
        foreign_mask, foreign = self._foreign(foreground, foreground_pixels, t)
        if self.free_motion is not None and moving:
            self._record_free_motion(changed, foreground, foreign_mask)
        self._previous_foreign = foreign_mask
        self._previous_foreground = foreground

        self._adapt_background(corrected, unlike_tray, t - state.last_t)
        state.background_mask = (foreground == 0).astype(np.uint8)
        state.previous = corrected
        state.previous_detail = detail
        state.last_t = t
        return MotionSample(
            t=t, moving=moving, changed_pixels=changed_pixels, still_for=t - state.last_motion_t,
            foreground=foreground, foreground_pixels=foreground_pixels,
            foreign=foreign, foreign_mask=foreign_mask, gain=gain,
        )

    def _start(self, frame: np.ndarray, small: np.ndarray, t: float) -> MotionSample:
        x0, y0, x1, y1 = self._roi_box(frame.shape)
        self._shape = frame.shape[:2]
        self._offset = (x0, y0)
        self._scale = small.shape[1] / (x1 - x0)
        height, width = small.shape[:2]
        detail = self._detail(small)
        self._state = _State(
            background=small.copy(), valid=np.ones((height, width), bool), previous=small,
            previous_detail=detail, reference=detail, background_mask=np.ones((height, width), np.uint8),
            last_motion_t=t, reference_t=t, last_t=t,
        )
        self.free_motion = np.zeros((height, width), np.uint16)
        empty = np.zeros((height, width), np.uint8)
        return MotionSample(t, True, 0, 0.0, empty, 0, False, empty.copy(), 1.0)

    def _detail(self, small: np.ndarray) -> np.ndarray:
        """Each pixel over the brightness around it (a window of a few dice): exposure, lamps
        and soft shadows change both alike and cancel; dice, pips and edges remain."""
        # fixed for the detector's life: a window that changed between frames would look like motion
        k = max(5, int(small.shape[1] * self.config.detail_window)) | 1
        local = cv2.blur(small, (k, k)) + self.config.detail_floor
        return small / local

    def _correct_exposure(self, small: np.ndarray, state: _State) -> tuple[np.ndarray, float]:
        """Divide the frame by its gain relative to the background (exposure steps, a lamp
        dimming), estimated over the pixels that looked like the tray last frame."""
        ratio = (_channel_sum(small) + 1.0) / (_channel_sum(state.background) + 1.0)
        usable = state.background_mask[::4, ::4] > 0
        sample = ratio[::4, ::4]
        sample = sample[usable] if usable.sum() > usable.size // 8 else sample.ravel()
        # shadows only ever darken: the upper quartile is the light on the unshadowed tray even
        # when a shadow covers most of it
        gain = float(np.clip(np.percentile(sample, 75), 0.2, 5.0)) if sample.size else 1.0
        return small * (1.0 / gain), gain

    def _foreground(self, corrected: np.ndarray, background: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(foreground, changed): what is in the tray, and every pixel unlike the empty tray,
        shadows included (the background must not learn those)."""
        difference = _channel_sum(cv2.absdiff(corrected, background))
        changed = (difference > self.config.foreground_threshold).astype(np.uint8)
        candidate = changed.copy()
        if not candidate.any():
            return candidate, changed
        # a shadow: darker by about the same factor in every channel
        b, g, r = cv2.split(cv2.divide(corrected, background + 1.0))
        darkest, brightest = cv2.min(cv2.min(b, g), r), cv2.max(cv2.max(b, g), r)
        low, high = self.config.shadow_ratio
        spread_allowed = self.config.shadow_colour_tolerance * (b + g + r)
        shadow = (darkest >= low) & (brightest <= high) & ((brightest - darkest) <= spread_allowed)
        candidate[shadow] = 0
        return candidate, changed

    def _heal_lifted_shadows(self, corrected: np.ndarray, detail: np.ndarray, foreground: np.ndarray,
                             unlike_tray: np.ndarray, t: float) -> None:
        """Where the background was learnt under a shadow that has gone (the background looks
        like the current frame in shadow, and the texture is the tray's), take the current
        frame as the background; those pixels are no foreground (both masks cleared in place)."""
        state = self._state
        assert state is not None
        if t - state.healed_t > self.config.ghost_memory_s:
            state.healed = None  # the shadow has gone: a flat patch that comes later is no part of it
        if not foreground.any():
            return
        # the test of _foreground the other way round: the background is the shadowed one
        b, g, r = cv2.split(cv2.divide(state.background, corrected + 1.0))
        darkest, brightest = cv2.min(cv2.min(b, g), r), cv2.max(cv2.max(b, g), r)
        low, high = self.config.shadow_ratio
        lifted = ((darkest >= low) & (brightest <= high)
                  & ((brightest - darkest) <= self.config.shadow_colour_tolerance * (b + g + r))
                  & (foreground > 0)).astype(np.uint8)
        if not lifted.any():
            return
        count, labels, stats, _ = cv2.connectedComponentsWithStats(lifted, connectivity=8)
        textured = _changed(detail, self._detail(state.background), self.config.change_threshold)
        changed = np.bincount(labels[textured > 0], minlength=count)[:count].astype(np.float64)
        # a shadow that has gone is bigger than a few dice, or a band longer than a die: a white
        # die's plain face is brighter than the tray with little texture too, and must stay
        # foreground
        area = stats[:, cv2.CC_STAT_AREA]
        flat = changed <= self.config.lifted_texture_max * area
        big = area >= self.config.lifted_min_dice * self.die_side_small() ** 2
        # what is left of a shadow as it goes lies by where its ghost was healed a moment ago
        # (the edge of a shadow walking off moves several pixels a frame), or touches the edge
        # of the view, where shadows come and go (a die lying across it is foreign anyway)
        touching = np.zeros(count, bool)
        if state.healed is not None:
            touching[np.unique(labels[(state.healed > 0) & (lifted > 0)])] = True
        height, width = lifted.shape
        x0, y0 = stats[:, cv2.CC_STAT_LEFT], stats[:, cv2.CC_STAT_TOP]
        on_edge = ((x0 == 0) | (y0 == 0) | (x0 + stats[:, cv2.CC_STAT_WIDTH] == width)
                   | (y0 + stats[:, cv2.CC_STAT_HEIGHT] == height))
        # ... or stretches further than a die's face: the band a shadow leaves as it goes
        long = np.maximum(stats[:, cv2.CC_STAT_WIDTH], stats[:, cv2.CC_STAT_HEIGHT]) > 1.5 * self.die_side_small()
        ghost = flat & (big | long | touching | on_edge)
        ghost[0] = False
        if not ghost.any():
            return
        # a shadow going lifts every channel by the same factor; a hand or a sleeve brighter
        # than the tray passes the loose per-pixel test above but is tinted as a whole (skin
        # over an olive cloth: red lifted a third more than green)
        spread = (brightest - darkest) * (3.0 / (b + g + r + 1e-6))
        for label in np.nonzero(ghost)[0]:
            ghost[label] = float(np.median(spread[labels == label])) <= self.config.lifted_colour_spread
        if not ghost.any():
            return
        where = ghost[labels]
        reach = max(3, round(self.die_side_small() / 2)) | 1
        around = cv2.dilate(where.astype(np.uint8), np.ones((reach, reach), np.uint8))
        state.healed = around if state.healed is None else around | state.healed
        state.healed_t = t
        state.background[where] = corrected[where]
        foreground[where] = 0
        unlike_tray[where] = 0

    def _foreign(self, foreground: np.ndarray, pixels: int, t: float) -> tuple[np.ndarray, bool]:
        """Blobs that are not dice: more foreground than a few dice (not counting the dice the
        tracker knows lie there), or crossing the edge of the view, or the rest of a blob that
        was foreign in the previous frame (a hand going away)."""
        die_area = self.die_side_small() ** 2
        height, width = foreground.shape
        on_edges = (cv2.countNonZero(foreground[0]) + cv2.countNonZero(foreground[-1])
                    + cv2.countNonZero(foreground[:, :1]) + cv2.countNonZero(foreground[:, -1:]))
        was_foreign = self._previous_foreign is not None and self._previous_foreign.any()
        if (pixels <= self.config.foreign_area_dice * die_area and not was_foreign
                and (on_edges == 0 or pixels <= self.config.border_area_dice * die_area)):
            return np.zeros_like(foreground), False
        count, labels, stats, _ = cv2.connectedComponentsWithStats(foreground, connectivity=8)
        if count <= 1:
            return np.zeros_like(foreground), False
        areas = stats[:, cv2.CC_STAT_AREA].astype(np.float64)
        explained = np.zeros(count)
        if self.known_dice is not None and self.known_dice.shape == labels.shape:
            explained = np.bincount(labels[self.known_dice > 0], minlength=count)[:count].astype(np.float64)
        carried = np.zeros(count)
        if was_foreign:
            carried = np.bincount(labels[self._previous_foreign > 0], minlength=count)[:count].astype(np.float64)
        left, top = stats[:, cv2.CC_STAT_LEFT], stats[:, cv2.CC_STAT_TOP]
        right = left + stats[:, cv2.CC_STAT_WIDTH]
        bottom = top + stats[:, cv2.CC_STAT_HEIGHT]
        on_border = (left == 0) | (top == 0) | (right == width) | (bottom == height)
        primary = ((areas - explained > self.config.foreign_area_dice * die_area)
                   | (on_border & (areas > self.config.border_area_dice * die_area)))
        primary[0] = False
        if primary.any():
            self._primary_foreign_t = t
        # what is left of a hand as it goes (palm and fingers, no longer big or at the edge), for a moment
        recent = t - self._primary_foreign_t <= self.config.foreign_memory_s
        foreign = primary | (recent & (carried > 0.3 * areas) & (areas - explained > 1.5 * die_area))
        foreign[0] = False
        if not foreign.any():
            return np.zeros_like(foreground), False
        return foreign.astype(np.uint8)[labels], True

    def _record_free_motion(self, changed: np.ndarray, foreground: np.ndarray, foreign_mask: np.ndarray) -> None:
        """Count, per pixel, frames in which something (not a shadow) moved away from any hand
        or cup: dice rolling freely."""
        assert self.free_motion is not None
        things = foreground if self._previous_foreground is None else cv2.bitwise_or(foreground, self._previous_foreground)
        free = cv2.bitwise_and(changed, things)
        hands = foreign_mask if self._previous_foreign is None else cv2.bitwise_or(foreign_mask, self._previous_foreign)
        if hands.any():
            # a die carried or pushed by a hand moves next to it; only motion away from hands is free
            reach = max(3, int(self.die_side_small() * 1.5)) | 1
            near_hand = cv2.dilate(hands, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (reach, reach)))
            free = cv2.bitwise_and(free, (near_hand == 0).astype(np.uint8))
        self.free_motion += free

    def _adapt_background(self, corrected: np.ndarray, unlike_tray: np.ndarray, dt: float) -> None:
        """Follow the light where the tray shows: not under dice, hands or shadows, nor at their
        soft edges (a die's shadow learnt into the background would leave a ghost when it goes)."""
        state = self._state
        assert state is not None
        rate = 1.0 - math.exp(-max(dt, 0.0) / self.config.background_time_constant_s)
        if rate <= 0:
            return
        near = cv2.dilate(unlike_tray, _NEIGHBOURS) if unlike_tray.any() else unlike_tray
        learn = (near == 0).astype(np.uint8)
        cv2.accumulateWeighted(corrected, state.background, rate, mask=learn)

    # -- what the tracker tells the detector ------------------------------------------------

    def mark_unknown(self, mask: np.ndarray) -> None:
        """The background under `mask` (small px) was learnt with something lying there."""
        if self._state is not None:
            self._state.valid[mask.astype(bool)] = False

    def heal(self, mask: np.ndarray) -> None:
        """Take the current frame as the empty tray under `mask` (small px)."""
        if self._state is None:
            return
        where = mask.astype(bool)
        self._state.background[where] = self._state.previous[where]
        self._state.valid[where] = True

    def relearn(self, unknown: np.ndarray | None = None) -> None:
        """Take the whole current frame as the empty tray (the tray or the camera was moved)."""
        if self._state is None:
            return
        self._state.background = self._state.previous.copy()
        self._state.valid[:] = True
        if unknown is not None:
            self.mark_unknown(unknown)

    def texture_changed(self, threshold: float) -> np.ndarray | None:
        """uint8 mask of pixels whose detail differs from the empty tray's (outlines and texture
        of things, even of a colour close to the tray's), closed over small gaps."""
        if self._state is None:
            return None
        changed = _changed(self._detail(self._state.previous), self._detail(self._state.background), threshold)
        return cv2.morphologyEx(changed, cv2.MORPH_CLOSE, np.ones((3, 3), np.uint8))

    def reset_history(self) -> None:
        """Start counting free motion afresh (the tracker calls this at every settle)."""
        if self.free_motion is not None:
            self.free_motion[:] = 0

    @property
    def valid(self) -> np.ndarray | None:
        return None if self._state is None else self._state.valid

    @property
    def current(self) -> np.ndarray | None:
        """The last frame at motion scale, gain-corrected (float32 HxWx3)."""
        return None if self._state is None else self._state.previous

    @property
    def background(self) -> np.ndarray | None:
        return None if self._state is None else self._state.background


_ONES = np.ones((1, 3), np.float32)
_NEIGHBOURS = np.ones((5, 5), np.uint8)


def _channel_sum(image: np.ndarray) -> np.ndarray:
    """B + G + R of a float32 HxWx3 image (cv2.transform is far cheaper than numpy's sum over axis 2)."""
    return cv2.transform(image, _ONES)


def change_of(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Relative change between two detail images, summed over the channels."""
    return _channel_sum(cv2.absdiff(a, b) / (a + b + 0.1))


def _clustered(changed: np.ndarray) -> int:
    """Changed pixels with at least two changed neighbours: moving things change groups of
    pixels, noise and the rest of a shadow scattered ones."""
    neighbours = cv2.boxFilter(changed, -1, (3, 3), normalize=False)
    return cv2.countNonZero(cv2.bitwise_and(changed, (neighbours >= 3).astype(np.uint8)))


def _changed(a: np.ndarray, b: np.ndarray, threshold: float) -> np.ndarray:
    return (change_of(a, b) > threshold).astype(np.uint8)
