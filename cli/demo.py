"""`cubilete demo` (what `make demo` runs): a two-player Generala game from a seeded synthetic
session, replayed through the real reader, tracker, engine and screen (drawn here in the
terminal), with scripted presses; the final table is printed and the logs exported to
./demo-export/. `--seed N` draws another game. `--interactive`: you play, in an 80x24
terminal: t throws the dice, 1-5 set dice aside, the arrows / Enter / Esc are the device's
buttons, q quits (lab.demo_live); the camera waits for you. `--practice`: a practice game
against the device, played by itself: a scripted person throws the device's dice and sets
aside what its screen says (lab.demo_practice).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from lab.demo import DEMO_SEED, quiet_logs, run_demo


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("demo", help="play a recorded Generala game through the whole device")
    parser.add_argument("--interactive", action="store_true", help="play it yourself from the keyboard (t throws, 1-5 set dice aside, q quits; 80x24 terminal)")
    parser.add_argument("--practice", action="store_true",
                        help="a whole game of J1 against the device (Cubilete plays), played by itself")
    parser.add_argument("--quick", action="store_true", help="a one-throw game (for tests)")
    parser.add_argument("--lang", choices=("es", "en"), default="es", help="language of the screens")
    parser.add_argument("--state-dir", default="demo-state", help="the device's state (reset first)")
    parser.add_argument("--export-dir", default="demo-export", help="where the logs are exported (reset first)")
    parser.add_argument("--seed", type=int, default=None, help="seed of the synthetic tray and the dice (another game)")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    quiet_logs()
    result = run_demo(Path(args.state_dir), Path(args.export_dir), quick=args.quick,
                      interactive=args.interactive, practice=args.practice, language=args.lang,
                      seed=DEMO_SEED if args.seed is None else args.seed)
    if not result.finished and not args.interactive:  # a player may leave a game before its end
        print("cubilete demo: the game did not reach its end (see the messages above)", file=sys.stderr)
        return 1
    return 0
