"""`cubilete watch`: the throw tracker on a recorded session, one line per event.

The tracker runs with the real reader on every frame of the session (as fast as it decodes,
or thinned to `--fps` frames per second of session time, as from a slower camera). Without
`--json` each line is the event's time and description; with `--json` it is
`{"t": seconds, "event": name, ...}`, a settled event carrying the dice as `cubilete read
--json` prints them plus `"moved"` per die.
"""

from __future__ import annotations

import argparse
import json
import sys

from hardware.recording import ReplaySource, SessionError
from vision.tracker import ThrowTracker


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("watch", help="follow the throws in a recorded camera session",
                                   description=__doc__.split("\n\n")[1])
    parser.add_argument("--camera", required=True, metavar="replay:DIR",
                        help="the recorded session folder, as replay:DIR")
    parser.add_argument("--fps", type=float, default=None, metavar="N",
                        help="use at most N frames per second of session time")
    parser.add_argument("--dice", type=int, default=5, metavar="N", help="dice in the game (default 5)")
    parser.add_argument("--json", action="store_true", help="one JSON object per event")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    if not args.camera.startswith("replay:") or len(args.camera) == len("replay:"):
        print(f"cubilete watch: --camera must be replay:DIR, got {args.camera!r}", file=sys.stderr)
        return 2
    if args.fps is not None and args.fps <= 0:
        print(f"cubilete watch: --fps must be positive, got {args.fps}", file=sys.stderr)
        return 2
    if not 1 <= args.dice <= 10:
        print(f"cubilete watch: --dice must be 1 to 10, got {args.dice}", file=sys.stderr)
        return 2
    folder = args.camera[len("replay:"):].split("?", 1)[0]
    try:
        source = ReplaySource(folder, fps=args.fps)
        tracker = ThrowTracker(dice_count=args.dice)
        for frame in source:
            for event in tracker.feed(frame.image, frame.t):
                if args.json:
                    print(json.dumps(event.to_json(), ensure_ascii=False), flush=True)
                else:
                    print(f"{event.t:8.3f}  {event.describe()}", flush=True)
    except SessionError as error:
        print(f"cubilete watch: {error}", file=sys.stderr)
        return 1
    except BrokenPipeError:
        return 0
    return 0
