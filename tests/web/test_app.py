"""The scoreboard's service, through Starlette's TestClient and a live uvicorn: the numbers
are the engine's, an appended event shows up, the headers are strict, no URL reaches the
file system but a snapshot by game and throw, and the log is never written."""

from __future__ import annotations

import json
import re
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

import httpx2
import pytest
from starlette.testclient import TestClient

import engine
from firmware.eventlog import EventLog
from firmware.localformat import MoneyStyle, format_money
from tests.web.conftest import LiveServer, config_for
from tests.web.support import Recorder
from web.board import if_ended_now
from web.serve import build


def client_for(recorded: Recorder, language: str = "en") -> TestClient:
    return TestClient(build(config_for(recorded.state_dir, language), poll_s=0.05))


def board_of(client: TestClient) -> dict[str, Any]:
    response = client.get("/api/board")
    assert response.status_code == 200
    return response.json()


def files_of(folder: Path) -> dict[str, tuple[int, int]]:
    return {str(p.relative_to(folder)): (p.stat().st_size, p.stat().st_mtime_ns)
            for p in sorted(folder.rglob("*"))}


def test_the_sheet_is_the_engines(recorded: Recorder) -> None:
    state = recorded.state
    with client_for(recorded) as client:
        game = board_of(client)["game"]
    assert game["players"] == list(state.players)
    assert game["totals"] == list(state.totals)
    assert game["current"] == state.turn.player and not game["finished"]
    for row, category in zip(game["sheet"], state.rules.categories):
        for player, cell in enumerate(row):
            mark = state.sheets[player][category.id]
            assert (cell is None) == (mark is None)
            if mark is not None:
                assert (cell["p"], cell["x"], cell["s"]) == (mark.points, mark.scratched, mark.served)
    assert game["last_throw"]["dice"] == list(state.turn.dice)
    allowed = [o for o in engine.score_options(state) if o.allowed]
    assert [(o["category"], o["points"]) for o in game["options"]] == [(o.category, o.points) for o in allowed][:8]
    payments = engine.settlement(if_ended_now(state))
    assert len(game["settlement"]["lines"]) == len(payments) and not game["settlement"]["final"]
    for line, payment in zip(game["settlement"]["lines"], payments):
        assert format_money(payment.amount, MoneyStyle("$"), "en") in line  # the device's one money style


def test_money_on_the_scoreboard_is_written_as_the_device_writes_it(recorded: Recorder) -> None:
    config = config_for(recorded.state_dir, "es")
    config = replace(config, device=replace(config.device, currency="€", currency_position="after"))
    with TestClient(build(config, poll_s=0.05)) as client:
        lines = board_of(client)["game"]["settlement"]["lines"]
    payments = engine.settlement(if_ended_now(recorded.state))
    assert lines and all(re.search(r" \d+,\d\d€ ", line) for line in lines), lines
    assert all(format_money(p.amount, MoneyStyle("€", "after"), "es") in line for line, p in zip(lines, payments))


def test_the_days_finished_games_and_fairness(recorded: Recorder) -> None:
    with client_for(recorded) as client:
        board = board_of(client)
    assert len(board["today"]) == 1
    finished = board["today"][0]
    assert finished["finished"] and finished["players"] == ["Ana", "Beto", "Caro"]
    with EventLog.open_readonly(recorded.state_dir) as log:
        first = log.games()[0]
        events = [e.event for e in log.events(first.game_id)]
        current = [e.event for e in log.events(recorded.game_id)]
    state = engine.replay(events)
    assert finished["totals"] == list(state.totals)
    assert finished["winners"] == [state.players[p] for p in engine.winners(state)]
    throws = engine.fairness.first_throws(events) + engine.fairness.first_throws(current)
    figures = engine.fairness.fairness(throws)
    assert board["fairness"]["throws"] == figures.throws
    assert board["fairness"]["counts"] == list(figures.counts)


def test_spanish_as_the_device_is_set(recorded: Recorder) -> None:
    with client_for(recorded, "es") as client:
        board = board_of(client)
    assert board["lang"] == "es" and board["t"]["total"] == "Total" and board["t"]["to_throw"] == "Tira"
    assert board["game"]["categories"][0]["name"] == engine.get_game("generala").rules({}).categories[0].name_es


def test_an_appended_event_shows_up(recorded: Recorder) -> None:
    with client_for(recorded) as client:
        before = board_of(client)
        recorded.score_best()
        deadline = time.monotonic() + 5
        after = board_of(client)
        while after["v"] == before["v"] and time.monotonic() < deadline:
            time.sleep(0.05)
            after = board_of(client)
    assert after["v"] > before["v"]
    assert after["game"]["totals"] == list(recorded.state.totals)
    assert after["game"]["current"] == recorded.state.turn.player != before["game"]["current"]


def test_strict_headers_everywhere(recorded: Recorder) -> None:
    with client_for(recorded) as client:
        for path in ("/", "/board.js", "/board.css", "/api/board", "/nothing-here", "/snapshot/x/1"):
            response = client.get(path)
            csp = response.headers["content-security-policy"]
            assert "default-src 'self'" in csp and "frame-ancestors 'none'" in csp, path
            assert "unsafe-inline" not in csp
            assert response.headers["x-content-type-options"] == "nosniff"
            assert response.headers["x-frame-options"] == "DENY"
        page = client.get("/").text
    assert "http://" not in page and "https://" not in page  # nothing from the internet


@pytest.mark.parametrize("path", [
    "/static/", "/web/", "/web/static/board.js", "/../pyproject.toml", "/%2e%2e/pyproject.toml",
    "/snapshot/..%2F..%2Fcubilete.db/1", "/snapshot/../cubilete.db", "/snapshot/x/-1", "/snapshot/x/abc",
    "/snapshots/", "/cubilete.db",
])
def test_no_url_reaches_the_file_system(recorded: Recorder, path: str) -> None:
    with client_for(recorded) as client:
        response = client.get(path)
    assert response.status_code in (404, 405), (path, response.status_code)
    assert b"SQLite" not in response.content


def test_a_snapshot_by_game_and_throw_only(recorded: Recorder) -> None:
    with client_for(recorded) as client:
        last = board_of(client)["game"]["last_throw"]
        response = client.get(last["snapshot"])
        not_a_throw = client.get(f"/snapshot/{recorded.game_id}/0")
        another_game = client.get(f"/snapshot/20000101T000000Z-000000/{last['seq']}")
    assert response.status_code == 200 and response.headers["content-type"] == "image/jpeg"
    stored = recorded.state_dir / "snapshots" / recorded.game_id / f"{last['seq']:06d}.jpg"
    assert response.content == stored.read_bytes()
    assert not_a_throw.status_code == another_game.status_code == 404


def test_a_snapshot_swapped_for_a_link_is_not_followed(recorded: Recorder) -> None:
    with client_for(recorded) as client:
        last = board_of(client)["game"]["last_throw"]
        stored = recorded.state_dir / "snapshots" / recorded.game_id / f"{last['seq']:06d}.jpg"
        stored.unlink()
        stored.symlink_to(recorded.state_dir / "cubilete.db")
        assert client.get(last["snapshot"]).status_code == 404


def test_the_log_is_never_written(recorded: Recorder) -> None:
    before = files_of(recorded.state_dir)
    with client_for(recorded) as client:
        board = board_of(client)
        client.get(board["game"]["last_throw"]["snapshot"])
        time.sleep(0.3)
    assert files_of(recorded.state_dir) == before


def test_while_the_service_writes_nothing_is_created(recorded: Recorder) -> None:
    with EventLog.open(recorded.state_dir) as writer:  # the service has the log open
        before = {p.name for p in recorded.state_dir.iterdir()}
        with client_for(recorded) as client:
            board_of(client)
            writer.append(recorded.game_id, engine.events.category_scored(recorded.state.turn.player, "sixes"))
            time.sleep(0.3)
        assert {p.name for p in recorded.state_dir.iterdir()} == before


def test_no_log_yet_is_a_board_that_says_so(tmp_path: Path) -> None:
    with TestClient(build(config_for(tmp_path / "nothing"))) as client:
        board = board_of(client)
    assert board["log"] is False and board["game"] is None
    assert not (tmp_path / "nothing").exists()


def test_events_stream_the_board_and_every_change(live: LiveServer, recorded: Recorder) -> None:
    with httpx2.Client(timeout=10) as http, http.stream("GET", live.url + "/events") as stream:
        assert stream.headers["content-type"].startswith("text/event-stream")
        assert "frame-ancestors 'none'" in stream.headers["content-security-policy"]
        lines = stream.iter_lines()
        first = _next_board(lines)
        assert first["game"]["totals"] == list(recorded.state.totals)
        recorded.score_best()
        started = time.monotonic()
        second = _next_board(lines)
        assert time.monotonic() - started < 1.0
    assert second["v"] > first["v"]
    assert second["game"]["totals"] == list(recorded.state.totals)


def test_live_streams_are_bounded(recorded: Recorder) -> None:
    with LiveServer(config_for(recorded.state_dir, max_viewers=2)) as server, httpx2.Client(timeout=10) as http:
        with http.stream("GET", server.url + "/events") as one, http.stream("GET", server.url + "/events") as two:
            assert one.status_code == two.status_code == 200
            refused = http.get(server.url + "/events")
            assert refused.status_code == 503 and refused.headers["retry-after"]
            assert http.get(server.url + "/api/board").status_code == 200  # the page still polls


def _next_board(lines: Any) -> dict[str, Any]:
    for line in lines:
        if line.startswith("data: "):
            return json.loads(line[len("data: "):])
    raise AssertionError("the stream ended")
