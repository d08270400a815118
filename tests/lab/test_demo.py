"""`cubilete demo` runs a game to its end by itself and exports it (the one-throw variant)."""

from __future__ import annotations

import io
import json
from pathlib import Path

from lab.demo import run_demo


def test_quick_demo_plays_to_the_end_and_exports(tmp_path: Path) -> None:
    out = io.StringIO()
    state, export = tmp_path / "demo-state", tmp_path / "demo-export"
    (state / "leftover").mkdir(parents=True)  # reset at the start of each run
    result = run_demo(state, export, quick=True, language="en", out=out)
    assert result.finished, out.getvalue()[-2000:]
    assert "winner" in result.table and "won at once" in result.table
    assert not (state / "leftover").exists()
    text = out.getvalue()
    assert "┌" in text and "Final table" in text  # the OLED was drawn in the terminal
    games = list((export / "CUBILETE" / "demo").glob("*/events.jsonl"))
    assert len(games) == 1
    events = [json.loads(line) for line in games[0].read_text(encoding="utf-8").splitlines()]
    assert [e["event"]["type"] for e in events][:2] == ["game_started", "throw"]
    assert (state / "buttons.txt").read_text(encoding="utf-8").strip()
