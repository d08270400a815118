"""Fit a trained die-value network's value temperature without training it again.

    .venv/bin/python scripts/fit_value_temperature.py [NETWORK.onnx]
        [--photos ../shared/data/dice-photos] [--work /tmp/cubilete-classifier] [--seed 1]

`scripts/train_classifier.py` fits the value temperature (`classifier.sharpen_values`: the
shares of the values 1..6 raised to 1/s once a window's looks are averaged) when it saves a
network; a network saved before it did gets one here, fitted the same way: the grid of
`train_classifier.TEMPERATURES`, the value log-loss of the held-out photos' dice windows (every
tenth train photo, as `train_classifier --seed` holds them out) read at the network's own
temperature with their second looks. The network's weights and temperature are not touched;
"value_temperature" and what the fit did go into its JSON (default NETWORK: the reader's own).
About a minute on one core once `--work` holds what `train_classifier` found in the photos.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts"))

import photo_sets  # noqa: E402
import train_classifier as tc  # noqa: E402
from vision.reader import classifier  # noqa: E402
from vision.reader.model_file import metadata_path, write_metadata  # noqa: E402


def fitted_value_temperature(net: classifier.ValueNet, scenes: list, seed: int) -> tuple[float, dict]:
    """The value temperature fitted on `scenes`' held-out windows, and the figures that show what it did."""
    looks, y = tc.held_out_looks(net, scenes, seed)
    value_temperature = tc.fit_value_temperature(looks, y, net.temperature)
    dice = (y >= 1) & (y <= 6)
    before = tc.auto_probabilities(looks[:, dice], net.temperature)
    after = classifier.sharpen_values(before, value_temperature)
    return value_temperature, {
        "dice_windows": int(dice.sum()),
        "value_log_loss": [round(tc.value_nll(before, y[dice]), 4), round(tc.value_nll(after, y[dice]), 4)],
        "sure_share": [tc.sure_share(before), tc.sure_share(after)]}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("network", type=Path, nargs="?", default=classifier.MODEL_PATH,
                        help="the network's ONNX file, its JSON beside it (default: the reader's own)")
    parser.add_argument("--photos", type=Path, default=photo_sets.DICE_PHOTOS)
    parser.add_argument("--work", type=Path, default=Path("/tmp/cubilete-classifier"),
                        help="train_classifier's work folder (the tomitomi faces it found are cached there)")
    parser.add_argument("--seed", type=int, default=1, help="train_classifier's --seed (it picks the held-out windows)")
    args = parser.parse_args(argv)
    if (why := photo_sets.missing_training_photos(args.photos)):
        parser.error(why)
    started = time.time()
    net = classifier.ValueNet(args.network, alone=True)
    photos = photo_sets.training_photos(args.work, args.photos)
    _, held = photo_sets.held_out(photos)
    scenes = tc.data.photo_scenes(held)
    value_temperature, figures = fitted_value_temperature(net, scenes, args.seed)
    meta = json.loads(metadata_path(args.network).read_text(encoding="utf-8"))
    write_metadata(args.network, {**meta, "value_temperature": value_temperature, "value_temperature_fitted": figures})
    print(f"value temperature {value_temperature:.3f} on {figures['dice_windows']} held-out dice windows of "
          f"{len(scenes)} photos: value log-loss {figures['value_log_loss'][0]} -> {figures['value_log_loss'][1]}, "
          f"sure windows {figures['sure_share'][0]} -> {figures['sure_share'][1]}; written to "
          f"{metadata_path(args.network)} ({(time.time() - started) / 60:.1f} min)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
