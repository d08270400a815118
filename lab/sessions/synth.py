"""Synthetic recorded sessions: a scripted or random game played out frame by frame, with truth.

    session = generate_session("out/session", random_script(rng), rng)        # a folder
    synthetic = synthesize(script, rng, SessionConfig(width=320, height=240))  # in memory
    for frame in synthetic.frames(): ...

The players' actions (lab.sessions.script) become motion (lab.sessions.motion): the cup
comes in from an edge and the dice tumble out, bounce, roll and stop one after the other;
a hand picks dice up, turns one over, nudges one; dice roll off the tray. The scenes are
rendered by lab.synth, then the camera's faults are added: exposure flicker and steps,
mains flicker bands rolling through the rows, a lamp drifting slowly, shadows of people
walking past, motion blur of rolling dice, sensor noise and JPEG.

The truth (written into session.json under "truth") says, for every moment the scene comes
to rest, what the tracker should report and each die's value, place and how it moved since
the last throw; and when dice were moving and hands were in view.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Iterator, Sequence

import cv2
import numpy as np

from hardware.recording import Frame, Session, SessionWriter, open_session
from lab.sessions.motion import DieTimeline, OccluderPath, Point, Rest, Roll, Slide
from lab.sessions.script import (
    ClearTray, HandPass, HandRest, Nudge, Pause, Step, Throw, TurnOver, random_script, script_to_json,
)
from lab.synth import DieSpec, Occluder, SceneSpec, random_scene, render
from lab.synth.filters import seeded_noise
from lab.synth.geometry import Camera, die_pose
from lab.synth.renderer import base_layer
from lab.synth.shapes import occluder_mask

QUIET_NEEDED_S = 0.5  # a rest shorter than this need not be reported by the tracker
SKIN = ((140, 170, 225), (95, 130, 185), (60, 85, 130), (165, 190, 230))
CUP = ((30, 45, 80), (20, 20, 25), (40, 70, 120), (25, 35, 60))


@dataclass(frozen=True)
class SessionConfig:
    width: int = 640
    height: int = 480
    fps: float = 30.0
    still_fps: float | None = None  # frame rate while nothing moves (None: fps); lower makes demos cheap
    dice_px: tuple[float, float] = (40.0, 70.0)  # side of a die's top face in the image
    max_tilt_deg: float = 20.0
    jpeg_quality: int = 88
    camera_faults: bool = True  # flicker, exposure steps, rolling bands, lamp drift, shadows passing
    motion_blur: bool = True
    noise_sigma: tuple[float, float] = (1.5, 4.0)
    think_s: tuple[float, float] = (0.9, 1.6)  # players look at the display between actions
    lead_in_s: float = 1.0  # still, empty tray before the first action
    cocked_deg: tuple[float, float] = (12.0, 25.0)


@dataclass
class SyntheticSession:
    """A synthesized session before it is written: its frames come from `frames()`."""

    config: SessionConfig
    truth: dict[str, Any]
    times: list[float]
    _renderer: "_Renderer"

    def frames(self) -> Iterator[Frame]:
        for t in self.times:
            yield Frame(t, self._renderer.frame(t))


def synthesize(script: Sequence[Step] | None = None, rng: np.random.Generator | None = None,
               config: SessionConfig = SessionConfig(), dice_count: int = 5) -> SyntheticSession:
    """Play a script (random when None) on a random tray, lighting and dice set from rng."""
    rng = rng if rng is not None else np.random.default_rng(0)
    if script is None:
        script = random_script(rng, dice_count=dice_count)
    stage = _Stage(rng, config, dice_count)
    choreographer = _Choreographer(stage, rng)
    for step in script:
        choreographer.play(step)
    truth = choreographer.finish()
    truth["script"] = script_to_json(script)
    renderer = _Renderer(stage, choreographer, _Faults.random(rng, config, truth["duration"]))
    renderer.label_settles(truth["settles"])
    truth["hands"] = renderer.visible_intervals()
    times = _frame_times(config, truth["duration"], renderer, rng)
    return SyntheticSession(config, truth, times, renderer)


def generate_session(path: str | Path, script: Sequence[Step] | None = None,
                     rng: np.random.Generator | None = None, config: SessionConfig = SessionConfig(),
                     dice_count: int = 5) -> Session:
    """Synthesize a session and write it as a session folder (JPEG frames + session.json)."""
    synthetic = synthesize(script, rng, config, dice_count)
    writer = SessionWriter(path, config.fps, jpeg_quality=config.jpeg_quality,
                           meta={"generator": "lab.sessions.synth", "width": config.width,
                                 "height": config.height})
    writer.truth = synthetic.truth
    for frame in synthetic.frames():
        writer.write(frame.image, frame.t)
    writer.close()
    return open_session(path)


# -- the stage: tray, camera, dice set -----------------------------------------------------------


class _Stage:
    """The fixed scene (tray, light, camera, the dice set) and its geometry."""

    def __init__(self, rng: np.random.Generator, config: SessionConfig, dice_count: int) -> None:
        self.config = config
        base = random_scene(rng, n_dice=dice_count, width=config.width, height=config.height,
                            size_range=config.dice_px, max_tilt_deg=config.max_tilt_deg, matched_set_prob=1.0,
                            occluder_prob=0.0, cocked_prob=0.0, jpeg_range=None, blur_prob=0.0,
                            noise_range=(0.0, 0.0), touching=False)
        self.scene = replace(base, dice=(), occluders=(), noise_sigma=0.0, jpeg_quality=None)
        self.templates = [replace(d, angle=0.0) for d in base.dice]
        self.camera = Camera.from_spec(base.camera, config.width, config.height)
        self.size = float(np.median([d.size for d in base.dice]))
        self.die_px = float(np.mean(config.dice_px))
        self.noise_sigma = float(rng.uniform(*config.noise_sigma))
        self._to_image = self.camera.plane_to_image(self.size)
        self._to_plane = np.linalg.inv(self._to_image)
        self.skin = tuple(float(c) for c in SKIN[int(rng.integers(len(SKIN)))])
        self.cup_colour = tuple(float(c) for c in CUP[int(rng.integers(len(CUP)))])

    def to_image(self, p: Point) -> Point:
        q = self._to_image @ np.array([p[0], p[1], 1.0])
        return float(q[0] / q[2]), float(q[1] / q[2])

    def to_plane(self, p: Point) -> Point:
        q = self._to_plane @ np.array([p[0], p[1], 1.0])
        return float(q[0] / q[2]), float(q[1] / q[2])

    def fits(self, die: DieSpec, margin: float) -> bool:
        """The die lies inside the picture (with a margin, px) and on the tray floor."""
        corners = self.camera.project(die_pose(die).corners())
        w, h = self.config.width, self.config.height
        if corners.min() < margin or corners[:, 0].max() > w - 1 - margin or corners[:, 1].max() > h - 1 - margin:
            return False
        tray = self.scene.tray
        if tray is not None:
            foot = die_pose(die).footprint()
            keep = tray.wall_height * 1.8 + 2
            x0, y0, x1, y1 = tray.inner
            if foot[:, 0].min() < x0 + keep or foot[:, 0].max() > x1 - keep:
                return False
            if foot[:, 1].min() < y0 + keep or foot[:, 1].max() > y1 - keep:
                return False
        return True

    def random_rest(self, rng: np.random.Generator, value: int, others: Sequence[Point],
                    spacing: float = 1.55) -> Rest:
        """A random place on the tray for a die, clear of the others (centre distance in sides)."""
        w, h = self.config.width, self.config.height
        for attempt in range(400):
            p = self.to_plane((float(rng.uniform(0, w)), float(rng.uniform(0, h))))
            rest = Rest(p, value, float(rng.uniform(0, 90)))
            gap = spacing * (0.9 if attempt > 200 else 1.0)
            if any(math.dist(p, o) < gap * self.size for o in others):
                continue
            if self.fits(rest.spec(self.templates[0]), margin=0.25 * self.die_px):
                return rest
        raise RuntimeError("no room left on the tray for another die")

    def edge_entry(self, target: Point, rng: np.random.Generator, reach: float) -> tuple[Point, float]:
        """Where a hand coming for an image point `target` starts (outside the picture), and the
        direction it points (degrees, image frame): it comes from the nearest edge, roughly."""
        w, h = self.config.width, self.config.height
        x, y = target
        distances = {0.0: x, 180.0: w - x, 90.0: y, 270.0: h - y}  # angle the hand points to: from that edge
        ordered = sorted(distances, key=distances.get)
        angle = ordered[0] if rng.random() < 0.75 else ordered[1]
        angle += float(rng.uniform(-25, 25))
        return self.outside(target, angle, reach), angle

    def outside(self, point: Point, angle: float, reach: float) -> Point:
        """From `point` back against `angle` until something `reach` px long is out of the picture."""
        w, h = self.config.width, self.config.height
        a = math.radians(angle)
        dx, dy = -math.cos(a), -math.sin(a)
        exits = []
        for d, p, limit in ((dx, point[0], w), (dy, point[1], h)):
            if d > 1e-6:
                exits.append((limit - p) / d)
            elif d < -1e-6:
                exits.append(-p / d)
        back = max(0.0, min(exits)) + reach + 10.0
        return point[0] + dx * back, point[1] + dy * back


# -- the choreographer: script steps become timelines and truth -------------------------------------


class _Choreographer:
    def __init__(self, stage: _Stage, rng: np.random.Generator) -> None:
        self.stage = stage
        self.rng = rng
        self.n = len(stage.templates)
        self.dice = [DieTimeline(template) for template in stage.templates]
        self.rest: list[Rest | None] = [None] * self.n  # where each die lies now (None: not on the tray)
        self.occluders: list[OccluderPath] = []
        self.now = stage.config.lead_in_s
        self.settles: list[dict[str, Any]] = []
        self.motion: list[list[float]] = []
        self.hands: list[list[float]] = []
        self.moved = ["held"] * self.n  # how each die moved since the last settled throw
        # a hand is about 11 dice long (19 cm against 16-19 mm dice); a little smaller keeps dice visible
        self.hand_size = float(np.clip(8.0 * stage.die_px, 0.5 * min(stage.config.width, stage.config.height),
                                       1.1 * min(stage.config.width, stage.config.height)))
        self.settles.append(self._settle_record("tray_empty", 0.0, step=None))

    # -- steps ---------------------------------------------------------------------------------------

    def play(self, step: Step) -> None:
        index = len(self.settles)
        if isinstance(step, Throw):
            self._throw(step)
        elif isinstance(step, TurnOver):
            self._turn_over(step)
        elif isinstance(step, Nudge):
            self._nudge(step)
        elif isinstance(step, ClearTray):
            self._clear()
        elif isinstance(step, HandPass):
            self._hand_visit(dwell=0.15, touch=False)
            self._settle(None)
        elif isinstance(step, HandRest):
            self._hand_visit(dwell=step.seconds, touch=False)
            self._settle(None)
        elif isinstance(step, Pause):
            self.now += step.seconds
            return
        for record in self.settles[index:]:
            record["step"] = type(step).__name__
        self.now += float(self.rng.uniform(*self.stage.config.think_s))

    def _throw(self, step: Throw) -> None:
        if len(step.values) != self.n:
            raise ValueError(f"a throw needs {self.n} values, got {len(step.values)}")
        thrown = step.thrown
        if not thrown:
            raise ValueError("a throw must throw at least one die")
        for i in range(self.n):
            if step.values[i] is None and self.rest[i] is None:
                raise ValueError(f"die {i} is held but not on the tray")
        on_tray = [i for i in thrown if self.rest[i] is not None]
        if on_tray:
            self._pick_up(on_tray)
            pause = step.pause_s if step.pause_s is not None else (
                0.1 if self.rng.random() < 0.5 else float(self.rng.uniform(0.9, 1.5)))
            # required or optional once the renderer knows how long the tray is really left alone
            self._settle("dice_removed" if any(r is not None for r in self.rest) else "tray_empty")
            self.now += pause
        if all(r is None for r in self.rest):
            self.moved = ["held"] * self.n
        self._cup_throw(step)
        for i in thrown:
            self.moved[i] = "thrown"
        self._settle("settled")

    def _begin(self) -> None:
        """Something starts to change now: the last settled scene lasted until here."""
        self.settles[-1].setdefault("t_next", round(self.now, 6))

    def _cup_throw(self, step: Throw) -> None:
        self._begin()
        stage, rng = self.stage, self.rng
        cup_px = 4.5 * stage.die_px  # a leather cup is about 8 cm across
        landing_side = self._random_point_in_view(margin=min(0.6 * cup_px, 0.4 * min(stage.config.width,
                                                                                     stage.config.height)))
        start, angle = stage.edge_entry(landing_side, rng, reach=cup_px)
        a = math.radians(angle)
        fwd = (math.cos(a), math.sin(a))
        t_in, t_release = self.now, self.now + 0.4
        t_out = t_release + 0.45
        cup = Occluder("cup", landing_side, cup_px, 0.0, stage.cup_colour, height=70.0,
                       texture_seed=int(rng.integers(2**31)))
        arm_at = (landing_side[0] - fwd[0] * 0.45 * cup_px, landing_side[1] - fwd[1] * 0.45 * cup_px)
        arm = Occluder("arm", arm_at, 0.55 * cup_px, angle, stage.skin, height=80.0,
                       texture_seed=int(rng.integers(2**31)))
        away = (start[0] - landing_side[0], start[1] - landing_side[1])
        for look, at in ((arm, arm_at), (cup, landing_side)):
            gone = (at[0] + away[0], at[1] + away[1])
            self.occluders.append(OccluderPath(look, ((t_in, gone), (t_release - 0.05, at),
                                                      (t_release + 0.1, at), (t_out, gone))))
        self.hands.append([t_in, t_out])
        release = stage.to_plane(landing_side)
        others = [r.center for r in self.rest if r is not None]
        last_stop = t_out
        for i in step.thrown:
            value = int(step.values[i])  # type: ignore[arg-type]
            if i in step.off_tray:
                end = self._off_tray_rest(release, value)
            else:
                end = stage.random_rest(rng, value, others)
                if i in step.cocked:
                    end = replace(end, cocked_deg=float(rng.uniform(*stage.config.cocked_deg)),
                                  cocked_side=int(rng.integers(4)))
                others.append(end.center)
            jitter = (float(rng.normal(0, 0.25)) * stage.size, float(rng.normal(0, 0.25)) * stage.size)
            begin = (release[0] + jitter[0], release[1] + jitter[1])
            t0 = t_release + float(rng.uniform(0.0, 0.12))
            distance = math.dist(begin, end.center) / max(stage.size, 1.0)
            t1 = t0 + float(np.clip(0.45 + 0.09 * distance + rng.uniform(0, 0.35), 0.6, 1.8))
            self.dice[i].add(self.now, None)
            roll = Roll(t0, t1, begin, end, tumble=float(rng.uniform(0.5, 1.5)), bounce=float(rng.uniform(0.4, 1.0)))
            self.dice[i].add(t0, roll)
            if i in step.off_tray:
                t1 = self._leaves_view(roll)  # out of the picture, it no longer counts as moving
            self.motion.append([t0, t1])
            self.rest[i] = None if i in step.off_tray else end
            last_stop = max(last_stop, t1)
        self.now = last_stop

    def _leaves_view(self, roll: Roll) -> float:
        """When a die rolling off the tray is last seen (its centre plus a die of margin)."""
        stage = self.stage
        w, h, m = stage.config.width, stage.config.height, 0.8 * stage.die_px

        def in_view(t: float) -> bool:
            x, y = stage.to_image(roll.spec(stage.templates[0], t).center)
            return -m < x < w + m and -m < y < h + m

        lo, hi = roll.t0, roll.t1
        if in_view(hi):
            return hi
        for _ in range(20):
            mid = (lo + hi) / 2
            lo, hi = (mid, hi) if in_view(mid) else (lo, mid)
        return hi

    def _off_tray_rest(self, release: Point, value: int) -> Rest:
        """A resting place beyond the nearest edge of the picture: the die rolled off the tray."""
        stage = self.stage
        x, y = stage.to_image(release)
        w, h = stage.config.width, stage.config.height
        options = {(-2.5 * stage.die_px, y): x, (w + 2.5 * stage.die_px, y): w - x,
                   (x, -2.5 * stage.die_px): y, (x, h + 2.5 * stage.die_px): h - y}
        target = min(options, key=options.get)
        return Rest(stage.to_plane(target), value, float(self.rng.uniform(0, 90)))

    def _pick_up(self, dice: Sequence[int]) -> None:
        def take(i: int, t: float) -> None:
            self.dice[i].add(t, None)
            self.rest[i] = None

        self._hand_tour(list(dice), take, dwell=0.22)

    def _turn_over(self, step: TurnOver) -> None:
        rng, stage = self.rng, self.stage

        def flip(i: int, t: float) -> None:
            old = self.rest[i]
            assert old is not None
            self.dice[i].add(t, None)
            offset = rng.normal(0, 0.08, 2) * stage.size
            others = [r.center for k, r in enumerate(self.rest) if r is not None and k != i]
            new = replace(old, value=7 - old.value, angle=float(rng.uniform(0, 90)),
                          center=(old.center[0] + float(offset[0]), old.center[1] + float(offset[1])))
            if any(math.dist(new.center, o) < 1.45 * stage.size for o in others) or not stage.fits(
                    new.spec(stage.templates[i]), margin=2):
                new = replace(new, center=old.center)
            self.dice[i].add(t + 0.25, new)
            self.rest[i] = new
            self.moved[i] = "turned"

        for i in step.dice:
            if self.rest[i] is None:
                raise ValueError(f"die {i} is not on the tray: it cannot be turned over")
        self._hand_tour(list(step.dice), flip, dwell=0.45)
        self._settle("settled")

    def _nudge(self, step: Nudge) -> None:
        stage, rng = self.stage, self.rng
        rest = self.rest[step.die]
        if rest is None:
            raise ValueError(f"die {step.die} is not on the tray: it cannot be nudged")
        self._begin()
        target = stage.to_image(rest.center)
        start, angle = stage.edge_entry(target, rng, reach=self.hand_size)
        a = math.radians(angle)
        fwd = (math.cos(a), math.sin(a))
        tips = 0.62 * self.hand_size + 0.55 * stage.die_px
        start = stage.outside((target[0] - fwd[0] * tips, target[1] - fwd[1] * tips), angle, self.hand_size)
        contact = (target[0] - fwd[0] * tips, target[1] - fwd[1] * tips)
        others = [r.center for k, r in enumerate(self.rest) if r is not None and k != step.die]
        for _ in range(20):
            push = float(rng.uniform(0.3, 0.6)) * stage.die_px
            moved_to = stage.to_plane((target[0] + fwd[0] * push, target[1] + fwd[1] * push))
            new = replace(rest, center=moved_to, angle=rest.angle + float(rng.uniform(-15, 15)))
            if not any(math.dist(moved_to, o) < 1.45 * stage.size for o in others) and stage.fits(
                    new.spec(stage.templates[step.die]), margin=2):
                break
            fwd = (-fwd[0], -fwd[1]) if rng.random() < 0.5 else fwd
        else:
            push, new = 0.0, rest
        pushed = (contact[0] + fwd[0] * push, contact[1] + fwd[1] * push)
        t_arrive = self.now + 0.45
        t_pushed = t_arrive + 0.3
        t_gone = t_pushed + 0.4
        hand = Occluder("hand", start, self.hand_size, angle, stage.skin, height=40.0,
                        texture_seed=int(rng.integers(2**31)))
        self.occluders.append(OccluderPath(hand, ((self.now, start), (t_arrive, contact), (t_pushed, pushed),
                                                  (t_gone, stage.outside(pushed, angle, self.hand_size)))))
        self.hands.append([self.now, t_gone])
        if push:
            self.dice[step.die].add(t_arrive, Slide(t_arrive, t_pushed, rest, new))
            self.dice[step.die].add(t_pushed, new)
            self.motion.append([t_arrive, t_pushed])
            self.rest[step.die] = new
            self.moved[step.die] = "ambiguous"
        self.now = t_gone
        self._settle("settled" if push else None)

    def _clear(self) -> None:
        on_tray = [i for i in range(self.n) if self.rest[i] is not None]
        if on_tray:
            self._pick_up(on_tray)
            self._settle("tray_empty")
        self.moved = ["held"] * self.n

    def _hand_visit(self, dwell: float, touch: bool) -> None:
        self._begin()
        target = self._random_point_in_view(margin=0.15 * min(self.stage.config.width, self.stage.config.height))
        start, angle = self.stage.edge_entry(target, self.rng, reach=self.hand_size)
        hand = Occluder("hand", start, self.hand_size, angle, self.stage.skin, height=60.0,
                        texture_seed=int(self.rng.integers(2**31)))
        t_arrive = self.now + 0.45
        t_leave = t_arrive + dwell
        t_gone = t_leave + 0.4
        self.occluders.append(OccluderPath(hand, ((self.now, start), (t_arrive, target), (t_leave, target),
                                                  (t_gone, start))))
        self.hands.append([self.now, t_gone])
        self.now = t_gone

    def _hand_tour(self, dice: list[int], action: Any, dwell: float) -> None:
        """One hand comes in, visits the dice (nearest first) and does `action(i, t)` at each."""
        self._begin()
        stage, rng = self.stage, self.rng
        order: list[int] = []
        remaining = list(dice)
        first = stage.to_image(self.rest[remaining[0]].center)  # type: ignore[union-attr]
        start, angle = stage.edge_entry(first, rng, reach=self.hand_size)
        position = start
        while remaining:
            nearest = min(remaining, key=lambda i: math.dist(position, stage.to_image(self.rest[i].center)))  # type: ignore[union-attr]
            order.append(nearest)
            remaining.remove(nearest)
            position = stage.to_image(self.rest[nearest].center)  # type: ignore[union-attr]
        a = math.radians(angle)
        palm_back = 0.08 * self.hand_size
        keys: list[tuple[float, Point]] = [(self.now, start)]
        t = self.now
        position = start
        for i in order:
            x, y = stage.to_image(self.rest[i].center)  # type: ignore[union-attr]
            over = (x - math.cos(a) * palm_back, y - math.sin(a) * palm_back)
            t += 0.2 + math.dist(position, over) / (2.2 * max(stage.config.width, stage.config.height))
            keys.append((t, over))
            action(i, t + 0.06)
            t += dwell
            keys.append((t, over))
            position = over
        t += 0.4
        keys.append((t, stage.outside(position, angle, self.hand_size)))
        hand = Occluder("hand", start, self.hand_size, angle, stage.skin, height=50.0,
                        texture_seed=int(rng.integers(2**31)))
        self.occluders.append(OccluderPath(hand, tuple(keys)))
        self.hands.append([self.now, t])
        self.now = t

    def _random_point_in_view(self, margin: float) -> Point:
        w, h = self.stage.config.width, self.stage.config.height
        return float(self.rng.uniform(margin, w - margin)), float(self.rng.uniform(margin, h - margin))

    # -- truth -----------------------------------------------------------------------------------------

    def _settle(self, expect: str | None, optional: bool = False) -> None:
        self.settles.append(self._settle_record(expect, self.now, optional=optional))
        if expect == "settled":
            self.moved = ["held"] * self.n

    def _settle_record(self, expect: str | None, t: float, step: str | None = None,
                       optional: bool = False) -> dict[str, Any]:
        dice = [{"id": i, "value": r.value, "plane": [round(r.center[0], 2), round(r.center[1], 2)],
                 "moved": self.moved[i], "cocked": r.cocked_deg > 0}
                for i, r in enumerate(self.rest) if r is not None]
        return {"t_stop": round(t, 6), "expect": expect, "optional": optional, "dice": dice, "step": step}

    def finish(self) -> dict[str, Any]:
        end = self.end = self.now + 0.5
        for record in self.settles:
            record.setdefault("t_next", round(end, 6))
        return {"dice_count": self.n, "duration": round(end, 4), "settles": self.settles,
                "motion": [[round(a, 4), round(b, 4)] for a, b in self.motion],
                "hands": [[round(a, 4), round(b, 4)] for a, b in self.hands]}


# -- rendering ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Faults:
    """The camera's and the room's imperfections, all functions of time."""

    drift: float = 0.0  # slow lamp drift amplitude (0.06 = +-6 %)
    drift_period: float = 40.0
    flicker: float = 0.0  # frame-to-frame exposure jitter (sigma)
    steps: tuple[tuple[float, float], ...] = ()  # auto-exposure steps: (time, gain from then on)
    bands: float = 0.0  # rolling mains-flicker bands (amplitude)
    band_cycles: float = 2.0
    band_speed: float = 0.7  # cycles per second the bands roll
    shadows: tuple[tuple[float, float, Point, Point, float, float], ...] = ()  # t0, t1, from, to, radius, depth
    seed: int = 0

    @classmethod
    def random(cls, rng: np.random.Generator, config: SessionConfig, duration: float) -> "_Faults":
        seed = int(rng.integers(2**31))
        if not config.camera_faults:
            return cls(seed=seed)
        w, h = config.width, config.height
        steps = tuple(sorted((float(rng.uniform(0, duration)), float(rng.uniform(0.94, 1.06)))
                             for _ in range(int(rng.integers(1, 4)))))
        shadows = []
        for _ in range(max(1, int(duration / 25))):
            t0 = float(rng.uniform(0, max(duration - 2.0, 0.1)))
            y = float(rng.uniform(0.2, 0.8) * h)
            going_right = rng.random() < 0.5
            a, b = (-0.5 * w, y), (1.5 * w, y + float(rng.uniform(-0.3, 0.3) * h))
            shadows.append((t0, t0 + float(rng.uniform(1.2, 2.5)), a if going_right else b, b if going_right else a,
                            float(rng.uniform(0.35, 0.6) * h), float(rng.uniform(0.15, 0.3))))
        return cls(drift=float(rng.uniform(0.02, 0.08)), drift_period=float(rng.uniform(20, 60)),
                   flicker=float(rng.uniform(0.004, 0.015)), steps=steps, bands=float(rng.uniform(0.0, 0.025)),
                   band_cycles=float(rng.uniform(1.0, 3.0)), band_speed=float(rng.uniform(0.3, 1.5)),
                   shadows=tuple(shadows), seed=seed)

    def shadow_at(self, t: float) -> bool:
        return any(t0 <= t <= t1 for t0, t1, *_ in self.shadows)

    def apply(self, image: np.ndarray, t: float, frame_seed: int, noise_sigma: float) -> np.ndarray:
        h, w = image.shape[:2]
        rng = np.random.default_rng([self.seed, frame_seed])
        gain = 1.0 + self.drift * math.sin(2 * math.pi * t / self.drift_period) + rng.normal(0, self.flicker)
        for when, step in self.steps:
            if t >= when:
                gain *= step
        rows = np.full(h, gain, np.float32)
        if self.bands:
            y = np.arange(h, dtype=np.float32) / h
            rows *= 1.0 + self.bands * np.sin(2 * np.pi * (y * self.band_cycles + self.band_speed * t))
        out = image.astype(np.float32) * rows[:, None, None]
        for t0, t1, a, b, radius, depth in self.shadows:
            if t0 <= t <= t1:
                out *= (1.0 - depth * _soft_blob(w, h, t, t0, t1, a, b, radius))[..., None]
        if noise_sigma > 0:
            out += seeded_noise(out.shape, int(rng.integers(2**63))) * np.float32(noise_sigma)
        return np.clip(out, 0, 255).astype(np.uint8)


def _soft_blob(w: int, h: int, t: float, t0: float, t1: float, a: Point, b: Point, radius: float) -> np.ndarray:
    """A soft-edged shadow (0..1) of a person walking past between the lamp and the tray."""
    s = (t - t0) / (t1 - t0)
    cx, cy = a[0] + (b[0] - a[0]) * s, a[1] + (b[1] - a[1]) * s
    small = np.zeros((h // 4 + 1, w // 4 + 1), np.float32)
    cv2.ellipse(small, (int(cx / 4), int(cy / 4)), (int(radius / 4), int(radius / 6)), 20.0, 0, 360, 1.0, -1)
    small = cv2.GaussianBlur(small, (0, 0), max(1.0, radius / 16))
    return cv2.resize(small, (w, h), interpolation=cv2.INTER_LINEAR)[:h, :w]


class _Renderer:
    def __init__(self, stage: _Stage, choreographer: _Choreographer, faults: _Faults) -> None:
        self.stage = stage
        self.choreographer = choreographer
        self.faults = faults
        self._last_key: Any = None
        self._last_image: np.ndarray | None = None
        self.exposure_s = 0.5 / stage.config.fps

    def scene_at(self, t: float) -> SceneSpec:
        return self._scene_and_ids(t)[0]

    def _scene_and_ids(self, t: float) -> tuple[SceneSpec, list[int]]:
        ids, dice = [], []
        for i, timeline in enumerate(self.choreographer.dice):
            spec = timeline.spec_at(t)
            if spec is not None:
                ids.append(i)
                dice.append(spec)
        occluders = tuple(o for o in (path.at(t) for path in self.choreographer.occluders) if o is not None)
        return replace(self.stage.scene, dice=tuple(dice), occluders=occluders), ids

    def label_settles(self, settles: list[dict[str, Any]]) -> None:
        """Put each settled scene's dice as the camera sees them (centre, size, angle) into the
        truth, and make each t_stop the moment the last die stopped or the last hand left the view."""
        w, h = self.stage.config.width, self.stage.config.height
        previous_next = 0.0
        for record in settles:
            end = record["t_stop"]
            stops = [b for a, b in self.choreographer.motion if previous_next <= b <= end + 1e-3]
            gone = [self._last_visible(path) for path in self.choreographer.occluders
                    if previous_next <= path.t1 <= end + 1e-3]
            if stops or gone:
                record["t_stop"] = round(max(stops + gone), 6)
            previous_next = record["t_next"]
            starts = [a for a, b in self.choreographer.motion if a >= record["t_next"] - 1e-3] + [
                self._first_visible(path) for path in self.choreographer.occluders if path.t0 >= record["t_next"] - 1e-3]
            record["t_next"] = round(min(starts + [self.choreographer.end]), 6)
            # the tracker needs settle_s (0.3 s) of stillness and a confirming frame: a shorter
            # rest may or may not be reported
            record["optional"] = record["t_next"] - record["t_stop"] < QUIET_NEEDED_S
            scene, ids = self._scene_and_ids(record["t_stop"] + 1e-3)
            labels = {ids[label.index]: label for label in render(scene).labels}
            seen = []
            for die in record["dice"]:
                label = labels.get(die["id"])
                if label is None or not (0 <= label.center[0] < w and 0 <= label.center[1] < h):
                    continue
                seen.append(dict(die, center=[round(label.center[0], 2), round(label.center[1], 2)],
                                 size=round(label.size, 2), angle=round(label.angle, 2), value=label.value,
                                 cocked=bool(label.cocked)))
            record["dice"] = seen

    def visible_intervals(self) -> list[list[float]]:
        """When each hand or cup (or its shadow) is in the picture."""
        return [[round(self._first_visible(path), 6), round(self._last_visible(path), 6)]
                for path in self.choreographer.occluders]

    def _first_visible(self, path: OccluderPath) -> float:
        visible = self._visibility(path)
        lo, hi = path.t0, path.keys[1][0]
        if visible(lo):
            return lo
        for _ in range(12):
            mid = (lo + hi) / 2
            lo, hi = (lo, mid) if visible(mid) else (mid, hi)
        return lo

    def _last_visible(self, path: OccluderPath) -> float:
        """The last moment any part of a hand or cup is in the picture (it leaves along its path)."""
        visible = self._visibility(path)
        lo, hi = path.keys[-2][0], path.t1
        if visible(hi):
            return hi
        for _ in range(12):
            mid = (lo + hi) / 2
            lo, hi = (mid, hi) if visible(mid) else (lo, mid)
        return hi

    def _visibility(self, path: OccluderPath) -> Any:
        w, h = self.stage.config.width, self.stage.config.height
        lamp = base_layer(self.stage.scene).lamps[0]

        def visible(t: float) -> bool:
            look = path.at(t)
            if look is None:
                return False
            if occluder_mask(look, w, h).max() > 0.02:
                return True
            # its shadow falls away from the lamp (as the renderer draws it), blurred, maybe still in view
            dx, dy = look.center[0] - lamp.x, look.center[1] - lamp.y
            reach = look.height / max(lamp.height - look.height, 1.0)
            spread = int(3 * (2 + look.height * 0.12))
            shadow = replace(look, center=(look.center[0] + dx * reach + 0.15 * look.height + spread,
                                           look.center[1] + dy * reach + 0.15 * look.height + spread))
            return bool(occluder_mask(shadow, w + 2 * spread, h + 2 * spread).max() > 0.02)

        return visible

    def moving_at(self, t: float) -> bool:
        return any(d.moving_at(t) for d in self.choreographer.dice) or any(
            p.moving_at(t) for p in self.choreographer.occluders)

    def static_at(self, t: float) -> bool:
        return not self.moving_at(t) and not any(p.at(t) for p in self.choreographer.occluders) and \
            not self.faults.shadow_at(t)

    def clean(self, t: float) -> np.ndarray:
        scene = self.scene_at(t)
        key = (scene.dice, scene.occluders)
        if key == self._last_key and self._last_image is not None:
            return self._last_image
        image = render(scene).image
        if self.stage.config.motion_blur and any(d.moving_at(t) for d in self.choreographer.dice):
            earlier = render(self.scene_at(t - self.exposure_s)).image
            image = cv2.addWeighted(image, 0.5, earlier, 0.5, 0.0)
        self._last_key, self._last_image = key, image
        return image

    def frame(self, t: float) -> np.ndarray:
        return self.faults.apply(self.clean(t), t, int(round(t * 1e4)), self.stage.noise_sigma)


def _frame_times(config: SessionConfig, duration: float, renderer: _Renderer, rng: np.random.Generator) -> list[float]:
    """Frame times at the camera's rate with a little jitter; at `still_fps` while nothing moves."""
    times: list[float] = []
    period = 1.0 / config.fps
    skip = max(1, round(config.fps / config.still_fps)) if config.still_fps else 1
    for k in range(int(duration * config.fps) + 1):
        t = k * period + (float(rng.uniform(-0.1, 0.1)) * period if k else 0.0)
        if skip > 1 and k % skip and renderer.static_at(t) and renderer.static_at(t - period):
            continue
        times.append(round(max(t, times[-1] + 1e-4 if times else 0.0), 6))
    return times
