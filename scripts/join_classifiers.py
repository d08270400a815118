"""Join die-value networks into one reading (`vision/reader/classifier.py`, "partners"): the
partners are stored as float16 beside the main network, and their joint temperature is fitted.

    .venv/bin/python -m pip install -e '.[train]'      # onnx, to store the partners as float16
    .venv/bin/python scripts/join_classifiers.py DRAW.onnx [DRAW.onnx ...]
        [--main vision/reader/die_values.onnx] [--main-float16]
        [--photos ../shared/data/dice-photos] [--work /tmp/cubilete-classifier] [--seed 1]

Each DRAW.onnx is a network `scripts/train_classifier.py` trained, another draw of the main
network's recipe (`--net-seed`). Its weights are written as float16 to MAIN_partnerK.onnx (about
half the size; OpenCV's dnn casts them back to float32 when it loads the file), its JSON beside
it as it was, marked "stored": "float16"; `--main-float16` stores the main network's own weights
so too, in place (the models must fit 4 MB together: three classifiers do only so). The reader
then reads every window with all the networks, each at its own temperatures, and averages their
probabilities; that average is calibrated as a network is: raised to 1/t and normalised, t
fitted by the grid search of `train_classifier.fit_temperature` on the value log-loss of the
held-out photos' windows (every tenth train photo, as `train_classifier` holds them out, with the
same seeds), read by the stored networks as the reader will read them. t and the partners' file
names go into the main network's JSON (`"partners"`). Run again with other draws, it replaces the
partners; `--alone` takes them off again (a main stored as float16 stays so). 15 s a network on
one core once `--work` holds what `train_classifier` found in the photos (tomitomi's faces);
longer in a fresh folder.
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

PARTNER_SUFFIX = "_partner"  # and the partner's number, from 1
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
    gives them: second looks averaged, values sharpened at its value temperature) and the
    windows' classes."""
    looks, classes = tc.held_out_looks(net, scenes, seed)
    return tc.auto_probabilities(looks, net.temperature, net.value_temperature), classes


def fit_joint_temperature(readings: list[np.ndarray], y: np.ndarray) -> tuple[float, dict]:
    """The joint temperature minimising the value log-loss of the dice among the windows, on the
    grid `train_classifier.fit_temperature` searches, and the log-losses that show what it did
    (the main network's reading first, then each partner's)."""
    dice = (y >= 1) & (y <= 6)
    grid = tc.TEMPERATURES
    on_dice = [reading[dice] for reading in readings]
    losses = [tc.value_nll(classifier.joint_probabilities(on_dice, t), y[dice]) for t in grid]
    best = int(np.argmin(losses))
    joint = classifier.joint_probabilities(readings, float(grid[best]))
    return float(grid[best]), {
        "dice_windows": int(dice.sum()),
        "value_log_loss": {"alone": [round(tc.value_nll(reading, y[dice]), 4) for reading in on_dice],
                           "averaged": round(tc.value_nll(np.mean(on_dice, axis=0), y[dice]), 4),
                           "joint": round(losses[best], 4)},
        "sure_share": {"alone": [tc.sure_share(reading[dice]) for reading in readings], "joint": tc.sure_share(joint[dice])}}


def store_float16(source: Path, target: Path, meta: dict) -> None:
    """`source`'s network and metadata written to `target` (and its JSON) with float16 weights."""
    before, after = float16_copy(source, target)
    write_metadata(target, {**meta, "stored": "float16"})
    print(f"wrote {target} ({before} -> {after} bytes)", flush=True)


def option_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("draws", type=Path, nargs="*", help="the partner networks' ONNX files (each with its JSON)")
    parser.add_argument("--main", type=Path, default=classifier.MODEL_PATH,
                        help="the network the partners join (default: the reader's own)")
    parser.add_argument("--main-float16", action="store_true",
                        help="store the main network's weights as float16 too, in place")
    parser.add_argument("--alone", action="store_true", help="take the main network's partners off")
    parser.add_argument("--photos", type=Path, default=photo_sets.DICE_PHOTOS)
    parser.add_argument("--work", type=Path, default=Path("/tmp/cubilete-classifier"),
                        help="train_classifier's work folder (the tomitomi faces it found are cached there)")
    parser.add_argument("--seed", type=int, default=1, help="train_classifier's --seed (it picks the held-out windows)")
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = option_parser()
    args = parser.parse_args(argv)
    if args.alone == bool(args.draws):
        parser.error("give the partners' ONNX files, or --alone to take the partners off")
    meta = json.loads(metadata_path(args.main).read_text(encoding="utf-8"))
    if args.alone:
        meta.pop("partners", None)
        write_metadata(args.main, meta)
        print(f"{args.main} reads alone")
        return 0
    resolved = [draw.resolve() for draw in args.draws]
    if args.main.resolve() in resolved:
        parser.error("a network cannot be its own partner")
    if len(set(resolved)) < len(resolved):
        parser.error("a draw is given twice; each partner is another network")
    if (why := photo_sets.missing_training_photos(args.photos)):
        parser.error(why)
    for draw in args.draws:
        if "partners" in classifier.ValueNet(draw, alone=True).meta:
            parser.error(f"{draw} has partners of its own; give a network trained alone")
    started = time.time()
    if args.main_float16 and meta.get("stored") != "float16":
        staged = args.main.with_name(args.main.stem + "_float16.onnx")
        float16_copy(args.main, staged)
        staged.replace(args.main)
        meta["stored"] = "float16"
        write_metadata(args.main, meta)
        print(f"stored {args.main}'s weights as float16 ({args.main.stat().st_size} bytes)", flush=True)
    main_net = classifier.ValueNet(args.main, alone=True)
    stored = []
    for number, draw in enumerate(args.draws, 1):
        stored.append(args.main.with_name(f"{args.main.stem}{PARTNER_SUFFIX}{number}.onnx"))
        draw_meta = json.loads(metadata_path(draw).read_text(encoding="utf-8"))
        store_float16(draw, stored[-1], {**draw_meta, "stored_from": draw.name})

    photos = photo_sets.training_photos(args.work, args.photos)
    _, held = photo_sets.held_out(photos)
    scenes = tc.data.photo_scenes(held)
    print(f"{len(scenes)} held-out photos ({', '.join(sorted({s.set_name for s in scenes}))})", flush=True)
    readings, y = held_out_probabilities(main_net, scenes, args.seed)
    readings = [readings]
    for path in stored:
        reading, y_partner = held_out_probabilities(classifier.ValueNet(path, alone=True), scenes, args.seed)
        if not np.array_equal(y, y_partner):
            raise SystemExit("the networks' held-out windows differ; they must be cut from the same photos")
        readings.append(reading)
    t, figures = fit_joint_temperature(readings, y)
    meta["partners"] = {"files": [path.name for path in stored], "temperature": t, "fitted": figures}
    write_metadata(args.main, meta)
    loss = figures["value_log_loss"]
    print(f"joint temperature {t:.3f} on {figures['dice_windows']} held-out dice windows: value log-loss "
          f"{loss['alone']} alone, {loss['averaged']} averaged, {loss['joint']} joined; sure windows "
          f"{figures['sure_share']}; {args.main} now reads with {', '.join(path.name for path in stored)} "
          f"({(time.time() - started) / 60:.1f} min)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
