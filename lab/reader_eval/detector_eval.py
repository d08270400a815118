"""Scoring the detector alone: were the dice found, whatever their values?

Detections are matched to labelled dice by the bench's rule (`evaluate.match_centres`: a
centre within half the label box's side of the box centre, nearest first, one to one);
labels marked "ignore" count neither way. The figures `cubilete bench vision --detection`
prints come from here.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Sequence

from vision.reader.detector import Detection
from lab.reader_eval.evaluate import LabelledDie, match_centres


@dataclass
class DetectionResult:
    found: int = 0
    missed: int = 0
    extra: int = 0
    pairs: list[tuple[int, int]] = field(default_factory=list)  # (label index, detection index)
    missed_labels: list[int] = field(default_factory=list)
    extra_detections: list[int] = field(default_factory=list)
    centre_errors: list[float] = field(default_factory=list)  # distance / label box side


def match_detections(labels: Sequence[LabelledDie], detections: Sequence[Detection]) -> DetectionResult:
    match = match_centres(labels, [d.center for d in detections])
    result = DetectionResult()
    used = set(match.values())
    for li, label in enumerate(labels):
        pi = match.get(li)
        if label.ignore:
            continue
        if pi is None:
            result.missed += 1
            result.missed_labels.append(li)
            continue
        result.found += 1
        result.pairs.append((li, pi))
        result.centre_errors.append(math.dist(detections[pi].center, label.center) / max(label.side, 1e-6))
    for pi in range(len(detections)):
        if pi not in used:
            result.extra += 1
            result.extra_detections.append(pi)
    return result
