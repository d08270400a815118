"""`make test`'s worker count: the cores, as far as the memory holds them, and no workers at all
where only one would fit."""

from __future__ import annotations

from pathlib import Path

from tests.workers import WORKER_MEMORY, available_memory, worker_count


def test_a_worker_per_core_as_far_as_the_memory_holds() -> None:
    assert worker_count(2, 20 * 2**30) == 2
    assert worker_count(16, 6 * 2**30) == 4
    assert worker_count(4, 4 * WORKER_MEMORY - 1) == 3


def test_a_small_machine_runs_the_tests_in_one_process() -> None:
    assert worker_count(4, 512 * 2**20) == 0  # a Pi Zero 2 W
    assert worker_count(4, 2 * WORKER_MEMORY - 1) == 0  # one worker would gain nothing
    assert worker_count(1, 64 * 2**30) == 0


def test_the_memory_is_what_the_kernel_says_can_be_had(tmp_path: Path) -> None:
    meminfo = tmp_path / "meminfo"
    meminfo.write_text("MemTotal:        8000000 kB\nMemFree:          100000 kB\nMemAvailable:    3000000 kB\n")
    assert available_memory(meminfo) == 3000000 * 1024
    assert available_memory(tmp_path / "absent") > 0  # the free pages, where there is no /proc/meminfo
