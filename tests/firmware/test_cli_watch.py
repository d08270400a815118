"""`cubilete watch` on a recorded session and `cubilete bench tracker` on generated ones."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from lab.sessions.script import parse_script
from lab.sessions.synth import generate_session

SCRIPT = [{"throw": [3, 5, 2, 6, 1], "pause": 0.0}, {"throw": [4, 2, None, None, None], "pause": 0.0},
          {"turn": [2]}]


def cubilete(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "cli.main", *args], capture_output=True, text=True, timeout=300)


@pytest.fixture(scope="module")
def session(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("watch") / "session"
    generate_session(folder, parse_script(SCRIPT), rng=np.random.default_rng(5))
    return folder


def test_watch_prints_each_settled_throw_with_how_every_die_moved(session: Path) -> None:
    result = cubilete("watch", "--camera", f"replay:{session}", "--json")
    assert result.returncode == 0, result.stderr
    events = [json.loads(line) for line in result.stdout.splitlines()]
    assert all({"t", "event"} <= set(e) for e in events)
    settled = [e for e in events if e["event"] == "settled"]
    assert len(settled) == 3
    assert all({"value", "center", "confidence", "moved"} <= set(d) for e in settled for d in e["dice"])
    first, second, third = ([d["moved"] for d in e["dice"]] for e in settled)
    assert first == ["thrown"] * 5
    assert sorted(second) == ["held"] * 3 + ["thrown"] * 2
    assert sorted(third) == ["held"] * 4 + ["turned"]


def test_watch_without_json_prints_a_line_per_event(session: Path) -> None:
    result = cubilete("watch", "--camera", f"replay:{session}", "--fps", "15")
    assert result.returncode == 0, result.stderr
    assert sum("settled:" in line for line in result.stdout.splitlines()) == 3


def test_watch_says_what_is_wrong_in_one_line(tmp_path: Path) -> None:
    missing = cubilete("watch", "--camera", f"replay:{tmp_path / 'none'}")
    assert missing.returncode == 1 and missing.stderr.count("\n") == 1 and "no such session" in missing.stderr
    wrong = cubilete("watch", "--camera", "usb:0")
    assert wrong.returncode == 2 and "replay:DIR" in wrong.stderr


def test_bench_tracker_prints_its_figures() -> None:
    result = cubilete("bench", "tracker", "--sessions", "1", "--turns", "1")
    assert result.returncode == 0, result.stderr
    for figure in ("motion check: median", "frames/s", "settle latency: median", "missed 0",
                   "settled while a die moved: 0", "wrong 0"):
        assert figure in result.stdout
