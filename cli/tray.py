"""`cubilete tray PHOTO`: find the tray's floor in a photo of the empty tray and print the
`camera.tray` line for the config, so the device reads only the tray.

Take the photo with the device's own camera, where it is mounted, with the tray empty. The
outline is printed as a TOML line (`tray = [[x, y], ...]`, frame pixels) or with `--json` as
a JSON list; `--debug FILE` writes the photo with the outline drawn on it. A photo where no
tray stands out from its surroundings prints why and exits 1 (leave `tray = []`, or set
`tray = "auto"` to let the device look for it on the empty tray).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import cv2
import numpy as np

from vision.image_file import Unreadable, load_image
from vision.tray import find_tray


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("tray", help="find the empty tray's outline for the config",
                                   description="Find the tray's floor in a photo of the empty tray and print "
                                               "the camera.tray line for the config.")
    parser.add_argument("photo", type=Path, metavar="PHOTO", help="a photo of the empty tray from the device's camera")
    parser.add_argument("--json", action="store_true", help="print the outline as a JSON list")
    parser.add_argument("--debug", type=Path, metavar="FILE", help="write the photo with the outline drawn on it")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    image = load_image(args.photo)
    if isinstance(image, Unreadable):
        print(f"cubilete tray: {args.photo}: {image.reason}", file=sys.stderr)
        return 1
    outline = find_tray(image)
    if outline is None:
        print(f"cubilete tray: {args.photo}: no tray stands out from what is around it; leave tray = [] "
              "(the whole picture) or set tray = \"auto\"", file=sys.stderr)
        return 1
    corners = [[round(x), round(y)] for x, y in outline]
    print(json.dumps(corners) if args.json else f"tray = {json.dumps(corners)}")
    if args.debug is not None:
        drawn = image.copy()
        cv2.polylines(drawn, [np.array(corners, np.int32)], True, (0, 255, 255), 2, cv2.LINE_AA)
        if not cv2.imwrite(str(args.debug), drawn):
            print(f"cubilete tray: cannot write {args.debug}", file=sys.stderr)
            return 1
    return 0
