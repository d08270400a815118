"""`cubilete demo --interactive`: a person plays Generala on the whole device, in an 80x24
terminal.

The camera is a `LiveTable` (lab.sessions.live): it waits for the players. `t` throws the
dice that are not set aside (keys 1-5, dice numbered left to right as the device numbers
them); the values are drawn from the seeded generator at that moment and the throw is
rendered frame by frame through the real reader and throw tracker into the service's
state machine and event log. The device's buttons are the arrows, Enter and Esc
(lab.demo_keys); the display and the status lines are drawn by lab.demo_screen. Nothing
is timed: the game goes on until it ends, and q (or Ctrl-C) leaves it at any point.
Dice set aside go back into the throw when a new turn starts.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, TextIO

import numpy as np

from firmware.service import Service
from hardware.camera import Backoff, ResilientCamera
from lab.demo_keys import HELP_LINES, DemoKeys
from lab.demo_screen import DemoScreen, terminal_size
from lab.scripted_game import game_config
from lab.sessions.live import LIVE_CONFIG, LiveTable
from lab.sessions.synth import SessionConfig
from vision.tracker import ThrowTracker


@dataclass
class LiveDemo:
    """The parts of an interactive demo, wired and not yet run."""

    service: Service
    table: LiveTable
    keys: DemoKeys
    screen: DemoScreen

    def turn(self) -> Any:
        """Whose turn, in which game, after how many filled boxes (None outside a game)."""
        app = self.service.app
        session = app.session if app is not None else None
        if session is None:
            return None
        state = session.state
        return session.game_id, state.current_player, sum(sheet.filled_count for sheet in state.sheets)

    def status(self) -> list[str]:
        return [self.keys.tray_line(), self.keys.status, *HELP_LINES]


def build_live_demo(state_dir: Path, language: str, out: TextIO, seed: int, *, stream: Any = None,
                    realtime: bool = True, config: SessionConfig = LIVE_CONFIG,
                    size: Callable[[], tuple[int, int]] = terminal_size, in_place: bool | None = None) -> LiveDemo:
    """The service on a live table, the keys (from `stream`, stdin by default) and the screen."""
    table = LiveTable(np.random.default_rng(seed), config, realtime=realtime)
    parts: dict[str, Any] = {}

    def busy() -> bool:
        app = parts["service"].app
        return app is not None and app.busy

    keys = DemoKeys(table, stream=stream, busy=busy, on_quit=lambda: parts["service"].request_stop(),
                    changed=lambda: parts["screen"].redraw(), turn=lambda: parts["demo"].turn())
    screen = DemoScreen(out, lambda: parts["demo"].status(), size=size, in_place=in_place)
    parts["screen"] = screen
    camera = ResilientCamera(lambda: table, backoff=Backoff(initial=0.1))
    service = Service(game_config(language), [], state_dir, camera, screen, keys, ThrowTracker(),
                      control_socket=str(state_dir / "control.sock"))
    parts["service"] = service
    demo = LiveDemo(service, table, keys, screen)
    parts["demo"] = demo
    return demo


def play_interactive(state_dir: Path, language: str, out: TextIO, seed: int) -> None:
    """Play until the player quits (q or Ctrl-C)."""
    print(f"The tray is drawn from seed {seed}; the dice are thrown when you press t.", file=out, flush=True)
    demo = build_live_demo(state_dir, language, out, seed)
    demo.service.install_signal_handlers()
    demo.service.run()
