"""`cubilete bench vision`: how well and how fast the dice reader reads labelled photos.

Reads every photo of a manifest (JSON lines as in
`../shared/data/dice-photos/nell-byler/manifest.jsonl`: `{"image", "split", "dice":
[{"value", "box": [x0, y0, x1, y1], "ignore"?}]}`), or of N synthetic scenes rendered by
`lab.synth`, and prints: photos exactly right, per-die accuracy, wrong values, misses,
extras, accuracy per face value, median and 95th-percentile milliseconds per photo (reading
only, on one OpenCV thread), and the calibration figure: how many dice read as sure
(confidence >= 0.9, not cocked) had the wrong value.

With `--detection` only the detector runs (no values are read): it prints the recall and
precision of die centres at the detector's own threshold and at a few others, how far the
centres are from the labels' (share of the box side), the detector's size estimate against
the box side, and the detector's milliseconds. `--debug-dir DIR` writes an annotated PNG of
every photo with an error: labels as boxes (green found, red missed, grey ignored),
detections as circles (white matched, magenta extra) with their scores.

Matching predictions to labels, one to one: a predicted die can match a labelled die when
its centre is within half the label box's side of the box centre; pairs are taken nearest
first, each die used once. Predictions matched to dice labelled "ignore" count neither way.
Unmatched labels are misses, unmatched predictions extras. A photo is exactly right when
every labelled die is matched with the right value and there is no extra. Per-die accuracy
counts a matched die with the right value as right even when the reader reported it unsure;
"right and sure" (the dice a device scores without asking) and "matched dice reported
unsure" are printed beside it, and the calibration line counts only dice read as sure.

Synthetic scenes are the issue's game scenes: `lab.synth.random_scene` defaults, 5 dice
in a 640x480 image, top faces 40-90 px, die styles and colours drawn per die or as a
matched set, touching allowed, tilted cameras; dice cocked or less than 60% visible are
labelled "ignore". With `--looks unseen` the same scenes' dice get colours and moulding no
training scene draws (`lab.synth.unseen_looks`): how the reader meets dice it never saw.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

import cv2
import numpy as np

from lab import synth
from lab.reader_eval.detector_eval import match_detections
from lab.reader_eval.evaluate import format_summary, load_split, match_centres, percentile, summarise
from lab.reader_eval.read_sets import read_negatives, read_photos
from lab.reader_eval.scenes import scene_copies
from lab.synth.clutter import ALL_KINDS, NEGATIVE_KINDS
from lab.synth.manifest import LOOKS
from vision.reader.classifier import use_model as use_classifier
from vision.reader.detector import THRESHOLD, detector
from vision.reader.detector import use_model as use_detector
from vision.reader.reader import load_models, read_dice
from vision.reading import SURE_CONFIDENCE

UNSEEN = "unseen"  # the suite's row of a set's test photos whose scene or throw no train split holds
MATCHING_HELP = (
    "matching: a predicted die matches a labelled die when its centre lies within half the "
    "label box's side of the box centre; pairs are taken nearest first, one to one; dice "
    "labelled ignore count neither way; unmatched labels are misses, unmatched predictions "
    "extras; a photo is exactly right when all its dice are matched with the right value "
    "and nothing is extra; a die reported unsure counts by its value in the accuracy, and "
    "the dice right and sure are printed beside it"
)


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "vision",
        help="accuracy and speed of the dice reader on labelled photos",
        description="Read every photo of a labelled manifest and print the reader's accuracy, "
        "speed and calibration. " + MATCHING_HELP + ".",
    )
    source = parser.add_mutually_exclusive_group()
    source.add_argument("--manifest", type=Path, help="JSON-lines manifest of labelled photos")
    source.add_argument("--synthetic", type=int, metavar="N", help="render N synthetic scenes with lab.synth and read them")
    source.add_argument("--suite", type=Path, metavar="DIR",
                        help="every manifest.jsonl under DIR (its test split unless --split), each photo read with "
                             "its own dice count as the device does; one table, a row per set, and one of a set's "
                             "test photos whose scene or throw no train split holds (unseen)")
    parser.add_argument("--negatives", type=int, metavar="N", default=0,
                        help="also read N seeded pictures with no die (text, headlines, grids, checkerboards, "
                             "gradients, noise, wood; seed --seed) and count the dice found in them")
    parser.add_argument("--negatives-kinds", nargs="+", choices=ALL_KINDS, metavar="KIND",
                        help="only these kinds of no-dice pictures, in turn (default every kind: "
                             f"{', '.join(NEGATIVE_KINDS)}; also lab-text and lab-headline, printed words in "
                             "the lab's own faces, the same under every OpenCV)")
    parser.add_argument("--negatives-count", type=int, metavar="N",
                        help="read those pictures again told N dice, as the device reads a throw: how often an "
                             "empty tray is offered dice to confirm")
    parser.add_argument("--root", type=Path, help="folder the manifest's image paths are relative to (default: the manifest's folder)")
    parser.add_argument("--split", help="only photos of this split (e.g. test; held-out: every tenth train photo, which the networks never trained on, less those whose copy they did)")
    parser.add_argument("--seed", type=int, default=1, help="seed of the synthetic scenes (default 1)")
    parser.add_argument("--looks", choices=LOOKS, default="game",
                        help="with --synthetic: unseen gives the scenes' dice colours and moulding no training scene "
                             "draws, each scene otherwise the seed's game scene (dice the networks never saw; "
                             "default game)")
    parser.add_argument("--expect", type=expected_count, metavar="N|labelled",
                        help="pass the expected dice count to the reader: N for every photo, or 'labelled' for each "
                             "photo's own count (the default with --suite)")
    parser.add_argument("--failures", action="store_true", help="also list every photo not read exactly right")
    parser.add_argument("--json", action="store_true", help="print the figures as one JSON object")
    parser.add_argument("--threads", type=int, default=1, help="OpenCV threads (default 1)")
    parser.add_argument("--detection", action="store_true", help="run only the detector: recall and precision of die centres")
    parser.add_argument("--debug-dir", type=Path, help="write an annotated PNG of every photo with an error here")
    parser.add_argument("--classifier", type=Path, metavar="MODEL",
                        help="read values with this trained model file instead of the reader's own "
                             "(to compare models made by scripts/train_classifier.py)")
    parser.add_argument("--detector", type=Path, metavar="MODEL",
                        help="find dice with this trained model file instead of the reader's own "
                             "(to compare models made by scripts/train_detector.py)")
    parser.set_defaults(handler=run)


def expected_count(text: str) -> int | str:
    if text == "labelled":
        return text
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a dice count or 'labelled': {text!r}") from None


def expectation(args: argparse.Namespace, photo) -> int | None:
    """The dice count the reader is told for a photo."""
    if args.expect == "labelled":
        return len(photo.dice)
    return args.expect


def run(args: argparse.Namespace) -> int:
    if args.manifest is None and args.synthetic is None and args.suite is None and not args.negatives:
        print("cubilete bench vision: give --manifest, --synthetic, --suite or --negatives", file=sys.stderr)
        return 2
    if args.negatives_count is not None and (not args.negatives or args.negatives_count < 0):
        print("cubilete bench vision: --negatives-count N reads the --negatives pictures again told N >= 0 dice: "
              "give --negatives too", file=sys.stderr)
        return 2
    if args.negatives_kinds and not args.negatives:
        print("cubilete bench vision: --negatives-kinds chooses the kinds of the --negatives pictures: give "
              "--negatives too", file=sys.stderr)
        return 2
    if args.looks != "game" and args.synthetic is None:
        print("cubilete bench vision: --looks gives synthetic scenes' dice their looks: give --synthetic N too",
              file=sys.stderr)
        return 2
    cv2.setNumThreads(args.threads)
    for model, use_model in ((args.classifier, use_classifier), (args.detector, use_detector)):
        if model is None:
            continue
        try:
            use_model(model)
        except (OSError, ValueError, KeyError) as error:
            print(f"cubilete bench vision: cannot load the model {model}: {error}", file=sys.stderr)
            return 2
    if args.debug_dir is not None:
        try:
            args.debug_dir.mkdir(parents=True, exist_ok=True)
        except OSError as error:
            print(f"cubilete bench vision: cannot create {args.debug_dir}: {error.strerror}", file=sys.stderr)
            return 2
    if args.suite is not None or (args.manifest is None and args.synthetic is None):
        return bench_suite(args)
    with tempfile.TemporaryDirectory(prefix="cubilete-bench-") as scratch:
        loaded = load_photos(args, Path(scratch))
        if isinstance(loaded, int):
            return loaded
        title, root, photos = loaded
        if args.detection:
            return bench_detection(args, title, root, photos)
        return bench_reading(args, title, root, photos)


def load_photos(args: argparse.Namespace, scratch: Path):
    """(title, root, photos) or an exit code after a one-line error."""
    if args.synthetic is not None:
        try:
            manifest, root = synthetic_manifest(args.synthetic, args.seed, scratch, args.looks)
        except ImportError as error:
            print(f"cubilete bench vision: synthetic scenes need lab.synth ({error})", file=sys.stderr)
            return 2
        looks = ", dice of unseen looks" if args.looks == "unseen" else ""
        title = f"synthetic scenes: {args.synthetic} (seed {args.seed}{looks})"
    else:
        manifest = args.manifest
        root = args.root or manifest.parent
        title = f"{manifest}" + (f" split {args.split}" if args.split else "")
    try:
        photos = load_split(manifest, args.split, manifest.parent.parent)
    except (OSError, ValueError) as error:
        print(f"cubilete bench vision: {error}", file=sys.stderr)
        return 2
    if not photos:
        print("cubilete bench vision: no photos to read", file=sys.stderr)
        return 2
    return title, root, photos


def bench_reading(args: argparse.Namespace, title: str, root: Path, photos: list) -> int:
    def debug(photo, image, reading, result) -> None:
        if not result.exact:
            write_debug(args.debug_dir, photo, image, [(d.center, d.size, f"{d.value}:{d.confidence:.2f}", d.sure)
                                                       for d in reading.dice])

    first = cv2.imread(str(root / photos[0].image), cv2.IMREAD_COLOR)
    if first is not None:  # load the networks and warm their buffers outside the timings
        read_dice(first)
    try:
        results = read_photos(root, photos, lambda photo: expectation(args, photo),
                              debug if args.debug_dir is not None else None)
    except OSError as error:
        print(f"cubilete bench vision: {error}", file=sys.stderr)
        return 1
    summary = summarise(results)
    if args.json:
        print(json.dumps({"title": title, **summary.to_json()}))
    else:
        print(format_summary(summary, title))
    if args.failures:
        for r in results:
            if not r.exact:
                wrong = ", ".join(f"{t} read {v} ({c:.2f})" for t, v, c in r.wrong)
                print(f"  {r.image}: wrong [{wrong}] missed {r.misses} extra {[(v, round(c, 2)) for v, c in r.extras]}")
    return 0


def bench_suite(args: argparse.Namespace) -> int:
    """One row per photo set under --suite (and one for --negatives): the table of the issue."""
    if args.expect is None:
        args.expect = "labelled"
    load_models()
    rows: list[dict] = []
    manifests = sorted(args.suite.rglob("manifest.jsonl")) if args.suite is not None else []
    if args.suite is not None and not manifests:
        print(f"cubilete bench vision: no manifest.jsonl under {args.suite}", file=sys.stderr)
        return 2
    # test photos whose scene a train split holds: the rest of a set is read again as unseen
    learnt = None
    if args.suite is not None and args.split in (None, "test"):
        learnt = scene_copies(args.suite.resolve()).tests
    for manifest in manifests:
        name = str(manifest.parent.relative_to(args.suite)) if manifest.parent != args.suite else manifest.parent.name
        try:
            photos = load_split(manifest, args.split or "test", args.suite)
        except (OSError, ValueError) as error:
            print(f"cubilete bench vision: {error}", file=sys.stderr)
            return 2
        if not photos:
            continue
        print(f"reading {name}: {len(photos)} photos ...", file=sys.stderr, flush=True)
        results = read_set(args, manifest.parent, photos)
        if results is None:
            return 1
        rows.append(suite_row(name, results))
        if learnt is not None:
            unseen = [r for r in results if f"{manifest.parent.name}/{r.image}" not in learnt]
            if unseen and len(unseen) < len(results):
                rows.append(suite_row(f"{name} {UNSEEN}", unseen))
    if args.negatives:
        print(f"reading {args.negatives} pictures with no die ...", file=sys.stderr, flush=True)
        kinds = args.negatives_kinds or NEGATIVE_KINDS
        rows.append(read_negatives(args.negatives, args.seed, kinds=kinds))
        if args.negatives_count is not None:
            rows.append(read_negatives(args.negatives, args.seed, args.negatives_count, kinds))
    if args.json:
        print(json.dumps({"expect": args.expect, "split": args.split or "test", "opencv": cv2.__version__,
                          "sets": rows}))
    else:
        print(format_suite(rows, args.expect, args.split or "test"))
    return 0


def suite_row(name: str, results: list) -> dict:
    summary = summarise(results)
    return {"set": name, **summary.to_json(), "asked_rate": round(summary.asked_rate, 4)}


def read_set(args: argparse.Namespace, root: Path, photos: list):
    """The results of reading every photo of one set, or None when a photo is missing."""
    def failures(photo, image, reading, r) -> None:
        if not r.exact:
            wrong = ", ".join(f"{t} read {v} ({c:.2f})" for t, v, c in r.wrong)
            print(f"  {root.name}/{r.image}: wrong [{wrong}] missed {r.misses} "
                  f"extra {[(v, round(c, 2)) for v, c in r.extras]}", file=sys.stderr)

    try:
        results = read_photos(root, photos, lambda photo: expectation(args, photo), failures if args.failures else None)
    except OSError as error:
        print(f"cubilete bench vision: {error}", file=sys.stderr)
        return None
    return results


def format_suite(rows: list[dict], expect, split: str) -> str:
    counted = "each photo's own dice count given" if expect == "labelled" else (
        "no dice count given" if expect is None else f"{expect} dice expected in every photo")
    head = (f"{'set':<17} {'photos':>6} {'exact':>7} {'per die':>8} {'wrong':>6} {'missed':>6} {'extra':>6} "
            f"{'sure wrong':>16} {'asked':>7} {'ms p50':>7} {'p95':>6}")
    # the no-dice pictures are drawn by OpenCV, and its versions draw some of them otherwise
    lines = [f"split {split}, {counted}; one thread of OpenCV {cv2.__version__}", head, "-" * len(head)]
    for r in rows:
        if r["set"].startswith("negatives"):
            continue
        sure = r["sure_right"] + r["sure_wrong"]
        lines.append(
            f"{r['set']:<17} {r['photos']:>6} {100 * r['exact_rate']:>6.1f}% {100 * r['accuracy']:>7.2f}% "
            f"{r['wrong']:>6} {r['misses']:>6} {r['extras']:>6} "
            f"{r['sure_wrong']:>4}/{sure:<5} {100 * r['sure_error_rate']:>4.2f}% {100 * r['asked_rate']:>6.1f}% "
            f"{r['median_ms']:>7.1f} {r['p95_ms']:>6.1f}")
    for r in rows:
        only = "" if tuple(r.get("kinds", NEGATIVE_KINDS)) == NEGATIVE_KINDS else f" of {', '.join(r['kinds'])} only"
        if r["set"].startswith("negatives told"):
            lines.append(f"{r['set']} dice, as the device reads a throw: {r['pictures_with_dice']} of {r['photos']} "
                         f"pictures{only} offered dice to confirm, {r['extras']} dice in all, {r['sure_extras']} at "
                         f"confidence >= {SURE_CONFIDENCE}")
        elif r["set"] == "negatives":
            kinds = ", ".join(f"{k} {v}" for k, v in sorted(r["pictures_with_sure_dice_by_kind"].items())) or "none"
            lines.append(f"negatives: {r['photos']} pictures with no die{only} (no count given): {r['pictures_with_dice']} "
                         f"gave a die, {r['extras']} dice in all, {r['sure_extras']} at confidence >= "
                         f"{SURE_CONFIDENCE} (pictures with a sure die by kind: {kinds}); ms median "
                         f"{r['median_ms']:.1f}, p95 {r['p95_ms']:.1f}")
    lines.append("exact: every die found with its value and nothing extra; per die: a die counts by its value, "
                 "sure or not; sure wrong: dice read at confidence >= 0.9 and not cocked whose value was wrong, "
                 "of all sure dice; asked: photos with a count problem, an unsure or a cocked die")
    if any(r["set"].endswith(f" {UNSEEN}") for r in rows):
        lines.append(f"{UNSEEN}: the set's test photos but those whose scene (the same dice lying the same way: an "
                     "augmented copy) or throw (seen again from another side) is in a train split, where the shipped "
                     "networks may have learnt it")
    return "\n".join(lines)


def bench_detection(args: argparse.Namespace, title: str, root: Path, photos: list) -> int:
    """Recall and precision of the detector's die centres, whatever the values."""
    thresholds = sorted({0.15, 0.2, THRESHOLD, 0.4, 0.5, 0.6})
    tally = {t: [0, 0, 0, 0] for t in thresholds}  # found, missed, extra, photos all found and none extra
    centre_errors: list[float] = []
    size_ratios: list[float] = []
    ms: list[float] = []
    failures: list[str] = []
    net = detector()
    for photo in photos:
        image = cv2.imread(str(root / photo.image), cv2.IMREAD_COLOR)
        if image is None:
            print(f"cubilete bench vision: cannot read {root / photo.image}", file=sys.stderr)
            return 1
        if not ms:
            net.detect(image)  # warm up outside the timings
        started = time.perf_counter()
        found = net.detect(image, threshold=min(thresholds))
        ms.append((time.perf_counter() - started) * 1000)
        for t in thresholds:
            kept = [d for d in found if d.score >= t]
            result = match_detections(photo.dice, kept)
            tally[t][0] += result.found
            tally[t][1] += result.missed
            tally[t][2] += result.extra
            tally[t][3] += result.missed == 0 and result.extra == 0
            if t == THRESHOLD:
                centre_errors += result.centre_errors
                size_ratios += [kept[pi].size / photo.dice[li].side for li, pi in result.pairs]
                if result.missed or result.extra:
                    failures.append(f"  {photo.image}: missed {result.missed} extra {result.extra} "
                                    f"(scores of extras {[round(kept[i].score, 2) for i in result.extra_detections]})")
                    if args.debug_dir is not None:
                        write_debug(args.debug_dir, photo, image,
                                    [(d.center, d.size, f"{d.score:.2f}", True) for d in kept])
    lines = [f"detection only: {title}", f"photos: {len(photos)}"]
    figures: dict = {"title": title, "photos": len(photos), "threshold": THRESHOLD, "by_threshold": {}}
    for t in thresholds:
        found, missed, extra, perfect = tally[t]
        recall = found / max(1, found + missed)
        precision = found / max(1, found + extra)
        mark = "  <- the detector's threshold" if t == THRESHOLD else ""
        lines.append(f"score >= {t:.2f}: recall {100 * recall:.2f}% ({found}/{found + missed})  precision "
                     f"{100 * precision:.2f}%  missed {missed}  extra {extra}  photos all found, none extra "
                     f"{perfect}/{len(photos)}{mark}")
        figures["by_threshold"][str(t)] = {"recall": round(recall, 4), "precision": round(precision, 4),
                                           "missed": missed, "extra": extra, "perfect_photos": perfect}
    if centre_errors:
        lines.append(f"centre error / box side: median {np.median(centre_errors):.3f}  p95 "
                     f"{percentile(centre_errors, 0.95):.3f}")
        lines.append(f"detected top-face edge / label box side: p5 {percentile(size_ratios, 0.05):.2f}  median "
                     f"{np.median(size_ratios):.2f}  p95 {percentile(size_ratios, 0.95):.2f}")
        figures["centre_error_median"] = round(float(np.median(centre_errors)), 4)
        figures["centre_error_p95"] = round(percentile(centre_errors, 0.95), 4)
    lines.append(f"detector ms per photo: median {percentile(ms, 0.5):.1f}  p95 {percentile(ms, 0.95):.1f}")
    figures["median_ms"], figures["p95_ms"] = round(percentile(ms, 0.5), 2), round(percentile(ms, 0.95), 2)
    print(json.dumps(figures) if args.json else "\n".join(lines))
    if args.failures:
        print("\n".join(failures))
    return 0


def write_debug(folder: Path, photo, image, marks: list) -> None:
    """An annotated copy of a photo: label boxes, and each prediction with its text."""
    out = image.copy()
    match = match_centres(photo.dice, [m[0] for m in marks])
    matched = set(match.values())
    for li, label in enumerate(photo.dice):
        colour = (160, 160, 160) if label.ignore else (0, 200, 0) if li in match else (0, 0, 255)
        x0, y0, x1, y1 = (round(v) for v in label.box)
        cv2.rectangle(out, (x0, y0), (x1, y1), colour, 1)
    for pi, (centre, size, text, sure) in enumerate(marks):
        colour = (255, 255, 255) if pi in matched else (255, 0, 255)
        if not sure:
            colour = (0, 165, 255)
        x, y = round(centre[0]), round(centre[1])
        cv2.circle(out, (x, y), max(2, round(size / 2)), colour, 1)
        cv2.putText(out, text, (x - 12, y - 4), cv2.FONT_HERSHEY_SIMPLEX, 0.35, colour, 1, cv2.LINE_AA)
    name = photo.image.replace("/", "_").rsplit(".", 1)[0] + ".png"
    cv2.imwrite(str(folder / name), out)


def synthetic_manifest(count: int, seed: int, folder: Path, looks: str = "game") -> tuple[Path, Path]:
    """Render `count` random game scenes (5 dice, 640x480, dice 40-90 px) with
    lab.synth into `folder`, their dice of `looks` (`synth.manifest.LOOKS`); returns
    (manifest, root). Cocked and mostly hidden dice are labelled "ignore" by the generator."""
    manifest = synth.write_manifest(folder, n=count, seed=seed, split="synthetic", looks=looks)
    return Path(manifest), folder
