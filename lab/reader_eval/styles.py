"""How the whole reader reads synthetic dice, style by style (opaque, see-through, marbled).

    python -m lab.reader_eval.styles --seeds 1 11 --looks unseen [--classifier FILE.onnx]

The colours recipe's first question asks whether a classifier scores more see-through dice of
unseen looks without asking (FINDINGS.md, "Dice of any colour in the classifier's training"),
which `cubilete bench vision --synthetic` cannot tell: its manifest forgets each die's style.
This renders the bench's scenes again (`synth.manifest`'s seeds, the same dice and looks, the
JPEG the bench decodes), reads each with the dice count told as the bench's `--expect`, matches
dice by the bench's rule (`evaluate.match_centres`) and counts per style: dice, read right, read
right and sure (scored without asking), read sure and wrong. Dice the manifest marks ignore
(`synth.manifest.ignored`: cocked, or too little of the top face in view) count nowhere, as in the bench.
"""

from __future__ import annotations

import argparse
import sys
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from lab.reader_eval.evaluate import LabelledDie, match_centres
from lab.synth import render
from lab.synth.manifest import LOOKS, bench_scene, ignored
from vision.reader import classifier
from vision.reader.reader import read_dice


@dataclass
class StyleTally:
    dice: int = 0
    right: int = 0
    right_sure: int = 0
    sure_wrong: int = 0

    def add(self, other: StyleTally) -> None:
        self.dice += other.dice
        self.right += other.right
        self.right_sure += other.right_sure
        self.sure_wrong += other.sure_wrong


def scene_image(seed: int, index: int, looks: str) -> tuple[np.ndarray, list[LabelledDie], list[str]]:
    """Scene `index` of the bench's seed as the bench reads it: the image, its labels and each
    label's die style."""
    scene = bench_scene(seed, index, looks)
    rendered = render(scene)
    image = rendered.image if rendered.jpeg is None else cv2.imdecode(
        np.frombuffer(rendered.jpeg, np.uint8), cv2.IMREAD_COLOR)
    labels = [LabelledDie(label.value, tuple(round(c, 1) for c in label.box), ignored(label))
              for label in rendered.labels]
    return image, labels, [scene.dice[label.index].style for label in rendered.labels]


def tally_scene(image: np.ndarray, labels: list[LabelledDie], styles: list[str],
                expected: int | None) -> dict[str, StyleTally]:
    """One scene's dice counted by style."""
    reading = read_dice(image, expected)
    matched = match_centres(labels, [die.center for die in reading.dice])
    tallies: dict[str, StyleTally] = defaultdict(StyleTally)
    for index, (label, style) in enumerate(zip(labels, styles)):
        if label.ignore:
            continue
        tally = tallies[style]
        tally.dice += 1
        if index not in matched:
            continue
        die = reading.dice[matched[index]]
        right = die.value == label.value
        tally.right += right
        tally.right_sure += right and die.sure
        tally.sure_wrong += die.sure and not right
    return tallies


def tally_seeds(seeds: list[int], scenes: int, looks: str, expected: int | None) -> dict[str, StyleTally]:
    """Every scene of every seed counted by style."""
    totals: dict[str, StyleTally] = defaultdict(StyleTally)
    for seed in seeds:
        for index in range(scenes):
            for style, tally in tally_scene(*scene_image(seed, index, looks), expected).items():
                totals[style].add(tally)
    return dict(totals)


def format_table(totals: dict[str, StyleTally]) -> str:
    lines = [f"{'style':<12} {'dice':>5} {'per die':>8} {'unasked':>8} {'sure wrong':>10}"]
    for style, t in sorted(totals.items()):
        per_die, unasked = (100.0 * n / max(t.dice, 1) for n in (t.right, t.right_sure))
        lines.append(f"{style:<12} {t.dice:>5} {per_die:>7.2f}% {unasked:>7.2f}% {t.sure_wrong:>10}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seeds", type=int, nargs="+", default=[1], help="the bench's synthetic seeds (default 1)")
    parser.add_argument("--scenes", type=int, default=200, help="scenes of each seed, as the bench's --synthetic")
    parser.add_argument("--looks", choices=LOOKS, default="unseen", help="the dice's looks, as the bench's --looks")
    parser.add_argument("--expect", type=int, default=5, help="the dice count told to the reader (0: none)")
    parser.add_argument("--classifier", type=Path, help="read with this die-value network (default: the shipped one)")
    args = parser.parse_args(argv)
    cv2.setNumThreads(1)
    if args.classifier is not None:
        classifier.use_model(args.classifier)
    totals = tally_seeds(args.seeds, args.scenes, args.looks, args.expect or None)
    print(f"seeds {' '.join(map(str, args.seeds))}, {args.scenes} scenes each, {args.looks} looks, "
          f"{'expect ' + str(args.expect) if args.expect else 'no count told'}")
    print(format_table(totals))
    return 0


if __name__ == "__main__":
    sys.exit(main())
