"""Exporting the game logs to a folder: what is written, new games only, the command."""

from __future__ import annotations

import csv
import io
import json
import re
import shutil
from pathlib import Path

import pytest

from cli.main import main
from firmware.eventlog import EventLog
from firmware.export import exported_game_ids
from firmware.export.exporter import export_games
from firmware.localformat import Locale, parse_utc
from tests.firmware.export_support import memory_tmp_path, JPEG, add_games, make_state, record_game, tree


tmp_path = pytest.fixture(memory_tmp_path)  # fsync-heavy tests: see export_support
module_tmp = pytest.fixture(scope="module")(memory_tmp_path)


def read_csv(path: Path) -> list[list[str]]:
    data = path.read_bytes()
    assert data.startswith("\ufeff".encode()), "CSV files carry a BOM so spreadsheets read UTF-8"
    return list(csv.reader(io.StringIO(data.decode("utf-8-sig"))))


@pytest.fixture(scope="module")
def seed(module_tmp: Path) -> Path:
    path = module_tmp / "seed" / "state"
    make_state(path, 3)
    return path


@pytest.fixture
def state(seed: Path, tmp_path: Path) -> Path:
    shutil.copytree(seed, tmp_path / "state")
    return tmp_path / "state"


def test_writes_games_csv_and_a_folder_per_game(state: Path, tmp_path: Path) -> None:
    out = tmp_path / "stick"
    out.mkdir()
    result = export_games(state, out, "Bar Pepe")
    base = out / "CUBILETE" / "Bar Pepe"
    assert result.games == 3 and result.listed == 3
    rows = read_csv(base / "games.csv")
    assert rows[0][:3] == ["id de partida", "carpeta", "juego"]  # the device's language: es
    assert len(rows) == 4
    with EventLog.open_readonly(state) as log:
        games = log.games()
        for record, row in zip(games, rows[1:]):
            assert row[0] == record.game_id
            folder = base / row[1]
            assert sorted(p.name for p in folder.iterdir()) == [
                "events.jsonl", "scoresheet.csv", "scoresheet.html", "snapshots"]
            lines = [json.loads(line) for line in (folder / "events.jsonl").read_text().splitlines()]
            stored = log.events(record.game_id)
            assert [line["event"] for line in lines] == [e.event for e in stored]
            assert [parse_utc(line["at"]) for line in lines] == [parse_utc(e.at) for e in stored]
            throws = [line for line in lines if line["event"]["type"] == "throw"]
            assert throws and all(line["reading"]["dice"] for line in throws)
            for line in throws:
                snapshot = folder / line["snapshot"]
                assert snapshot.read_bytes().startswith(JPEG)
            sheet = read_csv(folder / "scoresheet.csv")
            assert sheet[0] == ["", "Ana", "Beto"]


def test_the_html_sheet_loads_nothing_but_its_own_snapshots(state: Path, tmp_path: Path) -> None:
    export_games(state, tmp_path, "bar")
    pages = list((tmp_path / "CUBILETE" / "bar").glob("*/scoresheet.html"))
    assert len(pages) == 3
    for page in pages:
        text = page.read_text()
        assert text.startswith("<!DOCTYPE html>") and text.rstrip().endswith("</html>")
        lowered = text.lower()
        for forbidden in ("<script", "http:", "https:", "@import", "url(", "//"):
            assert forbidden not in lowered
        links = re.findall(r'(?:src|href)="([^"]*)"', text)
        assert links and all(re.fullmatch(r"snapshots/\d{6}\.jpg", link) for link in links)
        assert all((page.parent / link).is_file() for link in links)
        assert "default-src 'none'" in text and "img-src 'self' file:" in text
        assert "Ana" in text and "Beto" in text


def test_only_new_games_by_default_and_everything_with_all(state: Path, tmp_path: Path) -> None:
    assert export_games(state, tmp_path, "bar").games == 3
    assert export_games(state, tmp_path, "bar").games == 0
    new = add_games(state, 2)
    second = tmp_path / "second-stick"
    second.mkdir()
    result = export_games(state, second, "bar")
    assert result.games == 2
    folders = {p.name.split("_")[0] for p in (second / "CUBILETE" / "bar").iterdir() if p.is_dir()}
    assert folders == set(new)
    # games.csv lists the games on this stick only: the first three are on the first one
    assert len(read_csv(second / "CUBILETE" / "bar" / "games.csv")) == 1 + 2
    assert (result.listed, result.elsewhere) == (2, 3)
    assert "3 exported earlier are not on this target" in result.summary_line(str(second))
    assert len(read_csv(tmp_path / "CUBILETE" / "bar" / "games.csv")) == 1 + 3
    everything = export_games(state, second, "bar", all_games=True)
    assert (everything.games, everything.listed, everything.elsewhere) == (5, 5, 0)
    assert len(read_csv(second / "CUBILETE" / "bar" / "games.csv")) == 1 + 5
    # back on the first stick: its three games and the two new ones
    assert export_games(state, tmp_path, "bar").listed == 3
    assert len(read_csv(tmp_path / "CUBILETE" / "bar" / "games.csv")) == 1 + 3


def test_a_game_exported_while_playing_goes_out_again_when_it_moves_on(tmp_path: Path) -> None:
    state = tmp_path / "state"
    with EventLog.open(state) as log:
        game_id = record_game(log, ["Ana", "Beto"], rounds=1, end=False)
    export_games(state, tmp_path, "bar")
    assert exported_game_ids(state) == set()  # not deletable: more may come
    assert export_games(state, tmp_path, "bar").games == 0
    with EventLog.open(state) as log:
        log.append(game_id, {"type": "throw", "v": 1, "player": 0, "values": [6, 6, 6, 6, 6],
                             "thrown": [0, 1, 2, 3, 4]})
        log.end_game(game_id)
    assert export_games(state, tmp_path, "bar").games == 1
    assert exported_game_ids(state) == {game_id}


def test_nothing_on_the_device_is_deleted(state: Path, tmp_path: Path) -> None:
    before = tree(state)
    export_games(state, tmp_path, "bar", all_games=True)
    after = tree(state)
    assert set(before) <= set(after)
    for name, content in before.items():
        if not name.startswith(("cubilete.db", "exports", ".exports")):
            assert after[name] == content, name


def test_snapshots_can_be_left_out(state: Path, tmp_path: Path) -> None:
    export_games(state, tmp_path, "bar", include_snapshots=False)
    assert not list(tmp_path.glob("CUBILETE/bar/*/snapshots"))


def test_a_snapshot_already_deleted_on_the_device_is_counted_not_fatal(state: Path, tmp_path: Path) -> None:
    victim = next((state / "snapshots").rglob("*.jpg"))
    victim.unlink()
    result = export_games(state, tmp_path, "bar")
    assert result.games == 3 and result.missing_snapshots == 1


def test_command_exports_and_says_so(state: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "out"
    out.mkdir()
    code = main(["export", "--to", str(out), "--state-dir", str(state), "--name", "barra"])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    assert "exported 3 games" in captured.out
    assert (out / "CUBILETE" / "barra" / "games.csv").is_file()


@pytest.mark.parametrize("problem", ["no-target", "no-state", "target-is-file"])
def test_command_failure_is_one_line_and_nonzero(problem: str, state: Path, tmp_path: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    target, state_dir = tmp_path / "out", state
    if problem == "no-state":
        target.mkdir()
        state_dir = tmp_path / "nothing-here"
    elif problem == "target-is-file":
        target.write_text("x")
    code = main(["export", "--to", str(target), "--state-dir", str(state_dir)])
    err = capsys.readouterr().err
    assert code == 1
    assert len(err.strip().splitlines()) == 1 and err.startswith("cubilete export: error: ")
    assert "Traceback" not in err


def test_command_needs_a_target(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(["export"])
    assert exit_info.value.code == 2
    assert len(capsys.readouterr().err.strip().splitlines()) == 1


def test_exports_while_the_service_is_writing(tmp_path: Path) -> None:
    state = tmp_path / "state"
    writer = EventLog.open(state)  # the service keeps its log open (WAL)
    try:
        game_id = record_game(writer, ["Ana", "Beto"], rounds=2, end=False)
        assert export_games(state, tmp_path, "bar").games == 1
        writer.append(game_id, {"type": "throw", "v": 1, "player": 0, "values": [2, 2, 3, 3, 3],
                                "thrown": [0, 1, 2, 3, 4]})
        assert export_games(state, tmp_path, "bar").games == 1
        events = (next((tmp_path / "CUBILETE" / "bar").glob("*/events.jsonl"))).read_text().splitlines()
        assert len(events) == 1 + 2 * 2 * 2 + 1
    finally:
        writer.close()


def test_a_log_the_rules_refuse_is_still_exported_whole_with_a_note(tmp_path: Path) -> None:
    state = tmp_path / "state"
    with EventLog.open(state) as log:
        game_id = record_game(log, ["Ana", "Beto"], rounds=1, end=False)
        log.append(game_id, {"type": "category_scored", "v": 1, "player": 1, "category": "ones"})
        log.end_game(game_id)
    export_games(state, tmp_path, "bar", locale=Locale("en"))
    base = tmp_path / "CUBILETE" / "bar"
    row = dict(zip(*read_csv(base / "games.csv")))
    assert "refused by the rules" in row["note"] and row["totals"]
    (folder,) = [p for p in base.iterdir() if p.is_dir()]
    assert len((folder / "events.jsonl").read_text().splitlines()) == 6


@pytest.mark.parametrize("language,words", [("es", ["Ganador", "paga a", "Tiros y anotaciones"]),
                                            ("en", ["Winner", "pays", "Throws and scores"])])
def test_score_sheets_speak_the_device_language(tmp_path: Path, language: str, words: list[str]) -> None:
    state = tmp_path / "state"
    with EventLog.open(state) as log:
        record_game(log, ["Ana", "Beto"])
    export_games(state, tmp_path, "bar", locale=Locale(language))
    (page,) = (tmp_path / "CUBILETE" / "bar").glob("*/scoresheet.html")
    text = page.read_text()
    for word in words:
        assert word in text
    header = read_csv(tmp_path / "CUBILETE" / "bar" / "games.csv")[0]
    assert header[0] == {"es": "id de partida", "en": "game id"}[language]
