"""Train the die detector (`vision/reader/die_detector.npz`, see `vision/reader/detector_net.py`).

Command line (from the repository root, with the `train` extra installed):

    .venv/bin/python scripts/train_detector.py --out vision/reader/die_detector.npz

Data:
  * the TRAIN split of ../shared/data/dice-photos/nell-byler (every 10th photo held out to
    choose the detection threshold and report figures; the test split is never read);
  * synthetic scenes rendered by `vision.synth` (seeded: scene i of `--synth-seed` S uses
    `np.random.default_rng([S, i])`; the bench's scenes are seed 1, never used here) with
    1 to 15 dice from 14 to 150 px, touching, cocked, oblique, under hands, in trays, on
    every background; rendered once into `--cache` (PNG + labels) and reused.
Every crop is augmented: scale, any rotation, flips, colour / brightness / contrast /
gamma / hue, blur, noise, JPEG, light gradients, glare.

Training: AdamW with cosine decay, focal loss on the centre heatmap, L1 on offset, log
size and (cos 4a, sin 4a), BCE on cocked; batch norm is folded into the convolutions at
export. Everything is seeded (`--seed`); with the same data, threads and torch version the
run repeats exactly.

Measured (this machine, 2 shared cores, torch.set_num_threads(2)): see the figures printed
at the end of a run and the reader's README; the default run (3000 synthetic scenes,
rendering ~20 min once, training ~35 min) is what made the shipped model.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from vision.reader import detector_net as dn  # noqa: E402

PHOTOS = REPO.parent / "shared" / "data" / "dice-photos" / "nell-byler"
CROP = 256  # training crops, network-input pixels
FILL = 128  # grey outside the image (the detector pads with it too)


# ------------------------------------------------------------------ data


@dataclass
class Die:
    center: tuple[float, float]
    size: float | None  # top-face edge, px (None: unknown, real photo)
    angle: float | None  # degrees, edge direction clockwise
    box_side: float  # side of the label box (real) or ~ the top face's extent (synthetic)
    cocked: float | None  # 1 cocked, 0 flat, None unknown / in between
    ignore: bool  # mostly hidden: neither a positive nor a negative


@dataclass
class Sample:
    image: np.ndarray
    dice: list[Die]
    real: bool


def training_scene(rng: np.random.Generator):
    """One varied synthetic scene: camera format, dice count and sizes drawn widely."""
    from vision import synth

    width, height = [(640, 480), (640, 480), (640, 480), (640, 640), (480, 640), (800, 600)][rng.integers(6)]
    for _ in range(20):
        n = int(rng.choice([1, 2, 3, 4, 5, 5, 5, 6, 7, 8, 10, 12, 15]))
        lo = float(rng.uniform(14, 75)) * width / 640
        hi = min(lo * float(rng.uniform(1.0, 2.0)), 150.0 * width / 640)
        if n * lo * lo > 0.3 * width * height:
            continue
        try:
            return synth.random_scene(
                rng, n_dice=n, width=width, height=height, size_range=(lo, hi),
                max_tilt_deg=float(rng.choice([0.0, 15.0, 30.0, 35.0])),
                cocked_prob=0.08, tray_prob=0.35, occluder_prob=0.2,
                touch_prob=float(rng.uniform(0.2, 0.9)))
        except ValueError:
            continue
    return synth.random_scene(rng)


def render_synthetic(cache: Path, count: int, seed: int) -> None:
    """Render scenes 0..count-1 of `seed` into cache (skips those already there)."""
    from vision import synth

    cache.mkdir(parents=True, exist_ok=True)
    started = time.time()
    for i in range(count):
        target = cache / f"{i:06d}.png"
        if target.exists() and (cache / f"{i:06d}.json").exists():
            continue
        rendered = synth.render(training_scene(np.random.default_rng([seed, i])))
        labels = [{"center": list(l.center), "size": l.size, "angle": l.angle, "box": list(l.box),
                   "cocked": bool(l.cocked), "tilt": l.tilt_deg, "visible": l.visible} for l in rendered.labels]
        cv2.imwrite(str(target), rendered.image)
        (cache / f"{i:06d}.json").write_text(json.dumps(labels))
        if i % 100 == 0:
            print(f"rendered {i}/{count} ({time.time() - started:.0f} s)", flush=True)
        if i % 50 == 49:
            synth.clear_caches()


def synthetic_die(label: dict) -> Die:
    x0, y0, x1, y1 = label["box"]
    tilt = label["tilt"]
    cocked = 1.0 if tilt > 10 else 0.0 if tilt < 4 else None
    return Die(tuple(label["center"]), label["size"], label["angle"], max(x1 - x0, y1 - y0), cocked,
               label["visible"] < 0.5)


def load_synthetic(cache: Path, count: int) -> list[Sample]:
    samples = []
    for i in range(count):
        image = cv2.imread(str(cache / f"{i:06d}.png"), cv2.IMREAD_COLOR)
        labels = json.loads((cache / f"{i:06d}.json").read_text())
        samples.append(Sample(image, [synthetic_die(l) for l in labels], real=False))
    return samples


def load_photos(split: str) -> list[tuple[str, Sample]]:
    from vision.reader.evaluate import load_manifest

    out = []
    for photo in load_manifest(PHOTOS / "manifest.jsonl", split):
        image = cv2.imread(str(PHOTOS / photo.image), cv2.IMREAD_COLOR)
        dice = [Die(d.center, None, None, d.side, None, d.ignore) for d in photo.dice]
        out.append((photo.image, Sample(image, dice, real=True)))
    return out


# ------------------------------------------------------------------ augmentation and targets


def colour_jitter(img: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    x = img.astype(np.float32)
    if rng.random() < 0.35:  # hue / saturation: dice and tables of other colours
        hsv = cv2.cvtColor(img, cv2.COLOR_BGR2HSV).astype(np.float32)
        hsv[..., 0] = (hsv[..., 0] + rng.uniform(0, 180)) % 180
        hsv[..., 1] = np.clip(hsv[..., 1] * rng.uniform(0.4, 1.3), 0, 255)
        x = cv2.cvtColor(hsv.astype(np.uint8), cv2.COLOR_HSV2BGR).astype(np.float32)
    if rng.random() < 0.05:
        x = np.repeat(x.mean(axis=2, keepdims=True), 3, axis=2)
    x *= rng.uniform(0.8, 1.2, 3).astype(np.float32)  # white balance
    mean = x.mean()
    x = (x - mean) * rng.uniform(0.6, 1.3) + mean * rng.uniform(0.55, 1.35)
    if rng.random() < 0.35:  # uneven light: a gradient or a vignette
        h, w = x.shape[:2]
        yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
        a = rng.uniform(0, 2 * np.pi)
        ramp = ((xx - w / 2) * np.cos(a) + (yy - h / 2) * np.sin(a)) / max(h, w)
        x *= (1 + rng.uniform(-0.7, 0.7) * ramp)[..., None]
    if rng.random() < 0.1:  # a glare spot
        h, w = x.shape[:2]
        spot = np.zeros((h, w), np.float32)
        cv2.ellipse(spot, (int(rng.uniform(0, w)), int(rng.uniform(0, h))),
                    (int(rng.uniform(4, 30)), int(rng.uniform(4, 30))), float(rng.uniform(0, 180)), 0, 360, 1.0, -1)
        spot = cv2.GaussianBlur(spot, (0, 0), rng.uniform(2, 8))
        x += spot[..., None] * rng.uniform(60, 200)
    x = np.clip(x, 0, 255)
    if rng.random() < 0.4:
        x = 255.0 * (x / 255.0) ** rng.uniform(0.7, 1.4)
    return x.astype(np.uint8)


def degrade(img: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    if rng.random() < 0.3:
        img = cv2.GaussianBlur(img, (0, 0), rng.uniform(0.3, 1.2))
    if rng.random() < 0.1:
        length = int(rng.integers(2, 5))
        kernel = np.zeros((length, length), np.float32)
        kernel[length // 2] = 1.0 / length
        rot = cv2.getRotationMatrix2D((length / 2 - 0.5, length / 2 - 0.5), rng.uniform(0, 180), 1.0)
        img = cv2.filter2D(img, -1, cv2.warpAffine(kernel, rot, (length, length)))
    if rng.random() < 0.5:
        noise = rng.standard_normal(img.shape, dtype=np.float32) * rng.uniform(1, 7)
        img = np.clip(img.astype(np.float32) + noise, 0, 255).astype(np.uint8)
    if rng.random() < 0.4:
        ok, data = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, int(rng.integers(35, 95))])
        img = cv2.imdecode(data, cv2.IMREAD_COLOR)
    return img


def sigma_cells(size: float) -> float:
    """Spread of a die's centre peak on the output grid (in cells)."""
    return max(0.6, 0.12 * size / dn.STRIDE)


def make_crop(sample: Sample, rng: np.random.Generator, crop: int = CROP):
    """One augmented crop and its targets: (3 x crop x crop uint8 BGR, targets dict)."""
    img = sample.image
    h, w = img.shape[:2]
    base = 320.0 / max(h, w)  # the detector's own input scale
    sides = [d.box_side for d in sample.dice if not d.ignore] or [40.0]
    median_side = float(np.median(sides)) * base
    # die sizes at the network input from about 8 to 110 px
    zoom = math.exp(rng.uniform(math.log(0.6), math.log(1.7)))
    zoom = float(np.clip(zoom, 9.0 / max(median_side, 1.0), 100.0 / max(median_side, 1.0)))
    scale = base * zoom
    theta = rng.uniform(0, 360) if rng.random() < 0.7 else 90.0 * rng.integers(4)
    flip = -1.0 if rng.random() < 0.5 else 1.0
    # crop centre (original pixels): near a die most of the time, anywhere otherwise
    if sample.dice and rng.random() < 0.75:
        d = sample.dice[rng.integers(len(sample.dice))]
        cx, cy = d.center[0] + rng.normal(0, 40 / scale), d.center[1] + rng.normal(0, 40 / scale)
    else:
        cx, cy = rng.uniform(0, w), rng.uniform(0, h)
    c, s_ = math.cos(math.radians(theta)), math.sin(math.radians(theta))
    linear = scale * np.array([[c, s_], [-s_, c]]) @ np.diag([flip, 1.0])
    full = np.zeros((3, 3))  # original pixel -> crop pixel (pixel centres at integers)
    full[:2, :2] = linear
    full[:2, 2] = np.array([crop / 2 - 0.5, crop / 2 - 0.5]) - linear @ np.array([cx, cy])
    full[2, 2] = 1.0
    # only the part of the image the crop sees is shrunk (INTER_AREA, as the detector does)
    inverse = np.linalg.inv(full)
    corners = inverse @ np.array([[0, crop, 0, crop], [0, 0, crop, crop], [1, 1, 1, 1]], np.float64)
    margin = 4 / scale
    x0 = int(np.clip(math.floor(corners[0].min() - margin), 0, w - 1))
    x1 = int(np.clip(math.ceil(corners[0].max() + margin), x0 + 1, w))
    y0 = int(np.clip(math.floor(corners[1].min() - margin), 0, h - 1))
    y1 = int(np.clip(math.ceil(corners[1].max() + margin), y0 + 1, h))
    roi = img[y0:y1, x0:x1]
    small = cv2.resize(roi, (max(1, round((x1 - x0) * scale)), max(1, round((y1 - y0) * scale))),
                       interpolation=cv2.INTER_AREA)
    sx, sy = small.shape[1] / (x1 - x0), small.shape[0] / (y1 - y0)
    # small pixel u shows original x0 + (u + 0.5) / sx - 0.5
    to_original = np.array([[1 / sx, 0, x0 + 0.5 / sx - 0.5], [0, 1 / sy, y0 + 0.5 / sy - 0.5], [0, 0, 1]])
    m = (full @ to_original)[:2]
    out = cv2.warpAffine(small, m, (crop, crop), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT,
                         borderValue=(FILL, FILL, FILL))
    valid = cv2.warpAffine(np.ones(small.shape[:2], np.uint8), m, (crop, crop), flags=cv2.INTER_NEAREST,
                           borderMode=cv2.BORDER_CONSTANT, borderValue=0)
    if roi.shape[0] < h or roi.shape[1] < w:  # the roi's edge is not the image's: keep only the image's
        inside = cv2.warpAffine(np.ones((h, w), np.uint8), full[:2], (crop, crop), flags=cv2.INTER_NEAREST,
                                borderMode=cv2.BORDER_CONSTANT, borderValue=0)
        valid &= inside
    out = degrade(colour_jitter(out, rng), rng)
    out[valid == 0] = FILL

    lin = full[:2, :2]
    cells = crop // dn.STRIDE
    heat = np.zeros((cells, cells), np.float32)
    heat_weight = cv2.resize(valid.astype(np.float32), (cells, cells), interpolation=cv2.INTER_AREA)
    heat_weight = (heat_weight > 0.99).astype(np.float32)
    reg = np.zeros((dn.OUTPUTS, cells, cells), np.float32)
    reg_weight = np.zeros((dn.OUTPUTS, cells, cells), np.float32)
    owner_distance = np.full((cells, cells), np.inf, np.float32)
    yy, xx = np.mgrid[0:cells, 0:cells].astype(np.float32)
    mean_scale = math.sqrt(abs(np.linalg.det(lin)))
    for d in sample.dice:
        p = full @ np.array([d.center[0], d.center[1], 1.0])
        side = d.box_side * mean_scale
        # grid coordinates: input pixel centres at integers, cell j covers [4j, 4j+4) - 0.5
        gx, gy = (p[0] + 0.5) / dn.STRIDE, (p[1] + 0.5) / dn.STRIDE
        inside = 0 <= p[0] < crop and 0 <= p[1] < crop and valid[int(p[1]), int(p[0])] > 0
        half = 0.5 * side
        box_in = (min(p[0] + half, crop) - max(p[0] - half, 0)) * (min(p[1] + half, crop) - max(p[1] - half, 0))
        mostly_in = box_in > 0.6 * side * side if half > 0 else False
        if d.ignore or (inside and not mostly_in) or (not inside and box_in > 0.2 * side * side):
            # cut off by the crop or hidden: no opinion either way near it
            r = max(1.0, 0.6 * side / dn.STRIDE)
            cv2.circle(heat_weight, (int(round(gx - 0.5)), int(round(gy - 0.5))), int(math.ceil(r)), 0.0, -1)
            continue
        if not inside:
            continue
        size = (d.size if d.size is not None else d.box_side / 1.2) * mean_scale
        s = sigma_cells(size)
        g = np.exp(-((xx + 0.5 - gx) ** 2 + (yy + 0.5 - gy) ** 2) / (2 * s * s))
        heat = np.maximum(heat, g)
        ci, cj = int(gy), int(gx)
        heat[ci, cj] = 1.0
        angle = None
        if d.angle is not None:
            a = math.radians(d.angle)
            v = lin @ np.array([math.cos(a), math.sin(a)])
            angle = math.atan2(v[1], v[0])
        for di in (-1, 0, 1):
            for dj in (-1, 0, 1):
                i, j = ci + di, cj + dj
                if not (0 <= i < cells and 0 <= j < cells):
                    continue
                dist = (i + 0.5 - gy) ** 2 + (j + 0.5 - gx) ** 2
                if dist >= owner_distance[i, j]:
                    continue
                owner_distance[i, j] = dist
                near = 1.0 if (di, dj) == (0, 0) else 0.5
                reg[dn.OFFSET_X, i, j], reg[dn.OFFSET_Y, i, j] = gx - j, gy - i
                reg_weight[[dn.OFFSET_X, dn.OFFSET_Y], i, j] = near * (0.5 if sample.real else 1.0)
                reg_weight[[dn.LOG_SIZE, dn.COS4, dn.SIN4, dn.COCKED], i, j] = 0.0
                if d.size is not None:
                    reg[dn.LOG_SIZE, i, j] = math.log(size / dn.SIZE_UNIT)
                    reg_weight[dn.LOG_SIZE, i, j] = near
                if angle is not None:
                    reg[dn.COS4, i, j], reg[dn.SIN4, i, j] = math.cos(4 * angle), math.sin(4 * angle)
                    reg_weight[[dn.COS4, dn.SIN4], i, j] = near * (0.3 if d.cocked else 1.0)
                if d.cocked is not None:
                    reg[dn.COCKED, i, j] = d.cocked
                    reg_weight[dn.COCKED, i, j] = near
                elif sample.real:
                    reg_weight[dn.COCKED, i, j] = 0.3 * near  # photo dice lie flat nearly always
    return out.transpose(2, 0, 1), {"heat": heat, "heat_weight": heat_weight, "reg": reg, "reg_weight": reg_weight}


def crop_stream_class():
    import torch

    class CropStream(torch.utils.data.IterableDataset):
        """Batches of augmented crops, drawn from real photos with probability real_share."""

        def __init__(self, real, synthetic, batch, real_share, seed, steps):
            self.real, self.synthetic, self.batch = real, synthetic, batch
            self.real_share, self.seed, self.steps = real_share, seed, steps

        def __iter__(self):
            info = torch.utils.data.get_worker_info()
            rng = np.random.default_rng([self.seed, 0 if info is None else info.id])
            for _ in range(self.steps):
                images, targets = [], {"heat": [], "heat_weight": [], "reg": [], "reg_weight": []}
                for _ in range(self.batch):
                    pool = self.real if rng.random() < self.real_share else self.synthetic
                    crop, t = make_crop(pool[rng.integers(len(pool))], rng)
                    images.append(crop)
                    for k in targets:
                        targets[k].append(t[k])
                yield (torch.from_numpy(np.stack(images)),
                       {k: torch.from_numpy(np.stack(v)) for k, v in targets.items()})

    return CropStream


def CropStream(*args):  # noqa: N802 - a class made on demand (torch is imported lazily)
    return crop_stream_class()(*args)


# ------------------------------------------------------------------ the model


def torch_model():
    import torch
    from torch import nn

    class ConvBN(nn.Module):
        def __init__(self, cin: int, cout: int, k: int, stride: int = 1, relu: bool = True) -> None:
            super().__init__()
            self.conv = nn.Conv2d(cin, cout, k, stride, k // 2, bias=False)
            self.bn = nn.BatchNorm2d(cout)
            self.relu = relu

        def forward(self, x):
            y = self.bn(self.conv(x))
            return torch.relu(y) if self.relu else y

    class Detector(nn.Module):
        def __init__(self, layout: dn.Layout) -> None:
            super().__init__()
            self.layout = layout
            shapes = dn.layer_shapes(layout)
            self.layers = nn.ModuleDict()
            for name, (cout, cin, k, _) in shapes.items():
                if name == "out":
                    self.out = nn.Conv2d(cin, cout, 1)
                    continue
                stride = 2 if name == "stem" or name.startswith("down") else 1
                self.layers[name] = ConvBN(cin, cout, k, stride, relu=not name.startswith("lateral"))
            with torch.no_grad():
                self.out.bias.zero_()
                self.out.bias[dn.HEAT] = -2.2  # start by predicting few dice (focal-loss prior)
                self.out.bias[dn.OFFSET_X] = self.out.bias[dn.OFFSET_Y] = 0.5
                self.out.bias[dn.LOG_SIZE] = math.log(20 / dn.SIZE_UNIT)

        def forward(self, x):
            L = self.layers
            v = L["stem"](x)
            features = []
            for i in range(len(self.layout.stages)):
                v = L[f"conv{i}"](L[f"down{i}"](v))
                features.append(v)
            y = features[-1]
            for i in reversed(range(len(self.layout.stages) - 1)):
                y = nn.functional.interpolate(L[f"lateral{i}"](y), scale_factor=2, mode="nearest")
                y = L[f"merge{i}"](y + features[i])
            return self.out(L["head"](y))

    return Detector(dn.Layout())


def export_params(model) -> dict[str, np.ndarray]:
    """Conv weights with batch norm folded in, named as detector_net expects."""
    params = {}
    for name, layer in model.layers.items():
        w = layer.conv.weight.detach().numpy().astype(np.float64)
        bn = layer.bn
        factor = (bn.weight / (bn.running_var + bn.eps).sqrt()).detach().numpy().astype(np.float64)
        params[f"{name}_w"] = (w * factor[:, None, None, None]).astype(np.float32)
        params[f"{name}_b"] = (bn.bias.detach().numpy() - bn.running_mean.detach().numpy() * factor).astype(np.float32)
    params["out_w"] = model.out.weight.detach().numpy().astype(np.float32)
    params["out_b"] = model.out.bias.detach().numpy().astype(np.float32)
    return params


def losses(maps, targets):
    import torch

    heat_logit = maps[:, dn.HEAT]
    p = torch.sigmoid(heat_logit).clamp(1e-4, 1 - 1e-4)
    gt = targets["heat"]
    weight = targets["heat_weight"]
    positive = (gt >= 1.0).float() * weight
    negative = (1 - (gt >= 1.0).float()) * weight
    pos_loss = -(torch.log(p) * (1 - p) ** 2 * positive).sum()
    neg_loss = -(torch.log(1 - p) * p ** 2 * (1 - gt) ** 4 * negative).sum()
    count = positive.sum().clamp(min=1.0)
    heat = (pos_loss + neg_loss) / count
    reg_w = targets["reg_weight"]
    l1 = (maps - targets["reg"]).abs()

    def mean(values, channels):
        w = reg_w[:, channels]
        return (values * w).sum() / w.sum().clamp(min=1.0)

    offset = mean(l1[:, [dn.OFFSET_X, dn.OFFSET_Y]], [dn.OFFSET_X, dn.OFFSET_Y])
    size = mean(l1[:, dn.LOG_SIZE], dn.LOG_SIZE)
    # squared error for the angle: with L1 the network sat at (0, 0), the median of a
    # uniform angle, for thousands of steps before it found the edges' direction
    angle = mean(((maps - targets["reg"]) ** 2)[:, [dn.COS4, dn.SIN4]], [dn.COS4, dn.SIN4])
    cocked = mean(torch.nn.functional.binary_cross_entropy_with_logits(
        maps[:, dn.COCKED], targets["reg"][:, dn.COCKED], reduction="none"), dn.COCKED)
    total = heat + offset + 2 * size + 3 * angle + 0.5 * cocked
    return total, {"heat": heat.item(), "offset": offset.item(), "size": size.item(), "angle": angle.item(),
                   "cocked": cocked.item()}


# ------------------------------------------------------------------ evaluation


def evaluate(params: dict[str, np.ndarray], samples: list[Sample], thresholds=(0.3, 0.4, 0.5)) -> dict:
    """Detection recall / precision with the bench's matching, and localisation errors."""
    from vision.reader.detector import DieDetector
    from vision.reader.evaluate import LabelledDie
    from vision.reader.detector_eval import match_detections

    detector = DieDetector(params=params)
    figures = {}
    per = {t: [0, 0, 0] for t in thresholds}  # found, missed, extra
    errors = []
    cocked = {(0, 0): 0, (0, 1): 0, (1, 0): 0, (1, 1): 0}  # (truth, said) -> dice
    for sample in samples:
        found = detector.detect(sample.image, threshold=min(thresholds))
        labels = [LabelledDie(1, (d.center[0] - d.box_side / 2, d.center[1] - d.box_side / 2,
                                  d.center[0] + d.box_side / 2, d.center[1] + d.box_side / 2), d.ignore)
                  for d in sample.dice]
        for t in thresholds:
            result = match_detections(labels, [f for f in found if f.score >= t])
            per[t][0] += result.found
            per[t][1] += result.missed
            per[t][2] += result.extra
            if t == thresholds[1]:
                kept = [f for f in found if f.score >= t]
                for li, pi in result.pairs:
                    d, f = sample.dice[li], kept[pi]
                    if d.cocked is not None:
                        cocked[(int(d.cocked), int(f.cocked >= 0.5))] += 1
                    if d.size is None:
                        errors.append((math.dist(f.center, d.center) / d.box_side, math.nan, math.nan))
                    else:
                        diff = (f.angle - d.angle + 45) % 90 - 45
                        errors.append((math.dist(f.center, d.center) / d.size, f.size / d.size, abs(diff)))
    for t, (found_, missed, extra) in per.items():
        figures[f"recall@{t}"] = found_ / max(1, found_ + missed)
        figures[f"precision@{t}"] = found_ / max(1, found_ + extra)
        figures[f"missed@{t}"] = missed
        figures[f"extra@{t}"] = extra
    if cocked[(1, 0)] + cocked[(1, 1)]:
        figures["cocked_found"] = f"{cocked[(1, 1)]}/{cocked[(1, 0)] + cocked[(1, 1)]}"
        figures["flat_called_cocked"] = f"{cocked[(0, 1)]}/{cocked[(0, 0)] + cocked[(0, 1)]}"
    if errors:
        e = np.array(errors)
        figures["centre_err_p50"] = float(np.nanmedian(e[:, 0]))
        figures["centre_err_p95"] = float(np.nanpercentile(e[:, 0], 95))
        if not np.isnan(e[:, 1]).all():
            figures["size_ratio_p05_p50_p95"] = [float(v) for v in np.nanpercentile(e[:, 1], [5, 50, 95])]
            figures["angle_err_p50_p95"] = [float(v) for v in np.nanpercentile(e[:, 2], [50, 95])]
    return figures


# ------------------------------------------------------------------ main


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=REPO / "vision" / "reader" / "die_detector.npz")
    parser.add_argument("--cache", type=Path, default=Path("/tmp/cubilete-detector-cache"))
    parser.add_argument("--synthetic", type=int, default=6000, help="synthetic training scenes")
    parser.add_argument("--synth-seed", type=int, default=7000)
    parser.add_argument("--val-synthetic", type=int, default=100, help="held-out synthetic scenes (seed + 1)")
    parser.add_argument("--steps", type=int, default=12000)
    parser.add_argument("--batch", type=int, default=16)
    parser.add_argument("--lr", type=float, default=3e-3)
    parser.add_argument("--real-share", type=float, default=0.35, help="share of crops cut from real photos")
    parser.add_argument("--threads", type=int, default=1, help="torch threads for training")
    parser.add_argument("--workers", type=int, default=1, help="processes cutting crops (0: in the main one)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--render-only", action="store_true", help="only render the synthetic scenes into the cache")
    parser.add_argument("--init", type=Path, help="start from this model's weights (fine-tuning)")
    args = parser.parse_args()

    train_cache = args.cache / f"synth-{args.synth_seed}"
    val_cache = args.cache / f"synth-{args.synth_seed + 1}"
    started = time.time()
    render_synthetic(train_cache, args.synthetic, args.synth_seed)
    render_synthetic(val_cache, args.val_synthetic, args.synth_seed + 1)
    print(f"scenes ready ({time.time() - started:.0f} s)", flush=True)
    if args.render_only:
        return 0

    import torch

    torch.manual_seed(args.seed)
    torch.set_num_threads(args.threads)
    cv2.setNumThreads(1)

    photos = load_photos("train")
    real_train = [s for k, (_, s) in enumerate(photos) if k % 10 != 0]
    real_val = [s for k, (_, s) in enumerate(photos) if k % 10 == 0]
    synth_train = load_synthetic(train_cache, args.synthetic)
    synth_val = load_synthetic(val_cache, args.val_synthetic)
    print(f"data: {len(real_train)} photos (+{len(real_val)} held out), {len(synth_train)} synthetic scenes "
          f"(+{len(synth_val)} held out); loaded at {time.time() - started:.0f} s", flush=True)

    model = torch_model()
    if args.init is not None:
        load_into(model, args.init)
    optimiser = torch.optim.AdamW(model.parameters(), lr=args.lr, weight_decay=1e-4)
    schedule = torch.optim.lr_scheduler.OneCycleLR(optimiser, max_lr=args.lr, total_steps=args.steps,
                                                   pct_start=0.05, final_div_factor=100)
    train_started = time.time()
    running: dict[str, float] = {}
    batches = torch.utils.data.DataLoader(
        CropStream(real_train, synth_train, args.batch, args.real_share, args.seed, args.steps),
        batch_size=None, num_workers=args.workers, prefetch_factor=4 if args.workers else None)
    for step, (images, targets) in enumerate(batches, start=1):
        model.train()
        total, parts = losses(model(torch.from_numpy(normalise(images.numpy()))), targets)
        optimiser.zero_grad()
        total.backward()
        optimiser.step()
        schedule.step()
        for k, v in parts.items():
            running[k] = 0.98 * running.get(k, v) + 0.02 * v
        if step % 100 == 0:
            print(f"step {step}: " + " ".join(f"{k} {v:.3f}" for k, v in running.items())
                  + f" ({time.time() - train_started:.0f} s)", flush=True)
        if step % 1000 == 0 or step == args.steps:
            model.eval()
            params = export_params(model)
            save(params, args.out)
            print("  val photos:", fmt(evaluate(params, real_val)), flush=True)
            print("  val synthetic:", fmt(evaluate(params, synth_val)), flush=True)
    print(f"done in {time.time() - started:.0f} s (training {time.time() - train_started:.0f} s); "
          f"model {args.out} ({args.out.stat().st_size} bytes)")
    return 0


def normalise(batch_uint8: np.ndarray) -> np.ndarray:
    from vision.reader.detector import normalise as n

    return n(batch_uint8)


def save(params: dict[str, np.ndarray], path: Path) -> None:
    np.savez_compressed(path, meta_layout=dn.Layout().to_array(), **{k: v.astype(np.float16) for k, v in params.items()})


def load_into(model, path: Path) -> None:
    """Weights of an exported model as a starting point (batch norm reset to identity)."""
    import torch

    params = dn.load_params(path)
    with torch.no_grad():
        for name, layer in model.layers.items():
            layer.conv.weight.copy_(torch.from_numpy(params[f"{name}_w"]))
            layer.bn.weight.fill_(1.0)
            layer.bn.bias.copy_(torch.from_numpy(params[f"{name}_b"]))
            layer.bn.running_mean.zero_()
            layer.bn.running_var.fill_(1.0 - layer.bn.eps)
        model.out.weight.copy_(torch.from_numpy(params["out_w"]))
        model.out.bias.copy_(torch.from_numpy(params["out_b"]))


def fmt(figures: dict) -> str:
    return " ".join(f"{k} {v:.3f}" if isinstance(v, float) else f"{k} {v}" for k, v in figures.items())


if __name__ == "__main__":
    raise SystemExit(main())
