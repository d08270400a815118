"""The advisor's and the fairness check's benchmarks print their figures (figures, not timed tests)."""

from __future__ import annotations

from pathlib import Path

from cli.main import main


def test_bench_advisor_prints_a_row_per_game_and_skips_missing_tables(tmp_path: Path, capsys) -> None:
    assert main(["bench", "advisor", "--games", "crag,yatzy", "--decisions", "20", "--state-dir", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    crag = next(line for line in out.splitlines() if line.startswith("crag"))
    assert "149.8476" in crag and "package" in crag and crag.split()[-1] == "20"
    assert "yatzy" in out and "--build solves it" in out and "tables in all" in out


def test_bench_fairness_prints_loaded_and_fair_runs(capsys) -> None:
    assert main(["bench", "fairness", "--runs", "4", "--throws", "650", "--seed", "3"]) == 0
    out = capsys.readouterr().out
    assert "loaded 20% toward 6: warns when tested once at 600 throws" in out and out.count("/4") >= 4
    assert "fair:" in out
