"""How many processes `make test` (`pytest -n auto`, pytest-xdist) runs the tests in.

A worker per core this process may use, as many as the memory available holds. The training
scripts' tests import PyTorch and hold up to 1.4 GB in one process (`/usr/bin/time -f %M`,
2026-12-07), so a worker is given 1.5 GiB: a Pi Zero 2 W or any machine with less than 3 GiB
free runs the tests in the one process, as plain `pytest` does.
"""

from __future__ import annotations

import os
from pathlib import Path

WORKER_MEMORY = 3 * 2**29  # 1.5 GiB


def usable_cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        return os.cpu_count() or 1


def available_memory(meminfo: Path = Path("/proc/meminfo")) -> int:
    """Bytes the kernel says can be had without swapping (MemAvailable: free pages and the
    page cache it can drop), or the free pages alone where there is no /proc/meminfo (0 where
    neither is known)."""
    try:
        for line in meminfo.read_text(encoding="ascii").splitlines():
            name, _, value = line.partition(":")
            if name == "MemAvailable":
                return int(value.split()[0]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    try:
        return os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError):  # not known here: no workers
        return 0


def worker_count(cores: int, memory: int) -> int:
    """Workers for `cores` and `memory` bytes available; 0 (no workers: the tests run in
    pytest's own process) where fewer than two would fit, since one worker gains nothing."""
    workers = min(cores, memory // WORKER_MEMORY)
    return workers if workers >= 2 else 0
