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
