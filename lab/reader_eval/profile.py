"""Where the reader's time goes: the detector, cutting the windows, the classifier's network.

    python -m lab.reader_eval.profile [--manifest FILE] [--split held-out] [--size 640x480]
                                      [--classifier NEW.onnx] [--detector NEW.onnx ...]

Reads the photos (shrunk or enlarged to --size, as the device's camera gives them) with each
photo's own dice count, on one OpenCV thread, and prints the CPU milliseconds per photo of the
whole reading and of each stage, and how many windows the classifier read per photo (the
first look, the quarter turns of unclear windows and the second looks at other scales). CPU
time, not wall time, so a busy machine disturbs it less; `cubilete bench vision` gives the
wall time the issue's target is set in.
"""

from __future__ import annotations

import argparse
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import cv2

from lab.reader_eval.classifier_bench import DEFAULT_MANIFEST
from lab.reader_eval.evaluate import HELD_OUT, load_split
from vision.reader import classifier, detector
from vision.reader.reader import load_models, read_dice


@dataclass
class StageTimes:
    """CPU seconds spent in each stage, and the windows read."""

    seconds: dict[str, float] = field(default_factory=lambda: {"detector": 0.0, "cutting windows": 0.0,
                                                               "classifier network": 0.0})
    windows: int = 0

    def timed(self, stage: str, method, count_windows: bool = False):
        """`method` (of a class) wrapped to add its CPU time to `stage`."""

        def wrapper(instance, *args, **kwargs):
            started = time.process_time()
            try:
                return method(instance, *args, **kwargs)
            finally:
                self.seconds[stage] += time.process_time() - started
                if count_windows:
                    self.windows += len(args[0])

        return wrapper


def profile(images: list, expected: list[int]) -> tuple[float, StageTimes]:
    """CPU seconds of reading every image, and the stages' share of it."""
    load_models()
    stages = StageTimes()
    originals = (detector.DieDetector.detect, classifier.ValueNet.windows, classifier.ValueNet.logits)
    detector.DieDetector.detect = stages.timed("detector", originals[0])
    classifier.ValueNet.windows = stages.timed("cutting windows", originals[1])
    classifier.ValueNet.logits = stages.timed("classifier network", originals[2], count_windows=True)
    try:
        started = time.process_time()
        for image, count in zip(images, expected):
            read_dice(image, count)
        total = time.process_time() - started
    finally:
        detector.DieDetector.detect, classifier.ValueNet.windows, classifier.ValueNet.logits = originals
    return total, stages


def size_argument(text: str) -> tuple[int, int]:
    try:
        width, height = (int(v) for v in text.lower().split("x"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a size like 640x480: {text!r}") from None
    if width < 48 or height < 48:
        raise argparse.ArgumentTypeError(f"too small to read dice: {text!r}")
    return width, height


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m lab.reader_eval.profile", description=__doc__.splitlines()[0])
    parser.add_argument("--manifest", type=Path, default=DEFAULT_MANIFEST)
    parser.add_argument("--split", default=HELD_OUT, help="photos of this split (default: the held-out train photos)")
    parser.add_argument("--size", type=size_argument, default=(640, 480), help="photos are resized to this (WxH)")
    parser.add_argument("--classifier", type=Path, help="read with this die-value network")
    parser.add_argument("--detector", type=Path, nargs="+", metavar="FILE",
                        help="detect with this network (several: their networks averaged)")
    args = parser.parse_args(argv)
    cv2.setNumThreads(1)
    try:
        photos = load_split(args.manifest, args.split, args.manifest.parent.parent)
        if args.classifier is not None:
            classifier.use_model(args.classifier)
        if args.detector is not None:
            detector.use_model(*args.detector)
    except (OSError, ValueError) as error:
        print(f"profile: {error}", file=sys.stderr)
        return 2
    images = [cv2.imread(str(args.manifest.parent / p.image), cv2.IMREAD_COLOR) for p in photos]
    if not images or any(image is None for image in images):
        print(f"profile: no photos of split {args.split!r} to read in {args.manifest}", file=sys.stderr)
        return 2
    images = [cv2.resize(image, args.size, interpolation=cv2.INTER_AREA) for image in images]
    total, stages = profile(images, [len(p.dice) for p in photos])
    n = len(images)
    print(f"{n} photos at {args.size[0]}x{args.size[1]}, one thread, CPU ms per photo: {1000 * total / n:.1f}")
    for stage, seconds in stages.seconds.items():
        print(f"  {stage:<20} {1000 * seconds / n:6.1f}")
    print(f"  {'the rest':<20} {1000 * (total - sum(stages.seconds.values())) / n:6.1f}")
    print(f"windows read per photo: {stages.windows / n:.1f} "
          f"({1000 * stages.seconds['classifier network'] / max(stages.windows, 1):.2f} ms each)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
