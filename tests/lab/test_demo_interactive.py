"""`cubilete demo --interactive`: a whole two-player Generala played from the keys, through the
real reader and tracker on the on-demand tray, with dice set aside and boxes picked by
hand; the final sheet is checked against the engine's score of the dice really thrown.
Also: every key answers on the status line, and a small terminal is told so.
"""

from __future__ import annotations

import io
import os
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

import engine
from engine import resolve_game, score_options, score_roll
from firmware.appliance import corrections, menus, play
from firmware.eventlog import EventLog
from lab.demo_live import LiveDemo, build_live_demo
from lab.demo_screen import NEEDED

SEED = 7
MAX_STEPS = 40000


class KeyDriver:
    """A player at the keyboard: looks at the device's mode and the tray, writes keys into the
    pipe the demo reads its keys from."""

    def __init__(self, demo: LiveDemo, pipe: int) -> None:
        self.demo = demo
        self.pipe = pipe
        self.picks: list[tuple[int, str, tuple[int, ...], int, int]] = []  # player, box, dice, throw, held
        self.asides = 0
        self.turns = 0
        self.started = False
        self.over = False

    def press(self, keys: bytes) -> None:
        os.write(self.pipe, keys)

    def true_die(self, center: tuple[float, float] | None) -> Any:
        dice = self.demo.table.dice()
        if center is None:
            return dice[0]
        return min(dice, key=lambda d: (d.center[0] - center[0]) ** 2 + (d.center[1] - center[1]) ** 2)

    def act(self) -> None:
        app = self.demo.service.app
        table = self.demo.table
        if table.moving or app.busy:
            return
        mode = app.mode
        if app.covered:
            self.press(b"\r")
        elif isinstance(mode, menus.MainMenu):
            if self.started:
                self.over = True
            else:
                self.started = True
                self.press(b"\r")
        elif isinstance(mode, menus.NewGameMenu):
            self.press(b"\r" if mode.selected == len(mode.items(app)) - 1 else b"a")
        elif isinstance(mode, corrections.ConfirmDice):
            index = mode._current(app)
            value = self.true_die(app.session.throw.dice[index].center).value
            choice = mode._choice(app, index)
            values = choice.values()
            target = values.index(value) if value in values else len(values)
            self.press(b"\r" if choice.selected == target else b"d")
        elif isinstance(mode, (corrections.AskThrown, corrections.ConfirmTurned)):
            r = mode.dice[min(mode.asked, len(mode.dice) - 1)]
            die = self.true_die(mode.seen.reading.dice[r].center)
            yes = isinstance(mode, corrections.AskThrown) and self.demo.table.last_throw[die.die] is not None
            self.press(b"\r" if mode.selected == (0 if yes else 1) else b"d")
        elif isinstance(mode, play.PickConfirm):
            self.press(b"\r")
        elif isinstance(mode, play.TurnMode):
            self.turn(app, mode)
        elif isinstance(mode, play.GameOver):
            self.press(b"\r")
        else:
            self.press(b"\x1b")  # a menu this player did not mean to open: back

    def turn(self, app: Any, mode: Any) -> None:
        state = app.session.state
        throw = state.turn.throw_number
        if throw == 0:
            self.throw()
            return
        dice = self.demo.table.dice()
        if sorted(d.value for d in dice) != sorted(state.turn.dice):
            raise AssertionError(f"the device read {state.turn.dice}, the tray shows {[d.value for d in dice]}")
        if throw == 1 and self.turns % 3 == 1 and len(set(state.turn.dice)) > 1:
            # Keep the face there is most of, throw the others again.
            face = Counter(d.value for d in dice).most_common(1)[0][0]
            keys = b"".join(str(d.number).encode() for d in dice if d.value == face and not d.aside)
            self.asides += len(keys)
            self.press(keys)
            self.throw()
            return
        options = score_options(state)
        target = min(1, len(options) - 1) if self.turns % 4 == 2 else 0
        if mode.selected != target:
            self.press(b"d")
            return
        held = sum(1 for d in dice if d.aside)
        self.picks.append((state.current_player, options[target].category, tuple(state.turn.dice), throw, held))
        self.turns += 1
        self.press(b"\r")

    def throw(self) -> None:
        self.press(b"t")


@pytest.mark.slow
def test_a_whole_generala_is_played_from_the_keys(tmp_path: Path) -> None:
    read, write = os.pipe()
    out = io.StringIO()
    demo = build_live_demo(tmp_path / "state", "en", out, SEED, stream=read, realtime=False,
                           size=lambda: NEEDED, in_place=False)
    driver = KeyDriver(demo, write)
    service = demo.service
    service._show()
    for _ in range(MAX_STEPS):
        service.step()
        driver.act()
        if driver.over:
            break
    service.shutdown()
    assert driver.over, f"the game did not end; the device is at {type(service.app.mode).__name__}"

    with EventLog.open(tmp_path / "state") as log:
        record = log.games()[-1]
        state = engine.replay(e.event for e in log.events(record.game_id))
    assert state.finished
    game, options = resolve_game("generala")
    rules = game.rules(options)
    expected: list[dict[str, int]] = [{}, {}]
    for player, box, dice, throw, held in driver.picks:
        expected[player][box] = dict(score_roll(rules, dice, throw, held).points)[box]
    for player in (0, 1):
        sheet = {box: mark.points for box, mark in state.sheets[player].items() if mark is not None}
        assert sheet == expected[player]
        assert state.totals[player] == sum(expected[player].values())
    assert driver.asides > 0
    assert state.instant_win is None and len(driver.picks) == 2 * len(state.sheets[0].categories)  # every box
    # Every picture fits 80x24.
    for picture in out.getvalue().split("┌")[1:]:
        lines = ("┌" + picture).rstrip("\n").split("\n")
        assert len(lines) < NEEDED[1] and max(len(line) for line in lines) <= NEEDED[0]
