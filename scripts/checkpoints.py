"""Where a training run keeps its checkpoint: a file named by everything that shapes the run.

A run started again with the same options resumes from its checkpoint; a run with any other
option that changes what is learnt (the data, the network, the schedule, the seeds) must start
afresh. Were the name only the seed, a run asking for more epochs would load a finished run's
one-cycle schedule and stop in torch past its last step, and one asking for a wider network
would fail to load the weights. Options that only say how fast the work goes (threads,
workers, device) are left out, so a run can resume on another machine.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path


def checkpoint_path(work: Path, prefix: str, recipe: dict) -> Path:
    """`work`/`prefix`-<hash of recipe>.pt; `recipe` is JSON-able (tuples become lists)."""
    text = json.dumps(recipe, sort_keys=True, default=str)
    return work / f"{prefix}-{hashlib.sha1(text.encode()).hexdigest()[:12]}.pt"


def legs_with_new_one(state: dict | None, start: int, device: str, torch_version: str) -> list[dict]:
    """The stretches a run has been trained in, from its checkpoint's `state` (None for a fresh
    run), with the one beginning now at `start` (a step or an epoch) last. Each says where it
    ran (device, torch) and what it did ("done": [from, to]), so a network trained partly on a
    GPU machine and finished on two cores says so in its metadata. A checkpoint written before
    the stretches were kept counts its work as one stretch of unknown place."""
    legs = [dict(leg, done=list(leg["done"])) for leg in (state or {}).get("legs", [])]
    if start and not legs:
        legs.append({"device": "unknown", "torch": "unknown", "done": [0, start]})
    legs.append({"device": device, "torch": torch_version, "done": [start, start], "minutes": 0.0})
    return legs


def close_leg(legs: list[dict], done: int, minutes: float) -> list[dict]:
    """`legs` with the last stretch brought up to `done` after `minutes` of its own."""
    return legs[:-1] + [dict(legs[-1], done=[legs[-1]["done"][0], done], minutes=round(minutes, 1))]


def trained_legs(legs: list[dict]) -> list[dict]:
    """The stretches that trained at least one step or epoch: a run started again after it had
    finished adds one that did nothing."""
    return [leg for leg in legs if leg["done"][0] < leg["done"][1]]
