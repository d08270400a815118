"""The power-cut soak, short: a small game (a fumbled correction, a score undone, an instant
win) killed three times mid-game; every check of the full soak runs (integrity after every
kill, confirmed events, the game event by event against an uninterrupted run).
`python -m lab.soak --kills 1000` is the full soak over the Cacho game."""

from __future__ import annotations

from pathlib import Path

from lab.soak import Timeline, run_soak
from lab.soak_game import MINI_CONFIG, MINI_GAME, SOAK_GAME
from lab.soak_log import describe_difference, first_difference


def test_a_few_sigkills_lose_nothing_and_the_game_goes_on(tmp_path: Path) -> None:
    result = run_soak(3, tmp_path, seed=7, game=MINI_GAME, kills_per_game=(3, 3), config_text=MINI_CONFIG)
    summary = result.summary()
    assert result.kills == 3 and result.kills_before_ready == 0, summary
    assert result.reference_finished, summary
    kinds = result.reference_kinds
    assert kinds.get("turn_undone") == 1 and kinds.get("reading_corrected", 0) >= 2, summary
    assert result.integrity_checks == result.runs and not result.integrity_failures, summary
    assert result.lost_events == [] and result.moved_aside == [], summary
    assert result.events_compared > 0 and result.diverged == [], summary
    assert result.games_as_reference == result.games == 1, summary
    assert result.ok and summary.endswith("soak: OK")


def test_a_divergence_is_found_at_its_event() -> None:
    reference = [{"type": "game_started"}, {"type": "throw", "values": [1]}, {"type": "category_scored"}]
    assert first_difference(reference[:2], reference) is None
    assert first_difference([reference[0], {"type": "throw", "values": [2]}], reference) == 1
    assert first_difference(reference + [{"type": "throw"}], reference) == 3
    said = describe_difference([reference[0], {"type": "throw", "values": [2]}], reference)
    assert said == 'event 1: expected {"type": "throw", "values": [1]}, got {"type": "throw", "values": [2]}'
    assert describe_difference(reference[:1] + reference[1:], reference) == ""
    assert describe_difference(reference + [{"type": "throw"}], reference).endswith(
        'expected nothing (the end), got {"type": "throw"}')


def test_kills_are_aimed_by_the_uninterrupted_run_s_time_line() -> None:
    line = Timeline([(1.0, 10.0), (3.0, 30.0)], duration=40.0, wall=4.0)
    assert line(0.0) == 0.0 and line(10.0) == 1.0 and line(20.0) == 2.0 and line(40.0) == 4.0


def test_the_soak_game_has_every_kind_of_event_the_issue_asks_for() -> None:
    keys = {key for step in SOAK_GAME for key in step}
    assert {"undo", "fumble", "turn", "throw"} <= keys
    scored = [step["score"] for step in SOAK_GAME if "score" in step]
    assert len(scored) == 22 and scored.count("grande_2") == 2  # 11 boxes each; the grandes crossed out
