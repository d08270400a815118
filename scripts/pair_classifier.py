"""Pair two die-value networks into one reading (`vision/reader/classifier.py`, "partner"):
the partner is stored as float16 beside the main network, and the pair's temperature is fitted.

    .venv/bin/python -m pip install -e '.[train]'      # onnx, to store the partner as float16
    .venv/bin/python scripts/pair_classifier.py PARTNER.onnx [--main vision/reader/die_values.onnx]
        [--photos ../shared/data/dice-photos] [--work /tmp/cubilete-classifier] [--seed 1]

PARTNER.onnx is a network `scripts/train_classifier.py` trained, another draw of the main
network's recipe (`--net-seed`). Its weights are written as float16 to MAIN_partner.onnx (about
half the size; OpenCV's dnn casts them back to float32 when it loads the file), its JSON
beside it as it was, marked "stored": "float16". The pair reads every window with both
networks, each at its own temperature, and averages their probabilities; that average is then
calibrated as a network is: raised to 1/t and normalised, t fitted by the grid search of
`train_classifier.fit_temperature` on the value log-loss of the held-out photos' windows
(every tenth train photo, as `train_classifier` holds them out, with the same seeds), read by
the float16 partner as the reader will read it. t and the partner's file name go into the main
network's JSON (`"partner"`); its ONNX file is left as it is. Run again with another partner,
it replaces the pair; `--alone` takes the partner off again. 15 s on one core once `--work`
holds what `train_classifier` found in the photos (tomitomi's faces); longer in a fresh folder.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts"))

import photo_sets  # noqa: E402
import train_classifier as tc  # noqa: E402
from vision.reader import classifier  # noqa: E402
from vision.reader.model_file import metadata_path, write_metadata  # noqa: E402

PARTNER_SUFFIX = "_partner"
# Small tensors (biases, folded norms' shifts) stay float32: they weigh nothing and keep the
# sums exact where a network is most sensitive.
FLOAT16_FROM = 17  # elements


def float16_copy(source: Path, target: Path) -> tuple[int, int]:
    """Write `source`'s ONNX network to `target` with its float32 weights stored as float16 and
    cast back to float32 as the graph's first nodes; (bytes before, bytes after)."""
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    model = onnx.load(str(source))
    graph = model.graph
    initializers, casts = [], []
    for tensor in graph.initializer:
        weights = numpy_helper.to_array(tensor)
        if weights.dtype != np.float32 or weights.size < FLOAT16_FROM:
            initializers.append(tensor)
            continue
        if np.abs(weights).max() >= np.finfo(np.float16).max:
            raise ValueError(f"{source}: {tensor.name} holds weights float16 cannot store")
        stored = f"{tensor.name}_float16"
        initializers.append(numpy_helper.from_array(weights.astype(np.float16), stored))
        casts.append(helper.make_node("Cast", [stored], [tensor.name], to=TensorProto.FLOAT,
                                      name=f"{tensor.name}_to_float32"))
    del graph.initializer[:]
    graph.initializer.extend(initializers)
    nodes = list(graph.node)
    del graph.node[:]
    graph.node.extend(casts + nodes)
    onnx.checker.check_model(model)
    onnx.save(model, str(target))
    return source.stat().st_size, target.stat().st_size


def held_out_probabilities(net: classifier.ValueNet, scenes: list, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """The network's calibrated probabilities of every held-out photo window (as `read_windows`
    gives them, second looks included) and the windows' classes."""
    tc.GEOMETRY = net.geometry  # the windows are cut for the network that reads them
    probabilities, classes = [], []
    for name in sorted({scene.set_name for scene in scenes}):
        held = tc.held_out_photos(scenes, name, seed)
        probabilities.append(tc.auto_probabilities(tc.all_look_logits(net, held.windows), net.temperature))
        classes.append(held.classes)
    return np.concatenate(probabilities), np.concatenate(classes)


def fit_pair_temperature(first: np.ndarray, second: np.ndarray, y: np.ndarray) -> tuple[float, dict]:
    """The pair temperature minimising the value log-loss of the dice among the windows, on the
    grid `train_classifier.fit_temperature` searches, and the log-losses that show what it did."""
    dice = (y >= 1) & (y <= 6)
    grid = tc.TEMPERATURES
    losses = [tc.value_nll(classifier.pair_probabilities(first[dice], second[dice], t), y[dice]) for t in grid]
    best = int(np.argmin(losses))
    sure = {name: round(float((classifier.value_confidence(p[dice]) >= 0.9).mean()), 4)
            for name, p in (("main", first), ("partner", second),
                            ("pair", classifier.pair_probabilities(first, second, float(grid[best]))))}
    return float(grid[best]), {"dice_windows": int(dice.sum()),
                               "value_log_loss": {"main": round(tc.value_nll(first[dice], y[dice]), 4),
                                                  "partner": round(tc.value_nll(second[dice], y[dice]), 4),
                                                  "averaged": round(tc.value_nll((first[dice] + second[dice]) / 2,
                                                                                 y[dice]), 4),
                                                  "pair": round(losses[best], 4)},
                               "sure_share": sure}


def option_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("partner", type=Path, nargs="?", help="the partner network's ONNX file (with its JSON)")
    parser.add_argument("--main", type=Path, default=classifier.MODEL_PATH,
                        help="the network the partner joins (default: the reader's own)")
    parser.add_argument("--alone", action="store_true", help="take the main network's partner off")
    parser.add_argument("--photos", type=Path, default=photo_sets.DICE_PHOTOS)
    parser.add_argument("--work", type=Path, default=Path("/tmp/cubilete-classifier"),
                        help="train_classifier's work folder (the tomitomi faces it found are cached there)")
    parser.add_argument("--seed", type=int, default=1, help="train_classifier's --seed (it picks the held-out windows)")
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = option_parser()
    args = parser.parse_args(argv)
    if args.alone == (args.partner is not None):
        parser.error("give the partner's ONNX file, or --alone to take the partner off")
    meta = json.loads(metadata_path(args.main).read_text(encoding="utf-8"))
    if args.alone:
        meta.pop("partner", None)
        write_metadata(args.main, meta)
        print(f"{args.main} reads alone")
        return 0
    if args.partner.resolve() == args.main.resolve():
        parser.error("a network cannot be its own partner")
    if (why := photo_sets.missing_training_photos(args.photos)):
        parser.error(why)
    started = time.time()
    main_net = classifier.ValueNet(args.main, alone=True)
    if "partner" in classifier.ValueNet(args.partner, alone=True).meta:
        parser.error(f"{args.partner} has a partner of its own; give a network trained alone")
    stored = args.main.with_name(args.main.stem + PARTNER_SUFFIX + ".onnx")
    before, after = float16_copy(args.partner, stored)
    partner_meta = json.loads(metadata_path(args.partner).read_text(encoding="utf-8"))
    write_metadata(stored, {**partner_meta, "stored": "float16", "stored_from": args.partner.name})
    print(f"wrote {stored} ({before} -> {after} bytes)", flush=True)
    partner = classifier.ValueNet(stored, alone=True)

    photos = photo_sets.training_photos(args.work, args.photos)
    _, held = photo_sets.held_out(photos)
    scenes = tc.data.photo_scenes(held)
    print(f"{len(scenes)} held-out photos ({', '.join(sorted({s.set_name for s in scenes}))})", flush=True)
    first, y = held_out_probabilities(main_net, scenes, args.seed)
    second, y_partner = held_out_probabilities(partner, scenes, args.seed)
    if not np.array_equal(y, y_partner):
        raise SystemExit("the two networks' held-out windows differ; they must be cut from the same photos")
    t, figures = fit_pair_temperature(first, second, y)
    meta["partner"] = {"file": stored.name, "pair_temperature": t, "fitted": figures}
    write_metadata(args.main, meta)
    loss = figures["value_log_loss"]
    print(f"pair temperature {t:.3f} on {figures['dice_windows']} held-out dice windows: value log-loss "
          f"{loss['main']} and {loss['partner']} alone, {loss['averaged']} averaged, {loss['pair']} as a pair; "
          f"sure windows {figures['sure_share']}; {args.main} now reads with {stored.name} "
          f"({(time.time() - started) / 60:.1f} min)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
