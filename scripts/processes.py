"""Work spread over processes by the training scripts: rendering scenes, cutting windows.

One pattern for both scripts: jobs go out to a pool of spawned processes and their results
come back in the jobs' order, so what a run makes never depends on how many processes made it.
"""

from __future__ import annotations

import multiprocessing
from concurrent.futures import ProcessPoolExecutor


def in_processes(function, jobs: list[tuple], workers: int) -> list:
    """[function(*job) for job in jobs], in `workers` processes when more than one. They are
    spawned, not forked: the trainer may already hold a GPU, which a forked child must not
    touch. Results come back in the jobs' order, so the data do not depend on `workers`."""
    if workers <= 1 or len(jobs) <= 1:
        return [function(*job) for job in jobs]
    context = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(min(workers, len(jobs)), mp_context=context) as pool:
        return list(pool.map(function, *zip(*jobs)))
