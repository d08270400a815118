"""`cubilete bench vision`: how well and how fast the dice reader reads labelled photos.

Reads every photo of a manifest (JSON lines as in
`../shared/data/dice-photos/nell-byler/manifest.jsonl`: `{"image", "split", "dice":
[{"value", "box": [x0, y0, x1, y1], "ignore"?}]}`), or of N synthetic scenes rendered by
`vision.synth`, and prints: photos exactly right, per-die accuracy, wrong values, misses,
extras, accuracy per face value, median and 95th-percentile milliseconds per photo (reading
only, on one OpenCV thread), and the calibration figure: how many dice read as sure
(confidence >= 0.9, not cocked) had the wrong value.

Matching predictions to labels, one to one: a predicted die can match a labelled die when
its centre is within half the label box's side of the box centre; pairs are taken nearest
first, each die used once. Predictions matched to dice labelled "ignore" count neither way.
Unmatched labels are misses, unmatched predictions extras. A photo is exactly right when
every labelled die is matched with the right value and there is no extra.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

MATCHING_HELP = (
    "matching: a predicted die matches a labelled die when its centre lies within half the "
    "label box's side of the box centre; pairs are taken nearest first, one to one; dice "
    "labelled ignore count neither way; unmatched labels are misses, unmatched predictions "
    "extras; a photo is exactly right when all its dice are matched with the right value "
    "and nothing is extra"
)


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "vision",
        help="accuracy and speed of the dice reader on labelled photos",
        description="Read every photo of a labelled manifest and print the reader's accuracy, "
        "speed and calibration. " + MATCHING_HELP + ".",
    )
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("--manifest", type=Path, help="JSON-lines manifest of labelled photos")
    source.add_argument("--synthetic", type=int, metavar="N", help="render N synthetic scenes with vision.synth and read them")
    parser.add_argument("--root", type=Path, help="folder the manifest's image paths are relative to (default: the manifest's folder)")
    parser.add_argument("--split", help="only photos of this split (e.g. test)")
    parser.add_argument("--seed", type=int, default=1, help="seed of the synthetic scenes (default 1)")
    parser.add_argument("--expect", type=int, help="pass the expected dice count to the reader")
    parser.add_argument("--failures", action="store_true", help="also list every photo not read exactly right")
    parser.add_argument("--json", action="store_true", help="print the figures as one JSON object")
    parser.add_argument("--threads", type=int, default=1, help="OpenCV threads (default 1)")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    import cv2

    from vision.reader.evaluate import format_summary, load_manifest, match_photo, summarise
    from vision.reader.reader import read_dice

    cv2.setNumThreads(args.threads)
    with tempfile.TemporaryDirectory(prefix="cubilete-bench-") as scratch:
        if args.synthetic is not None:
            try:
                manifest, root = synthetic_manifest(args.synthetic, args.seed, Path(scratch))
            except ImportError as error:
                print(f"cubilete bench vision: synthetic scenes need vision.synth ({error})", file=sys.stderr)
                return 2
            title = f"synthetic scenes: {args.synthetic} (seed {args.seed})"
        else:
            manifest = args.manifest
            root = args.root or manifest.parent
            title = f"{manifest}" + (f" split {args.split}" if args.split else "")
        try:
            photos = load_manifest(manifest, args.split)
        except (OSError, ValueError) as error:
            print(f"cubilete bench vision: {error}", file=sys.stderr)
            return 2
        if not photos:
            print("cubilete bench vision: no photos to read", file=sys.stderr)
            return 2
        results = []
        warmed = False
        for photo in photos:
            image = cv2.imread(str(root / photo.image), cv2.IMREAD_COLOR)
            if image is None:
                print(f"cubilete bench vision: cannot read {root / photo.image}", file=sys.stderr)
                return 1
            if not warmed:  # load the model and warm caches outside the timings
                read_dice(image)
                warmed = True
            started = time.perf_counter()
            reading = read_dice(image, args.expect)
            ms = (time.perf_counter() - started) * 1000
            results.append(match_photo(photo.dice, reading, photo.image, ms))
    summary = summarise(results)
    if args.json:
        print(json.dumps({"title": title, **summary.to_json()}))
    else:
        print(format_summary(summary, title))
    if args.failures:
        for r in results:
            if not r.exact:
                wrong = ", ".join(f"{t} read {v} ({c:.2f})" for t, v, c in r.wrong)
                print(f"  {r.image}: wrong [{wrong}] missed {r.misses} extra {[(v, round(c, 2)) for v, c in r.extras]}")
    return 0


def synthetic_manifest(count: int, seed: int, folder: Path) -> tuple[Path, Path]:
    """Render `count` random game scenes (5 dice, 640x480, dice 40-90 px) with
    vision.synth into `folder`; returns (manifest, root). Cocked and mostly hidden dice
    are labelled "ignore" by the generator."""
    from vision import synth

    manifest = synth.write_manifest(folder, n=count, seed=seed, split="synthetic")
    return Path(manifest), folder
