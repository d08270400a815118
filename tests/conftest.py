"""Fixtures shared by every test suite.

`shared_dir` is the `../shared` folder beside the project (or `$CUBILETE_SHARED`). Tests
that need it skip with a reason saying so when it is absent; they never pass silently.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

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
