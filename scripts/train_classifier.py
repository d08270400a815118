"""Train the die-value classifier (`vision/reader/die_values.npz`) with PyTorch.

    .venv/bin/python -m pip install -e '.[train]'      # torch, for training only
    .venv/bin/python scripts/train_classifier.py --net-seed 2

makes the shipped model: the defaults with the network seeded 2 (of networks seeded 1 and 2
it read the synthetic game scenes of the bench better, 99.3% of dice against 99.1%; one
network; 90 min on one thread of a 2-core
machine, of which 5 to cut the windows, plus about 35 min to render the synthetic scenes the
first time; they and the windows are cached under `--work`, default /tmp/cubilete-classifier).
Several trained files (of one window geometry) can be put in one as members whose logits are
averaged (the temperature is fitted again):

    .venv/bin/python scripts/train_classifier.py --net-seed 3 --out /tmp/member3.npz
    .venv/bin/python scripts/train_classifier.py --combine vision/reader/die_values.npz /tmp/member3.npz

Options: [--photos ../shared/data/dice-photos/nell-byler] [--synthetic 4000] [--marbled 4000]
[--smoky 3000] [--game 3000] [--mine 1] [--widths 24,48,96] [--hidden 128] [--convs 1]
[--window 48] [--die 36] [--epochs 24] [--per-epoch 100000] [--seed 1] [--threads 1]
[--out vision/reader/die_values.npz].

Data (see `scripts/classifier_data.py`); nothing of a manifest's `test` split is ever read:
  * the `train` split of the photo manifest, split by photo: 80% to fit, 20% held out to
    measure and to fit the softmax temperature;
  * synthetic scenes rendered by `vision.synth`: `--synthetic` drawn from wide options,
    `--marbled` the same with marbled dice only, `--smoky` with dark see-through dice only,
    `--game` like the game scenes of
    `random_scene`; plus held-out wide and game scenes;
  * with `--mine 1`, windows where the shipped detector (`vision.reader.detector`) finds
    something in the fitting scenes: its false detections as "not a die", its boxes of
    labelled dice as those dice.
Windows are cut the way the reader cuts them (`vision.reader.windows`), with the detector's
errors simulated (centre off by up to 20% of the edge, size x0.8..1.25, angle +-15 degrees,
15% at any angle), worse cameras simulated (die shrunk to 14..40 px and re-JPEGed), and
colours changed at every epoch (hue turned, channels swapped, inverted, gamma, contrast,
noise, blur, glare). Network: stages of `--convs` (3x3 conv + batch-norm + ReLU) and a max-pool, of `--widths`
channels, a dense layer of `--hidden`, eight classes (not a die, 1..6, cocked); batch norm
is folded into the convolutions at export. AdamW with a one-cycle schedule.
The temperature that divides the logits is fitted (grid search) to the value probabilities
of the held-out photos' dice, as `classify_dice` reads them (quarter-turn second looks).
Deterministic for a given seed, data and thread count.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts"))

import classifier_data as data  # noqa: E402
from vision.reader import classifier  # noqa: E402
from vision.reader.windows import CHANNELS, Geometry, window_channels  # noqa: E402

DEFAULT_PHOTOS = ROOT.parent / "shared" / "data" / "dice-photos" / "nell-byler"
CLASSES = len(classifier.CLASS_NAMES)
CONV_WIDTHS = (24, 48, 96)  # replaced by --widths
HIDDEN = 128  # replaced by --hidden
CONVS_PER_STAGE = 1  # replaced by --convs
GEOMETRY = Geometry(48, 36.0)  # replaced by --window / --die
MINED_SCORE = 0.2  # --mine: windows at the shipped detector's detections from this score


def log(*parts: object) -> None:
    print(*parts, flush=True)


# ----------------------------------------------------------------------------- windows


def build_windows(scenes: list[data.Scene], passes: int, seed: int, **options) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    windows: list[np.ndarray] = []
    classes: list[int] = []
    for _ in range(passes):
        for scene in scenes:
            w, c = data.sample_windows(scene, rng, geometry=GEOMETRY, **options)
            windows += w
            classes += c
    if not windows:
        side = GEOMETRY.window_px
        return np.zeros((0, side, side, 3), np.uint8), np.zeros(0, np.int64)
    return np.stack(windows), np.asarray(classes, np.int64)


def mined(scenes: list[data.Scene], seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Windows at the shipped detector's detections of these scenes (`data.mined_windows`)."""
    from vision.reader.detector import detect

    rng = np.random.default_rng(seed)
    windows: list[np.ndarray] = []
    classes: list[int] = []
    for scene in scenes:
        w, c = data.mined_windows(scene, rng, detect(scene.image(), MINED_SCORE), geometry=GEOMETRY)
        windows += w
        classes += c
    return np.stack(windows), np.asarray(classes, np.int64)


def cached(work: Path, key: str, make):
    path = work / f"windows-{hashlib.sha1(key.encode()).hexdigest()[:12]}.npz"
    if path.exists():
        with np.load(path) as f:
            return f["x"], f["y"]
    x, y = make()
    np.savez(path, x=x, y=y)
    return x, y


@dataclass
class HeldOut:
    """The held-out windows of one set of scenes, with their classes; `oracle` is 1 for the
    windows at a label's own box."""

    windows: np.ndarray
    classes: np.ndarray
    oracle: np.ndarray

    def at_label_boxes(self) -> "HeldOut":
        pick = self.oracle == 1
        return HeldOut(self.windows[pick], self.classes[pick], self.oracle[pick])


def held_out(scenes: list[data.Scene], seed: int) -> HeldOut:
    """Windows of held-out dice: one at the label's box, three with a detector's error
    (smaller than in training), and negatives."""
    rng = np.random.default_rng(seed)
    small = data.Jitter(shift=0.12, scale=(0.87, 1.15), angle_deg=10.0, any_angle=0.0)
    windows, classes, oracle = [], [], []
    for scene in scenes:
        image = scene.image()
        for die in scene.dice:
            if die.label == data.IGNORE:
                continue
            windows.append(data.cut_window(image, die.x, die.y, die.size, die.angle, None, geometry=GEOMETRY))
            classes.append(die.label)
            oracle.append(1)
            for _ in range(3):
                windows.append(data.cut_window(image, *data.jittered(die, rng, small), None, geometry=GEOMETRY))
                classes.append(die.label)
                oracle.append(0)
        w, c = data.sample_windows(scene, rng, per_die=0, negatives_per_die=1.0, background=3, degrade=0.0,
                                   geometry=GEOMETRY)
        windows += w
        classes += c
        oracle += [0] * len(c)
    return HeldOut(np.stack(windows), np.asarray(classes, np.int64), np.asarray(oracle, np.int8))


# ----------------------------------------------------------------------------- colour augmentation


def hue_turns(theta: np.ndarray) -> np.ndarray:
    """N x 3 x 3 rotations of colour space about the grey axis (Rodrigues' formula)."""
    c, s = np.cos(theta)[:, None, None], np.sin(theta)[:, None, None]
    k = 1 / math.sqrt(3)
    cross = np.array([[0, -k, k], [k, 0, -k], [-k, k, 0]], np.float32)
    return (c * np.eye(3) + (1 - c) * k * k + s * cross).astype(np.float32)


_NOISE: dict[int, np.ndarray] = {}


def noise_bank(side: int) -> np.ndarray:
    """Gaussian noise windows drawn once: drawing fresh noise for every window costs more than
    the rest of the augmentation."""
    if side not in _NOISE:
        _NOISE[side] = np.random.default_rng(12345).standard_normal((4096, side, side, 3), dtype=np.float32)
    return _NOISE[side]


def photometric(batch: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Colour changes that keep the value: N x H x W x 3 uint8 -> same."""
    if len(batch) > 32:
        return np.concatenate([photometric(batch[i:i + 32], rng) for i in range(0, len(batch), 32)])
    n, side = len(batch), batch.shape[1]
    x = batch.astype(np.float32).reshape(n, -1, 3).transpose(0, 2, 1)  # N x 3 x HW
    # colour: a random turn of the hue, sometimes swapped channels, then saturation
    m = hue_turns(np.where(rng.random(n) < 0.5, rng.uniform(-math.pi, math.pi, n), 0.0))
    for i in np.nonzero(rng.random(n) < 0.3)[0]:
        m[i] = m[i][rng.permutation(3)]
    x = np.matmul(m, x)
    grey = x.mean(axis=1, keepdims=True)
    sat = np.where(rng.random((n, 1, 1)) < 0.5, rng.uniform(0.3, 1.5, (n, 1, 1)), 1.0).astype(np.float32)
    x = grey + (x - grey) * sat
    # invert (light pips on dark dice and dark on light are both real)
    invert = rng.random(n) < 0.15
    x[invert] = 255 - x[invert]
    # gamma, contrast, brightness
    x = np.clip(x, 1, 255) * (1 / 255.0)
    x **= np.exp(rng.uniform(-0.5, 0.5, (n, 1, 1))).astype(np.float32)
    mean = x.reshape(n, -1).mean(axis=1)[:, None, None]
    contrast = rng.uniform(0.5, 1.25, (n, 1, 1)).astype(np.float32)
    shift = mean * (1 - contrast) + rng.uniform(-0.15, 0.15, (n, 1, 1)).astype(np.float32)
    x = (x * contrast + shift) * 255.0
    x = np.ascontiguousarray(x.transpose(0, 2, 1)).reshape(n, side, side, 3)
    # flip (a mirrored face has the same count)
    flip = np.nonzero(rng.random(n) < 0.5)[0]
    x[flip] = x[flip, :, ::-1]
    # glare: a bright soft spot
    grid_y, grid_x = np.mgrid[0:side, 0:side].astype(np.float32)
    for i in np.nonzero(rng.random(n) < 0.12)[0]:
        cx, cy = rng.uniform(0.12 * side, 0.88 * side, 2)
        r = rng.uniform(0.05, 0.22) * side
        x[i] += rng.uniform(60, 220) * np.exp(-((grid_x - cx) ** 2 + (grid_y - cy) ** 2) / (2 * r * r))[..., None]
    # blur and noise
    for i in np.nonzero(rng.random(n) < 0.2)[0]:
        x[i] = cv2.GaussianBlur(x[i], (0, 0), rng.uniform(0.4, 1.1) * side / 32)
    noisy = np.nonzero(rng.random(n) < 0.5)[0]
    bank = noise_bank(side)
    x[noisy] += bank[rng.integers(0, len(bank), len(noisy))] * rng.uniform(1, 9, (len(noisy), 1, 1, 1)).astype(np.float32)
    return np.clip(x + 0.5, 0, 255).astype(np.uint8)


# ----------------------------------------------------------------------------- the network


def make_model():
    import torch.nn as nn

    layers: list = []
    cin = CHANNELS
    for cout in CONV_WIDTHS:
        for _ in range(CONVS_PER_STAGE):
            layers += [nn.Conv2d(cin, cout, 3, padding=1, bias=False), nn.BatchNorm2d(cout), nn.ReLU()]
            cin = cout
        layers.append(nn.MaxPool2d(2))
    side = GEOMETRY.window_px // 2 ** len(CONV_WIDTHS)
    layers += [nn.Flatten(), nn.Linear(cin * side * side, HIDDEN), nn.ReLU(), nn.Dropout(0.2), nn.Linear(HIDDEN, CLASSES)]
    return nn.Sequential(*layers)


def export(model) -> classifier.Member:
    """The model as a member of a model file: a `classifier_graph` layer list (batch norm
    folded into the convolutions) and its weights."""
    import torch.nn as nn

    layers: list[dict] = []
    weights: dict[str, np.ndarray] = {}
    modules = list(model)
    i = 0
    while i < len(modules):
        m = modules[i]
        index = len(layers)
        if isinstance(m, nn.Conv2d):
            w = m.weight.detach().numpy().astype(np.float64)
            b = np.zeros(w.shape[0]) if m.bias is None else m.bias.detach().numpy().astype(np.float64)
            if i + 1 < len(modules) and isinstance(modules[i + 1], nn.BatchNorm2d):
                bn = modules[i + 1]
                g = bn.weight.detach().numpy() / np.sqrt(bn.running_var.numpy() + bn.eps)
                w = w * g[:, None, None, None]
                b = (b - bn.running_mean.numpy()) * g + bn.bias.detach().numpy()
                i += 1
            layers.append({"op": "conv", "stride": m.stride[0], "pad": m.padding[0], "group": m.groups})
            weights[f"l{index}_w"], weights[f"l{index}_b"] = w.astype(np.float32), b.astype(np.float32)
        elif isinstance(m, nn.Linear):
            layers.append({"op": "dense"})
            weights[f"l{index}_w"] = m.weight.detach().numpy().astype(np.float32)
            weights[f"l{index}_b"] = m.bias.detach().numpy().astype(np.float32)
        elif isinstance(m, nn.ReLU):
            layers.append({"op": "relu"})
        elif isinstance(m, nn.MaxPool2d):
            layers.append({"op": "maxpool"})
        elif isinstance(m, nn.Flatten):
            layers.append({"op": "flatten"})
        elif isinstance(m, nn.Dropout):
            pass
        else:
            raise TypeError(f"cannot export {m}")
        i += 1
    return classifier.Member(layers, weights)


def save_model(path: Path, members: list[classifier.Member], temperature: float, notes: dict) -> None:
    arrays = {k: v if k.startswith("meta_") else v.astype(np.float16)
              for k, v in classifier.member_arrays(members, GEOMETRY).items()}
    np.savez_compressed(path, meta_temperature=np.array(temperature), meta_notes=np.array(json.dumps(notes)), **arrays)


def scaled_logits(member: classifier.Member, factor: float) -> classifier.Member:
    """The member with its logits multiplied by `factor` (its last layer must be dense)."""
    last = len(member.layers) - 1
    if member.layers[last]["op"] != "dense":
        raise SystemExit(f"cannot scale the logits of a network ending in {member.layers[last]['op']}")
    weights = {**member.weights, f"l{last}_w": member.weights[f"l{last}_w"] * factor,
               f"l{last}_b": member.weights[f"l{last}_b"] * factor}
    return classifier.Member(member.layers, weights)


def load_members(paths: list[Path]) -> tuple[list[classifier.Member], list[dict]]:
    """The networks and notes of trained model files, checked to share one window geometry.
    Each file's temperature is folded into its networks' last layer: members trained apart come
    out over- or under-confident by different factors, and averaging their raw logits would let
    the loudest one decide."""
    members, notes = [], []
    for path in paths:
        net = classifier.ValueNet(path)
        if net.geometry != GEOMETRY:
            raise SystemExit(f"{path} cuts windows as {net.geometry}, not {GEOMETRY} (give --window and --die)")
        members += [scaled_logits(m, 1.0 / net.temperature) for m in net.members]
        with np.load(path) as f:
            notes.append(json.loads(str(f["meta_notes"])))
    return members, notes


def to_channels(batch_bgr: np.ndarray):
    import torch

    return torch.from_numpy(window_channels(batch_bgr, GEOMETRY))


def train(x: np.ndarray, y: np.ndarray, real: np.ndarray, epochs: int, per_epoch: int, seed: int, checks) -> object:
    import torch
    import torch.nn.functional as F

    torch.manual_seed(seed)
    rng = np.random.default_rng(seed)
    model = make_model()
    batch = 128
    steps = epochs * (per_epoch // batch)
    optimiser = torch.optim.AdamW(model.parameters(), lr=3e-3, weight_decay=5e-4)
    schedule = torch.optim.lr_scheduler.OneCycleLR(optimiser, max_lr=3e-3, total_steps=steps, pct_start=0.15)
    counts = np.bincount(y, minlength=CLASSES).astype(np.float64)
    class_weight = torch.tensor((counts.sum() / np.maximum(counts, 1) / CLASSES) ** 0.5, dtype=torch.float32)
    # every epoch sees all real windows and a random share of the synthetic ones
    real_index, synth_index = np.nonzero(real)[0], np.nonzero(~real)[0]
    synth_take = max(0, min(len(synth_index), per_epoch - len(real_index)))
    for epoch in range(epochs):
        started = time.time()
        model.train()
        index = np.concatenate([real_index, rng.choice(synth_index, synth_take, replace=False)])
        rng.shuffle(index)
        index = index[: (per_epoch // batch) * batch]
        total, right, loss_sum = 0, 0, 0.0
        for b in range(0, len(index), batch):
            take = index[b:b + batch]
            inputs = to_channels(photometric(x[take], rng))
            targets = torch.from_numpy(y[take])
            logits = model(inputs)
            loss = F.cross_entropy(logits, targets, weight=class_weight)
            optimiser.zero_grad()
            loss.backward()
            optimiser.step()
            schedule.step()
            loss_sum += float(loss.detach()) * len(take)
            right += int((logits.argmax(1) == targets).sum())
            total += len(take)
        log(f"epoch {epoch + 1}/{epochs}: loss {loss_sum / total:.4f}, train accuracy {right / total:.4f} "
            f"({time.time() - started:.0f} s)")
        if checks is not None and (epoch % 4 == 3 or epoch == epochs - 1):
            checks(model)
    model.eval()
    return model


# ----------------------------------------------------------------------------- calibration and figures


def all_turn_logits(net: classifier.ValueNet, windows_bgr: np.ndarray) -> np.ndarray:
    """4 x N x classes logits of the windows at 0, 90, 180 and 270 degrees."""
    out = []
    for start in range(0, len(windows_bgr), 2048):
        ch = window_channels(windows_bgr[start:start + 2048], GEOMETRY)
        out.append(np.stack([net.logits(np.rot90(ch, k, axes=(2, 3))) for k in range(4)]))
    return np.concatenate(out, axis=1)


def auto_probabilities(turn_logits: np.ndarray, temperature: float) -> np.ndarray:
    """What `read_windows(tta="auto")` gives, from precomputed logits of all four turns."""
    first = classifier.softmax(turn_logits[0] / temperature)
    again = classifier.needs_second_look(first)
    if not again.any():
        return first
    turned = turn_logits[1:, again].reshape(-1, turn_logits.shape[2])
    return classifier.combine(turn_logits[0], turned, temperature)


def value_nll(probabilities: np.ndarray, y: np.ndarray) -> float:
    values = probabilities[:, 1:7] / np.maximum(probabilities[:, 1:7].sum(axis=1, keepdims=True), 1e-9)
    return float(-np.mean(np.log(np.maximum(values[np.arange(len(y)), y - 1], 1e-9))))


def fit_temperature(turn_logits: np.ndarray, y: np.ndarray) -> float:
    values = (y >= 1) & (y <= 6)
    grid = np.exp(np.linspace(math.log(0.15), math.log(4.0), 81))
    scores = [value_nll(auto_probabilities(turn_logits[:, values], t), y[values]) for t in grid]
    return float(grid[int(np.argmin(scores))])


def report(name: str, probabilities: np.ndarray, y: np.ndarray) -> dict:
    """Printed figures of one held-out set: value accuracy and calibration on dice, die/not-a-die."""
    dice = (y >= 1) & (y <= 6)
    p = probabilities[dice]
    truth = y[dice]
    read = p[:, 1:7].argmax(axis=1) + 1
    confidence = classifier.value_confidence(p)
    sure = confidence >= 0.9
    right = read == truth
    not_die = p[:, 0] >= 0.5
    negatives = y == data.NOT_A_DIE
    cocked = y == data.COCKED
    figures = {
        "dice": int(dice.sum()), "value_accuracy": float(right.mean()),
        "sure": int(sure.sum()), "sure_wrong": int((sure & ~right).sum()),
        "dice_called_not_a_die": float(not_die.mean()),
        "negatives": int(negatives.sum()),
        "negatives_called_die": float((probabilities[negatives, 0] < 0.5).mean()) if negatives.any() else None,
        "cocked": int(cocked.sum()),
        "cocked_found": float((probabilities[cocked].argmax(1) == data.COCKED).mean()) if cocked.any() else None,
        "flat_called_cocked": float((p.argmax(1) == data.COCKED).mean()),
    }
    log(f"  {name}: {figures['dice']} dice, value accuracy {figures['value_accuracy']:.4f}; "
        f"conf>=0.9: {figures['sure']} dice, {figures['sure_wrong']} wrong; "
        f"dice called not-a-die {figures['dice_called_not_a_die']:.4f}; negatives called die "
        f"{figures['negatives_called_die']}; cocked found {figures['cocked_found']}; flat called cocked "
        f"{figures['flat_called_cocked']:.4f}")
    return figures


def main(argv: list[str] | None = None) -> int:
    global GEOMETRY, CONV_WIDTHS, HIDDEN, CONVS_PER_STAGE
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--photos", type=Path, default=DEFAULT_PHOTOS)
    parser.add_argument("--synthetic", type=int, default=4000, help="scenes drawn from wide options")
    parser.add_argument("--marbled", type=int, default=4000, help="more scenes, marbled dice only")
    parser.add_argument("--smoky", type=int, default=3000, help="more scenes, dark see-through dice only")
    parser.add_argument("--game", type=int, default=3000, help="more scenes like the game scenes of random_scene")
    parser.add_argument("--widths", default=",".join(map(str, CONV_WIDTHS)),
                        help="channels of the conv stages, comma-separated (each halves the window)")
    parser.add_argument("--hidden", type=int, default=HIDDEN, help="units of the dense layer")
    parser.add_argument("--convs", type=int, default=CONVS_PER_STAGE, choices=(1, 2),
                        help="3x3 convolutions per stage before its max-pool")
    parser.add_argument("--mine", type=int, default=1, choices=(0, 1),
                        help="1: add windows at the shipped detector's detections of the fitting scenes")
    parser.add_argument("--epochs", type=int, default=24)
    parser.add_argument("--per-epoch", type=int, default=100000,
                        help="windows seen per epoch: every real one, the rest drawn from the synthetic ones")
    parser.add_argument("--seed", type=int, default=1, help="seed of the data: scenes, windows, held-out photos")
    parser.add_argument("--net-seed", type=int, help="seed of the network's training (default: --seed)")
    parser.add_argument("--combine", type=Path, nargs="+", metavar="MODEL",
                        help="train nothing: put these trained models (same data seed) in one file as members "
                             "whose logits are averaged, and fit its temperature")
    parser.add_argument("--window", type=int, default=GEOMETRY.window_px, help="window side, px")
    parser.add_argument("--die", type=float, default=GEOMETRY.die_px, help="top-face edge in the window, px")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--work", type=Path, default=Path("/tmp/cubilete-classifier"))
    parser.add_argument("--out", type=Path, default=ROOT / "vision" / "reader" / "die_values.npz")
    args = parser.parse_args(argv)

    import torch

    GEOMETRY = Geometry(args.window, args.die)
    CONV_WIDTHS = tuple(int(w) for w in args.widths.split(","))
    HIDDEN = args.hidden
    CONVS_PER_STAGE = args.convs
    torch.set_num_threads(args.threads)
    cv2.setNumThreads(1)
    started = time.time()
    args.work.mkdir(parents=True, exist_ok=True)

    photos = data.real_scenes(args.photos, "train")
    fit_photos, held_photos = data.split_by_photo(photos, 0.2, args.seed)
    synth = data.synthetic_scenes(args.synthetic, args.seed, args.work, log)
    if args.marbled:
        synth += data.synthetic_scenes(args.marbled, args.seed + 1, args.work, log, kind="marbled")
    if args.smoky:
        synth += data.synthetic_scenes(args.smoky, args.seed + 3, args.work, log, kind="smoky")
    if args.game:
        synth += data.synthetic_scenes(args.game, args.seed + 2, args.work, log, kind="game")
    held_synth = data.synthetic_scenes(max(1, args.synthetic // 10), args.seed + 1000, args.work, log)
    held_game = data.synthetic_scenes(100, args.seed + 2000, args.work, log, kind="game")
    log(f"photos: {len(fit_photos)} to fit, {len(held_photos)} held out; synthetic: {len(synth)} + {len(held_synth)} "
        f"+ {len(held_game)} held out ({time.time() - started:.0f} s)")

    held = {"real": held_out(held_photos, args.seed + 2), "synthetic": held_out(held_synth, args.seed + 3),
            "game": held_out(held_game, args.seed + 4)}
    if args.combine:
        members, member_notes = load_members(args.combine)
        notes = {"members": member_notes, "held_out_photos": [scene.name for scene in held_photos]}
        return calibrate_and_save(args.out, members, held, notes, started)

    key = f"{args.photos}|{args.seed}|{args.synthetic}|{args.marbled}|{args.smoky}|{args.game}|{GEOMETRY}|v3"
    x_real, y_real = cached(args.work, "real" + key, lambda: build_windows(
        fit_photos, 6, args.seed, per_die=4, negatives_per_die=1.5, background=6))
    x_syn, y_syn = cached(args.work, "synth" + key, lambda: build_windows(
        synth, 1, args.seed + 1, per_die=3, negatives_per_die=1.5, background=4))
    if args.mine:
        xm_real, ym_real = cached(args.work, "mined real" + key, lambda: mined(fit_photos, args.seed + 5))
        xm_syn, ym_syn = cached(args.work, "mined synth" + key, lambda: mined(synth, args.seed + 6))
        log(f"at the detector's detections: {len(xm_real)} real windows ({int((ym_real == 0).sum())} not a die), "
            f"{len(xm_syn)} synthetic ({int((ym_syn == 0).sum())} not a die)")
        x_real, y_real = np.concatenate([x_real, xm_real]), np.concatenate([y_real, ym_real])
        x_syn, y_syn = np.concatenate([x_syn, xm_syn]), np.concatenate([y_syn, ym_syn])
    log(f"windows: {len(x_real)} real + {len(x_syn)} synthetic to fit; held out {len(held['real'].classes)} real, "
        f"{len(held['synthetic'].classes)} synthetic ({time.time() - started:.0f} s)")
    x = np.concatenate([x_real, x_syn])
    y = np.concatenate([y_real, y_syn])
    real = np.concatenate([np.ones(len(x_real), bool), np.zeros(len(x_syn), bool)])
    del x_real, x_syn, synth  # gigabytes: two members can then train side by side in 24 GB
    log("classes:", np.bincount(y, minlength=CLASSES).tolist())

    def checks(model) -> None:
        import torch

        model.eval()
        with torch.no_grad():
            for name, key in (("held-out photos", "real"), ("held-out synthetic", "synthetic"),
                              ("held-out game scenes", "game")):
                hx = held[key].windows
                logits = torch.cat([model(to_channels(hx[i:i + 1024])) for i in range(0, len(hx), 1024)]).numpy()
                report(name, classifier.softmax(logits), held[key].classes)
        model.train()

    net_seed = args.seed if args.net_seed is None else args.net_seed
    model = train(x, y, real, args.epochs, args.per_epoch, net_seed, checks)
    notes = {"seed": args.seed, "net_seed": net_seed, "synthetic": args.synthetic, "marbled": args.marbled,
             "smoky": args.smoky, "game": args.game, "mine": args.mine, "widths": list(CONV_WIDTHS),
             "convs": CONVS_PER_STAGE, "hidden": HIDDEN,
             "window": [GEOMETRY.window_px, GEOMETRY.die_px], "epochs": args.epochs, "per_epoch": args.per_epoch,
             "threads": args.threads, "held_out_photos": [scene.name for scene in held_photos]}
    return calibrate_and_save(args.out, [export(model)], held, notes, started)


def calibrate_and_save(out: Path, members: list[classifier.Member], held: dict[str, HeldOut], notes: dict,
                       started: float) -> int:
    """Fit the temperature of these members' averaged logits on the held-out photos, print
    the held-out figures and write the model file."""
    save_model(out, members, 1.0, {})
    net = classifier.ValueNet(out)
    real = all_turn_logits(net, held["real"].windows)
    temperature = fit_temperature(real, held["real"].classes)
    log(f"{len(members)} member(s), temperature {temperature:.3f}")
    figures = {}
    for name, turns, classes in (
            ("held-out photos (label boxes and jittered)", real, held["real"].classes),
            ("held-out photos, label boxes only", real[:, held["real"].oracle == 1], held["real"].at_label_boxes().classes),
            ("held-out synthetic", all_turn_logits(net, held["synthetic"].windows), held["synthetic"].classes),
            ("held-out game scenes, label boxes only", all_turn_logits(net, held["game"].at_label_boxes().windows),
             held["game"].at_label_boxes().classes)):
        figures[name] = report(name, auto_probabilities(turns, temperature), classes)
    minutes = (time.time() - started) / 60
    save_model(out, members, temperature, {**notes, "minutes": round(minutes, 1), "figures": figures})
    log(f"wrote {out} ({out.stat().st_size} bytes) in {minutes:.1f} min")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
