"""The power-cut soak, short: the service killed with SIGKILL mid-game keeps every confirmed
event and, restarted, plays the game to the same end as an uninterrupted run."""

from __future__ import annotations

from pathlib import Path

from firmware.demo import QUICK_GAME
from firmware.soak import run_soak


def test_a_few_sigkills_lose_nothing_and_the_game_goes_on(tmp_path: Path) -> None:
    result = run_soak(3, tmp_path, seed=7, game=QUICK_GAME, kills_per_game=(3, 3))
    assert result.kills == 3
    assert result.reference_finished, result.summary()
    assert result.lost_events == [], result.summary()
    assert result.damaged_logs == [], result.summary()
    assert result.games_as_reference == result.games, result.summary()
