"""`cubilete demo` (what `make demo` runs): a two-player Generala game played through the
whole device; `--interactive`: a game a person plays (lab.demo_live); `--practice`: a
scripted person against the device's own seat, the practice opponent (lab.demo_practice).

A seeded synthetic session of the game (lab.sessions.synth, in ./demo-state/session) is
replayed as the camera through the real reader and throw tracker into the service's state
machine and event log, with scripted presses (hardware.buttons.ScriptedButtons, on the
session's clock). The script (./demo-state/buttons.txt) comes from a rehearsal: a simulated
player (lab.autoplayer) plays the session once without a screen, looking at the dice
as they really lie: it answers the device's questions about unsure dice truthfully and
fills the box the game script says. The OLED is drawn in the terminal. At the end the final table is printed and the game's logs
are exported to ./demo-export/ with the USB exporter's code (its ledger in ./demo-state/).

The game of the default seed (lab.demo_game): J1 throws a straight on the first throw
(served, 25); J2 sets two fives aside, throws three dice again, keeps three fives, throws
the other two again and scores the fives (15); J1 throws five fours at once: generala
servida, an instant win. Another seed draws another game of the same shape. Dice the reader
is unsure of are confirmed by the player on the way.
"""

from __future__ import annotations

import logging
import shutil
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

import cv2

import engine
from firmware.eventlog import EventLog
from firmware.export.exporter import device_locale, export_games
from firmware.localformat import MoneyStyle, format_money
from firmware.service import FrameClock
from hardware.buttons import ScriptedButtons
from hardware.display import TerminalDisplay
from lab.demo_game import DEMO_SEED, QUICK_GAME, seeded_game
from lab.demo_live import play_interactive
from lab.demo_practice import play_practice
from lab.scripted_game import GAME_CONFIG, game_config, make_scripted_session, replay_service
from lab.sessions.synth import SessionConfig


@dataclass(frozen=True)
class DemoResult:
    finished: bool
    table: str
    export_line: str


def session_config() -> Any:
    # Players take about two seconds to look at the screen and press; no camera frames are
    # needed at 30 fps while nothing moves.
    return SessionConfig(still_fps=10.0, think_s=(2.2, 2.6), lead_in_s=1.2)


def final_table(state_dir: Path, money: MoneyStyle = MoneyStyle()) -> tuple[bool, str]:
    """The last game in the log as text: totals, winners, who pays whom (in English, the
    amounts in the device's money style)."""
    with EventLog.open(state_dir) as log:
        games = log.games()
        if not games:
            return False, "no game was played"
        record = games[-1]
        state = engine.replay(e.event for e in log.events(record.game_id))
    lines = [f"{state.game.name_en} ({record.game_id})"]
    order = sorted(range(len(state.players)), key=lambda p: -state.totals[p])
    for p in order:
        mark = "  winner" if p in state.winners else ""
        lines.append(f"  {state.players[p]:<8} {state.totals[p]:>4}{mark}")
    if state.instant_win is not None:
        lines.append(f"  {state.players[state.instant_win.player]} won at once: {state.instant_win.name_en}")
    if state.finished:
        stake = state.stake
        for payment in engine.settlement(state):
            payers = ", ".join(state.players[p] for p in payment.payers)
            payees = ", ".join(state.players[p] for p in payment.payees)
            lines.append(f"  {payers} pays {payees} {format_money(payment.amount, money, 'en')} "
                         f"({payment.points} points at {format_money(stake or 0, money, 'en')} a point)")
    else:
        lines.append("  the game did not reach its end")
    return state.finished, "\n".join(lines)


def run_demo(state_dir: Path, export_dir: Path, *, quick: bool = False, interactive: bool = False,
             practice: bool = False, language: str = "es", out: TextIO = sys.stdout,
             seed: int = DEMO_SEED) -> DemoResult:
    cv2.setNumThreads(1)
    for folder in (state_dir, export_dir):
        shutil.rmtree(folder, ignore_errors=True)
        folder.mkdir(parents=True)
    if interactive:
        play_interactive(state_dir, language, out, seed)
    elif practice:
        play_practice(state_dir, language, out, seed)
    else:
        game = QUICK_GAME if quick else seeded_game(seed)
        print(f"Rendering the demo session (seed {seed}) into {state_dir / 'session'}, and rehearsing the "
              f"players' presses ...", file=out, flush=True)
        clock = FrameClock()  # the scripted presses follow the replay's clock
        scripted = make_scripted_session(state_dir, game, seed, session_config())
        print(f"Replaying it through the reader, tracker, game engine and screen with the "
              f"{len(scripted.presses)} presses of {scripted.buttons}:", file=out, flush=True)
        buttons = ScriptedButtons(scripted.buttons, clock=clock)
        buttons.start(0.0)
        service = replay_service(scripted.session, state_dir, buttons, TerminalDisplay(out), language)
        clock.service = service
        service.run()

    settings = game_config(language)
    finished, table = final_table(state_dir, settings.device.money_style())
    print("\nFinal table:\n" + table, file=out)
    locale = device_locale(settings, state_dir)
    result = export_games(state_dir, export_dir, "demo", all_games=True, locale=locale)
    line = result.summary_line(str(export_dir))
    print(line[0].upper() + line[1:], file=out)
    if not interactive and not practice:
        config = state_dir / "config.toml"
        config.write_text(GAME_CONFIG.format(language=language), encoding="utf-8")
        print(f"Replay it on the service: cubilete run --config {config} --camera replay:{scripted.session} "
              f"--buttons script:{scripted.buttons} --display terminal --state-dir $(mktemp -d) "
              f"--exit-at-end", file=out)
    return DemoResult(finished, table, line)


def quiet_logs() -> None:
    logging.basicConfig(level=logging.WARNING, stream=sys.stderr, format="%(levelname)s %(name)s: %(message)s")
