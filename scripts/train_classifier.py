"""Train the die-value classifier (`vision/reader/die_values.onnx` and its `.json`, read by
`vision/reader/classifier.py`) with PyTorch, and export it with `torch.onnx.export`.

    .venv/bin/python -m pip install -e '.[train]'      # torch and onnx, for training only
    .venv/bin/python scripts/train_classifier.py       # the shipped model: the defaults

Run it after `scripts/train_detector.py`: the windows it mines are where the shipped detector
looks (or the detector files given by `--detector`, to train for a candidate detector before it
is shipped; it also finds tomitomi's faces). Options: [--detector FILE...] [--synthetic 3000]
[--marbled 2000] [--smoky 600] [--colours 0] [--game 1500] [--steep 0] [--negatives 900] [--text-negatives 0]
[--text-kinds text,headline]
[--mine 1] [--widths 24,48,96]
[--hidden 128] [--convs 1] [--window 48] [--die 36] [--epochs 20] [--per-epoch 100000]
[--hard 0] [--hard-photo-share 0] [--hard-photo-count] [--hard-camouflaged 0] [--hard-boards 0] [--hard-text 0]
[--hard-epochs 3]
[--hard-share 0.05]
[--real-share 0.5] [--seed 1] [--threads 1] [--workers 1] [--device cpu]
[--render-only | --prepare-only] [--work /tmp/cubilete-classifier]
[--out vision/reader/die_values.onnx]. On a machine with a GPU and 16 cores:
`--device cuda --workers 15` (processes that render, cut windows and augment batches).

Data (see `scripts/classifier_data.py`); nothing of a manifest's `test` split is ever read:
  * the `train` split of every photo set under ../shared/data/dice-photos/ (`photo_sets`);
    every tenth photo of each set is held out (the detector holds out the same ones), to
    measure and to fit the softmax temperature;
  * synthetic scenes rendered by `lab.synth`: `--synthetic` drawn from wide options,
    `--marbled` the same with marbled dice only, `--smoky` with dark see-through dice only,
    `--colours` with dice of any colour off the palette (opaque, see-through and marbled, pips
    of any colour that reads; never the colours `lab.synth.unseen_looks` keeps to judge dice no
    network has seen), `--game` like the game scenes of `random_scene`, `--steep` close, low views of big dice
    (the camera 45 to 65 degrees off vertical: side faces as big as the top, whose value alone
    counts); plus held-out wide and game scenes;
  * `--negatives` pictures with no die (`lab.synth.clutter`: text, headlines, grids,
    checkerboards, gradients, noise, wood; seeds [seed + 7, i], never the bench's), and
    `--text-negatives` more of printed words only (text and headlines; seeds [seed + 21, i]):
    windows anywhere on them and at the detector's detections, all "not a die"; `--text-kinds`
    names the kinds of printed words it and `--hard-text` draw (`lab-text,lab-headline`: the
    same layouts in the lab's own faces, `lab.synth.lettering`, so that a network taught one
    family of letters can be read on the other);
  * with `--mine 1`, windows where the detector (`vision.reader.detector`, or `--detector`) finds
    something in the fitting scenes: its false detections as "not a die", its boxes of
    labelled dice as those dice;
  * with `--hard N`, once trained, the dice the reader (`vision.reader.reader.read_dice`, with
    the detector and the network just trained) finds in N more no-dice pictures (seeds
    [seed + 11, i]), cut at the looks that say whether a die is there (its box and a quarter
    larger), all "not a die": the network is fine-tuned on them (`--hard-share` of each
    epoch's windows) for `--hard-epochs` more epochs at a tenth of the learning rate, and the
    network as it was before is written to `--work` too, to compare. With `--hard-photo-share S`,
    the fine-tuning also reads the fitting photos with the reader, and S of each epoch's windows
    are cut at the looks at the dice it finds there: those on a labelled die as that die, the
    others as "not a die", so the looks a quarter larger at real dice stay dice (with
    `--hard-photo-count`, each photo read told its number of dice, as the device reads a
    throw: the count keeps doubtful detections too, which the classifier then weighs). With
    `--hard-camouflaged N`, N scenes of marbled dice whose pips vanish on one swirl colour
    (seeds [seed + 14, i]) give CAMOUFLAGED_SHARE more, cut like the synthetic scenes' windows,
    so that a die is not read surely from the pips that show when others may hide. With
    `--hard-boards N`, N scenes of dice on board games' boards (`lab.synth.boards`, seeds
    [seed + 16, i]) are read with the reader too and give BOARDS_SHARE more, cut at the looks at
    what it finds there: on a die as that die, on a number token or a marker as "not a die".
    `--hard-text N` reads N more no-dice pictures of printed text only (`lab.synth.clutter`'s
    TEXT_KINDS: menus, receipts, headlines; seeds [seed + 19, i]) the way `--hard` reads its
    pictures, and puts the dice found there among `--hard`'s, at its share: the hard pictures
    are then more of the kind a reader's sure dice on no-dice pictures lie on.
    `--start-from FILE.onnx` skips the training and fine-tunes that file's network instead (a
    network this script exported; its batch norms, folded into the convolutions by the export,
    stay frozen), for another `--detector` say.
Windows are cut the way the reader cuts them (`vision.reader.windows`), with the detector's
errors simulated (centre off by up to 20% of the edge, size x0.8..1.25, angle +-15 degrees,
15% at any angle), worse cameras simulated (die shrunk to 14..40 px and re-JPEGed), and
colours changed at every epoch (hue turned, channels swapped, greyscale, inverted, gamma,
contrast, noise, blur, glare); with `--blind-share`, that share of the dice's windows is also
blurred at the pips' scale and noised, and taught as a die of any value alike (`drowned_pips`;
`--blind-target values`: the values alike, whether it is a die left free).
Each epoch draws `--real-share` of its windows from the photos (each set
in proportion to the square root of its windows, so no one camera dominates) and the rest
from the synthetic scenes and no-dice pictures. Network: stages of `--convs` (3x3 conv +
batch-norm + ReLU) and a max-pool, of `--widths` channels, a dense layer of `--hidden`, eight
classes (not a die, 1..6, cocked). AdamW with a one-cycle schedule; a checkpoint after every
epoch in `--work`, from which a run started again with the same options goes on. The
temperature that divides the logits is fitted (grid search) to the value probabilities of
the held-out photos' dice, as `classify_dice` reads them (with its second looks), then the
value temperature that sharpens the averaged looks' values (`classifier.sharpen_values`) on the
same windows; both are written to the metadata JSON beside the ONNX file with the options and
held-out figures.
Every scene, window pass and batch draws from its own generator (seed and index), so the data
are the same for any count of workers. On the CPU, with one thread count, the run is deterministic;
on a GPU the convolutions' gradients may differ in their last bits from run to run.
"""

from __future__ import annotations

import argparse
import copy
import hashlib
import json
import math
import multiprocessing
import os
import sys
import time
from dataclasses import dataclass, replace
from pathlib import Path

import cv2
import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts"))

import classifier_data as data  # noqa: E402
from checkpoints import checkpoint_path, close_leg, legs_with_new_one, trained_legs  # noqa: E402
import photo_sets  # noqa: E402
from lab.synth.clutter import LAB_TEXT_KINDS, NEGATIVE_KINDS, TEXT_KINDS  # noqa: E402
from vision.reader import classifier, detector  # noqa: E402
from vision.reader.detector import ModelFiles  # noqa: E402
from vision.reader.model_file import write_metadata  # noqa: E402
from vision.reader.reader import LOOKS_FOR_A_DIE, SCALE_LOOKS  # noqa: E402
from vision.reader.windows import CHANNELS, Geometry, window_channels  # noqa: E402

CLASSES = len(classifier.CLASS_NAMES)
CONV_WIDTHS = (24, 48, 96)  # replaced by --widths
HIDDEN = 128  # replaced by --hidden
CONVS_PER_STAGE = 1  # replaced by --convs
GEOMETRY = Geometry(48, 36.0)  # replaced by --window / --die
BATCH = 128  # windows per training step
LEARNING_RATE = 3e-3  # the one-cycle schedule's peak; fine-tuning (--hard) peaks at a tenth of it
MINED_SCORE = 0.2  # --mine: windows at the detector's detections from this score
# --hard: the window sizes, in die sizes, of the reader's looks that say whether a die is there
HARD_SCALES = tuple((1.0, *SCALE_LOOKS)[look] for look in LOOKS_FOR_A_DIE)
CAMOUFLAGED_SHARE = 0.05  # --hard-camouflaged: share of a fine-tuning epoch's windows from those scenes
BOARDS_SHARE = 0.05  # --hard-boards: share of a fine-tuning epoch's windows from the reader's finds on boards
HARD_EPOCHS_FROM = 1000  # fine-tuning epoch e draws its windows as epoch 1000 + e, apart from training's
BLIND = CLASSES  # the target of a window whose pips were drowned (`--blind-share`): any value alike
BLIND_SHARE = 0.0  # --blind-share
BLIND_TARGETS = ("die", "values")  # --blind-target
BLIND_TARGET = "die"  # --blind-target
BLIND_BLUR = (0.15, 0.25)  # drowning blur's sigma, in top-face edges: pips a quarter of the face apart run together


def log(*parts: object) -> None:
    print(*parts, flush=True)


# ----------------------------------------------------------------------------- windows


def cached(work: Path, key: str, make):
    path = work / f"windows-{hashlib.sha1(key.encode()).hexdigest()[:12]}.npz"
    if path.exists():
        with np.load(path) as f:
            return f["x"], f["y"]
    x, y = make()
    part = path.with_name(path.name + f".{os.getpid()}.part")  # whole or not at all, even with two runs at once
    with part.open("wb") as f:
        np.savez(f, x=x, y=y)
    os.replace(part, path)
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


def held_out_photos(photos: list[data.Scene], set_name: str, seed: int) -> HeldOut:
    """The held-out windows of one photo set's held-out photos, as a run of `--seed` cuts them."""
    return held_out([scene for scene in photos if scene.set_name == set_name], seed + 2)


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
    sat[rng.random(n) < 0.1] = 0.0  # greyscale cameras
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


def drowned_pips(batch: np.ndarray, y: np.ndarray, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """The batch with a share `BLIND_SHARE` of its dice's windows (a value's class) blurred at the
    scale of the face's pips and noised, so that no pip can be counted and the die is left a
    soft blob of its brightness (its outline blurred too, unlike a real face whose pips are
    lost to low contrast), their target `BLIND`: a value the window cannot say (`value_loss` teaches it as
    `--blind-target` says). Windows of no die, and cocked dice, are kept."""
    drown = np.nonzero((y >= 1) & (y <= 6) & (rng.random(len(y)) < BLIND_SHARE))[0]
    if not len(drown):
        return batch, y
    batch, y = batch.copy(), y.copy()
    bank = noise_bank(batch.shape[1])
    for i in drown:
        sigma = rng.uniform(*BLIND_BLUR) * GEOMETRY.die_px
        x = cv2.GaussianBlur(batch[i].astype(np.float32), (0, 0), sigma)
        x += bank[rng.integers(0, len(bank))] * rng.uniform(1, 9)
        batch[i] = np.clip(x + 0.5, 0, 255).astype(np.uint8)
    y[drown] = BLIND
    return batch, y


def value_loss(logits, targets, class_weight, blind_target: str = "die"):
    """Training's loss: the class-weighted cross-entropy of the windows of a class, and for
    those drowned by `drowned_pips` (target `BLIND`) the cross-entropy against every value
    alike, weighed as an average value class; each window counts once. `blind_target` "die"
    teaches a drowned window as surely a die (all eight classes' probabilities); "values" only
    the six values' probabilities renormalised among themselves, so that whether it is a die
    at all is left to what the other windows teach."""
    import torch.nn.functional as F

    blind = targets == BLIND
    if not bool(blind.any()):
        return F.cross_entropy(logits, targets, weight=class_weight)
    plain = ~blind
    n_plain, n_blind = int(plain.sum()), int(blind.sum())
    if blind_target == "values":
        values = F.log_softmax(logits[blind][:, 1:7], dim=1)
    else:
        values = F.log_softmax(logits[blind], dim=1)[:, 1:7]
    blind_loss = -values.mean(dim=1).mean() * class_weight[1:7].mean()
    if not n_plain:
        return blind_loss
    plain_loss = F.cross_entropy(logits[plain], targets[plain], weight=class_weight)
    return (n_plain * plain_loss + n_blind * blind_loss) / (n_plain + n_blind)


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


def model_from_onnx(path: Path):
    """A trainable copy of a network this script exported to `path`, for `--start-from`. The
    export folds each batch norm into the convolution before it, so the norms start as the
    identity after the folded weights and stay frozen (`folded`, `freeze_folded_norms`):
    normalising by a batch's statistics would be another network."""
    import onnx
    import torch
    from google.protobuf.message import DecodeError
    from onnx import numpy_helper

    try:
        graph = onnx.load(str(path)).graph
    except (OSError, DecodeError) as error:
        raise SystemExit(f"--start-from {path}: cannot read it as ONNX ({error})") from None
    weights = {tensor.name: numpy_helper.to_array(tensor) for tensor in graph.initializer}
    layers = [[weights.get(name) for name in node.input[1:]] for node in graph.node if node.op_type in ("Conv", "Gemm")]
    model = make_model()
    convs = [m for m in model if isinstance(m, torch.nn.Conv2d)]
    norms = [m for m in model if isinstance(m, torch.nn.BatchNorm2d)]
    dense = [m for m in model if isinstance(m, torch.nn.Linear)]
    wanted = [[tuple(m.weight.shape), (len(m.weight),)] for m in convs + dense]
    got = [[tuple(t.shape) if t is not None else None for t in layer] for layer in layers]
    if got != wanted:
        raise SystemExit(f"--start-from {path}: its layers {got} are not those of --widths "
                         f"{','.join(map(str, CONV_WIDTHS))} --hidden {HIDDEN} --convs {CONVS_PER_STAGE} with "
                         f"--window {GEOMETRY.window_px} ({wanted})")
    with torch.no_grad():
        for conv, norm, (w, b) in zip(convs, norms, layers):
            conv.weight.copy_(torch.from_numpy(np.array(w)))
            norm.weight.fill_(1.0)
            norm.bias.copy_(torch.from_numpy(np.array(b)))
            norm.running_mean.zero_()
            norm.running_var.fill_(1.0 - norm.eps)
            norm.folded = True
        for linear, (w, b) in zip(dense, layers[len(convs):]):
            linear.weight.copy_(torch.from_numpy(np.array(w)))
            linear.bias.copy_(torch.from_numpy(np.array(b)))
    return model


def freeze_folded_norms(model) -> None:
    """Batch norms loaded folded (`model_from_onnx`) keep their statistics while training."""
    for module in model.modules():
        if getattr(module, "folded", False):
            module.eval()


def export_onnx(model, path: Path, meta: dict) -> None:
    """The model in eval mode as ONNX (input "x" N x CHANNELS x W x W, output "logits") and its
    metadata JSON (window geometry, classes, temperature, how it was trained)."""
    import torch

    if next(model.parameters()).device.type != "cpu":
        model = copy.deepcopy(model).cpu()
    model.eval()
    tmp = path.with_name(path.name + ".part")
    side = GEOMETRY.window_px
    with torch.no_grad():
        torch.onnx.export(model, (torch.zeros(2, CHANNELS, side, side),), str(tmp), dynamo=False,
                          input_names=["x"], output_names=["logits"], opset_version=13, do_constant_folding=True,
                          dynamic_axes={"x": {0: "n"}, "logits": {0: "n"}})
    os.replace(tmp, path)
    write_metadata(path, {"kind": classifier.KIND, "channels": CHANNELS, "window_px": GEOMETRY.window_px,
                          "die_px": GEOMETRY.die_px, "classes": list(classifier.CLASS_NAMES),
                          **({"upright": True} if GEOMETRY.upright else {}), **meta})


def to_channels(batch_bgr: np.ndarray):
    import torch

    return torch.from_numpy(window_channels(batch_bgr, GEOMETRY))


def epoch_index(source: np.ndarray, per_epoch: int, real_share: float, rng: np.random.Generator) -> np.ndarray:
    """The windows of one epoch: `real_share` of them from the photo sets (each set in
    proportion to the square root of its windows), the rest synthetic; shuffled."""
    sets = [k for k in np.unique(source) if k >= 0]
    synthetic = np.nonzero(source < 0)[0]
    sizes = np.array([np.count_nonzero(source == k) for k in sets], np.float64)
    shares = np.sqrt(sizes) / np.sqrt(sizes).sum() if len(sets) else sizes
    parts = []
    for k, share in zip(sets, shares):
        members = np.nonzero(source == k)[0]
        want = int(round(real_share * per_epoch * share))
        parts.append(rng.choice(members, want, replace=want > len(members)))
    want = per_epoch - sum(len(p) for p in parts)
    parts.append(rng.choice(synthetic, want, replace=want > len(synthetic)))
    index = np.concatenate(parts)
    rng.shuffle(index)
    return index


class EpochBatches:
    """The augmented batches of one epoch, batch b drawn from generator [seed, epoch, b]: the
    same batches whether they are made in the training process or in any number of workers."""

    def __init__(self, x: np.ndarray, y: np.ndarray, index: np.ndarray, seed: int, epoch: int, batch: int):
        self.x, self.y, self.index = x, y, index
        self.seed, self.epoch, self.batch = seed, epoch, batch

    def __len__(self) -> int:
        return len(self.index) // self.batch

    def __getitem__(self, b: int):
        import torch

        take = self.index[b * self.batch:(b + 1) * self.batch]
        rng = np.random.default_rng([self.seed, self.epoch, b])
        batch, y = photometric(self.x[take], rng), self.y[take]
        if BLIND_SHARE:  # from a generator of its own, so that every other window is drawn as without it
            batch, y = drowned_pips(batch, y, np.random.default_rng([self.seed, self.epoch, b, 1]))
        return to_channels(batch), torch.from_numpy(y)


def one_thread(_worker: int) -> None:
    import torch

    torch.set_num_threads(1)
    cv2.setNumThreads(1)


def batches(dataset: EpochBatches, workers: int, pin: bool):
    """The epoch's batches, made in `workers` processes (0: in this one). Forked, so they share
    the windows (gigabytes) instead of copying them; they never touch the GPU. The loader seeds
    its workers from a generator of its own: drawn from torch's, the seed would shift the
    dropout of every later step, and a run with workers would train another network."""
    import torch

    if workers <= 0:
        return iter(dataset[b] for b in range(len(dataset)))
    context = multiprocessing.get_context("fork") if "fork" in multiprocessing.get_all_start_methods() else None
    return iter(torch.utils.data.DataLoader(dataset, batch_size=None, num_workers=workers, prefetch_factor=4,
                                            pin_memory=pin, worker_init_fn=one_thread,
                                            multiprocessing_context=context, generator=torch.Generator()))


def train(x: np.ndarray, y: np.ndarray, source: np.ndarray, epochs: int, per_epoch: int, real_share: float,
          seed: int, checkpoint: Path, checks, device: str = "cpu", workers: int = 0) -> object:
    """The trained network; `source` is the photo set index of each window (-1 synthetic). After
    every epoch the state is saved to `checkpoint`, and a run that finds it goes on from there.
    Epoch e's windows are drawn from generator [seed, e] and its batches as `EpochBatches` say,
    so a resumed run sees the same data as one that never stopped."""
    import torch

    torch.manual_seed(seed)
    model = make_model().to(torch.device(device))

    def windows_of(epoch: int) -> EpochBatches:
        index = epoch_index(source, (per_epoch // BATCH) * BATCH, real_share, np.random.default_rng([seed, epoch]))
        return EpochBatches(x, y, index, seed, epoch, BATCH)

    run_epochs(model, class_weights(y), windows_of, epochs, per_epoch // BATCH, LEARNING_RATE, 0.15, checkpoint, checks,
               device, workers)
    return model


def fine_tune(model, x: np.ndarray, y: np.ndarray, source: np.ndarray,
              found: list[tuple[np.ndarray, np.ndarray, float]], epochs: int, per_epoch: int, real_share: float,
              seed: int, checkpoint: Path, checks, device: str = "cpu", workers: int = 0) -> object:
    """The trained `model` taught more windows (the reader's own finds, `taught_own_finds`) for
    `epochs` more epochs at a tenth of the learning rate: each of `found` (windows, classes,
    share) gives its share of each epoch's windows, the rest are drawn as in training (epoch e from generator
    [seed, HARD_EPOCHS_FROM + e]), so it keeps what it knew. Checkpointed after every epoch
    like `train`."""
    import torch

    torch.manual_seed(seed + 1)
    windows = Joined(x, *(w for w, _, _ in found))
    classes = Joined(y, *(c for _, c, _ in found))
    pools = [(len(c), share) for _, c, share in found]

    def windows_of(epoch: int) -> EpochBatches:
        rng = np.random.default_rng([seed, HARD_EPOCHS_FROM + epoch])
        index = hard_epoch_index(source, pools, (per_epoch // BATCH) * BATCH, real_share, rng)
        return EpochBatches(windows, classes, index, seed, HARD_EPOCHS_FROM + epoch, BATCH)

    run_epochs(model, class_weights(y), windows_of, epochs, per_epoch // BATCH, LEARNING_RATE / 10, 0.1, checkpoint,
               checks,
               device, workers)
    return model


def hard_epoch_index(source: np.ndarray, pools: list[tuple[int, float]], per_epoch: int, real_share: float,
                     rng: np.random.Generator) -> np.ndarray:
    """The windows of one fine-tuning epoch, of `source`'s windows followed by the pools' (count,
    share) in turn: each pool's share of them drawn from its windows, the rest as `epoch_index`
    draws; shuffled."""
    extra, start = [], len(source)
    for count, share in pools:
        if count and share:
            extra.append(start + rng.integers(0, count, int(round(share * per_epoch))))
        start += count
    extra_index = np.concatenate(extra) if extra else np.zeros(0, np.int64)
    index = np.concatenate([epoch_index(source, per_epoch - len(extra_index), real_share, rng), extra_index])
    rng.shuffle(index)
    return index


class Joined:
    """Arrays read as one along their first axis, without copying gigabytes of windows."""

    def __init__(self, *parts: np.ndarray) -> None:
        self.parts = parts
        self.starts = np.cumsum([0, *(len(p) for p in parts)])

    def __len__(self) -> int:
        return int(self.starts[-1])

    def __getitem__(self, index: np.ndarray) -> np.ndarray:
        index = np.asarray(index)
        out = np.empty((len(index), *self.parts[0].shape[1:]), self.parts[0].dtype)
        part = np.searchsorted(self.starts, index, side="right") - 1
        for k, array in enumerate(self.parts):
            mine = part == k
            if mine.any():
                out[mine] = array[index[mine] - self.starts[k]]
        return out


def class_weights(y: np.ndarray) -> np.ndarray:
    """Per class, the square root of how much rarer than average it is among the windows."""
    counts = np.bincount(y, minlength=CLASSES).astype(np.float64)
    return ((counts.sum() / np.maximum(counts, 1) / CLASSES) ** 0.5).astype(np.float32)


def run_epochs(model, weights: np.ndarray, windows_of, epochs: int, steps_per_epoch: int, max_lr: float,
               warm_up: float, checkpoint: Path, checks, device: str, workers: int) -> None:
    """Train `model` on the batches `windows_of(epoch)` gives, AdamW with a one-cycle schedule
    up to `max_lr`; after every epoch the state is saved to `checkpoint`, and a run that finds
    it goes on from there."""
    import torch

    where = torch.device(device)
    optimiser = torch.optim.AdamW(model.parameters(), lr=max_lr, weight_decay=5e-4)
    schedule = torch.optim.lr_scheduler.OneCycleLR(optimiser, max_lr=max_lr, total_steps=epochs * steps_per_epoch,
                                                   pct_start=warm_up)
    class_weight = torch.tensor(weights, device=where)
    first, state = 0, None
    if checkpoint.exists():
        state = torch.load(checkpoint, weights_only=False, map_location="cpu")  # the rng state must stay on the CPU
        model.load_state_dict(state["model"])
        optimiser.load_state_dict(state["optimiser"])
        schedule.load_state_dict(state["schedule"])
        torch.set_rng_state(state["torch_rng"])
        first = state["epoch"]
        log(f"resumed from {checkpoint} after epoch {first}")
    legs, leg_started = legs_with_new_one(state, first, device, torch.__version__), time.time()
    for epoch in range(first, epochs):
        started = time.time()
        model.train()
        freeze_folded_norms(model)
        total, right, loss_sum = 0, 0, 0.0
        for inputs, targets in batches(windows_of(epoch), workers, where.type == "cuda"):
            inputs, targets = inputs.to(where, non_blocking=True), targets.to(where, non_blocking=True)
            logits = model(inputs)
            loss = value_loss(logits, targets, class_weight, BLIND_TARGET)
            optimiser.zero_grad()
            loss.backward()
            optimiser.step()
            schedule.step()
            loss_sum += float(loss.detach()) * len(targets)
            right += int((logits.argmax(1) == targets).sum())
            total += len(targets)
        log(f"epoch {epoch + 1}/{epochs}: loss {loss_sum / total:.4f}, train accuracy {right / total:.4f} "
            f"({time.time() - started:.0f} s)")
        tmp = checkpoint.with_name(checkpoint.name + ".part")
        legs = close_leg(legs, epoch + 1, (time.time() - leg_started) / 60)
        torch.save({"model": model.state_dict(), "optimiser": optimiser.state_dict(), "schedule": schedule.state_dict(),
                    "torch_rng": torch.get_rng_state(), "epoch": epoch + 1, "legs": legs}, tmp)
        os.replace(tmp, checkpoint)
        if checks is not None and (epoch % 4 == 3 or epoch == epochs - 1):
            checks(model)
    model.eval()


# ----------------------------------------------------------------------------- calibration and figures


def all_look_logits(net: classifier.ValueNet, windows_bgr: np.ndarray) -> np.ndarray:
    """(1 + K) x N x classes logits of the windows as read first and at their K second looks
    (`classifier.second_look_windows`: the other three quarter turns, or the mirror of upright windows)."""
    out = []
    for start in range(0, len(windows_bgr), 2048):
        ch = window_channels(windows_bgr[start:start + 2048], GEOMETRY)
        out.append(np.concatenate([net.logits(ch)[np.newaxis], classifier.second_look_logits(net, ch)]))
    return np.concatenate(out, axis=1)


def auto_probabilities(look_logits: np.ndarray, temperature: float, value_temperature: float = 1.0) -> np.ndarray:
    """What `read_windows(tta="auto")` gives, from precomputed logits of every look (`all_look_logits`)."""
    first = classifier.softmax(look_logits[0] / temperature)
    again = classifier.needs_second_look(first)
    if again.any():
        first = classifier.combine(look_logits[0], look_logits[1:, again], temperature)
    return classifier.sharpen_values(first, value_temperature)


def value_nll(probabilities: np.ndarray, y: np.ndarray) -> float:
    values = probabilities[:, 1:7] / np.maximum(probabilities[:, 1:7].sum(axis=1, keepdims=True), 1e-9)
    return float(-np.mean(np.log(np.maximum(values[np.arange(len(y)), y - 1], 1e-9))))


def sure_share(probabilities: np.ndarray) -> float:
    """The share of windows read at a value confidence of 0.9 or more."""
    return round(float((classifier.value_confidence(probabilities) >= 0.9).mean()), 4)


TEMPERATURES = np.exp(np.linspace(math.log(0.15), math.log(4.0), 81))  # what `fit_temperature` tries


def fit_temperature(look_logits: np.ndarray, y: np.ndarray) -> float:
    values = (y >= 1) & (y <= 6)
    scores = [value_nll(auto_probabilities(look_logits[:, values], t), y[values]) for t in TEMPERATURES]
    return float(TEMPERATURES[int(np.argmin(scores))])


def fit_value_temperature(look_logits: np.ndarray, y: np.ndarray, temperature: float) -> float:
    """The value temperature (`classifier.sharpen_values`) minimising the dice windows' value
    log-loss once their looks are read at `temperature` and averaged, on the grid TEMPERATURES."""
    values = (y >= 1) & (y <= 6)
    looked = auto_probabilities(look_logits[:, values], temperature)
    scores = [value_nll(classifier.sharpen_values(looked, s), y[values]) for s in TEMPERATURES]
    return float(TEMPERATURES[int(np.argmin(scores))])


def held_out_looks(net: classifier.ValueNet, scenes: list[data.Scene], seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Every look's logits (`all_look_logits`) of the held-out photo windows a run of `--seed`
    cuts from `scenes`, set by set, cut for `net`'s geometry, and the windows' classes."""
    global GEOMETRY
    GEOMETRY = net.geometry
    looks, classes = [], []
    for name in sorted({scene.set_name for scene in scenes}):
        held = held_out_photos(scenes, name, seed)
        looks.append(all_look_logits(net, held.windows))
        classes.append(held.classes)
    return np.concatenate(looks, axis=1), np.concatenate(classes)


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


TURNED_BELOW_DEG = 0.0  # --turn-from-above
PHOTOS_FROM_ABOVE: tuple[str, ...] = ()  # --photos-from-above


def windows_turned() -> str:
    """What cache keys add for upright windows (`--upright`), and for those turned where a scene
    has no up (`--turn-from-above`): nothing for the turned ones, so the windows and checkpoints
    of runs made before the options keep their names."""
    if not GEOMETRY.upright:
        return ""
    return "|upright" + (f"|turned from above {TURNED_BELOW_DEG:g}" if TURNED_BELOW_DEG > 0 else "")


def photo_windows_key(detector: ModelFiles) -> str:
    """What the photos' windows depend on besides the photos and the options: the detector
    and the way it finds tomitomi's faces (`faces_hash`, which covers the detector's files, where
    the mined windows are cut too), the reviewed label fixes (a die's class) and the sets whose
    windows are turned as seen from above (`--photos-from-above`; nothing without, so runs made
    before the option keep their caches)."""
    return f"|faces {photo_sets.faces_hash(detector)}|label fixes {photo_sets.label_fixes_hash()}" + \
        (f"|from above {','.join(PHOTOS_FROM_ABOVE)}" if PHOTOS_FROM_ABOVE else "")


# `--photos-from-above SET:PART`: only a part of a mixed set looks straight down
FROM_ABOVE_PARTS = {"grey": "its greyscale photos"}


def from_above_parts(names: tuple[str, ...]) -> dict[str, str | None]:
    """`--photos-from-above`'s entries as {set: part, or None for the whole set}."""
    return {name.partition(":")[0]: name.partition(":")[2] or None for name in names}


def seen_from_above(photos: list[data.Scene]) -> list[data.Scene]:
    """The photos, those of the sets of `--photos-from-above` (or of a set's part: `SET:grey`, its
    greyscale photos) told that their camera looks straight down (lean 0), so that upright
    windows are turned there (`window_geometry`)."""
    parts = from_above_parts(PHOTOS_FROM_ABOVE)

    def from_above(photo: data.Scene) -> bool:
        if photo.set_name not in parts:
            return False
        return parts[photo.set_name] is None or data.is_greyscale(photo.image())

    return [replace(p, lean_deg=0.0) if from_above(p) else p for p in photos]


def negatives_key(key: str, negatives: int, text_negatives: int, text_kinds: tuple[str, ...] = TEXT_KINDS) -> str:
    """What the no-dice pictures' windows (and so the trained network) depend on besides `key`:
    a run without pictures of printed words added keeps the key it had before they could be."""
    return f"{key}|{negatives} {','.join(NEGATIVE_KINDS)}" \
        + (f"|text {text_negatives} {','.join(text_kinds)}" if text_negatives else "")


def hard_text_key(pictures: int, text_kinds: tuple[str, ...], reads_with: str) -> str:
    """The cache key of the reader's finds in `--hard-text`'s pictures: runs of the default
    kinds keep the key they had before the kinds could be chosen."""
    kinds = "" if text_kinds == TEXT_KINDS else f"|{','.join(text_kinds)}"
    return f"reader mistakes text|{pictures}{kinds}|{HARD_SCALES}|{reads_with}"


def run_checkpoint(work: Path, windows_key: str, net_seed: int, args: argparse.Namespace) -> Path:
    """The checkpoint of a run on the windows of `windows_key` with the network and schedule
    of `args` (`checkpoints`)."""
    return checkpoint_path(work, "checkpoint", {
        "windows": windows_key, "net_seed": net_seed, "widths": args.widths, "convs": args.convs,
        "hidden": args.hidden, "epochs": args.epochs, "per_epoch": args.per_epoch, "real_share": args.real_share} |
        ({"blind_share": args.blind_share} if args.blind_share else {}) |
        ({"blind_target": args.blind_target} if args.blind_share and args.blind_target != "die" else {}))


def option_parser() -> argparse.ArgumentParser:
    """The command line's options."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--photos", type=Path, default=photo_sets.DICE_PHOTOS, help="folder of the photo sets")
    parser.add_argument("--synthetic", type=int, default=3000, help="scenes drawn from wide options")
    parser.add_argument("--marbled", type=int, default=2000, help="more scenes, marbled dice only")
    parser.add_argument("--smoky", type=int, default=600, help="more scenes, dark see-through dice only")
    parser.add_argument("--colours", type=int, default=0,
                        help="more scenes, dice of colours off the palette (opaque, see-through and marbled, pips of "
                             "any colour that reads), never those of the unseen-looks judge")
    parser.add_argument("--game", type=int, default=1500, help="more scenes like the game scenes of random_scene")
    parser.add_argument("--steep", type=int, default=0, help="more scenes, big dice seen close and low")
    parser.add_argument("--held-game", type=int, default=100,
                        help="game scenes held out and read after training, for the figures only (the temperatures "
                             "are fitted on the held-out photos); 0: none")
    parser.add_argument("--negatives", type=int, default=900, help="pictures with no die")
    parser.add_argument("--text-negatives", type=int, default=0,
                        help="more pictures with no die, of printed words only (text and headlines), among "
                             "--negatives' in the training itself")
    parser.add_argument("--text-kinds", default=",".join(TEXT_KINDS),
                        help=f"the kinds of printed words --text-negatives and --hard-text draw, comma-separated, of "
                             f"{', '.join(TEXT_KINDS + LAB_TEXT_KINDS)}")
    parser.add_argument("--widths", default=",".join(map(str, CONV_WIDTHS)),
                        help="channels of the conv stages, comma-separated (each halves the window)")
    parser.add_argument("--hidden", type=int, default=HIDDEN, help="units of the dense layer")
    parser.add_argument("--convs", type=int, default=CONVS_PER_STAGE, choices=(1, 2),
                        help="3x3 convolutions per stage before its max-pool")
    parser.add_argument("--detector", type=Path, nargs="+", default=list(detector.MODEL_PATHS), metavar="FILE",
                        help="the detector whose detections are mined and which finds tomitomi's faces "
                             "(default: the shipped one; several files: their networks averaged)")
    parser.add_argument("--mine", type=int, default=1, choices=(0, 1),
                        help="1: add windows at the detector's detections of the fitting scenes")
    parser.add_argument("--epochs", type=int, default=20)
    parser.add_argument("--start-from", type=Path,
                        help="a network this script exported (the shipped one, say): skip the training and only "
                             "fine-tune it (--hard, --hard-photo-share, --hard-camouflaged), e.g. for another "
                             "--detector")
    parser.add_argument("--hard", type=int, default=0,
                        help="then read this many more no-dice pictures with the reader and the trained network, "
                             "and fine-tune on every die it finds there as not a die")
    parser.add_argument("--hard-epochs", type=int, default=3, help="epochs of that fine-tuning")
    parser.add_argument("--hard-share", type=float, default=0.05, help="share of its epochs' windows from those dice")
    parser.add_argument("--hard-photo-count", action="store_true",
                        help="read those photos told their number of dice, as the device reads a throw")
    parser.add_argument("--hard-camouflaged", type=int, default=0,
                        help="fine-tune on this many scenes of marbled dice whose pips vanish on one swirl "
                             f"colour too, {CAMOUFLAGED_SHARE * 100:.0f}%% of its epochs' windows")
    parser.add_argument("--hard-boards", type=int, default=0,
                        help="fine-tune on the dice the reader finds in this many scenes of dice on board games' "
                             f"boards (as the die each lies on, or not a die), {BOARDS_SHARE * 100:.0f}%% of its "
                             "epochs' windows")
    parser.add_argument("--hard-text", type=int, default=0,
                        help="with --hard: also read this many no-dice pictures of printed text only, and fine-tune "
                             "on every die found there as not a die, among --hard's")
    parser.add_argument("--hard-photo-share", type=float, default=0.0,
                        help="share of its epochs' windows from the dice the reader finds in the fitting photos "
                             "(as the labelled die each lies on, or not a die)")
    parser.add_argument("--per-epoch", type=int, default=100000, help="windows seen per epoch")
    parser.add_argument("--real-share", type=float, default=0.5, help="share of an epoch's windows from photos")
    parser.add_argument("--seed", type=int, default=1, help="seed of the data: scenes, windows, held-out photos")
    parser.add_argument("--net-seed", type=int, help="seed of the network's training (default: --seed)")
    parser.add_argument("--window", type=int, default=GEOMETRY.window_px, help="window side, px")
    parser.add_argument("--die", type=float, default=GEOMETRY.die_px, help="top-face edge in the window, px")
    parser.add_argument("--blind-share", type=float, default=0.0, metavar="SHARE",
                        help="share of the dice's windows blurred and noised till no pip can be counted, "
                             "taught as --blind-target says (default 0: none)")
    parser.add_argument("--blind-target", choices=BLIND_TARGETS, default="die",
                        help="what those windows are taught: die, surely a die of any value alike; values, "
                             "the six values alike among themselves, whether it is a die left free")
    parser.add_argument("--upright", action="store_true",
                        help="cut every window with the photo's up kept within 45 degrees of the window's "
                             "(`Geometry.upright`): the network may tell the top face from the side face "
                             "below it in photos taken at an angle; second looks mirror instead of turning")
    parser.add_argument("--turn-from-above", type=float, default=0.0, metavar="DEG",
                        help="with --upright: windows of synthetic scenes whose camera leans less than DEG degrees "
                             "off vertical, and of the no-dice pictures (they have no up), are cut as without "
                             "--upright, a die's window with a random quarter turn; 0: none")
    parser.add_argument("--photos-from-above", default="", metavar="SET[,SET...]",
                        help="with --turn-from-above: photo sets whose SOURCE.md says the camera looks straight "
                             "down (or SET:grey, a mixed set's greyscale photos); the windows of their fitting "
                             "photos are turned as a scene's from above (the held-out ones stay as the reader "
                             "cuts them)")
    parser.add_argument("--threads", type=int, default=1, help="torch threads of the training process")
    parser.add_argument("--workers", type=int, default=1,
                        help="processes rendering scenes, cutting windows and augmenting batches")
    parser.add_argument("--device", default="cpu", help="where torch trains: cpu, or cuda on a machine with a GPU")
    parser.add_argument("--work", type=Path, default=Path("/tmp/cubilete-classifier"))
    parser.add_argument("--out", type=Path, default=classifier.MODEL_PATH)
    parser.add_argument("--render-only", action="store_true",
                        help="only render the synthetic scenes into --work (they need no detector)")
    parser.add_argument("--prepare-only", action="store_true",
                        help="only render the scenes and cut the windows into --work, to train later")
    return parser


def main(argv: list[str] | None = None) -> int:
    global GEOMETRY, CONV_WIDTHS, HIDDEN, CONVS_PER_STAGE, TURNED_BELOW_DEG, PHOTOS_FROM_ABOVE, BLIND_SHARE, \
        BLIND_TARGET
    parser = option_parser()
    args = parser.parse_args(argv)
    if args.held_game < 0:
        parser.error(f"--held-game is a number of scenes, 0 or more, got {args.held_game}")
    if not 0 <= args.blind_share < 1:
        parser.error(f"--blind-share is a share of the dice's windows, from 0 up to 1, got {args.blind_share}")
    if args.blind_target != "die" and not args.blind_share:
        parser.error("--blind-target says what the windows of --blind-share are taught: give that too")

    import torch

    if args.turn_from_above and not args.upright:
        parser.error("--turn-from-above keeps quarter turns among upright windows: give --upright too")
    if args.turn_from_above < 0:
        parser.error(f"--turn-from-above is an angle off vertical, 0 or more degrees, got {args.turn_from_above}")
    from_above = tuple(sorted({name.strip() for name in args.photos_from_above.split(",") if name.strip()}))
    if from_above and not args.turn_from_above:
        parser.error("--photos-from-above turns photos' windows as --turn-from-above turns scenes': give that too")
    parts = from_above_parts(from_above)
    if unknown := sorted(set(parts) - set(photo_sets.set_names(args.photos))):
        parser.error(f"--photos-from-above: no photo set {', '.join(unknown)} in {args.photos}")
    if len(parts) < len(from_above) or {part for part in parts.values() if part} - set(FROM_ABOVE_PARTS):
        parser.error(f"--photos-from-above: give a set once, whole or as SET:PART, PART one of "
                     f"{', '.join(FROM_ABOVE_PARTS)} ({', '.join(FROM_ABOVE_PARTS.values())})")
    args.text_kinds = tuple(k.strip() for k in args.text_kinds.split(",") if k.strip())
    if not args.text_kinds or set(args.text_kinds) - set(TEXT_KINDS + LAB_TEXT_KINDS):
        parser.error(f"--text-kinds {','.join(args.text_kinds)!r}: give some of "
                     f"{', '.join(TEXT_KINDS + LAB_TEXT_KINDS)}")
    if args.text_kinds != TEXT_KINDS and not (args.text_negatives or args.hard_text):
        parser.error("--text-kinds chooses the printed words of --text-negatives and --hard-text: give one of them")
    if args.hard_text and not args.hard:
        parser.error("--hard-text adds pictures of text to --hard's no-dice pictures: give --hard too")
    if args.hard_photo_count and not args.hard_photo_share:
        parser.error("--hard-photo-count says how the photos of --hard-photo-share are read: give that too")
    if args.start_from and not (args.hard or args.hard_photo_share or args.hard_camouflaged or args.hard_boards):
        parser.error("--start-from only fine-tunes: give it --hard, --hard-photo-share, --hard-camouflaged "
                     "or --hard-boards")
    if args.device.startswith("cuda") and not (args.render_only or args.prepare_only) \
            and not torch.cuda.is_available():  # asked before the scenes take their minutes
        parser.error(f"--device {args.device}: torch {torch.__version__} sees no GPU here; train with --device cpu")
    if not args.render_only and (why := photo_sets.missing_training_photos(args.photos)):
        parser.error(why)  # before the scenes take their minutes

    GEOMETRY = Geometry(args.window, args.die, args.upright)
    TURNED_BELOW_DEG = args.turn_from_above
    PHOTOS_FROM_ABOVE = from_above
    BLIND_SHARE = args.blind_share
    BLIND_TARGET = args.blind_target
    CONV_WIDTHS = tuple(int(w) for w in args.widths.split(","))
    HIDDEN = args.hidden
    CONVS_PER_STAGE = args.convs
    torch.set_num_threads(args.threads)
    cv2.setNumThreads(1)
    # read before the scenes take their minutes
    start_model = model_from_onnx(args.start_from) if args.start_from else None
    started = time.time()
    args.work.mkdir(parents=True, exist_ok=True)

    workers = args.workers
    synth = data.synthetic_scenes(args.synthetic, args.seed, args.work, log, workers=workers)
    if args.marbled:
        synth += data.synthetic_scenes(args.marbled, args.seed + 1, args.work, log, kind="marbled", workers=workers)
    if args.smoky:
        synth += data.synthetic_scenes(args.smoky, args.seed + 3, args.work, log, kind="smoky", workers=workers)
    if args.colours:
        synth += data.synthetic_scenes(args.colours, args.seed + 18, args.work, log, kind="colours", workers=workers)
    if args.game:
        synth += data.synthetic_scenes(args.game, args.seed + 2, args.work, log, kind="game", workers=workers)
    if args.steep:
        synth += data.synthetic_scenes(args.steep, args.seed + 5, args.work, log, kind="steep", workers=workers)
    negatives = data.negative_scenes(args.negatives, args.seed + 7, workers)
    if args.text_negatives:
        negatives += data.negative_scenes(args.text_negatives, args.seed + 21, workers, args.text_kinds)
    held_synth = data.synthetic_scenes(max(1, args.synthetic // 10), args.seed + 1000, args.work, log, workers=workers)
    held_game = data.synthetic_scenes(args.held_game, args.seed + 2000, args.work, log, kind="game", workers=workers)
    if args.render_only:
        return 0
    fitting, held = photo_sets.held_out(photo_sets.training_photos(args.work, args.photos, detector=args.detector))
    fit_photos, held_photos = seen_from_above(data.photo_scenes(fitting)), data.photo_scenes(held)
    photos = fit_photos + held_photos
    set_names = sorted({scene.set_name for scene in photos})
    log(f"photos: {len(fit_photos)} to fit, {len(held_photos)} held out ({', '.join(set_names)}); synthetic: "
        f"{len(synth)} + {len(held_synth)} + {len(held_game)} held out; {len(negatives)} no-dice pictures "
        f"({time.time() - started:.0f} s)")

    held = {f"photos {name}": held_out_photos(held_photos, name, args.seed) for name in set_names}
    held["synthetic"] = held_out(held_synth, args.seed + 3)
    if held_game:
        held["game"] = held_out(held_game, args.seed + 4)

    # a run without steep scenes keeps the key (and so the cached windows) it had before there were any
    key = f"{sorted(s.name for s in photos)}|{args.seed}|{args.synthetic}|{args.marbled}|{args.smoky}|{args.game}|" \
          f"{GEOMETRY}|v6" + (f"|steep {args.steep}" if args.steep else "") + windows_turned() \
        + (f"|colours {args.colours}" if args.colours else "")
    # Windows are cached under what they depend on: the photos' also on the detector and the
    # label fixes (`photo_windows_key`), the mined synthetic ones on the detector (they are
    # where it looks), the no-dice pictures' also on their count and kinds.
    detector_key = f"|detector {photo_sets.detector_hash(args.detector)}"
    photos_depend_on = photo_windows_key(args.detector)
    photos_key = key + photos_depend_on
    xs, ys, sources = [], [], []
    for k, name in enumerate(set_names):
        scenes = [s for s in fit_photos if s.set_name == name]
        x, y = cached(args.work, f"real {name}" + photos_key, lambda: data.scene_windows(
            scenes, 2, args.seed + 10 + k, GEOMETRY, workers, TURNED_BELOW_DEG, per_die=3, negatives_per_die=1.5,
            background=4))
        xs.append(x), ys.append(y), sources.append(np.full(len(y), k))
        if args.mine:
            x, y = cached(args.work, f"mined real {name}" + photos_key, lambda: data.detector_windows(
                scenes, args.seed + 30 + k, GEOMETRY, MINED_SCORE, workers, args.detector, TURNED_BELOW_DEG))
            xs.append(x), ys.append(y), sources.append(np.full(len(y), k))
    x, y = cached(args.work, "synth" + key, lambda: data.scene_windows(
        synth, 1, args.seed + 1, GEOMETRY, workers, TURNED_BELOW_DEG, per_die=3, negatives_per_die=1.5, background=4))
    xs.append(x), ys.append(y), sources.append(np.full(len(y), -1))
    key_negatives = negatives_key(key, args.negatives, args.text_negatives, args.text_kinds)
    x, y = cached(args.work, "negatives" + key_negatives, lambda: data.scene_windows(
        negatives, 1, args.seed + 8, GEOMETRY, workers, TURNED_BELOW_DEG, per_die=0, negatives_per_die=0,
        background=24))
    xs.append(x), ys.append(y), sources.append(np.full(len(y), -1))
    if args.mine:
        for name, scenes, seed, scenes_key in (("mined synth", synth, args.seed + 6, key),
                                               ("mined negatives", negatives, args.seed + 9, key_negatives)):
            x, y = cached(args.work, name + scenes_key + detector_key, lambda: data.detector_windows(
                scenes, seed, GEOMETRY, MINED_SCORE, workers, args.detector, TURNED_BELOW_DEG))
            xs.append(x), ys.append(y), sources.append(np.full(len(y), -1))
    x, y, source = np.concatenate(xs), np.concatenate(ys), np.concatenate(sources)
    del xs, synth  # gigabytes
    log(f"windows: {int((source >= 0).sum())} from photos, {int((source < 0).sum())} synthetic to fit; "
        f"classes {np.bincount(y, minlength=CLASSES).tolist()} ({time.time() - started:.0f} s)")
    if args.prepare_only:
        log(f"prepared in {args.work}: a run with the same options trains from there")
        return 0

    def checks(model) -> None:
        import torch

        model.eval()
        where = next(model.parameters()).device
        with torch.no_grad():
            for name, h in held.items():
                logits = torch.cat([model(to_channels(h.windows[i:i + 1024]).to(where)).cpu()
                                    for i in range(0, len(h.windows), 1024)])
                report(f"held-out {name}", classifier.softmax(logits.numpy()), h.classes)
        model.train()

    net_seed = args.seed if args.net_seed is None else args.net_seed
    batch_workers = args.workers if args.workers > 1 else 0
    notes = {"seed": args.seed, "net_seed": net_seed, "photo_sets": set_names, "synthetic": args.synthetic,
             "marbled": args.marbled, "smoky": args.smoky, "game": args.game, "steep": args.steep,
             **({"colours": args.colours} if args.colours else {}), "negatives": args.negatives,
             **({"blind_share": args.blind_share, "blind_target": args.blind_target} if args.blind_share else {}),
             **({"text_negatives": args.text_negatives} if args.text_negatives else {}),
             **({"text_kinds": list(args.text_kinds)}
                if (args.text_negatives or args.hard_text) and args.text_kinds != TEXT_KINDS else {}),
             "mine": args.mine, "detector": photo_sets.detector_record(args.detector),
             **({"turned_from_above_deg": TURNED_BELOW_DEG} if TURNED_BELOW_DEG > 0 else {}),
             **({"photos_from_above": list(PHOTOS_FROM_ABOVE)} if PHOTOS_FROM_ABOVE else {}),
             "widths": list(CONV_WIDTHS), "convs": CONVS_PER_STAGE, "hidden": HIDDEN,
             "per_epoch": args.per_epoch, "real_share": args.real_share,
             "threads": args.threads, "workers": args.workers, "device": args.device, "torch": torch.__version__,
             "held_out_photos": [scene.name for scene in held_photos]}
    if args.start_from:
        # the fine-tuning's checkpoint follows the network it starts from, named by its bytes
        digest = hashlib.sha1(args.start_from.read_bytes()).hexdigest()[:12]
        checkpoint = args.work / f"start-{digest}"
        model = start_model.to(torch.device(args.device))
        notes["start_from"] = {"file": args.start_from.name, "sha1": digest}
    else:
        checkpoint = run_checkpoint(args.work, key_negatives + photos_depend_on, net_seed, args)
        model = train(x, y, source, args.epochs, args.per_epoch, args.real_share, net_seed, checkpoint, checks,
                      args.device, batch_workers)
        notes["epochs"] = args.epochs
        notes["legs"] = trained_legs(torch.load(checkpoint, weights_only=False, map_location="cpu").get("legs", []))
    if args.hard or args.hard_photo_share or args.hard_camouflaged or args.hard_boards:
        model, notes["hard"] = taught_own_finds(model, x, y, source, fit_photos, held, notes, checkpoint, net_seed,
                                                checks, batch_workers, args, started)
    return calibrate_and_save(args.out, args.work, model, held, notes, started)


def taught_own_finds(model, x: np.ndarray, y: np.ndarray, source: np.ndarray, fit_photos: list[data.Scene],
                     held: dict[str, HeldOut], notes: dict, checkpoint: Path, net_seed: int, checks,
                     batch_workers: int, args: argparse.Namespace, started: float) -> tuple[object, dict]:
    """The trained `model` fine-tuned on the dice the reader finds with it in `args.hard` more
    no-dice pictures (seeds [seed + 11, i]: neither training's nor any bench's), all no die;
    with `args.hard_photo_share`, on those it finds in the fitting photos, as the labelled dice
    they lie on or no die; with `args.hard_camouflaged`, on that many scenes of camouflaged
    marbled dice; with `args.hard_boards`, on those it finds in that many scenes of dice on board
    games' boards, as the dice they lie on or no die; and what was done. The network before is written (calibrated) to the work
    folder as OUT-before-hard.onnx, to compare."""
    import torch

    before = args.work / f"{args.out.stem}-before-hard.onnx"
    calibrate_and_save(before, args.work, model, held, notes, started)
    per_die = data.WINDOWS_PER_LOOK * len(HARD_SCALES)
    # the reader's finds depend on the network it reads with (whatever run made it), the
    # detector, the labels and the data seed
    reads_with = f"{hashlib.sha1(before.read_bytes()).hexdigest()[:12]}{photo_windows_key(args.detector)}|{args.seed}" \
                 f"{windows_turned()}"
    # v2: since b62108e the windows are shifted in a disc (`jittered`), not in a square
    hard_x, hard_y = cached(args.work, f"reader mistakes|{args.hard}|{HARD_SCALES}|{reads_with}|v2",
                            lambda: data.reader_find_windows(
                                data.negative_scenes(args.hard, args.seed + 11, args.workers), args.seed + 12,
                                GEOMETRY, HARD_SCALES, args.detector, before, args.workers,
                                turned_below_deg=TURNED_BELOW_DEG))
    log(f"the reader found {len(hard_x) // per_die} dice in {args.hard} no-dice pictures: {len(hard_x)} windows "
        f"({time.time() - started:.0f} s)")
    done = {"pictures": args.hard, "dice_found": len(hard_x) // per_die, "epochs": args.hard_epochs,
            "share": args.hard_share, "scales": list(HARD_SCALES)}
    if args.hard_text:
        text_x, text_y = cached(args.work, hard_text_key(args.hard_text, args.text_kinds, reads_with),
                                lambda: data.reader_find_windows(
                                    data.negative_scenes(args.hard_text, args.seed + 19, args.workers,
                                                         args.text_kinds),
                                    args.seed + 20, GEOMETRY, HARD_SCALES, args.detector, before, args.workers,
                                    turned_below_deg=TURNED_BELOW_DEG))
        log(f"the reader found {len(text_x) // per_die} dice in {args.hard_text} pictures of text: {len(text_x)} "
            f"windows ({time.time() - started:.0f} s)")
        done["text"] = {"pictures": args.hard_text, "dice_found": len(text_x) // per_die}
        hard_x, hard_y = np.concatenate([hard_x, text_x]), np.concatenate([hard_y, text_y])
    found = [(hard_x, hard_y, args.hard_share)]
    if args.hard_photo_share:
        names = sorted(scene.name for scene in fit_photos)
        counted = "|with count" if args.hard_photo_count else ""
        photo_x, photo_y = cached(args.work, f"reader finds|{names}|{args.seed}|{HARD_SCALES}|{reads_with}{counted}",
                                  lambda: data.reader_find_windows(fit_photos, args.seed + 13, GEOMETRY, HARD_SCALES,
                                                                   args.detector, before, args.workers,
                                                                   args.hard_photo_count, TURNED_BELOW_DEG))
        as_dice = int((photo_y != data.NOT_A_DIE).sum()) // per_die
        log(f"the reader found {len(photo_x) // per_die} dice in {len(fit_photos)} fitting photos, {as_dice} of them "
            f"on a labelled die: {len(photo_x)} windows ({time.time() - started:.0f} s)")
        done["photos"] = {"pictures": len(fit_photos), "dice_found": len(photo_x) // per_die, "on_labels": as_dice,
                          "share": args.hard_photo_share} | ({"with_count": True} if args.hard_photo_count else {})
        found.append((photo_x, photo_y, args.hard_photo_share))
    if args.hard_camouflaged:
        scenes = data.synthetic_scenes(args.hard_camouflaged, args.seed + 14, args.work, log, kind="camouflaged",
                                       workers=args.workers)
        camo_x, camo_y = cached(args.work, f"camouflaged|{args.hard_camouflaged}|{args.seed}|{GEOMETRY}"
                                           f"{windows_turned()}",
                                lambda: data.scene_windows(scenes, 1, args.seed + 15, GEOMETRY, args.workers,
                                                           TURNED_BELOW_DEG, per_die=3, negatives_per_die=1.5,
                                                           background=4))
        log(f"{len(scenes)} camouflaged scenes: {len(camo_x)} windows ({time.time() - started:.0f} s)")
        done["camouflaged"] = {"scenes": args.hard_camouflaged, "share": CAMOUFLAGED_SHARE}
        found.append((camo_x, camo_y, CAMOUFLAGED_SHARE))
    if args.hard_boards:
        scenes = data.synthetic_scenes(args.hard_boards, args.seed + 16, args.work, log, kind="boards",
                                       workers=args.workers)
        board_x, board_y = cached(args.work, f"reader finds boards|{args.hard_boards}|{args.seed}|{HARD_SCALES}|"
                                             f"{reads_with}",
                                  lambda: data.reader_find_windows(scenes, args.seed + 17, GEOMETRY, HARD_SCALES,
                                                                   args.detector, before, args.workers,
                                                                   turned_below_deg=TURNED_BELOW_DEG))
        as_dice = int((board_y != data.NOT_A_DIE).sum()) // per_die
        log(f"the reader found {len(board_x) // per_die} dice in {len(scenes)} scenes on boards, {as_dice} of them "
            f"on a die: {len(board_x)} windows ({time.time() - started:.0f} s)")
        done["boards"] = {"scenes": args.hard_boards, "dice_found": len(board_x) // per_die, "on_dice": as_dice,
                          "share": BOARDS_SHARE}
        found.append((board_x, board_y, BOARDS_SHARE))
    if not any(len(c) for _, c, _ in found):
        return model, done
    hard_checkpoint = fine_tuning_checkpoint(args.work, checkpoint.name, net_seed, args)
    model = fine_tune(model, x, y, source, found, args.hard_epochs, args.per_epoch, args.real_share, net_seed,
                      hard_checkpoint, checks, args.device, batch_workers)
    legs = torch.load(hard_checkpoint, weights_only=False, map_location="cpu").get("legs", [])
    return model, {**done, "legs": trained_legs(legs)}


def fine_tuning_checkpoint(work: Path, after: str, net_seed: int, args: argparse.Namespace) -> Path:
    """Where the fine-tuning on the reader's finds keeps its checkpoint: named by the run it
    follows (`after`: a training run's checkpoint, or the network `--start-from` loaded), its
    own seed and what it is taught, so that two seeds fine-tuning one network never resume
    each other's."""
    return checkpoint_path(work, "hard", {"after": after, "net_seed": net_seed, "pictures": args.hard,
                                          "epochs": args.hard_epochs, "share": args.hard_share, "scales": HARD_SCALES} |
                           ({"upright": True} if GEOMETRY.upright else {}) |
                           ({"photo_share": args.hard_photo_share} if args.hard_photo_share else {}) |
                           ({"photo_count": True} if args.hard_photo_count else {}) |
                           ({"camouflaged": args.hard_camouflaged} if args.hard_camouflaged else {}) |
                           ({"boards": args.hard_boards} if args.hard_boards else {}) |
                           ({"text": args.hard_text} if args.hard_text else {}) |
                           ({"text_kinds": list(args.text_kinds)}
                            if args.hard_text and args.text_kinds != TEXT_KINDS else {}))


def calibrate_and_save(out: Path, work: Path, model, held: dict[str, HeldOut], notes: dict, started: float) -> int:
    """Fit the temperature on the held-out photos, print the held-out figures and write the
    ONNX file and its metadata."""
    draft = work / f"{out.stem}-draft.onnx"  # runs with other --out may share the work folder
    export_onnx(model, draft, {"temperature": 1.0})
    net = classifier.ValueNet(draft)
    photos = [k for k in held if k.startswith("photos ")]
    looks = {k: all_look_logits(net, held[k].windows) for k in held}
    temperature = fit_temperature(np.concatenate([looks[k] for k in photos], axis=1),
                                  np.concatenate([held[k].classes for k in photos]))
    value_temperature = fit_value_temperature(np.concatenate([looks[k] for k in photos], axis=1),
                                              np.concatenate([held[k].classes for k in photos]), temperature)
    log(f"temperature {temperature:.3f}, value temperature {value_temperature:.3f}")
    figures = {}
    for name, h in held.items():
        figures[name] = report(f"held-out {name} (label boxes and jittered)",
                               auto_probabilities(looks[name], temperature, value_temperature), h.classes)
        boxes = h.oracle == 1
        figures[name + ", label boxes"] = report(f"held-out {name}, label boxes only",
                                                 auto_probabilities(looks[name][:, boxes], temperature, value_temperature),
                                                 h.classes[boxes])
    minutes = (time.time() - started) / 60
    export_onnx(model, out, {"temperature": temperature, "value_temperature": value_temperature,
                             "trained": {**notes, "minutes": round(minutes, 1), "held_out": figures}})
    log(f"wrote {out} ({out.stat().st_size} bytes) in {minutes:.1f} min")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
