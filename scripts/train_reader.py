"""Train the die classifier (`vision/reader/die_classifier.npz`) with numpy alone.

    .venv/bin/python scripts/train_reader.py [--photos ../shared/data/dice-photos/nell-byler]
        [--synthetic N] [--epochs E] [--seed S] [--out PATH]

Training data (nothing from a test split is ever read):
  * the `train` split of a labelled photo manifest (the nell-byler photos are BSD-3 and
    ours to tune on): the photos are split by photo into a fitting part (80%) and a
    held-out part (20%) used to pick the epoch and fit the softmax temperature;
  * optionally N synthetic scenes rendered by `vision.synth` (all used for fitting).
From every photo, windows are cut exactly as the reader cuts them: at the reader's own
proposals (labelled with the matching die's value, or "not a die" when no labelled die is
centred there) plus jittered windows around every labelled die and windows offset by half
a die or more (class 0, so the classifier learns to say where a die's centre is).
The run is deterministic for a given seed and data.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from pathlib import Path

import cv2
import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from vision.reader import net  # noqa: E402
from vision.reader.crops import CHANNELS, CROP_PX, edge_angle, normalised_crop  # noqa: E402
from vision.reader.evaluate import load_manifest  # noqa: E402
from vision.reader.reader import proposals  # noqa: E402

COCKED_SHARE = 0.12  # of synthetic dice leaning on a neighbour or a wall
CLEARLY_COCKED_DEG = 12.0
DEFAULT_PHOTOS = ROOT.parent / "shared" / "data" / "dice-photos" / "nell-byler"


# ----------------------------------------------------------------------------- data


def windows_for_photo(image: np.ndarray, dice: list[tuple[int, float, float, float]], rng: np.random.Generator,
                      jitter: int = 3, offsets: int = 2, negative_share: float = 1.0) -> tuple[list[np.ndarray], list[int]]:
    """Windows and classes for one labelled image. dice = [(value, cx, cy, side)]."""
    grey = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    xs: list[np.ndarray] = []
    ys: list[int] = []

    def add(x: float, y: float, side: float, cls: int) -> None:
        angle = edge_angle(grey, x, y, side)
        xs.append(normalised_crop(image, x, y, side, angle))
        ys.append(cls)

    for p in proposals(image):
        best, best_d = None, math.inf
        for value, cx, cy, side in dice:
            d = math.hypot(p.x - cx, p.y - cy) / side
            if d < best_d:
                best, best_d = (value, side), d
        ratio = p.side / best[1] if best is not None else 0.0
        if best is not None and best_d <= 0.2 and 0.7 <= ratio <= 1.45:
            xs.append(normalised_crop(image, p.x, p.y, p.side, p.angle))
            ys.append(best[0])
        elif (best is None or best_d >= 0.5 or ratio < 0.6 or ratio > 1.7) and rng.random() < negative_share:
            # not centred on a die, or the size of a pip or of a cluster: not a die
            xs.append(normalised_crop(image, p.x, p.y, p.side, p.angle))
            ys.append(0)
    for value, cx, cy, side in dice:
        for _ in range(jitter):
            r = rng.uniform(0, 0.15) * side
            t = rng.uniform(0, 2 * math.pi)
            add(cx + r * math.cos(t), cy + r * math.sin(t), side * rng.uniform(0.8, 1.3), value)
        for _ in range(offsets):
            r = rng.uniform(0.4, 0.9) * side
            t = rng.uniform(0, 2 * math.pi)
            x, y = cx + r * math.cos(t), cy + r * math.sin(t)
            if all(math.hypot(x - ox, y - oy) >= 0.4 * os_ for _, ox, oy, os_ in dice):
                add(x, y, side * rng.uniform(0.8, 1.3), 0)
    return xs, ys


def photo_dataset(photos_dir: Path, rng: np.random.Generator) -> tuple[list, list]:
    """[(windows, classes)] per train photo of the manifest, in manifest order."""
    fit, held = [], []
    photos = load_manifest(photos_dir / "manifest.jsonl", split="train")
    order = rng.permutation(len(photos))
    held_ids = set(order[: len(photos) // 5].tolist())
    for i, photo in enumerate(photos):
        image = cv2.imread(str(photos_dir / photo.image))
        dice = [(d.value, *d.center, d.side) for d in photo.dice if not d.ignore]
        ignored = [d for d in photo.dice if d.ignore]
        xs, ys = windows_for_photo(image, dice, rng, jitter=6, offsets=3)
        if ignored:  # drop windows whose class we cannot know
            pass
        (held if i in held_ids else fit).append((xs, ys))
    return fit, held


def synthetic_dataset(count: int, seed: int) -> list:
    from vision import synth  # the SYNTH helper's generator

    rng = np.random.default_rng(seed)
    out = []
    for _ in range(count):
        rendered = synth.render(synth.random_scene(rng, cocked_prob=COCKED_SHARE))
        # a clearly leaning die is class "cocked"; barely tilted or hidden dice are unknowable
        # and would make wrong negatives, so their scenes are skipped
        dice = [(net.COCKED if l.cocked else l.value, l.center[0], l.center[1], l.size) for l in rendered.labels
                if l.visible >= 0.9 and (not l.cocked or l.tilt_deg >= CLEARLY_COCKED_DEG)]
        if len(dice) == len(rendered.labels):
            out.append(windows_for_photo(rendered.image, dice, rng, jitter=2, offsets=2, negative_share=0.5))
    return out


def stack(parts: list) -> tuple[np.ndarray, np.ndarray]:
    xs = [x for p in parts for x in p[0]]
    ys = [y for p in parts for y in p[1]]
    if not xs:
        return np.zeros((0, CHANNELS, CROP_PX, CROP_PX), np.float32), np.zeros(0, np.int64)
    return np.stack(xs).astype(np.float32), np.array(ys, np.int64)


def augment(batch: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Random quarter turns and mirror images (a die face read either way is the same
    value), lightness inverted now and then (dark dice with light pips)."""
    out = np.empty_like(batch)
    for i, x in enumerate(batch):
        x = np.rot90(x, rng.integers(4), axes=(1, 2))
        if rng.random() < 0.5:
            x = x[:, :, ::-1]
        if rng.random() < 0.3:
            x = x.copy()
            x[0] = -x[0]
        out[i] = x
    return out


# ----------------------------------------------------------------------------- network


def forward_train(params: dict, x: np.ndarray):
    """Forward pass keeping what the backward pass needs."""
    cache = []
    h = np.ascontiguousarray(x.transpose(0, 2, 3, 1))
    for i in range(len(net.CONV_WIDTHS)):
        n, hh, ww, _ = h.shape
        cols = net.im2col(h)
        y = (cols @ params[f"w{i}"] + params[f"b{i}"]).reshape(n, hh, ww, -1)
        r = np.maximum(y, 0)
        pooled = net.max_pool(r)
        cache.append((h.shape, cols, y, r, pooled))
        h = pooled
    flat = h.reshape(h.shape[0], -1)
    hid_pre = flat @ params["wh"] + params["bh"]
    hid = np.maximum(hid_pre, 0)
    z = hid @ params["wo"] + params["bo"]
    return z, (cache, flat, hid_pre, hid)


def col2im(dcols: np.ndarray, shape: tuple) -> np.ndarray:
    n, h, w, c = shape
    d = dcols.reshape(n, h, w, 9, c)
    padded = np.zeros((n, h + 2, w + 2, c), dcols.dtype)
    for k in range(9):
        dy, dx = divmod(k, 3)
        padded[:, dy : dy + h, dx : dx + w, :] += d[:, :, :, k, :]
    return padded[:, 1:-1, 1:-1, :]


def backward(params: dict, state, dz: np.ndarray) -> dict:
    cache, flat, hid_pre, hid = state
    grads = {"wo": hid.T @ dz, "bo": dz.sum(0)}
    dhid = (dz @ params["wo"].T) * (hid_pre > 0)
    grads["wh"] = flat.T @ dhid
    grads["bh"] = dhid.sum(0)
    dh = (dhid @ params["wh"].T).reshape(cache[-1][4].shape)
    for i in reversed(range(len(net.CONV_WIDTHS))):
        in_shape, cols, y, r, pooled = cache[i]
        n, hh, ww, c = r.shape
        # max-pool backward: route the gradient to the max of each 2x2 cell
        up = np.repeat(np.repeat(pooled, 2, axis=1), 2, axis=2)
        mask = r == up
        dup = np.repeat(np.repeat(dh, 2, axis=1), 2, axis=2) * mask
        dy = dup * (y > 0)
        dy2 = dy.reshape(-1, c)
        grads[f"w{i}"] = cols.T @ dy2
        grads[f"b{i}"] = dy2.sum(0)
        if i > 0:
            dh = col2im(dy2 @ params[f"w{i}"].T, in_shape)
    return grads


def all_logits(params: dict, x: np.ndarray) -> np.ndarray:
    return np.concatenate([net.logits(params, x[i : i + 512]) for i in range(0, len(x), 512)]) if len(x) else np.zeros((0, net.CLASSES))


def evaluate(params: dict, x: np.ndarray, y: np.ndarray, temperature: float = 1.0, z: np.ndarray | None = None) -> tuple[float, float]:
    z = all_logits(params, x) if z is None else z
    p = net.softmax(z / temperature)
    nll = float(-np.log(p[np.arange(len(y)), y] + 1e-9).mean())
    acc = float((p.argmax(1) == y).mean())
    return acc, nll


def fit_temperature(params: dict, x: np.ndarray, y: np.ndarray) -> float:
    best = (math.inf, 1.0)
    z = all_logits(params, x)
    for t in np.arange(0.5, 3.01, 0.05):
        _, nll = evaluate(params, x, y, float(t), z)
        best = min(best, (nll, float(t)))
    return best[1]


def train(x: np.ndarray, y: np.ndarray, xv: np.ndarray, yv: np.ndarray, epochs: int, seed: int) -> tuple[dict, float]:
    rng = np.random.default_rng(seed)
    params = net.init_params(rng, CHANNELS, CROP_PX)
    m = {k: np.zeros_like(v) for k, v in params.items()}
    v = {k: np.zeros_like(w) for k, w in params.items()}
    # classes are unbalanced (many "not a die"): weight each class by 1/sqrt(frequency)
    counts = np.bincount(y, minlength=net.CLASSES).astype(np.float64) + 1
    class_weight = (counts.sum() / counts) ** 0.5
    class_weight = (class_weight / class_weight[y].mean()).astype(np.float32)
    step, batch, lr0 = 0, 64, 2e-3
    best = (-1.0, None)
    total_steps = epochs * (len(x) // batch)
    for epoch in range(epochs):
        started = time.time()
        order = rng.permutation(len(x))
        loss_sum = 0.0
        for b in range(len(x) // batch):
            idx = order[b * batch : (b + 1) * batch]
            xb = augment(x[idx], rng)
            yb = y[idx]
            z, state = forward_train(params, xb)
            p = net.softmax(z)
            w = class_weight[yb]
            loss_sum += float((-np.log(p[np.arange(len(yb)), yb] + 1e-9) * w).mean())
            dz = p.copy()
            dz[np.arange(len(yb)), yb] -= 1
            dz *= (w / len(yb))[:, None]
            grads = backward(params, state, dz.astype(np.float32))
            step += 1
            lr = lr0 * 0.5 * (1 + math.cos(math.pi * step / total_steps))
            for k in params:
                g = grads[k] + 1e-4 * params[k]
                m[k] = 0.9 * m[k] + 0.1 * g
                v[k] = 0.999 * v[k] + 0.001 * g * g
                params[k] -= lr * (m[k] / (1 - 0.9**step)) / (np.sqrt(v[k] / (1 - 0.999**step)) + 1e-8)
        acc, nll = evaluate(params, xv, yv) if len(xv) else (float("nan"), float("nan"))
        print(f"epoch {epoch + 1}/{epochs}: loss {loss_sum / max(1, len(x) // batch):.4f}  held-out accuracy {acc:.4f}  nll {nll:.4f}  ({time.time() - started:.0f} s)", flush=True)
        if not len(xv) or acc >= best[0]:
            best = (acc, {k: w.copy() for k, w in params.items()})
    params = best[1]
    temperature = fit_temperature(params, xv, yv) if len(xv) else 1.0
    return params, temperature


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--photos", type=Path, default=DEFAULT_PHOTOS, help="folder with manifest.jsonl (train split used)")
    parser.add_argument("--synthetic", type=int, default=0, help="synthetic scenes to add (vision.synth)")
    parser.add_argument("--epochs", type=int, default=14)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--out", type=Path, default=net.MODEL_PATH)
    args = parser.parse_args()
    cv2.setRNGSeed(args.seed)
    rng = np.random.default_rng(args.seed)
    started = time.time()
    fit, held = photo_dataset(args.photos, rng) if (args.photos / "manifest.jsonl").is_file() else ([], [])
    if args.synthetic:
        fit += synthetic_dataset(args.synthetic, args.seed + 1)
    x, y = stack(fit)
    xv, yv = stack(held)
    print(f"windows: fitting {len(x)} ({np.bincount(y, minlength=net.CLASSES).tolist()}), held out {len(xv)}; {time.time() - started:.0f} s", flush=True)
    params, temperature = train(x, y, xv, yv, args.epochs, args.seed)
    acc, nll = evaluate(params, xv, yv, temperature) if len(xv) else (float("nan"), float("nan"))
    print(f"held-out window accuracy {acc:.4f}, nll {nll:.4f} at temperature {temperature:.2f}")
    meta = {"meta_temperature": np.array(temperature, np.float32)}
    np.savez_compressed(args.out, **{k: w.astype(np.float16) for k, w in params.items()}, **meta)
    print(f"wrote {args.out} ({args.out.stat().st_size} bytes) in {time.time() - started:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
