"""`cubilete run`: the service (what systemd starts on the Pi).

    cubilete run [--config FILE] [--camera SPEC] [--display SPEC] [--buttons SPEC] [--state-dir DIR]

Options override the config file. With a replay camera and a button script
(`--camera replay:DIR --buttons script:FILE`) the scripted presses follow the session's
clock (a press at 12.5 s happens when the replay reaches 12.5 s), so a recorded game plays
the same at any speed; `--exit-at-end` stops when the replay ends (demos, the soak test).
"""

from __future__ import annotations

import argparse
import json
import logging
import signal
import sys
import time
from dataclasses import asdict
from pathlib import Path

from firmware.config import load_config
from firmware.service import FrameClock, Service
from hardware.buttons import ButtonSettings, ButtonSource, ResilientButtons, open_buttons, parse_buttons_spec
from hardware.camera import CameraSettings, open_camera_feed, parse_camera_spec
from hardware.display import open_display
from hardware.recording import open_session
from vision.tracker import ThrowTracker
from vision.tray import TrayReader

try:  # the simulated player (--player) is the lab's; the device's installation has no lab
    from lab.autoplayer import TruthPlayer
except ModuleNotFoundError as missing_lab:
    if not (missing_lab.name or "").startswith("lab"):
        raise
    TruthPlayer = None


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("run", help="run the scorer: camera, buttons, display, event log")
    parser.add_argument("--config", metavar="FILE", help="TOML config (default /etc/cubilete/config.toml)")
    parser.add_argument("--camera", metavar="SPEC", help='"picamera", "usb:0", "replay:DIR[?realtime]", "fake", '
                        '"manual" (no camera: every throw entered with the buttons)')
    parser.add_argument("--display", metavar="SPEC", help='"oled" (the config\'s driver and size), a luma.oled '
                        'driver ("ssd1306", "sh1106", "sh1107", "ssd1327", "ssd1322" ...), "terminal", "dummy", "none"')
    parser.add_argument("--buttons", metavar="SPEC", help='"gpio", "keyboard", "script:FILE", "none"')
    parser.add_argument("--state-dir", metavar="DIR", help="event log and snapshots (default from the config)")
    parser.add_argument("--socket", metavar="PATH", help="control socket for USB export results")
    parser.add_argument("--exit-at-end", action="store_true", help="stop when a replayed session ends")
    # Tests and the soak: a simulated player (lab.autoplayer) presses the buttons for a
    # replayed synthetic session, given the game script (JSON); it reads the session's truth.
    parser.add_argument("--player", metavar="GAME_JSON", help=argparse.SUPPRESS)
    # The soak: a smaller WAL auto-checkpoint (pages) so that every game passes several.
    parser.add_argument("--wal-autocheckpoint", type=int, metavar="PAGES", help=argparse.SUPPRESS)
    parser.add_argument("--stats-out", metavar="FILE", help="write loop statistics as JSON at exit (benchmarks)")
    parser.add_argument("--log-level", default="info", choices=("debug", "info", "warning", "error"))
    parser.set_defaults(handler=run)


def build_service(args: argparse.Namespace) -> Service:
    """Everything `cubilete run` needs, from the config and the options. ValueError for a bad spec."""
    config, problems = load_config(args.config)
    state_dir = Path(args.state_dir or config.device.state_dir)
    camera = open_camera_feed(args.camera or config.camera.spec,
                              CameraSettings.from_mapping(config.camera.settings()))
    buttons_spec = args.buttons or config.buttons.spec
    buttons_kind = parse_buttons_spec(buttons_spec)[0]
    scripted = buttons_kind == "script"
    frame_clock = FrameClock()
    settings = ButtonSettings.from_mapping(asdict(config.buttons))
    if args.player:
        buttons: ButtonSource = simulated_player(args.player, args.camera or config.camera.spec, frame_clock)
    elif buttons_kind in ("gpio", "three", "encoder"):
        # Wired buttons may be missing (no GPIO, a pin in use): shown and retried, never an exit.
        buttons = ResilientButtons(lambda: open_buttons(buttons_spec, settings), f"buttons ({buttons_spec})")
    else:
        buttons = open_buttons(buttons_spec, settings, clock=frame_clock if scripted else time.monotonic)
        if scripted:
            buttons.start(0.0)  # script times are session times
    display = open_display(args.display or config.display.driver, asdict(config.display))
    tray = TrayReader(config.camera.tray or None)
    service = Service(config, problems, state_dir, camera, display, buttons, ThrowTracker(reader=tray),
                      control_socket=args.socket, exit_at_end=args.exit_at_end,
                      wal_autocheckpoint=args.wal_autocheckpoint)
    frame_clock.service = service
    return service


def simulated_player(game_json: str, camera_spec: str, frame_clock: FrameClock) -> ButtonSource:
    """The simulated player for a replayed synthetic session (its truth is in session.json)."""
    if TruthPlayer is None:
        raise ValueError("--player needs the lab (in a clone: pip install -e ./lab)")
    spec = parse_camera_spec(camera_spec)
    if spec.kind != "replay":
        raise ValueError("--player needs a replay camera (replay:DIR) of a synthetic session")
    truth = open_session(str(spec.target)).truth
    if not truth:
        raise ValueError(f"{spec.target}: the session has no truth for the simulated player")
    game = json.loads(Path(game_json).read_text(encoding="utf-8"))
    if isinstance(game, dict):  # {"steps": [...], "games_before": N}: the log already has N games
        return TruthPlayer(game["steps"], truth, lambda: frame_clock.service, games_before=int(game["games_before"]))
    return TruthPlayer(game, truth, lambda: frame_clock.service)


def run(args: argparse.Namespace) -> int:
    logging.basicConfig(level=getattr(logging, args.log_level.upper()), stream=sys.stderr,
                        format="%(levelname)s %(name)s: %(message)s")
    # A stop asked for while the parts are opened (that can take seconds) is kept for the loop.
    stop_asked: list[int] = []
    for signum in (signal.SIGTERM, signal.SIGINT):
        signal.signal(signum, lambda number, _frame: stop_asked.append(number))
    try:
        service = build_service(args)
    except ValueError as error:
        print(f"cubilete run: error: {error}", file=sys.stderr)
        return 2
    service.install_signal_handlers()
    if stop_asked:
        service.request_stop()
    code = service.run()
    if args.stats_out:
        service.stats.write(Path(args.stats_out))
    return code
