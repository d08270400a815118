"""The printed-words probe: how many sure dice a reader puts on pictures of printed words, in
two families of letters, in one table.

    python -m lab.reader_eval.printed_words [--classifier F.onnx] [--detector F.onnx ...]
                                            [--pictures 1000] [--seeds 81 82]

A menu card or a receipt on the counter is where a reader's sure dice on no-dice pictures lie
(FINDINGS.md). What a network learns of printed words stays mostly with the letters it saw, so
every reading here is of both families: OpenCV's faces (`text`, `headline`: what the training
scripts draw by default) and the lab's own (`lab-text`, `lab-headline`, `lab.synth.lettering`:
what they draw only when told). A network taught one family is judged on the other.

The probe's pictures are its own: picture i of a seed is drawn from rng [seed, 10**6 + i], where
the training scripts draw theirs from [seed, i], and `decide` reads other seeds (77 to 79). Each
seed's pictures are those of `cubilete bench vision --negatives N --negatives-kinds ... --seed S`,
read the same way (`read_sets.read_negatives`), so either gives the same figures.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import cv2

from lab.reader_eval.read_sets import read_negatives
from lab.synth.clutter import LAB_TEXT_KINDS, TEXT_KINDS
from vision.reader import classifier, detector

FAMILIES: dict[str, tuple[str, ...]] = {"OpenCV's faces": TEXT_KINDS, "the lab's faces": LAB_TEXT_KINDS}
PROBE_SEEDS = (81, 82)


def probe(pictures: int, seeds: tuple[int, ...]) -> dict[str, dict[int, dict]]:
    """`read_negatives`'s figures for every family and seed, with the networks in use."""
    return {family: {seed: read_negatives(pictures, seed, kinds=kinds) for seed in seeds}
            for family, kinds in FAMILIES.items()}


def table(figures: dict[str, dict[int, dict]], pictures: int) -> str:
    """One row per family and seed and one per family in all: sure dice, the pictures holding
    them, and every die found, sure or not."""
    lines = [f"{'printed words':<17} {'seed':>5} {'sure dice':>10} {'in pictures':>12} {'dice found':>11} "
             f"{'in pictures':>12} {'ms p50':>7}",
             "-" * 80]
    for family, by_seed in figures.items():
        for seed, row in by_seed.items():
            lines.append(f"{family:<17} {seed:>5} {row['sure_extras']:>10} "
                         f"{sum(row['pictures_with_sure_dice_by_kind'].values()):>12} {row['extras']:>11} "
                         f"{row['pictures_with_dice']:>12} {row['median_ms']:>7.1f}")
        rows = by_seed.values()
        lines.append(f"{family:<17} {'all':>5} {sum(r['sure_extras'] for r in rows):>10} "
                     f"{sum(sum(r['pictures_with_sure_dice_by_kind'].values()) for r in rows):>12} "
                     f"{sum(r['extras'] for r in rows):>11} {sum(r['pictures_with_dice'] for r in rows):>12}")
    lines.append(f"{pictures} pictures per family and seed; sure: confidence >= 0.9; OpenCV {cv2.__version__}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--classifier", type=Path, help="the die-value network (default: the shipped one)")
    parser.add_argument("--detector", type=Path, nargs="+", metavar="FILE",
                        help="the detector (default: the shipped one); several files: their networks averaged")
    parser.add_argument("--pictures", type=int, default=1000, help="pictures per family and seed")
    parser.add_argument("--seeds", type=int, nargs="+", default=list(PROBE_SEEDS),
                        help=f"the probe's seeds (default: {' '.join(map(str, PROBE_SEEDS))})")
    args = parser.parse_args(argv)
    if args.pictures < 1:
        parser.error(f"--pictures: at least 1, got {args.pictures}")
    cv2.setNumThreads(1)  # as the bench reads: one thread, the device's share of its cores
    for paths, use_model in (([args.classifier] if args.classifier else [], classifier.use_model),
                             (args.detector or [], detector.use_model)):
        if not paths:
            continue
        try:
            use_model(*paths)
        except (OSError, ValueError, KeyError) as error:
            print(f"printed_words: cannot load {', '.join(map(str, paths))}: {error}", file=sys.stderr)
            return 2
    print(table(probe(args.pictures, tuple(args.seeds)), args.pictures))
    return 0


if __name__ == "__main__":
    sys.exit(main())
