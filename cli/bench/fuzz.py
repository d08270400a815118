"""`cubilete bench fuzz`: hostile inputs through the reader, each in a process of its own.

Files go through `cubilete read`'s own path (vision.image_file, then the reader), arrays
straight to `vision.reader.read_dice` (see lab.fuzz_inputs for what they are). The models
are loaded once; each input is then read in a child forked from that process, so its wall
time is the input's alone and its peak memory (VmHWM) is what a `cubilete read` of that
file would peak at, and a crash (a signal) or a hang of one input is seen and counted
instead of ending the run. Prints: inputs by family, what became of them (read, refused
with a reason, exceptions, crashes, timeouts), and the slowest and biggest inputs.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import select
import signal
import tempfile
import time
import traceback
from collections import Counter, defaultdict
from contextlib import redirect_stdout
from pathlib import Path
from typing import Any

import cv2
from PIL import Image

import cli.read
from cli.read import read_images
from lab.fuzz_inputs import fuzz_inputs
from vision.reader.reader import load_models, read_dice

TIMEOUT_S = 30.0
TARGET_S = 2.0
TARGET_MB = 300.0


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("fuzz", help="hostile files and arrays through the reader: exceptions, time, memory",
                                   description=__doc__.split("\n\n")[0])
    parser.add_argument("--inputs", type=int, default=2000, help="how many inputs (default 2000)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", action="store_true", help="the figures as one JSON object")
    parser.add_argument("--details", action="store_true", help="a line per input")
    parser.set_defaults(handler=run)


def peak_mb() -> float:
    with open("/proc/self/status", encoding="ascii") as status:
        for line in status:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    return 0.0


def read_one(path: str | None, array: Any) -> dict[str, Any]:
    """In the child: the input through the reader; what happened, how long, peak memory."""
    started = time.perf_counter()
    outcome: dict[str, Any] = {}
    try:
        if path is not None:
            out = io.StringIO()
            args = argparse.Namespace(images=[path], json=True, expect=None, debug_dir=None)
            with redirect_stdout(out):
                code = read_images(args)
            result = json.loads(out.getvalue().strip().splitlines()[-1])
            outcome = {"outcome": "refused" if "error" in result else "read", "code": code,
                       "why": result.get("error", "")}
        else:
            reading = read_dice(array)
            unreadable = [p.message for p in reading.problems if p.kind == "unreadable"]
            outcome = {"outcome": "refused" if unreadable else "read", "why": unreadable[0] if unreadable else ""}
    except BaseException as error:  # what the fuzz is looking for

        outcome = {"outcome": "exception", "why": f"{type(error).__name__}: {error}"[:300],
                   "where": traceback.format_exc().strip().splitlines()[-3:]}
    outcome["s"] = time.perf_counter() - started
    outcome["mb"] = peak_mb()
    return outcome


def in_child(path: str | None, array: Any) -> dict[str, Any]:
    """Fork, read the input in the child, collect its report (or how it died)."""
    reader, writer = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child
        os.close(reader)
        try:
            report = json.dumps(read_one(path, array)).encode()
            os.write(writer, report)
        finally:
            os._exit(0)
    os.close(writer)
    chunks = []
    deadline = time.monotonic() + TIMEOUT_S
    timed_out = False
    while True:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            timed_out = True
            os.kill(pid, signal.SIGKILL)
            break
        ready, _, _ = select.select([reader], [], [], remaining)
        if ready:
            chunk = os.read(reader, 65536)
            if not chunk:
                break
            chunks.append(chunk)
    os.close(reader)
    _, status = os.waitpid(pid, 0)
    if timed_out:
        return {"outcome": "timeout", "why": f"more than {TIMEOUT_S:g} s", "s": TIMEOUT_S, "mb": 0.0}
    if not chunks:
        why = f"killed by signal {os.WTERMSIG(status)}" if os.WIFSIGNALED(status) else "no report"
        return {"outcome": "crash", "why": why, "s": 0.0, "mb": 0.0}
    return json.loads(b"".join(chunks))


def run(args: argparse.Namespace) -> int:
    cv2.setNumThreads(1)
    Image.init()  # every format plugin, before the forks
    load_models()  # once, before the forks: the children read with warm models
    by_family: dict[str, Counter[str]] = defaultdict(Counter)
    slowest: list[tuple[float, str]] = []
    biggest: list[tuple[float, str]] = []
    problems: list[str] = []
    reasons: Counter[str] = Counter()
    wall = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="cubilete-fuzz-") as temporary:
        path = Path(temporary) / "input"
        for number, item in enumerate(fuzz_inputs(args.inputs, args.seed)):
            if item.is_file:
                path.write_bytes(item.data or b"")
            report = in_child(str(path) if item.is_file else None, item.array)
            label = f"{number}:{item.family}:{item.name}"
            by_family[item.family][report["outcome"]] += 1
            slowest.append((report["s"], label))
            biggest.append((report["mb"], label))
            if report["outcome"] == "refused":
                reasons[report["why"].split(" (")[0].split(":")[0][:50]] += 1
            if report["outcome"] in ("exception", "crash", "timeout"):
                problems.append(f"{label}: {report['outcome']}: {report['why']} {report.get('where', '')}")
            if args.details:
                print(f"{label}: {report['outcome']} {report['s'] * 1000:.0f} ms {report['mb']:.0f} MB"
                      f" {report.get('why', '')[:80]}", flush=True)
    slowest.sort(reverse=True)
    biggest.sort(reverse=True)
    totals = Counter()
    for counts in by_family.values():
        totals.update(counts)
    over_time = sum(s > TARGET_S for s, _ in slowest)
    over_memory = sum(mb > TARGET_MB for mb, _ in biggest)
    figures = {
        "inputs": args.inputs, "seed": args.seed, "wall_s": round(time.monotonic() - wall, 1),
        "outcomes": dict(totals), "by_family": {f: dict(c) for f, c in sorted(by_family.items())},
        "exceptions": totals["exception"], "crashes": totals["crash"], "timeouts": totals["timeout"],
        "max_s": round(slowest[0][0], 3) if slowest else 0.0, "slowest": slowest[0][1] if slowest else "",
        "max_mb": round(biggest[0][0], 1) if biggest else 0.0, "biggest": biggest[0][1] if biggest else "",
        "over_2s": over_time, "over_300mb": over_memory, "refusals": dict(reasons.most_common(12)),
        "problems": problems[:20],
    }
    if args.json:
        print(json.dumps(figures))
    else:
        print(f"reader fuzz: {args.inputs} inputs (seed {args.seed}) in {figures['wall_s']:.0f} s, each in a"
              f" forked child of a process with the models loaded")
        for family, counts in sorted(by_family.items()):
            print(f"  {family:<15} " + ", ".join(f"{k} {v}" for k, v in sorted(counts.items())))
        print(f"  exceptions {totals['exception']}, crashes {totals['crash']}, timeouts {totals['timeout']}")
        print(f"  slowest input {figures['max_s'] * 1000:.0f} ms ({figures['slowest']});"
              f" over {TARGET_S:g} s: {over_time}")
        for seconds, label in slowest[1:5]:
            print(f"    {seconds * 1000:.0f} ms {label}")
        print(f"  peak memory {figures['max_mb']:.0f} MB ({figures['biggest']}); over {TARGET_MB:g} MB: {over_memory}")
        for mb, label in biggest[1:5]:
            print(f"    {mb:.0f} MB {label}")
        print("  refused, most common reasons: " + "; ".join(f"{k} ({v})" for k, v in reasons.most_common(6)))
        for problem in problems[:20]:
            print(f"  PROBLEM {problem}")
    ok = not problems and not over_time and not over_memory
    return 0 if ok else 1
