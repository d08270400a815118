"""`cubilete export`: write the game logs to a folder, or to a USB stick on the Pi.

    cubilete export --to DIR [--all] [--state-dir DIR] [--config FILE]
    cubilete export --stick /run/cubilete-export/sda1 [--config FILE]   (cubilete-export@.service,
                      between its privileged mount and unmount steps: firmware.export.mountstep)
    cubilete export --device /dev/sda1 [--all]     (by hand, as root: mount, export, unmount)
    cubilete export --request /run/cubilete        (by hand, as root: the menu's "export all")

A failure is one line on stderr and exit code 1, never a traceback.
"""

from __future__ import annotations

import argparse
import logging
import os
import sys

from firmware.config import load_config
from firmware.export.exporter import device_locale, export_games
from firmware.export.safewrite import ExportError
from firmware.export.usbjob import run_request, run_stick_export, run_usb_export

PROG = "cubilete export"


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "export", help="export the game logs to a folder or a USB stick",
        description="Write games.csv and a folder per game (score sheet, every event, "
                    "snapshots) under CUBILETE/<device name>/ in the target. By default only "
                    "the games that are new since the last export.")
    where = parser.add_mutually_exclusive_group(required=True)
    where.add_argument("--to", metavar="DIR", help="export into this existing folder")
    where.add_argument("--stick", metavar="RUNTIME_DIR",
                       help="export onto the stick mounted at RUNTIME_DIR/stick by the unit's privileged "
                            "step (cubilete-export@.service); it reports 'done' after unmounting")
    where.add_argument("--device", metavar="DEV",
                       help="as root: mount this USB partition privately, export, sync and unmount")
    where.add_argument("--request", metavar="RUNTIME_DIR",
                       help="as root: run the export the service asked for in RUNTIME_DIR/export-request")
    parser.add_argument("--all", action="store_true", help="every game the device has, not only new ones")
    parser.add_argument("--state-dir", metavar="DIR", help="the device state (default: device.state_dir of the config)")
    parser.add_argument("--config", metavar="FILE", help="config file (default /etc/cubilete/config.toml)")
    parser.add_argument("--name", metavar="NAME", help="device name for the folder (default: device.name of the config)")
    parser.add_argument("--quiet", action="store_true", help="print nothing on success")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    logging.basicConfig(level=logging.WARNING, format=f"{PROG}: warning: %(message)s")
    try:
        return _run(args)
    except Exception as error:  # the last line of defence: one line, never a traceback
        if os.environ.get("CUBILETE_DEBUG"):
            raise
        print(f"{PROG}: error: unexpected {type(error).__name__}: {error}", file=sys.stderr)
        return 1


def _run(args: argparse.Namespace) -> int:
    config, problems = load_config(args.config)
    for problem in problems:
        print(f"{PROG}: warning: {problem.message}", file=sys.stderr)
    state_dir = args.state_dir or config.device.state_dir
    name = args.name or config.device.name
    byte_cap = config.export.byte_cap_mb * 1_000_000

    if args.stick:
        return run_stick_export(args.stick, config, state_dir=state_dir, device_name=name, quiet=args.quiet)
    if args.request:
        return run_request(args.request, config, state_dir=state_dir, device_name=name, quiet=args.quiet)
    if args.device:
        return run_usb_export(args.device, config, state_dir=state_dir, all_games=args.all,
                              device_name=name, quiet=args.quiet)
    try:
        result = export_games(state_dir, args.to, name, all_games=args.all, byte_cap=byte_cap,
                              include_snapshots=config.export.include_snapshots,
                              locale=device_locale(config, state_dir))
    except ExportError as error:
        print(f"{PROG}: error: {error}", file=sys.stderr)
        return 1
    if not args.quiet:
        print(result.summary_line(args.to))
    return 0
