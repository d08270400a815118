"""`python -m lab.synth --out DIR --n 200 --seed 1`: write random scenes and a manifest.
`python -m lab.synth --bench`: print how long rendering takes."""

from __future__ import annotations

import argparse
import sys
import time

from .looks import LOOK_STYLES
from .manifest import LOOKS, write_manifest
from .spec import BACKGROUND_KINDS, DIE_STYLES
from .timing import run_bench


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m lab.synth",
                                     description="Render random dice scenes with a manifest.jsonl of their labels.")
    parser.add_argument("--out", help="folder to write images/ and manifest.jsonl into")
    parser.add_argument("--bench", action="store_true", help="time rendering instead of writing scenes")
    parser.add_argument("--n", type=int, default=200, help="number of scenes (default 200)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--width", type=int, default=640)
    parser.add_argument("--height", type=int, default=480)
    parser.add_argument("--dice", type=int, default=5, help="dice per scene (default 5)")
    parser.add_argument("--min-size", type=float, default=40, help="smallest top face, px (default 40)")
    parser.add_argument("--max-size", type=float, default=90, help="largest top face, px (default 90)")
    parser.add_argument("--max-tilt", type=float, default=30, help="camera tilt limit, degrees (default 30)")
    parser.add_argument("--max-view", type=float, default=35,
                        help="dice only where the camera sees them at most this far off vertical (default 35)")
    parser.add_argument("--no-touching", action="store_true", help="keep dice apart")
    parser.add_argument("--cocked", type=float, default=0.0, help="chance a die is cocked (default 0)")
    parser.add_argument("--occluders", type=float, default=0.0, help="chance of a hand or cup in view (default 0)")
    parser.add_argument("--tray", type=float, default=0.3, help="chance of a tray with a rim (default 0.3)")
    parser.add_argument("--styles", default=",".join(DIE_STYLES),
                        help=f"die looks to draw from, comma-separated, some of {','.join(LOOK_STYLES)} "
                             f"(default {','.join(DIE_STYLES)})")
    parser.add_argument("--backgrounds", default=",".join(BACKGROUND_KINDS),
                        help=f"surfaces to draw from, comma-separated (default {','.join(BACKGROUND_KINDS)})")
    parser.add_argument("--split", default="test", help="split name written in the manifest (default test)")
    parser.add_argument("--looks", choices=LOOKS, default="game",
                        help="unseen: the dice get colours and moulding no training scene draws, the scenes "
                             "otherwise the same (default game)")
    args = parser.parse_args(argv)
    if args.bench:
        for line in run_bench(width=args.width, height=args.height):
            print(line)
        return 0
    if not args.out:
        parser.error("--out DIR is needed (or --bench)")
    if args.n < 0 or args.dice < 0 or not 0 < args.min_size <= args.max_size:
        parser.error("need --n >= 0, --dice >= 0 and 0 < --min-size <= --max-size")
    styles = tuple(x.strip() for x in args.styles.split(",") if x.strip())
    backgrounds = tuple(x.strip() for x in args.backgrounds.split(",") if x.strip())
    if not styles or set(styles) - set(LOOK_STYLES):
        parser.error(f"--styles must name some of {', '.join(LOOK_STYLES)}")
    if not backgrounds or set(backgrounds) - set(BACKGROUND_KINDS):
        parser.error(f"--backgrounds must name some of {', '.join(BACKGROUND_KINDS)}")
    start = time.perf_counter()
    try:
        path = write_manifest(
            args.out, args.n, args.seed, split=args.split, n_dice=args.dice, width=args.width, height=args.height,
            size_range=(args.min_size, args.max_size), touching=not args.no_touching, max_tilt_deg=args.max_tilt,
            max_view_deg=args.max_view, cocked_prob=args.cocked, occluder_prob=args.occluders, tray_prob=args.tray,
            styles=styles, backgrounds=backgrounds, looks=args.looks)
    except ValueError as e:
        print(f"python -m lab.synth: {e}", file=sys.stderr)
        return 2
    print(f"{args.n} scenes in {time.perf_counter() - start:.1f} s: {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
