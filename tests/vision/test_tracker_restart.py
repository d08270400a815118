"""The tracker started while a shadow lay on the tray (the device restarting after a power
cut with someone standing by): the shadow leaves no ghost once it goes; a white die thrown
later is still foreground, not taken for a shadow that went.

Found by the power-cut soak: restarted while a passing shadow lay on the tray, the tracker
took its ghost for a hand, then for "something unread" beside the dice, for good, and the
game stood still (20 of 134 games).
"""

from __future__ import annotations

import dataclasses

import cv2
import numpy as np

from lab.sessions.script import random_script
from lab.sessions.synth import SessionConfig, synthesize
from lab.sessions.truth import TruthReader as SessionTruthReader
from lab.synth import BackgroundSpec, SceneSpec, random_scene, render
from vision.reading import DieReading, Problem, Reading
from vision.tracker import ThrowTracker
from vision.tracker_events import ForeignObject, ThrowSettled, TrackerEvent, TrayEmpty

FPS = 30.0


def scene() -> SceneSpec:
    """Red dice on a light tray (as the soak's sessions): a shadow there is plain to see."""
    rng = np.random.default_rng(4404)
    base = random_scene(rng, n_dice=5, size_range=(40, 48), max_tilt_deg=5, backgrounds=("felt",),
                        styles=("opaque",), tray_prob=1.0, blur_prob=0.0, jpeg_range=None, noise_range=(1.5, 1.5))
    light = BackgroundSpec("felt", (175.0, 200.0, 215.0), texture=0.6)
    return dataclasses.replace(base, background=light)


class TruthReader:
    """Reads the dice of the scene shown (the reader itself is not under test here)."""

    def __init__(self) -> None:
        self.dice: tuple[DieReading, ...] = ()

    def show(self, shown: SceneSpec) -> np.ndarray:
        out = render(shown)
        self.dice = tuple(DieReading(label.value, label.center, label.size, label.angle, 0.99)
                          for label in out.labels)
        return out.image

    def __call__(self, image: np.ndarray, expected: int | None) -> Reading:
        return Reading(self.dice)


def shadowed(image: np.ndarray, t: float, gone_at: float) -> np.ndarray:
    """A person's soft shadow (30 % darker at its core) over the left of the tray, walking
    out of the picture to the left until `gone_at`."""
    h, w = image.shape[:2]
    cx = 0.35 * w - (0.35 * w + 0.5 * h) * min(1.0, t / gone_at)
    blob = np.zeros((h, w), np.float32)
    cv2.ellipse(blob, (int(cx), int(0.55 * h)), (int(0.45 * h), int(0.3 * h)), 20.0, 0, 360, 1.0, -1)
    blob = cv2.GaussianBlur(blob, (0, 0), 0.45 * h / 4)
    return np.clip(image.astype(np.float32) * (1.0 - 0.3 * blob)[..., None], 0, 255).astype(np.uint8)


def feed(tracker: ThrowTracker, frames: list[tuple[float, np.ndarray]]) -> list[TrackerEvent]:
    events: list[TrackerEvent] = []
    for t, image in frames:
        events += tracker.feed(image, t)
    return events


def bench_session_events(seed: int, until: float, start: float = 0.0) -> list[tuple[float, TrackerEvent]]:
    """(t, event) of a tracker started at `start` seconds into the tracker bench's session
    of `seed` (`cubilete bench tracker`), up to `until`, read by the session's truth."""
    rng = np.random.default_rng(seed)
    session = synthesize(random_script(rng, turns=3), rng=rng, config=SessionConfig())
    reader = SessionTruthReader(session.truth)
    tracker = ThrowTracker(dice_count=5, reader=reader)
    events: list[tuple[float, TrackerEvent]] = []
    for frame in session.frames():
        if frame.t > until:
            break
        if frame.t < start:
            continue
        reader.t = frame.t
        events += [(frame.t, e) for e in tracker.feed(frame.image, frame.t)]
    return events


def unread(events: list[TrackerEvent]) -> list[Problem]:
    return [p for e in events if hasattr(e, "reading") for p in e.reading.problems if p.kind == "unreadable"]


def test_a_shadow_on_the_tray_at_start_leaves_no_ghost() -> None:
    reader = TruthReader()
    tracker = ThrowTracker(dice_count=5, reader=reader)
    image = reader.show(scene())
    frames = [(k / FPS, shadowed(image, k / FPS, gone_at=0.8)) for k in range(int(0.8 * FPS))]
    frames += [(k / FPS, image) for k in range(int(0.8 * FPS), int(4 * FPS))]
    events = feed(tracker, frames)
    assert not [e for e in events if isinstance(e, ForeignObject)], "the shadow's ghost taken for a hand"
    settles = [e for e in events if isinstance(e, ThrowSettled)]
    assert len(settles) == 1 and len(settles[0].reading.dice) == 5
    assert not unread(events), "the shadow's ghost taken for something unread"
    # and nothing of it is left as foreground away from the dice
    sample = tracker.detector.update(image, 4.0)
    away = sample.foreground.copy()
    for die in reader.dice:
        x, y = tracker.detector.to_small(*die.center)
        r = die.size * tracker.detector.scale
        away[max(0, int(y - r)):int(y + r) + 1, max(0, int(x - r)):int(x + r) + 1] = 0
    assert cv2.countNonZero(away) == 0


def test_a_white_die_thrown_later_is_not_taken_for_a_shadow_that_went() -> None:
    reader = TruthReader()
    tracker = ThrowTracker(dice_count=5, reader=reader)
    full = scene()
    white = dataclasses.replace(full, dice=tuple(dataclasses.replace(d, body_bgr=(245.0, 245.0, 245.0),
                                                                     pip_bgr=(25.0, 25.0, 25.0))
                                                 for d in full.dice))
    empty = reader.show(dataclasses.replace(full, dice=()))
    feed(tracker, [(k / FPS, empty) for k in range(int(1.0 * FPS))])
    image = reader.show(white)
    feed(tracker, [(k / FPS, image) for k in range(int(1.0 * FPS), int(3 * FPS))])
    sample = tracker.detector.update(image, 3.0)
    for die in reader.dice:
        x, y = tracker.detector.to_small(*die.center)
        r = max(1, int(0.3 * die.size * tracker.detector.scale))
        core = sample.foreground[int(y) - r:int(y) + r + 1, int(x) - r:int(x) + r + 1]
        assert core.mean() > 0.5, f"the white die at {die.center} healed into the empty tray"


def test_dice_picked_up_after_a_throw_leave_the_tray_empty() -> None:
    # The first eight seconds of the tracker bench's first session: a throw, then the dice
    # picked up. When the plain faces of light dice were healed into the background as the
    # ghost of a shadow, a die-shaped patch stayed behind and was taken for a hand, and the
    # tray was never seen empty again (the bench matched 6 of 19 events).
    events = bench_session_events(seed=1, until=8.0)
    assert any(isinstance(e, ThrowSettled) for _, e in events)
    picked_up = [(t, type(e).__name__) for t, e in events if t > 6.0]
    assert picked_up and isinstance(events[-1][1], TrayEmpty), picked_up


def edge_shadow(image: np.ndarray, strength: float) -> np.ndarray:
    """The rest of a shadow along the left edge of the view: a strip far smaller than four
    dice (the soak's restarts saw one while a person stepped out of the picture)."""
    h, w = image.shape[:2]
    strip = np.zeros((h, w), np.float32)
    strip[int(0.45 * h):int(0.7 * h), :int(0.03 * w)] = 1.0
    strip = cv2.GaussianBlur(strip, (0, 0), 2.0)
    return np.clip(image.astype(np.float32) * (1.0 - strength * strip)[..., None], 0, 255).astype(np.uint8)


def test_the_rest_of_a_shadow_at_the_edge_of_the_view_leaves_no_ghost() -> None:
    # A power-cut restart learnt the empty tray with a strip of shadow at the frame's left
    # edge; once it went, the strip (too small to pass for a shadow's ghost by its size) was
    # "something unread" beside every throw, and the game stood still.
    reader = TruthReader()
    tracker = ThrowTracker(dice_count=5, reader=reader)
    full = scene()
    empty = reader.show(dataclasses.replace(full, dice=()))
    frames = [(k / FPS, edge_shadow(empty, 0.3 * (1 - k / (0.5 * FPS)))) for k in range(int(0.5 * FPS))]
    frames += [(k / FPS, empty) for k in range(int(0.5 * FPS), int(2 * FPS))]
    image = reader.show(full)
    frames += [(k / FPS, image) for k in range(int(2 * FPS), int(4 * FPS))]
    events = feed(tracker, frames)
    assert not unread(events), "the strip of shadow taken for something unread"
    settles = [e for e in events if isinstance(e, ThrowSettled)]
    assert len(settles) == 1 and len(settles[0].reading.dice) == 5


def test_a_hand_resting_in_the_tray_is_not_healed_into_it() -> None:
    # The tracker bench's second session: a hand (skin, brighter than the olive cloth, with
    # little texture) lies still over the tray while it picks dice up. It passed for the ghost
    # of a shadow that went (a flat, lighter patch bigger than four dice) and was healed into
    # the empty tray; from then on the tray was foreground everywhere and the bench matched
    # none of the session's events after the first throw. A shadow lifts every channel alike,
    # the hand does not.
    events = bench_session_events(seed=2, until=10.0)
    later = [type(e).__name__ for t, e in events if t > 6.0]
    assert "DiceRemoved" in later and "ThrowSettled" in later, later


def test_started_while_the_dice_roll_the_tracker_follows_the_game() -> None:
    # The device back from a power cut while a throw is rolling (the bench's first session,
    # its dice rolling from 1.4 s to 2.7 s): the first frame, taken as the empty tray, held
    # the dice where they were mid-roll, and their ghosts were a hand that never went: not
    # one event in the next nine seconds. The tracker learns the tray afresh until the
    # scene first stands still.
    events = [type(e).__name__ for _, e in bench_session_events(seed=1, until=11.0, start=1.8)]
    settled = [name for name in events if name in ("ThrowSettled", "TrayEmpty")]
    assert settled == ["ThrowSettled", "TrayEmpty", "ThrowSettled"], events
