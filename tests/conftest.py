"""Fixtures shared by every test suite.

`shared_dir` is the `../shared` folder beside the project (or `$CUBILETE_SHARED`). Tests
that need it skip with a reason saying so when it is absent; they never pass silently.
`make test` runs them in as many processes as the machine holds (`tests/workers.py`).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.workers import available_memory, usable_cores, worker_count

PROJECT_ROOT = Path(__file__).resolve().parent.parent


def find_shared_dir() -> Path | None:
    candidate = Path(os.environ.get("CUBILETE_SHARED", PROJECT_ROOT.parent / "shared"))
    return candidate if (candidate / "rules" / "GAMES.md").is_file() else None


@pytest.fixture(scope="session")
def shared_dir() -> Path:
    found = find_shared_dir()
    if found is None:
        pytest.skip(
            "needs ../shared beside the project (the rules, seeds and dice photos); "
            "not found, set CUBILETE_SHARED to its path"
        )
    return found


@pytest.fixture(scope="session")
def dice_photos_dir(shared_dir: Path) -> Path:
    photos = shared_dir / "data" / "dice-photos" / "nell-byler"
    if not (photos / "manifest.jsonl").is_file():
        pytest.skip(f"needs the dice photos at {photos} (manifest.jsonl not found)")
    return photos


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_auto_num_workers(config: pytest.Config) -> int | None:
    """`-n auto`: as many workers as the cores and the memory allow (tests/workers.py), or
    xdist's own count where PYTEST_XDIST_AUTO_NUM_WORKERS sets it."""
    if os.environ.get("PYTEST_XDIST_AUTO_NUM_WORKERS"):
        return None
    return worker_count(usable_cores(), available_memory())


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Tests marked slow first: spread over `make test`'s workers at the start, they end with
    the rest instead of after it."""
    items.sort(key=lambda item: item.get_closest_marker("slow") is None)
