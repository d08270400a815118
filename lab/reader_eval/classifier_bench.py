"""How well the die-value classifier reads dice whose top face is known (oracle boxes).

    python -m lab.reader_eval.classifier_bench [--manifest FILE] [--split test | --held-out]
    python -m lab.reader_eval.classifier_bench --synthetic 200 [--seed 1]

This measures the classifier alone: every labelled die is handed to `classify_dice` at its
label's box, so detection errors do not count (`cubilete bench vision` measures the whole
reader). For a photo manifest the box centre is the die's centre, the box side turned into
a top-face edge at the edge angle measured in the image (`edge_angle`, `edge_from_box`);
synthetic scenes (`lab.synth.random_scene` game scenes: 5 dice, 640x480, 40-90 px) give
the exact top face. Dice labelled ignore, synthetic cocked dice and dice less than 60%
visible are left out. `--held-out` takes the train-split photos the model was NOT fitted on
(their names are stored in the model file), the only real photos the classifier may be
judged on while it is developed; the test split is for reporting.

Printed: value accuracy (argmax over 1..6), accuracy per face value, the confusion matrix
(rows: true value; columns: value read, plus how many were called "not a die" or cocked),
calibration (dice per value-confidence band and how many were wrong; the wrong rate at
confidence >= 0.9), and the classifier's time per photo and per die on one OpenCV thread.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import cv2
import numpy as np

from lab.synth import random_scene, render
from vision.reader import classifier
from vision.reader.classifier import COCKED, MODEL_PATH, NOT_A_DIE, classify_dice, value_confidence
from vision.reader.windows import edge_angle, edge_from_box
from vision.reading import SURE_CONFIDENCE

SHARED = Path(os.environ.get("CUBILETE_SHARED", Path(__file__).resolve().parents[3] / "shared"))
DEFAULT_MANIFEST = SHARED / "data" / "dice-photos" / "nell-byler" / "manifest.jsonl"
BANDS = (0.0, 0.5, 0.7, 0.9, 0.97, 0.99, 1.01)


@dataclass
class Tally:
    truth: list[int] = field(default_factory=list)
    probabilities: list[np.ndarray] = field(default_factory=list)
    ms_per_photo: list[float] = field(default_factory=list)
    failures: list[tuple[str, int, int, float]] = field(default_factory=list)  # image, true, read, confidence

    def add(self, image_name: str, image: np.ndarray, dice: list[tuple[tuple[float, float], float, float]],
            values: list[int], tta: bool | str) -> None:
        if not dice:
            return
        started = time.perf_counter()
        p = classify_dice(image, dice, tta=tta)
        self.ms_per_photo.append(1000 * (time.perf_counter() - started))
        self.truth += values
        self.probabilities += list(p)
        for value, row in zip(values, p):
            read = int(np.argmax(row[1:7])) + 1
            if read != value:
                self.failures.append((image_name, value, read, float(value_confidence(row[None])[0])))


def photo_dice(image: np.ndarray, boxes: list[tuple[float, float, float, float]]) -> list:
    grey = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    dice = []
    for x0, y0, x1, y1 in boxes:
        x, y, side = (x0 + x1) / 2, (y0 + y1) / 2, max(x1 - x0, y1 - y0)
        angle = edge_angle(grey, x, y, side)
        dice.append(((x, y), edge_from_box(side, angle), angle))
    return dice


def measure_manifest(manifest: Path, root: Path, photos: set[str] | None, split: str | None, tta) -> Tally:
    tally = Tally()
    for line in manifest.read_text().splitlines():
        if not line.strip():
            continue
        row = json.loads(line)
        if split is not None and row.get("split") != split:
            continue
        if photos is not None and f"{manifest.parent.name}/{Path(row['image']).name}" not in photos:
            continue
        image = cv2.imread(str(root / row["image"]), cv2.IMREAD_COLOR)
        if image is None:
            raise SystemExit(f"cannot read {root / row['image']}")
        dice = [d for d in row["dice"] if not d.get("ignore")]
        tally.add(row["image"], image, photo_dice(image, [tuple(d["box"]) for d in dice]), [int(d["value"]) for d in dice],
                  tta)
    return tally


def measure_synthetic(n: int, seed: int, tta) -> Tally:
    rng = np.random.default_rng(seed)
    tally = Tally()
    for i in range(n):
        out = render(random_scene(rng))
        labels = [lab for lab in out.labels if not lab.cocked and lab.visible >= 0.6]
        tally.add(f"synthetic {seed}/{i}", out.image, [(lab.center, lab.size, lab.angle) for lab in labels],
                  [lab.value for lab in labels], tta)
    return tally


def report(tally: Tally, title: str) -> dict:
    truth = np.asarray(tally.truth)
    p = np.asarray(tally.probabilities).reshape(len(truth), -1)
    read = p[:, 1:7].argmax(axis=1) + 1
    confidence = value_confidence(p)
    right = read == truth
    not_die = p[:, NOT_A_DIE] >= 0.5
    cocked = p[:, COCKED] > p[:, 1:7].sum(axis=1)
    sure = confidence >= SURE_CONFIDENCE
    lines = [title, f"dice: {len(truth)}   value accuracy: {right.sum()}/{len(truth)} ({100 * right.mean():.2f}%)",
             "accuracy per face value: " + "  ".join(
                 f"{v}: {int(right[truth == v].sum())}/{int((truth == v).sum())}" for v in range(1, 7)),
             "confusion (rows true value, columns value read | not a die, cocked):",
             "        " + " ".join(f"{v:>5}" for v in range(1, 7)) + " | notdie cocked"]
    for v in range(1, 7):
        row = truth == v
        lines.append(f"  {v}:    " + " ".join(f"{int((read[row] == r).sum()):>5}" for r in range(1, 7))
                     + f" | {int(not_die[row].sum()):>6} {int(cocked[row].sum()):>6}")
    lines.append("calibration (value confidence band: dice, wrong):")
    for lo, hi in zip(BANDS, BANDS[1:]):
        band = (confidence >= lo) & (confidence < hi)
        lines.append(f"  [{lo:.2f}, {min(hi, 1.0):.2f}{']' if hi > 1 else ')'}: {int(band.sum()):>5} dice, "
                     f"{int((band & ~right).sum()):>4} wrong")
    sure_wrong = int((sure & ~right).sum())
    lines.append(f"confidence >= {SURE_CONFIDENCE}: {int(sure.sum())} dice ({100 * sure.mean():.1f}%), {sure_wrong} wrong "
                 f"({100 * sure_wrong / max(1, int(sure.sum())):.2f}%); unsure: {int((~sure).sum())} dice, of them "
                 f"{int((~sure & ~right).sum())} wrong")
    lines.append(f"called not a die (p >= 0.5): {int(not_die.sum())}   called cocked: {int(cocked.sum())}")
    ms = tally.ms_per_photo
    lines.append(f"classifier time: median {statistics.median(ms):.2f} ms per photo, "
                 f"{sum(ms) / max(1, len(truth)):.3f} ms per die on average")
    print("\n".join(lines))
    return {"dice": len(truth), "accuracy": float(right.mean()), "sure": int(sure.sum()), "sure_wrong": sure_wrong,
            "not_a_die": int(not_die.sum()), "cocked": int(cocked.sum()),
            "median_ms_per_photo": statistics.median(ms)}


def held_out_photos(model: Path = MODEL_PATH) -> set[str]:
    """The train-split photos the model was not fitted on, as `set/file name` (its metadata):
    for a network with partners, those every one of them held out."""
    net = classifier.ValueNet(model)
    held = set(net.meta.get("trained", {}).get("held_out_photos", []))
    for partner in net.partners:
        held &= set(partner.meta.get("trained", {}).get("held_out_photos", []))
    return held


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m lab.reader_eval.classifier_bench", description=__doc__.splitlines()[0])
    source = parser.add_mutually_exclusive_group()
    source.add_argument("--split", help="photos of this split of the manifest (e.g. test)")
    source.add_argument("--held-out", action="store_true", help="the train-split photos the model was not fitted on")
    source.add_argument("--synthetic", type=int, metavar="N", help="N synthetic game scenes instead of photos")
    parser.add_argument("--manifest", type=Path, default=DEFAULT_MANIFEST)
    parser.add_argument("--root", type=Path, help="folder of the manifest's images (default: the manifest's folder)")
    parser.add_argument("--seed", type=int, default=1, help="seed of the synthetic scenes")
    parser.add_argument("--tta", choices=("auto", "always", "never"), default="auto",
                        help="second looks at quarter turns (default auto: only for unclear windows)")
    parser.add_argument("--failures", action="store_true", help="list every die read wrong")
    parser.add_argument("--model", type=Path, default=MODEL_PATH, help="model file (default: the reader's own)")
    args = parser.parse_args(argv)
    cv2.setNumThreads(1)
    if args.model != MODEL_PATH:
        classifier.use_model(args.model)
    tta = {"auto": "auto", "always": True, "never": False}[args.tta]
    if args.synthetic:
        tally = measure_synthetic(args.synthetic, args.seed, tta)
        title = f"oracle boxes, {args.synthetic} synthetic game scenes (seed {args.seed})"
    else:
        if not args.manifest.is_file():
            print(f"manifest not found: {args.manifest}", file=sys.stderr)
            return 2
        photos = held_out_photos(args.model) if args.held_out else None
        split = "train" if args.held_out else args.split
        tally = measure_manifest(args.manifest, args.root or args.manifest.parent, photos, split, tta)
        title = f"oracle boxes, {args.manifest.parent.name} " + ("held-out train photos" if args.held_out else
                                                                 f"split {args.split or 'all'}")
    if not tally.truth:
        print("no dice to read", file=sys.stderr)
        return 2
    report(tally, title + f", tta {args.tta}")
    if args.failures:
        for image, value, read, confidence in tally.failures:
            print(f"  {image}: {value} read as {read} (confidence {confidence:.3f})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
