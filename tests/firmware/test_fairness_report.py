"""The dice fairness on the device: the settings screen and the export's fairness.csv, over
the event log's first throws (engine.fairness does the test itself)."""

from __future__ import annotations

import csv
import io
import random
from pathlib import Path

import engine
from engine import events as ev
from firmware.appliance.menus import DiceFairness, SettingsMenu
from firmware.eventlog import EventLog
from firmware.export.formats import fairness_csv
from firmware.fairness_report import fairness_report
from firmware.localformat import Locale
from firmware.ui.catalogue import text

from tests.firmware.appliance_support import new_app


def record_games(log: EventLog, games: int, die: random.Random, loaded: bool = False) -> None:
    """Solitaire Crag games of first throws only (every box crossed out after one throw)."""
    faces = [1, 2, 3, 4, 5, 6] + ([6, 6] if loaded else [])
    for _ in range(games):
        start = engine.new_game("crag", ["Ana"])
        game_id = log.begin_game(start)
        state = engine.replay([start])
        for category in state.rules.category_ids:
            for event in (ev.throw(0, [die.choice(faces) for _ in range(3)]), ev.category_scratched(0, category)):
                state = engine.apply(state, event)
                log.append(game_id, event)
        log.end_game(game_id)


def screen_text(app, mode) -> list[str]:
    screen = mode.view(app)
    return [text(screen.title, "en"), *(text(line, "en") for line in screen.lines)]


def test_fair_dice_are_not_flagged_and_loaded_dice_are(tmp_path: Path) -> None:
    fair = EventLog.open(tmp_path / "fair")
    record_games(fair, 50, random.Random(1))  # 650 first throws
    report = fairness_report(fair)
    assert report.device.throws == 650 and report.device.dice == 1950 and not report.device.warning
    loaded = EventLog.open(tmp_path / "loaded")
    record_games(loaded, 50, random.Random(1), loaded=True)
    assert fairness_report(loaded).device.warning


def test_the_settings_screen_says_what_the_test_says(tmp_path: Path) -> None:
    app = new_app(tmp_path)
    lines = screen_text(app, DiceFairness.load(app, SettingsMenu()))
    assert lines[0] == "Dice fairness" and lines[1] == "0 throws, p 1.000" and "Few throws: 0/600" in lines
    record_games(app.log, 50, random.Random(2), loaded=True)
    mode = DiceFairness.load(app, SettingsMenu())
    lines = screen_text(app, mode)
    assert "Check the dice!" in lines and app.dice_warning
    counts = fairness_report(app.log).device.counts
    assert lines[2] == f"1:{counts[0]} 2:{counts[1]} 3:{counts[2]}" and lines[3].startswith("4:")
    assert lines[-1] == "Today 650, p<0.001"  # the games were all played just now
    marked = [i for i in SettingsMenu().items(app) if text(i.label, "en") == "Dice fairness"]
    assert marked and marked[0].value == "!"


def test_the_export_carries_the_test_for_the_device_and_each_game_day(tmp_path: Path) -> None:
    log = EventLog.open(tmp_path)
    record_games(log, 5, random.Random(3))
    report = fairness_report(log)
    rows = list(csv.reader(io.StringIO(fairness_csv(report, Locale("en")).decode("utf-8-sig"))))
    assert rows[0][:3] == ["scope", "first throws", "dice"]
    assert rows[1][0] == "device" and rows[1][1] == "65" and sum(map(int, rows[1][3:9])) == 195
    assert [r[0] for r in rows[2:]] == [day.isoformat() for day, _ in report.days]
