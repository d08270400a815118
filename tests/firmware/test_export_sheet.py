"""The exported score sheet ends arguments: the dice in one order (left to right on the tray)
in the "dice" and "camera" columns, each throw's snapshot linked, the deciding throw
marked; and every export in the device's locale (language, money, local time)."""

from __future__ import annotations

import csv
import io
import json
from datetime import timedelta, timezone
from pathlib import Path
from typing import Any

import pytest

import engine
from cli.main import main
from engine import events as ev
from engine.fairness import fairness
from firmware.eventlog import EventLog, StoredEvent
from firmware.export.exporter import export_games
from firmware.export.formats import fairness_csv, games_csv, games_csv_row, scoresheet_csv, scoresheet_html
from firmware.export.summary import summarize
from firmware.export.throwlog import throw_log
from firmware.fairness_report import FairnessReport
from firmware.localformat import Locale, MoneyStyle
from tests.firmware.export_support import JPEG, memory_tmp_path

tmp_path = pytest.fixture(memory_tmp_path)

LA_PAZ = timezone(timedelta(hours=-4))
GENERALA = ("ones", "twos", "threes", "fours", "fives", "sixes", "straight", "full_house",
            "four_of_a_kind", "generala")


def reading(dice: list[tuple[int, float]], index: list[int], moved: list[str] | None = None,
            unsure: tuple[int, ...] = ()) -> dict[str, Any]:
    """A stored reading: the dice (value, x) in the reader's order and the engine die each is."""
    return {"dice": [{"value": v, "center": [x, 100.0], "size": 40.0, "angle": 0.0,
                      "confidence": 0.5 if r in unsure else 0.99, "alternatives": [], "cocked": False}
                     for r, (v, x) in enumerate(dice)],
            "problems": [], "problem_details": [], "moved": moved or ["thrown"] * len(dice), "index": index}


class Game:
    """Stored events built by hand, one second apart from 10:55:10 UTC."""

    def __init__(self, players: list[str], game: str = "generala", stake: str | None = "0.5") -> None:
        self.events: list[StoredEvent] = []
        self.add(engine.new_game(game, players, stake=stake))

    def add(self, event: dict[str, Any], reading: dict[str, Any] | None = None, snapshot: bool = False) -> int:
        seq = len(self.events)
        self.events.append(StoredEvent(seq, f"2026-11-25T10:{55 + seq // 60:02d}:{seq % 60:02d}.280Z", event,
                                       reading, f"snapshots/x/{seq}.jpg" if snapshot else None))
        return seq

    def throw(self, player: int, values: list[int], thrown: list[int] | None = None, **kw: Any) -> int:
        return self.add(ev.throw(player, values, thrown), **kw)

    @property
    def snapshots(self) -> dict[int, str]:
        return {e.seq: f"snapshots/{e.seq:06d}.jpg" for e in self.events if e.snapshot}

    def summary(self, language: str = "es") -> Any:
        return summarize("g1", self.events[0].event["game"], self.events[0].at, None,
                         [e.event for e in self.events], language)


def a_turn_with_dice_held_out_of_order() -> Game:
    game = Game(["Ana", "Beto"])
    # The reader lists the dice in the order it found them; the engine numbers them left to
    # right on the first throw: 6 2 5 4 3.
    game.throw(0, [6, 2, 5, 4, 3], reading=reading([(5, 300), (6, 100), (2, 200), (4, 400), (3, 500)],
                                                    [2, 0, 1, 3, 4]), snapshot=True)
    # Ana keeps the 6 (die 0) and the 5 (die 2) where they lie; the three thrown again land
    # at x 50, 250 and 450: the engine gives them dice 1, 3 and 4.
    game.throw(0, [6, 1, 5, 6, 6], [1, 3, 4],
               reading=reading([(6, 450), (6, 100), (5, 300), (1, 50), (6, 250)], [4, 0, 2, 1, 3],
                               ["thrown", "held", "held", "thrown", "thrown"]), snapshot=True)
    game.add(ev.category_scored(0, "sixes"))
    return game


def test_dice_and_camera_list_the_same_dice_left_to_right() -> None:
    game = a_turn_with_dice_held_out_of_order()
    rows, _ = throw_log(game.events, game.snapshots)
    first, second = rows[0], rows[1]
    assert first.dice == (6, 2, 5, 4, 3) and first.camera == ("6", "2", "5", "4", "3")
    # the engine's order would be 6 1 5 6 6 and the reader's 6 6 5 1 6: on the tray it is
    assert second.dice == (1, 6, 6, 5, 6) and second.camera == ("1", "6", "6", "5", "6")
    sheet = csv_rows(scoresheet_csv(game.summary(), rows, None, Locale("es", zone=LA_PAZ)))
    log = sheet[sheet.index(["#", "hora", "jugador", "qué", "dados", "cámara", "foto", "decisivo"]) + 1:]
    assert [r[4] for r in log[:2]] == [r[5] for r in log[:2]] == ["6 2 5 4 3", "1 6 6 5 6"]


def test_each_throw_links_its_snapshot_shown_small_in_the_html_sheet() -> None:
    game = a_turn_with_dice_held_out_of_order()
    rows, deciding = throw_log(game.events, game.snapshots)
    sheet = csv_rows(scoresheet_csv(game.summary(), rows, deciding))
    assert [r[6] for r in sheet if r[:1] in (["1"], ["2"])] == ["snapshots/000001.jpg", "snapshots/000002.jpg"]
    page = scoresheet_html(game.summary(), rows, deciding, "bar").decode()
    assert page.count('<img class="snap" src="snapshots/000001.jpg"') == 1
    assert '<a href="snapshots/000002.jpg">' in page
    assert "img.snap{height:3.2em" in page


def test_an_unsure_die_is_marked_where_it_lies_and_a_die_turned_over_by_its_number() -> None:
    game = Game(["Ana", "Beto"], game="cacho")
    game.throw(0, [3, 3, 1, 6, 2], reading=reading([(1, 300), (3, 100), (3, 200), (6, 400), (2, 500)],
                                                    [2, 0, 1, 3, 4], unsure=(0,)))
    game.add(ev.reading_corrected(0, [3, 3, 1, 6, 2]))
    game.throw(0, [3, 3, 4, 6, 2], [2], reading=reading([(4, 50), (3, 100), (3, 200), (6, 400), (2, 500)],
                                                        [2, 0, 1, 3, 4], ["thrown", "held", "held", "held", "held"]))
    game.add(ev.die_turned(0, 4, 5))  # the 2, rightmost
    rows, _ = throw_log(game.events, {})
    assert rows[0].camera == ("3", "3", "1?", "6", "2")
    assert rows[2].dice == (4, 3, 3, 6, 2)  # the 4 landed leftmost
    assert rows[3].die == 5 and rows[3].dice == (4, 3, 3, 6, 5)
    summary = game.summary("en")
    assert "die 5 turned to 5" in csv_text(scoresheet_csv(summary, rows, None))


def test_dice_entered_by_hand_keep_the_places_of_the_turns_last_throw() -> None:
    game = a_turn_with_dice_held_out_of_order()
    game.throw(1, [2, 2, 3, 4, 5], reading=reading([(2, 100), (2, 200), (3, 300), (4, 400), (5, 500)],
                                                    [0, 1, 2, 3, 4]))
    game.add(ev.throw(1, [2, 6, 3, 4, 5], [1], source=ev.SOURCE_HAND))
    rows, _ = throw_log(game.events, {})
    assert rows[-1].dice == (2, 6, 3, 4, 5) and rows[-1].camera is None
    assert "a mano" in csv_text(scoresheet_csv(game.summary(), rows, None))


# -- the deciding throw -------------------------------------------------------------------------


def test_the_throw_of_an_instant_win_decides() -> None:
    game = Game(["Ana", "Beto"])
    game.throw(0, [2, 3, 4, 5, 6])
    game.add(ev.category_scored(0, "straight"))
    winning = game.throw(1, [4, 4, 4, 4, 4], snapshot=True)
    rows, deciding = throw_log(game.events, game.snapshots)
    assert deciding is not None and deciding.throw == winning and deciding.player == 1
    assert [r.seq for r in rows if r.deciding] == [winning]
    page = scoresheet_html(game.summary(), rows, deciding, "bar").decode()
    assert '<tr class="deciding"><td>★ 3</td>' in page
    assert "★ Tiro decisivo: Generala servida (Beto)." in page


def full_game(ana: dict[int, tuple[list[list[int]], str]], beto_ones: bool = True) -> Game:
    """Ten rounds of Generala: Ana crosses out every box but those given (round -> throws,
    box), Beto scores ones in round 1 (1 point) and crosses out the rest."""
    game = Game(["Ana", "Beto"])
    for turn, box in enumerate(GENERALA):
        throws, filled = ana.get(turn, ([[1, 2, 3, 4, 6]], ""))
        previous: list[int] | None = None
        for values in throws:
            thrown = None if previous is None else [i for i in range(5) if values[i] != previous[i]]
            game.throw(0, values, thrown, snapshot=True)
            previous = values
        game.add(ev.category_scored(0, filled) if filled else ev.category_scratched(0, box))
        game.throw(1, [1, 3, 4, 5, 6] if turn == 0 else [2, 3, 4, 6, 6])
        game.add(ev.category_scored(1, "ones") if turn == 0 and beto_ones else ev.category_scratched(1, box))
    return game


def test_the_throw_that_put_the_winner_ahead_for_good_decides() -> None:
    # Ana passes Beto's final 1 point only in the last round, with a generala on her 2nd throw.
    game = full_game({9: ([[2, 2, 2, 2, 1], [2, 2, 2, 2, 2]], "generala")})
    rows, deciding = throw_log(game.events, game.snapshots)
    state = engine.replay(e.event for e in game.events)
    assert state.finished and state.totals == (60, 1)
    second_throw = [r for r in rows if r.kind == "throw" and r.player == 0][-1]
    assert deciding is not None and deciding.throw == second_throw.index
    assert (deciding.player, deciding.passed, deciding.others) == (0, 1, (1,))
    assert [r.index for r in rows if r.deciding] == [second_throw.index]
    text = csv_text(scoresheet_csv(game.summary(), rows, deciding))
    assert "con él Ana pasó los 1 puntos de Beto" in text


def test_a_shared_win_has_no_deciding_throw() -> None:
    game = full_game({}, beto_ones=False)
    rows, deciding = throw_log(game.events, game.snapshots)
    assert deciding is None and not any(r.deciding for r in rows)


def test_an_unfinished_game_has_no_deciding_throw() -> None:
    game = a_turn_with_dice_held_out_of_order()
    assert throw_log(game.events, {})[1] is None


def test_a_box_taken_back_does_not_decide() -> None:
    # Ana fills ones with 1 (passing Beto's final 0), takes it back, and crosses it out; her
    # generala in the last round decides.
    game = Game(["Ana", "Beto"])
    for turn, box in enumerate(GENERALA):
        if turn == 0:
            game.throw(0, [1, 2, 3, 4, 6])
            game.add(ev.category_scored(0, "ones"))
            game.add(ev.turn_undone())
            game.add(ev.category_scratched(0, "ones"))
        elif turn == 9:
            game.throw(0, [5, 5, 5, 5, 1])
            last = game.throw(0, [5, 5, 5, 5, 5], [4])
            game.add(ev.category_scored(0, "generala"))
        else:
            game.throw(0, [1, 2, 3, 4, 6])
            game.add(ev.category_scratched(0, box))
        game.throw(1, [2, 3, 4, 6, 6])
        game.add(ev.category_scratched(1, box))
    _, deciding = throw_log(game.events, {})
    assert deciding is not None and deciding.throw == last


# -- the locale of every export --------------------------------------------------------------------


def csv_rows(data: bytes) -> list[list[str]]:
    return list(csv.reader(io.StringIO(data.decode("utf-8-sig"))))


def csv_text(data: bytes) -> str:
    return data.decode("utf-8-sig")


def test_times_are_local_with_the_offset_and_money_in_the_device_style() -> None:
    game = Game(["Ana", "Beto"])
    game.throw(0, [2, 3, 4, 5, 6])
    game.add(ev.category_scored(0, "straight"))
    game.throw(1, [4, 4, 4, 4, 4])
    rows, deciding = throw_log(game.events, {})
    locale = Locale("es", MoneyStyle("Bs", "after"), LA_PAZ)
    text = csv_text(scoresheet_csv(game.summary(), rows, deciding, locale))
    assert "Empezó,2026-11-25 06:55:00-04:00" in text
    assert "1,2026-11-25 06:55:01-04:00,Ana,tiro" in text
    assert "Beto paga a Ana" not in text and "Ana paga a Beto 25,00Bs (50 puntos)" in text
    assert '"0,50Bs"' in text
    page = scoresheet_html(game.summary(), rows, deciding, "bar", locale).decode()
    assert "hora (UTC-04:00)" in page and "<td>06:55:01</td>" in page
    assert "10:55" not in page  # no UTC time anywhere


def test_games_csv_speaks_the_device_language_with_option_names_and_local_times() -> None:
    game = a_turn_with_dice_held_out_of_order()
    row = games_csv_row(game.summary(), "g1_generala")
    for language, header, options, status, name in (
            ("es", "opciones", "Apartados fijos: sí", "en juego", "Generala (reglamento argentino)"),
            ("en", "options", "Held dice stay: on", "in progress", "Generala (Argentine reglamento)")):
        table = csv_rows(games_csv([row], Locale(language, zone=LA_PAZ)))
        line = dict(zip(table[0], table[1]))
        assert line[header] == options
        assert "held_dice_locked" not in csv_text(games_csv([row], Locale(language)))
        assert status in table[1] and name in table[1]
        assert "2026-11-25 06:55:00-04:00" in table[1]


def test_a_row_an_older_ledger_kept_is_still_written_in_the_device_language() -> None:
    old = {"game_id": "g0", "folder": "g0_generala", "game": "generala", "options": "held_dice_locked=true",
           "started_at": "2026-11-20T23:10:00.000Z", "ended_at": "2026-11-21T00:02:00.000Z",
           "status": "finished: Generala served (Ana)", "players": "Ana; Beto", "totals": "Ana 60; Beto 0",
           "winners": "Ana", "settlement": "Beto pays Ana 25.00 (50 points)", "stake_per_point": "0.5"}
    (header, line) = csv_rows(games_csv([old], Locale("es", zone=LA_PAZ)))
    shown = dict(zip(header, line))
    assert shown["opciones"] == "Apartados fijos: sí"
    assert shown["estado"] == "terminada: Generala served (Ana)"
    assert shown["empezó"] == "2026-11-20 19:10:00-04:00"
    assert shown["apuesta por punto"] == "$0,50"


def test_fairness_csv_speaks_the_device_language() -> None:
    result = fairness([(1, 2, 3, 4, 5)] * 10)
    data = csv_rows(fairness_csv(FairnessReport(result, ()), Locale("es")))
    assert data[0][:3] == ["alcance", "primeros tiros", "dados"]
    assert data[1][0] == "dispositivo" and "," in data[1][9] and data[1][11] in ("sí", "no")


def test_an_export_after_another_stick_lists_only_the_games_on_this_one(tmp_path: Path) -> None:
    """The demo exports its game to its own folder; `cubilete export` to a stick afterwards
    wrote a games.csv naming that game, whose folder was not on the stick."""
    state = tmp_path / "state"
    with EventLog.open(state) as log:
        game_id = log.begin_game(engine.new_game("generala", ["J1", "J2"]))
        log.append(game_id, ev.throw(0, [4, 4, 4, 4, 4]), snapshot_jpeg=JPEG)
        log.end_game(game_id)
    demo_export = tmp_path / "demo-export"
    demo_export.mkdir()
    export_games(state, demo_export, "demo", all_games=True)
    stick = tmp_path / "stick"
    stick.mkdir()
    assert main(["export", "--to", str(stick), "--state-dir", str(state), "--name", "demo", "--quiet"]) == 0
    listed = csv_rows((stick / "CUBILETE" / "demo" / "games.csv").read_bytes())
    assert len(listed) == 1  # the header only: that game is on the demo's folder, not here
    assert main(["export", "--to", str(stick), "--state-dir", str(state), "--name", "demo", "--all",
                 "--quiet"]) == 0
    listed = csv_rows((stick / "CUBILETE" / "demo" / "games.csv").read_bytes())
    assert [row[0] for row in listed[1:]] == [game_id]
    assert (stick / "CUBILETE" / "demo" / listed[1][1]).is_dir()


def test_the_export_follows_the_language_set_on_the_device(tmp_path: Path) -> None:
    state = tmp_path / "state"
    with EventLog.open(state) as log:
        log.begin_game(engine.new_game("generala", ["J1", "J2"]))
    (state / "settings.json").write_text(json.dumps({"language": "en", "contrast": 200}))
    out = tmp_path / "out"
    out.mkdir()
    assert main(["export", "--to", str(out), "--state-dir", str(state), "--name", "bar", "--quiet"]) == 0
    assert csv_rows((out / "CUBILETE" / "bar" / "games.csv").read_bytes())[0][0] == "game id"
