"""Camera shots: which photos of the sets are one photo. The sets were gathered from public
collections that share photos (rune55 re-exported many of nell-byler's under longer names), so a
test photo of one set can be a train photo of another. A phone names each shot by its time
(`IMG_20191209_095439`, `PXL_20240219_192104357`) and re-exports keep that name inside theirs:
photos whose names carry the same one are the same shot. Names without one say nothing.

The training scripts leave out every train photo of a test photo's shot, and the held-out
photos `decide` tunes on leave them out too, so no copy of a test photo is learnt or tuned on.
Copies whose names carry no camera shot (rune55 has some within its own splits) are not found.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

CAMERA_SHOT = re.compile(r"(?:IMG|PXL)_\d{8}_\d{6,9}")


def camera_shot(image: str) -> str | None:
    """The phone's file name inside a photo's file name, or None where there is none."""
    found = CAMERA_SHOT.search(Path(image).name)
    return found.group(0) if found else None


def shot_time(shot: str) -> tuple[str, float]:
    """(camera and day, seconds into the day) of a camera shot's name: `PXL_20240219_192104357`
    is ("PXL_20240219", 69664.357)."""
    camera, day, clock = shot.split("_")
    seconds = int(clock[:2]) * 3600 + int(clock[2:4]) * 60 + int(clock[4:6])
    return f"{camera}_{day}", seconds + (int(clock[6:]) / 10 ** len(clock[6:]) if len(clock) > 6 else 0.0)


def shots_in_tests(root: Path) -> frozenset[str]:
    """The camera shots of the test split of every set under `root` (each a folder with a
    manifest.jsonl): only the photos' names are read."""
    shots = set()
    for manifest in sorted(root.glob("*/manifest.jsonl")):
        for line in manifest.read_text().splitlines():
            if line.strip():
                row = json.loads(line)
                if row.get("split") == "test" and (shot := camera_shot(str(row.get("image", "")))) is not None:
                    shots.add(shot)
    return frozenset(shots)
