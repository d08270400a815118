"""The dice fairness on the device: the settings screen, the export's fairness.csv, and the
warning players see without opening the settings (a notice at start and after each game,
the home screen), over the event log's first throws (engine.fairness does the test itself),
each finished game's figures kept in the state directory."""

from __future__ import annotations

import csv
import io
import json
import random
from pathlib import Path

from engine import events as ev
from firmware.appliance.menus import DiceFairness, SettingsMenu
from firmware import fairness_report as fairness_report_module
from firmware.eventlog import EventLog
from firmware.export.formats import fairness_csv
from firmware.fairness_report import fairness_report
from firmware.localformat import Locale
from firmware.ui.catalogue import text

from tests.firmware.appliance_support import new_app, press, record_games, start_game


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


# -- the warning where players see it -----------------------------------------------------------------


def screen_lines(app, lang: str = "en") -> list[str]:
    screen = app.screen()
    return [text(screen.title, lang), *(text(line, lang) for line in getattr(screen, "lines", ()))]


def home(app) -> tuple[str, str, list[tuple[str, str | None]]]:
    """The main menu's title, bottom line and items (label, value), in English."""
    screen = app.screen()
    items = [(text(i.label, "en"), None if i.value is None else text(i.value, "en")) for i in screen.items]
    return text(screen.title, "en"), text(screen.hint, "en"), items


def test_loaded_dice_are_told_at_start_and_on_the_home_screen(tmp_path: Path) -> None:
    with EventLog.open(tmp_path) as log:
        record_games(log, 50, random.Random(4), loaded=True)
    app = new_app(tmp_path)
    assert app.dice_warning
    assert screen_lines(app) == ["Dice may be loaded", "Fairness test failed", "Settings: Dice fairness"]
    assert screen_lines(app, "es") == ["¿Dados cargados?", "No pasan la prueba", "Ajustes > Dados justos"]
    press(app, "ok")  # the notice goes; the home screen keeps saying it
    title, hint, items = home(app)
    assert (title, hint) == ("Dice may be loaded", "See Settings > Dice") and ("Settings", "!") in items
    screen = app.screen()
    assert (text(screen.title, "es"), text(screen.hint, "es")) == ("¿Dados cargados?", "Ver Ajustes > Dados")


def test_fair_dice_are_not_told(tmp_path: Path) -> None:
    with EventLog.open(tmp_path) as log:
        record_games(log, 50, random.Random(4))
    app = new_app(tmp_path)
    assert not app.dice_warning
    title, hint, items = home(app)
    assert (title, hint) == ("Cubilete", "OK picks, hold: back") and ("Settings", None) in items


def test_the_warning_comes_after_the_game_that_tips_the_test(tmp_path: Path) -> None:
    with EventLog.open(tmp_path) as log:
        record_games(log, 46, random.Random(5), loaded=True)  # 598 first throws: too few to warn
    app = new_app(tmp_path, game="crag", players=1)
    assert not app.dice_warning and home(app)[0] == "Cubilete"
    start_game(app)
    die = random.Random(6)
    for category in app.session.state.rules.category_ids:  # 13 more loaded first throws
        app.session.record(ev.throw(0, [die.choice([1, 2, 3, 4, 5, 6, 6, 6]) for _ in range(3)]))
        app.session.record(ev.category_scratched(0, category))
    app.mode = app.game_mode()
    press(app, "ok")  # the final table closes the game
    assert app.dice_warning and screen_lines(app)[0] == "Dice may be loaded"
    press(app, "ok")
    assert home(app)[0] == "Dice may be loaded"


def test_the_device_keeps_each_finished_games_figures_so_a_start_replays_none(tmp_path: Path, monkeypatch) -> None:
    with EventLog.open(tmp_path) as log:
        record_games(log, 50, random.Random(7), loaded=True)
        cache = tmp_path / fairness_report_module.CACHE_FILE
        first = fairness_report(log, cache)
        assert json.loads(cache.read_text(encoding="utf-8"))["games"].keys() == {g.game_id for g in log.games()}
        # Another start (a new process): the figures come from the file, no game is replayed.
        monkeypatch.setattr(fairness_report_module, "_FINISHED", {})
        monkeypatch.setattr(fairness_report_module, "_READ", set())

        def replayed(events):
            raise AssertionError("a finished game was replayed")
        monkeypatch.setattr(fairness_report_module, "first_throws", replayed)
        assert fairness_report(log, cache) == first


def test_a_damaged_cache_file_is_only_a_slower_start(tmp_path: Path, monkeypatch) -> None:
    with EventLog.open(tmp_path) as log:
        record_games(log, 5, random.Random(8))
        expected = fairness_report(log)
        cache = tmp_path / fairness_report_module.CACHE_FILE
        for damage in ("{not json", '{"v": 1, "games": {"x": [1, 2]}}', '{"v": 99, "games": {}}'):
            cache.write_text(damage, encoding="utf-8")
            monkeypatch.setattr(fairness_report_module, "_FINISHED", {})
            monkeypatch.setattr(fairness_report_module, "_READ", set())
            assert fairness_report(log, cache) == expected
