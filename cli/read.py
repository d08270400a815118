"""`cubilete read IMAGE ...`: read the dice in photos and print what the reader sees.

One line per image: the values with their confidence and the problems, or with `--json`
one JSON object per line: `{"image": <path as given>, "dice": [{"value", "center": [x, y],
"confidence", "size", "angle", "alternatives", "cocked"}], "problems": [...], "sure": bool,
"ms": <reading time without the file load>}`. An image that cannot be opened or read (no
such file, not a picture, damaged, a header claiming more than 24 megapixels, too small to
hold a die) gives `{"image": ..., "error": "..."}` and the exit code is 1 once every image
has been tried. Files are opened by `vision.image_file`, which refuses an oversized picture
from its header before decoding it.
`--debug-dir DIR` writes `<name>.read.png` per image: each die outlined with its value,
green when sure, orange when unsure, red when cocked.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import cv2
import numpy as np

from vision.image_file import Unreadable, load_image
from vision.reader.reader import load_models, read_dice


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "read",
        help="read the dice in photos",
        description="Read the dice in each photo: values, positions, confidence and problems.",
    )
    parser.add_argument("images", nargs="+", metavar="IMAGE", help="photo files (JPEG, PNG...)")
    parser.add_argument("--json", action="store_true", help="one JSON object per image")
    parser.add_argument("--expect", type=int, metavar="N", help="the number of dice that should be there")
    parser.add_argument("--debug-dir", type=Path, metavar="DIR", help="write an annotated PNG per image here")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    if args.expect is not None and args.expect < 0:
        print("cubilete read: error: --expect must be 0 or more", file=sys.stderr)
        return 2
    if args.debug_dir is not None:
        try:
            args.debug_dir.mkdir(parents=True, exist_ok=True)
        except OSError as error:
            print(f"cubilete read: error: cannot create {args.debug_dir}: {error.strerror}", file=sys.stderr)
            return 2
    load_models()  # so that "ms" is the reading alone, the first image's too
    return read_images(args)


def read_images(args: argparse.Namespace) -> int:
    """Read every image of args.images, one result each; 1 when any could not be read."""
    failed = False
    for path in args.images:
        image = load_image(path)
        if isinstance(image, Unreadable):
            failed = True
            emit(args, {"image": path, "error": image.reason}, f"{path}: error: {image.reason}")
            continue
        started = time.perf_counter()
        reading = read_dice(image, args.expect)
        ms = (time.perf_counter() - started) * 1000
        unreadable = [p.message for p in reading.problems if p.kind == "unreadable"]
        if unreadable:  # the file decoded, but nothing in it can be read (a 1 x 1 picture)
            failed = True
            emit(args, {"image": path, "error": unreadable[0]}, f"{path}: error: {unreadable[0]}")
            continue
        result = {"image": path, **reading.to_json(), "sure": reading.sure, "ms": round(ms, 1)}
        if args.debug_dir is not None:
            target = args.debug_dir / (Path(path).name + ".read.png")
            if not cv2.imwrite(str(target), annotate(image, reading)):
                result["debug_error"] = f"cannot write {target}"
        emit(args, result, one_line(path, reading, ms))
    return 1 if failed else 0


def emit(args: argparse.Namespace, data: dict, line: str) -> None:
    print(json.dumps(data) if args.json else line, flush=True)


def one_line(path: str, reading, ms: float) -> str:
    dice = " ".join(
        f"{d.value}" + ("" if d.sure else "?") for d in reading.dice
    )
    text = f"{path}: {len(reading.dice)} dice [{dice}]"
    if reading.problems:
        text += "; " + "; ".join(p.message for p in reading.problems)
    return text + f" ({ms:.0f} ms)"


def annotate(image, reading):
    """A copy of the image with each die outlined and labelled."""
    out = image.copy()
    scale = max(1.0, min(out.shape[:2]) / 720)
    thickness = max(1, round(scale))
    for index, die in enumerate(reading.dice):
        colour = (0, 0, 255) if die.cocked else (0, 200, 0) if die.sure else (0, 140, 255)
        box = cv2.boxPoints(((die.center[0], die.center[1]), (die.size, die.size), die.angle))
        cv2.polylines(out, [np.round(box).astype(np.int32)], True, colour, thickness)
        label = f"{die.value}" + ("" if die.sure else "?") + f" {die.confidence:.2f}"
        origin = (int(die.center[0] - die.size / 2), int(die.center[1] - die.size / 2) - 3)
        cv2.putText(out, label, origin, cv2.FONT_HERSHEY_SIMPLEX, 0.4 * scale, colour, thickness, cv2.LINE_AA)
    y = round(14 * scale)
    for problem in reading.problems:
        cv2.putText(out, problem.message, (4, y), cv2.FONT_HERSHEY_SIMPLEX, 0.4 * scale, (0, 0, 255), thickness, cv2.LINE_AA)
        y += round(14 * scale)
    return out
