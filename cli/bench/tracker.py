"""`cubilete bench tracker`: the throw tracker on seeded synthetic sessions, against their truth.

Sessions come from `lab.sessions.synth` (random game-like scripts: throws, pick-ups and
rethrows, turned and nudged dice, dice leaving the tray, hands, cocked dice, camera faults)
at 640x480 and 30 fps. The tracker reads with `TruthReader` (the true dice), so the figures
are the tracker's own: settle latency (the last die stopping -> the settled event), settled
events while a die moves or a hand is in view, missed and extra events, and held / thrown /
turned per die. Speed is measured on one OpenCV thread: the motion check alone per frame,
and the tracker's frames per second between settles (frames on which the reader did not run).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time

import cv2
import numpy as np

from lab.sessions.script import random_script
from lab.sessions.synth import SessionConfig, synthesize
from lab.sessions.truth import Score, TruthReader, score_events
from vision.motion import MotionDetector
from vision.tracker import ThrowTracker, TrackerConfig


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("tracker", help="settle latency, tracker speed, events against ground truth",
                                   description=__doc__.split("\n\n")[0])
    parser.add_argument("--sessions", type=int, default=3, help="synthetic sessions (default 3)")
    parser.add_argument("--seed", type=int, default=1, help="seed of the first session (default 1)")
    parser.add_argument("--turns", type=int, default=3, help="turns per session (default 3)")
    parser.add_argument("--details", action="store_true", help="list every miss and error")
    parser.set_defaults(handler=run)


def _percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))]


def _verdict(met: bool) -> str:
    return "met" if met else "MISSED"


def run(args: argparse.Namespace) -> int:
    if args.sessions < 1 or args.turns < 1:
        print("cubilete bench tracker: --sessions and --turns must be at least 1", file=sys.stderr)
        return 2
    cv2.setNumThreads(1)
    config = SessionConfig()
    total = Score()
    motion_ms: list[float] = []
    between_ms: list[float] = []
    frames = 0
    details: list[str] = []
    for k in range(args.sessions):
        seed = args.seed + k
        rng = np.random.default_rng(seed)
        session = synthesize(random_script(rng, turns=args.turns), rng=rng, config=config)
        print(f"session {k + 1}/{args.sessions} (seed {seed}) ...", file=sys.stderr, flush=True)
        reader = TruthReader(session.truth)
        tracker = ThrowTracker(dice_count=5, reader=reader, config=TrackerConfig())
        detector = MotionDetector(TrackerConfig().motion)
        events = []
        # frames are rendered one at a time (all of a session's frames held at once took
        # gigabytes); only the motion check and the tracker are inside the timings
        for frame in session.frames():
            frames += 1
            start = time.perf_counter()
            detector.update(frame.image, frame.t)
            motion_ms.append((time.perf_counter() - start) * 1000)
            reader.t = frame.t
            reads_before = tracker.reads
            start = time.perf_counter()
            events += tracker.feed(frame.image, frame.t)
            elapsed = (time.perf_counter() - start) * 1000
            if tracker.reads == reads_before:
                between_ms.append(elapsed)
        score = score_events(session.truth, events)
        total.add(score)
        for kind in ("missed", "extra", "while_moving", "while_hand", "move_errors", "value_errors"):
            details += [f"seed {seed} {kind}: {line}" for line in getattr(score, kind)]

    print(f"sessions: {args.sessions} (seeds {args.seed}..{args.seed + args.sessions - 1}), "
          f"{frames} frames at {config.width}x{config.height}, {config.fps:.0f} fps; one OpenCV thread")
    motion = statistics.median(motion_ms)
    print(f"motion check: median {motion:.2f} ms, p95 {_percentile(motion_ms, 0.95):.2f} ms "
          f"per frame (target <= 1 ms: {_verdict(motion <= 1.0)})")
    fps = 1000.0 / statistics.mean(between_ms) if between_ms else float("nan")
    print(f"tracker between settles: {fps:.0f} frames/s (mean {statistics.mean(between_ms):.2f} ms, "
          f"p95 {_percentile(between_ms, 0.95):.2f} ms; target >= 60: {_verdict(fps >= 60)})")
    if total.latencies:
        worst = max(total.latencies) * 1000
        print(f"settle latency: median {statistics.median(total.latencies) * 1000:.0f} ms, "
              f"worst {worst:.0f} ms (target <= 350 ms: {_verdict(worst <= 350)})")
    print(f"events: {total.matched}/{total.expected} expected settles, removals and empty trays matched; "
          f"missed {len(total.missed)}; extra {len(total.extra)}")
    print(f"settled while a die moved: {len(total.while_moving)}; while a hand was in view: {len(total.while_hand)}")
    wrong = total.dice - total.moves_right - total.moves_ambiguous
    print(f"dice in matched throws: {total.dice} (missing {total.dice_missing}); held/thrown/turned right "
          f"{total.moves_right}, asked as ambiguous {total.moves_ambiguous}, wrong {wrong}")
    if args.details:
        for line in details:
            print("  " + line)
    return 0
