"""The throw tracker: follows the camera stream and says when a throw has settled.

Feed it every frame with its time. A cheap motion check (vision.motion) runs on each frame;
the full dice reader runs only when the dice have been still for `settle_s` (0.3 s) with no
hand or cup in view, and once more to confirm. Then it compares the dice with the previous
throw (vision.dice_moves) and reports a `ThrowSettled` with the reading and, for every die,
whether it was held, thrown, turned over or is ambiguous.

    tracker = ThrowTracker(dice_count=5)
    for frame in camera:
        for event in tracker.feed(frame.image, frame.t):
            ...

Decisions worth knowing:
- At start the first frame is the empty tray; if the scene moves before it first settles
  (the device started mid-throw), each frame is taken as the tray until it stands still.
- A scene that settles unchanged (a hand passed over the dice) reports nothing; one where
  dice were only taken away reports `DiceRemoved`, not a throw.
- A still object that is not a die (a cup left on the tray) blocks the settle and is
  reported; after `relearn_after_s` of complete stillness it is taken as part of the tray,
  so the device does not hang, and the count check then says which dice are missing.
- A settled throw is read from two frames of the still dice (half-way through the still
  window and at its end) and the two readings are combined: each die's value is the one both
  frames agree on, its confidence their mean, so a die read surely once and doubtfully once
  is not sure. Readings that disagree give `ReadingUnstable`; the tracker reads again until
  two agree or `unstable_timeout_s` passes, and reports the throw with every die that read
  otherwise in any frame of the still period marked unsure.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Callable

import cv2
import numpy as np
from .dice_moves import NEW, THROWN, DiceMoves, MoveConfig, MoveEvidence, classify_moves, match_dice
from .motion import MotionConfig, MotionDetector, MotionSample
from .reader.reader import read_dice
from .reading import SURE_CONFIDENCE, DieReading, Problem, Reading, die_problems
from .tracker_events import (
    DiceRemoved, ForeignObject, MotionStarted, ReadingUnstable, ThrowSettled, TrackerEvent, TrayEmpty,
)

Reader = Callable[[np.ndarray, "int | None"], Reading]

_START, _MOVING, _SETTLED = "start", "moving", "settled"


@dataclass(frozen=True)
class TrackerConfig:
    settle_s: float = 0.3  # the dice have not moved for this long: the throw is over
    confirm_reading: bool = True  # read twice (half-way through the still window, and at its end)
    reread_s: float = 0.15  # after readings disagree, read again this often ...
    unstable_timeout_s: float = 1.2  # ... and report the throw with those dice unsure after this
    foreign_clear_s: float = 0.3  # a hand must be gone this long before it is reported again
    relearn_after_s: float = 10.0  # something still that is not a die this long becomes part of the tray
    tumble_frames: int = 3  # frames of free motion on a die that mean it rolled into place
    vacated_fraction: float = 0.8  # share of a die's place seen empty that means it was lifted
    footprint: float = 0.9  # half-side of a die's footprint (top, sides, shadow), in die sides
    object_area_dice: float = 2.5  # something still bigger than this many dice is not a die
    unread_area_dice: float = 0.35  # something die-sized that the reader did not find
    texture_threshold: float = 0.3  # change of detail against the empty tray that marks a camouflaged object
    texture_margin: float = 1.6  # ... not counted this many die sides around each die (its halo)
    motion: MotionConfig = field(default_factory=MotionConfig)
    moves: MoveConfig = field(default_factory=MoveConfig)


@dataclass
class _Read:
    t: float
    reading: Reading


class ThrowTracker:
    """Turns timestamped frames into tracker events (see vision.tracker_events)."""

    def __init__(self, dice_count: int | None = None, reader: Reader | None = None,
                 config: TrackerConfig = TrackerConfig()) -> None:
        if reader is None:
            reader = read_dice
        self.dice_count = dice_count
        self.reader = reader
        self.config = config
        self.detector = MotionDetector(config.motion)
        self.reads = 0  # how many times the full reader ran
        self._phase = _START
        self._base: Reading | None = None  # the last settled throw the next one is compared with
        self._scene: Reading | None = None  # the last settled scene (throw, removal or empty)
        self._vacated: list[bool] = []
        self._last_read: _Read | None = None
        self._disagreed: list[Reading] = []  # readings of this still period that disagreed with the next
        self._next_read_t = float("-inf")
        self._unstable_since: float | None = None
        self._reader_failed = False
        self._last_foreign_t = float("-inf")
        self._foreign_reported = False
        self._still_object_reported = False
        self._pending: Reading | None = None  # a confirmed reading waiting for a still object to go

    # -- the public interface ----------------------------------------------------------------

    def feed(self, frame: np.ndarray, t: float) -> list[TrackerEvent]:
        sample = self.detector.update(frame, t)
        if self._phase == _START and sample.moving:
            # Started while things moved (mid-throw after a power cut, a hand in the tray):
            # a frame of them is no empty tray, and its ghosts would never go. Until the scene
            # first stands still the tray is learnt afresh from every frame; the dice lying
            # there then are read, and marked as lying in the background, as at any start.
            self.detector.relearn()
        events: list[TrackerEvent] = []
        self._watch_foreign(sample, t, events)
        if sample.moving:
            self._restart_still_period()
            if self._phase == _SETTLED:
                self._phase = _MOVING
                events.append(MotionStarted(t))
        if self._phase == _SETTLED:
            return events
        self._watch_vacated(sample)
        if sample.foreign and sample.still_for >= self.config.relearn_after_s:
            self._absorb_still_things()
        quiet_for = min(sample.still_for, t - self._last_foreign_t)
        if self._pending is not None:
            self._conclude(frame, t, quiet_for, self._pending, sample, events)
            return events
        if t + 1e-6 < self._next_read_t or quiet_for + 1e-6 < self.config.settle_s / 2:
            return events
        if quiet_for + 1e-6 < self.config.settle_s:
            if self.config.confirm_reading and self._last_read is None:
                self._read(frame, t, events)  # the early reading, confirmed at the end of the window
            return events
        self._try_settle(frame, t, quiet_for, sample, events)
        return events

    # -- hands, cups and lifted dice ---------------------------------------------------------------

    def _watch_foreign(self, sample: MotionSample, t: float, events: list[TrackerEvent]) -> None:
        if sample.foreign:
            self._last_foreign_t = t
            if not self._foreign_reported:
                self._foreign_reported = True
                events.append(ForeignObject(t, self._box(sample.foreign_mask)))
        elif self._foreign_reported and t - self._last_foreign_t >= self.config.foreign_clear_s:
            self._foreign_reported = False

    def _watch_vacated(self, sample: MotionSample) -> None:
        """Remember which dice of the last throw had their place seen empty (they were lifted)."""
        if self._base is None or self.detector.valid is None:
            return
        valid = self.detector.valid
        for j, die in enumerate(self._base.dice):
            if self._vacated[j]:
                continue
            box = self._box_small(die, 0.3)
            core = sample.foreground[box]
            if core.size == 0 or not valid[box].all():
                continue
            empty = 1.0 - float(core.mean())
            self._vacated[j] = empty >= self.config.vacated_fraction

    def _absorb_still_things(self) -> None:
        """Nothing has moved for a long time but something that is not a die is in the tray
        (a cup left upside down, a coaster): take it as part of the tray so the device goes on;
        the count check will say if it hides a die."""
        self.detector.relearn(self._footprints(self._scene) if self._scene is not None else None)
        self._last_foreign_t = float("-inf")

    def _restart_still_period(self) -> None:
        self._pending = None
        self._last_read = None
        self._disagreed = []
        self._next_read_t = float("-inf")
        self._unstable_since = None
        self._reader_failed = False

    # -- reading and settling -------------------------------------------------------------------

    def _read(self, frame: np.ndarray, t: float, events: list[TrackerEvent]) -> Reading | None:
        self.reads += 1
        try:
            reading = self.reader(frame, self.dice_count)
        except Exception as error:  # noqa: BLE001 - a reader bug must not stop the device
            if not self._reader_failed:
                events.append(ReadingUnstable(t, f"the reader failed: {error}"))
                self._reader_failed = True
            self._next_read_t = t + self.config.reread_s
            return None
        self._last_read = _Read(t, reading)
        # only dice read surely teach the motion check the die size: one phantom (a speck
        # at the tray's edge) would make real dice look like a hand from then on
        sizes = sorted(d.size for d in reading.dice if d.size > 0 and d.sure)
        if sizes:
            self.detector.die_size = sizes[len(sizes) // 2]
        return reading

    def _try_settle(self, frame: np.ndarray, t: float, quiet_for: float, sample: MotionSample,
                    events: list[TrackerEvent]) -> None:
        previous = self._last_read
        reading = self._read(frame, t, events)
        if reading is None:
            return
        if self.config.confirm_reading:
            if previous is None:
                return  # confirmed by the next frame's reading
            disagreement = _disagreement(previous.reading, reading)
            if disagreement is not None:
                self._disagreed.append(previous.reading)
                if self._unstable_since is None:
                    self._unstable_since = t
                    events.append(ReadingUnstable(t, disagreement))
                if t - self._unstable_since < self.config.unstable_timeout_s:
                    self._next_read_t = t + self.config.reread_s
                    return
            else:
                reading = _combined(reading, previous.reading)
            for earlier in self._disagreed:  # a die read otherwise in this still period is asked about
                reading = _mark_unsure(reading, earlier)
        self._conclude(frame, t, quiet_for, reading, sample, events)

    def _conclude(self, frame: np.ndarray, t: float, quiet_for: float, reading: Reading,
                  sample: MotionSample, events: list[TrackerEvent]) -> None:
        still_object, unread = self._leftovers(reading, sample)
        if still_object is not None:
            if quiet_for < self.config.relearn_after_s:
                if not self._still_object_reported:
                    self._still_object_reported = True
                    events.append(ForeignObject(t, still_object, still=True))
                self._pending = reading  # looked at again every frame, until it goes or moves
                return
            self._absorb_still_things()
            self._mark_all_unknown(reading)
        self._pending = None
        self._still_object_reported = False
        reading = self._checked(reading, unread)
        self._mark_dice_in_background(reading, sample)
        footprints = self._footprints(reading)
        self.detector.known_dice = None if footprints is None else cv2.bitwise_and(footprints, sample.foreground)
        if not reading.dice and not unread:
            if self._phase == _START or (self._scene is not None and self._scene.dice) or self._scene is None:
                events.append(TrayEmpty(t))
            self._scene = reading
            self._set_base(None)
        else:
            self._report_dice(frame, t, reading, events)
        self._phase = _SETTLED

    def _report_dice(self, frame: np.ndarray, t: float, reading: Reading, events: list[TrackerEvent]) -> None:
        if self._phase == _START:
            events.append(ThrowSettled(t, reading, (NEW,) * len(reading.dice), (None,) * len(reading.dice),
                                       self.dice_count, frame.copy()))
            self._scene = reading
            self._set_base(reading)
            return
        against_scene = classify_moves(self._scene.dice if self._scene else (), reading.dice,
                                       config=self.config.moves)
        only_unread = not reading.dice and any(p.kind == "unreadable" for p in reading.problems)
        if against_scene.unchanged and not only_unread:
            return
        if against_scene.only_removed and self._scene is not None and self._scene.dice:
            events.append(DiceRemoved(t, reading, len(against_scene.missing)))
            self._scene = reading
            return
        moves = self._moves(reading)
        events.append(ThrowSettled(t, reading, moves.moved, moves.previous, self.dice_count, frame.copy()))
        self._scene = reading
        self._set_base(reading)

    def _moves(self, reading: Reading) -> DiceMoves:
        if self._base is None:
            n = len(reading.dice)
            return DiceMoves((THROWN,) * n, (None,) * n, ())
        evidence = MoveEvidence(
            tumbled=tuple(self._tumbled(die) for die in reading.dice), vacated=tuple(self._vacated))
        return classify_moves(self._base.dice, reading.dice, evidence, self.config.moves)

    def _set_base(self, reading: Reading | None) -> None:
        self._base = reading
        self._vacated = [False] * (len(reading.dice) if reading else 0)
        self.detector.reset_history()

    def _tumbled(self, die: DieReading) -> bool:
        history = self.detector.free_motion
        if history is None:
            return False
        core = history[self._box_small(die, 0.3)]
        return core.size > 0 and int(core.max()) >= self.config.tumble_frames

    # -- what else is in the tray ---------------------------------------------------------------

    def _leftovers(self, reading: Reading, sample: MotionSample
                   ) -> tuple[tuple[int, int, int, int] | None, list[tuple[float, float]]]:
        """Foreground the dice do not explain: a still object (its box) and die-sized things
        the reader did not find (their centres). Ghosts of dice that lay there when the
        background was learnt are healed on the way."""
        residue = sample.foreground.copy()
        for die in reading.dice:
            residue[self._box_small(die, self.config.footprint)] = 0
        count, labels, stats, centroids = cv2.connectedComponentsWithStats(residue, connectivity=8)
        die_area = self.detector.die_side_small() ** 2
        valid = self.detector.valid
        still_object = None
        unread: list[tuple[float, float]] = []
        for label in range(1, count):
            area = stats[label, cv2.CC_STAT_AREA]
            if area < self.config.unread_area_dice * die_area:
                continue
            blob = labels == label
            if valid is not None and (~valid[blob]).mean() > 0.5:
                self.detector.heal(cv2.dilate(blob.astype(np.uint8), np.ones((3, 3), np.uint8)))
                continue
            if area > self.config.object_area_dice * die_area:
                still_object = self._box(blob.astype(np.uint8))
            else:
                x, y = centroids[label]
                scale = self.detector.scale
                unread.append(self.detector.to_full(x, y))
        if still_object is None:
            still_object = self._camouflaged(reading)
        return still_object, unread

    def _camouflaged(self, reading: Reading) -> tuple[int, int, int, int] | None:
        """Something big whose colour is close to the tray's (a tanned hand on brown felt) hardly
        differs from the empty tray, but its outline and texture do: look at the pixels'
        detail (brightness relative to their surroundings), away from the dice."""
        unlike = self.detector.texture_changed(self.config.texture_threshold)
        if unlike is None:
            return None
        for die in reading.dice:
            unlike[self._box_small(die, self.config.texture_margin)] = 0
        valid = self.detector.valid
        if valid is not None:
            unlike[~valid] = 0
        count, labels, stats, _ = cv2.connectedComponentsWithStats(unlike, connectivity=8)
        if count <= 1:
            return None
        biggest = 1 + int(np.argmax(stats[1:, cv2.CC_STAT_AREA]))
        if stats[biggest, cv2.CC_STAT_AREA] <= self.config.object_area_dice * self.detector.die_side_small() ** 2:
            return None
        return self._box((labels == biggest).astype(np.uint8))

    def _footprints(self, reading: Reading) -> np.ndarray | None:
        current = self.detector.current
        if current is None:
            return None
        mask = np.zeros(current.shape[:2], np.uint8)
        for die in reading.dice:
            mask[self._box_small(die, self.config.footprint)] = 1
        return mask

    def _mark_all_unknown(self, reading: Reading) -> None:
        footprints = self._footprints(reading)
        if footprints is not None:
            self.detector.mark_unknown(footprints)

    def _mark_dice_in_background(self, reading: Reading, sample: MotionSample) -> None:
        """Dice that do not stand out from the background were lying there when it was learnt."""
        for die in reading.dice:
            box = self._box_small(die, 0.4)
            if sample.foreground[box].size and sample.foreground[box].mean() < 0.2:
                mask = np.zeros_like(sample.foreground)
                mask[self._box_small(die, self.config.footprint)] = 1
                self.detector.mark_unknown(mask)

    def _checked(self, reading: Reading, unread: list[tuple[float, float]]) -> Reading:
        """The reading with the tracker's count, cocked and unread-object problems."""
        problems = [p for p in reading.problems if p.kind != "count"]
        n, expected = len(reading.dice), self.dice_count
        if expected is not None and n < expected:
            problems.insert(0, Problem("count", f"{n} of {expected} dice seen"))
        elif expected is not None and n > expected:
            problems.insert(0, Problem("count", f"{n} seen, {expected} expected: an extra die or object"))
        flagged = {p.die for p in problems if p.kind == "cocked"}
        for i, die in enumerate(reading.dice):
            if die.cocked and i not in flagged:
                x, y = die.center
                problems.append(Problem("cocked", f"die at ({x:.0f}, {y:.0f}) is cocked: throw it again", i))
        for x, y in unread:
            problems.append(Problem("unreadable", f"something die-sized at ({x:.0f}, {y:.0f}) could not be read"))
        return replace(reading, problems=tuple(problems))

    # -- geometry -----------------------------------------------------------------------------------

    def _box_small(self, die: DieReading, half_side: float) -> tuple[slice, slice]:
        """The square around a die's centre, `half_side` die sides each way, in small px."""
        x, y = self.detector.to_small(*die.center)
        half = max(1.0, half_side * die.size * self.detector.scale)
        current = self.detector.current
        height, width = current.shape[:2] if current is not None else (0, 0)
        x0, x1 = max(0, int(round(x - half))), min(width, int(round(x + half)) + 1)
        y0, y1 = max(0, int(round(y - half))), min(height, int(round(y + half)) + 1)
        return slice(y0, max(y0, y1)), slice(x0, max(x0, x1))

    def _box(self, mask: np.ndarray) -> tuple[int, int, int, int] | None:
        """A small-frame mask's bounding box in full-frame px."""
        if not mask.any():
            return None
        x, y, w, h = cv2.boundingRect(mask)
        x0, y0 = self.detector.to_full(x, y)
        x1, y1 = self.detector.to_full(x + w, y + h)
        return int(x0), int(y0), int(x1), int(y1)


def _disagreement(before: Reading, after: Reading) -> str | None:
    """Why two readings of the same still dice differ, or None when they agree."""
    if len(before.dice) != len(after.dice):
        return f"{len(before.dice)} dice, then {len(after.dice)}"
    matched = match_dice(before.dice, after.dice, radius=0.5)
    for i, j in enumerate(matched):
        die = after.dice[i]
        x, y = die.center
        if j is None:
            return f"die at ({x:.0f}, {y:.0f}) was not there before"
        if before.dice[j].value != die.value:
            return f"die at ({x:.0f}, {y:.0f}) read {before.dice[j].value}, then {die.value}"
    return None


def _combined(reading: Reading, other: Reading) -> Reading:
    """Two agreeing readings of the same still dice as one: every die as in `reading`, with
    the mean of its two confidences (frames of a still scene are far from independent, so
    agreement is not taken as more evidence than either gave) and the alternatives of both."""
    matched = match_dice(other.dice, reading.dice, radius=0.5)
    dice = list(reading.dice)
    for i, j in enumerate(matched):
        if j is None:
            continue
        die, seen = dice[i], other.dice[j]
        confidence = (die.confidence + seen.confidence) / 2
        alternatives = tuple(dict.fromkeys(die.alternatives + seen.alternatives))
        if confidence < SURE_CONFIDENCE and not alternatives:
            alternatives = die.alternatives or seen.alternatives
        dice[i] = replace(die, confidence=confidence, alternatives=alternatives, cocked=die.cocked or seen.cocked)
    problems = [p for p in reading.problems if p.die is None] + die_problems(dice)
    return replace(reading, dice=tuple(dice), problems=tuple(problems))


def _mark_unsure(reading: Reading, other: Reading) -> Reading:
    """The reading with every die that read differently in `other` marked unsure."""
    matched = match_dice(other.dice, reading.dice, radius=0.5)
    dice = list(reading.dice)
    problems = list(reading.problems)
    for i, j in enumerate(matched):
        die = dice[i]
        other_value = None if j is None else other.dice[j].value
        if other_value == die.value:
            continue
        alternatives = tuple(dict.fromkeys(
            ([other_value] if other_value is not None else []) + list(die.alternatives)))
        dice[i] = replace(die, confidence=min(die.confidence, 0.5), alternatives=alternatives)
        x, y = die.center
        seen = f"{die.value} or {other_value}" if other_value is not None else f"{die.value}, not always seen"
        problems = [p for p in problems if p.die != i]
        problems.append(Problem("unsure", f"die at ({x:.0f}, {y:.0f}) unsure: {seen}", i))
    return replace(reading, dice=tuple(dice), problems=tuple(problems))
