"""`cubilete bench appliance`: the service's memory, reaction time and idle CPU, measured on
the real run loop (`cubilete run` in a subprocess: replay camera, reader, tracker, state
machine, UI rendered to luma's dummy display, event log).

- peak RSS of the service during a scripted game (target <= 120 MB, issue 16's for a Pi Zero 2 W);
- from the frame that settles a throw to its options on the screen (target <= 300 ms);
- CPU while waiting for a throw: an idle tray replayed in real time at 30 fps, the loop's
  process CPU time over its wall time (target <= 25 % of one core).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import cv2

from lab.demo_game import DEMO_GAME
from lab.scripted_game import GAME_CONFIG, make_scripted_session
from lab.sessions.synth import SessionConfig

TARGET_RSS_MB = 120.0
TARGET_LATENCY_MS = 300.0
TARGET_CPU = 0.25


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("appliance", help="the service's peak memory, throw-to-screen latency, idle CPU")
    parser.add_argument("--seed", type=int, default=2026, help="seed of the synthetic sessions")
    parser.add_argument("--idle-seconds", type=float, default=20.0, help="length of the idle-tray replay")
    parser.add_argument("--keep", metavar="DIR", help="keep the sessions and logs in DIR")
    parser.set_defaults(handler=run)


def _service(work: Path, name: str, camera: str, buttons: str) -> tuple[dict, float, int]:
    """Run `cubilete run` on a replay; its statistics, wall time and exit code."""
    stats = work / f"{name}-stats.json"
    config = work / "bench.toml"
    config.write_text(GAME_CONFIG.format(language="es"), encoding="utf-8")
    command = [sys.executable, "-m", "cli.main", "run", "--config", str(config), "--camera", camera,
               "--buttons", buttons, "--display", "dummy", "--state-dir", str(work / f"{name}-state"),
               "--socket", str(work / f"{name}.sock"), "--exit-at-end", "--stats-out", str(stats),
               "--log-level", "warning"]
    started = time.perf_counter()
    with open(work / f"{name}.log", "w", encoding="utf-8") as log:
        code = subprocess.call(command, stdout=log, stderr=subprocess.STDOUT)
    wall = time.perf_counter() - started
    data = json.loads(stats.read_text(encoding="utf-8")) if stats.exists() else {}
    return data, wall, code


def _memory_parts(stats: dict) -> str:
    return (f"    of which program files mapped from the page cache {stats.get('file_rss_mb', 0.0):.1f} MB at the end "
            f"(more when the cache holds them in large blocks, as after an install: README); allocated by the service: peak "
            f"{stats.get('peak_anon_mb', 0.0):.1f} MB")


def _decode_share(session: Path, fps: float, frames: int = 150) -> float:
    """The share of one core that decoding the session's JPEG frames takes at `fps`."""
    cv2.setNumThreads(1)
    files = sorted((session / "frames").glob("*.jpg"))[:frames]
    started = time.process_time()
    for file in files:
        cv2.imread(str(file), cv2.IMREAD_COLOR)
    per_frame = (time.process_time() - started) / max(1, len(files))
    return per_frame * fps


def run(args: argparse.Namespace) -> int:
    with tempfile.TemporaryDirectory(prefix="cubilete-bench-") as temporary:
        work = Path(args.keep or temporary)
        work.mkdir(parents=True, exist_ok=True)
        print(f"machine: {os.cpu_count()} cores, load average {os.getloadavg()[0]:.2f} at start")

        print("rendering the sessions (seeded) ...", flush=True)
        game = make_scripted_session(work / "game", DEMO_GAME, args.seed, SessionConfig(think_s=(1.8, 2.2)))
        idle = make_scripted_session(work / "idle", [{"pause": args.idle_seconds}], args.seed,
                                     SessionConfig(fps=30.0, still_fps=None))

        print("a scripted game through `cubilete run` ...", flush=True)
        stats, wall, code = _service(work, "game", f"replay:{game.session}", f"script:{game.buttons}")
        if code != 0 or not stats:
            print(f"the service failed (exit {code}); see {work / 'game.log'}", file=sys.stderr)
            return 1
        latencies = [1000 * s for s in stats["throws_shown"]]
        print(f"  frames: {stats['frames']} in {stats['wall_s']:.1f} s (replayed as fast as it runs)")
        peak = stats["peak_rss_mb"]
        print(f"  peak RSS: {peak:.1f} MB (target <= {TARGET_RSS_MB:.0f} MB: {'met' if peak <= TARGET_RSS_MB else 'MISSED'})")
        print(_memory_parts(stats))
        if latencies:
            print(f"  throw settled -> options on screen: median {statistics.median(latencies):.0f} ms, "
                  f"max {max(latencies):.0f} ms over {len(latencies)} throws "
                  f"(target <= {TARGET_LATENCY_MS:.0f} ms)")
            after = [1000 * s for s in stats["settle_to_screen"]]
            print(f"    of which after the tracker's decision (record, snapshot, screen): "
                  f"median {statistics.median(after):.0f} ms, max {max(after):.0f} ms")
        else:
            print("  no throw was seen: no latency measured")

        print(f"an idle tray at 30 fps in real time for {args.idle_seconds:.0f} s ...", flush=True)
        stats, wall, code = _service(work, "idle", f"replay:{idle.session}?realtime", "none")
        if code != 0 or not stats:
            print(f"the service failed (exit {code}); see {work / 'idle.log'}", file=sys.stderr)
            return 1
        cpu = stats["cpu_s"] / stats["wall_s"] if stats["wall_s"] else 0.0
        fps = stats["frames"] / stats["wall_s"] if stats["wall_s"] else 0.0
        print(f"  CPU while waiting for a throw: {100 * cpu:.1f} % of one core "
              f"({stats['cpu_s']:.2f} s CPU over {stats['wall_s']:.1f} s, {fps:.1f} frames/s; "
              f"target <= {100 * TARGET_CPU:.0f} %)")
        decode = _decode_share(idle.session, fps)
        print(f"    of which decoding the replay's JPEG frames (a camera delivers raw frames): "
              f"{100 * decode:.1f} %, so about {100 * max(0.0, cpu - decode):.1f} % for the service itself")
        print(f"  peak RSS: {stats['peak_rss_mb']:.1f} MB")
        print(_memory_parts(stats))
        print(f"load average {os.getloadavg()[0]:.2f} at the end (other work on this machine skews timings)")
    return 0
