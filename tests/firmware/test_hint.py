"""A hint on demand from the turn menu: the advisor's best choices with expected totals; none in
tournament mode; a game with no table on the device says how to make one."""

from __future__ import annotations

from pathlib import Path

from advisor.advise import advise
from advisor.tables import find
from firmware.appliance.hint import Hint
from firmware.config import load_config
from firmware.ui.catalogue import text
from firmware.ui.screens import MessageScreen

from tests.firmware.appliance_support import new_app, press, seen, start_game


def open_menu_item(app, label: str) -> bool:
    """Select the turn menu item with this English label and press OK; False if absent."""
    press(app, "OK")
    labels = [text(item.label, "en") for item in app.screen().items]
    if label not in labels:
        return False
    for _ in range(labels.index(label)):
        press(app, "next")
    press(app, "ok")
    return True


def test_the_hint_is_the_advisors_best_choice_with_its_expected_total(tmp_path: Path) -> None:
    app = new_app(tmp_path)
    start_game(app)
    app.handle(seen([6, 6, 6, 2, 3]))
    state = app.session.state
    best = advise(state, find("generala", dict(state.options)), top=2).choices
    assert open_menu_item(app, "Hint")
    screen = app.screen()
    assert isinstance(screen, MessageScreen) and text(screen.title, "en") == "Hint"
    lines = [text(line, "en") for line in screen.lines]
    assert lines[0] == best[0].text(state.turn.dice, "en")  # e.g. "keep 6 6 6"
    assert lines[1] == f"expected total {best[0].expected:.1f}"
    assert lines[2] == best[1].text(state.turn.dice, "en") and best[0].expected >= best[1].expected
    assert text(screen.lines[0], "es") == best[0].text(state.turn.dice, "es")
    assert text(screen.lines[1], "es") == f"total esperado {best[0].expected:.1f}".replace(".", ",")
    press(app, "ok")
    assert app.session.state == state  # a hint records nothing


def test_no_hint_in_tournament_mode(tmp_path: Path) -> None:
    app = new_app(tmp_path, tournament=True)
    start_game(app)
    app.handle(seen([6, 6, 6, 2, 3]))
    assert not open_menu_item(app, "Hint")


def test_a_game_without_a_table_here_says_how_to_make_one(tmp_path: Path) -> None:
    app = new_app(tmp_path, game="yahtzee")
    start_game(app)
    app.handle(seen([6, 6, 6, 2, 3]))
    state = app.session.state
    assert find("yahtzee", dict(state.options), tmp_path) is None  # yahtzee's table is solved on the device
    hint = Hint.of(app, back=None)  # type: ignore[arg-type]
    assert [text(line, "en") for line in hint.lines] == ["No table yet; make it", "cubilete solve yahtzee"]


def test_tournament_is_a_game_setting(tmp_path: Path) -> None:
    path = tmp_path / "c.toml"
    path.write_text("[game]\ntournament = true\n", encoding="utf-8")
    config, problems = load_config(path)
    assert problems == [] and config.game.tournament is True
    path.write_text('[game]\ntournament = "yes"\n', encoding="utf-8")
    assert [p.key for p in load_config(path)[1]] == ["game.tournament"]
