"""`cubilete web`: the live scoreboard for the bar's TV and the players' phones.

    cubilete web [--config FILE] [--state-dir DIR] [--bind ADDRESS] [--port N]

Reads the event log read-only and serves the page on the `[web]` section's address and port
(cubilete-web.service runs it as its own user). With `web.enabled = false` it says so and
exits 0. Config problems are printed, one line each, and the defaults of their section used.
"""

from __future__ import annotations

import argparse
import logging
import sys

from firmware.config import load_config
from web.serve import serve

PROG = "cubilete web"


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("web", help="serve the live scoreboard page (read-only)",
                                   description="Serve the live scoreboard on the local network.")
    parser.add_argument("--config", metavar="FILE", help="config file (default /etc/cubilete/config.toml)")
    parser.add_argument("--state-dir", metavar="DIR", help="the device state (default: device.state_dir of the config)")
    parser.add_argument("--bind", metavar="ADDRESS", help="listen on this address (default: web.bind)")
    parser.add_argument("--port", type=int, metavar="N", help="listen on this port (default: web.port)")
    parser.add_argument("--log-level", default="warning", choices=["debug", "info", "warning", "error"])
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    logging.basicConfig(level=args.log_level.upper(), format=f"{PROG}: %(levelname)s: %(message)s")
    config, problems = load_config(args.config)
    for problem in problems:
        print(f"{PROG}: config: {problem}", file=sys.stderr)
    if not config.web.enabled:
        print(f"{PROG}: the scoreboard is off (web.enabled = false in the config)", file=sys.stderr)
        return 0
    serve(config, state_dir=args.state_dir, host=args.bind, port=args.port, log_level=args.log_level)
    return 0
