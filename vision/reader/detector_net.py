"""The die detector's network: its layout, its ONNX graph and a numpy reference forward.

A small fully convolutional network (CenterNet-like) that looks at the whole image once
and gives, on a grid of cells `STRIDE` input pixels apart, OUTPUTS maps:
  0  die-centre logit: high in the cell holding the centre of a die's top face;
  1  x offset, 2 y offset of that centre inside its cell (0..1 cell);
  3  log(top-face edge / `SIZE_UNIT` input px);
  4  cos(4 angle), 5 sin(4 angle) (the edge direction modulo 90 degrees);
  6  cocked logit (the top face is not flat to the camera).

Layout: a stride-2 stem, then stages of (3x3 stride-2 conv, 3x3 conv) at strides 4, 8, 16
and 32, every conv followed by ReLU (batch norm is folded into the weights at export); a
top-down path brings the coarse features back to stride 4 (1x1 conv, nearest x2 upsample,
add the stage's own features, 3x3 conv), and a 3x3 conv + 1x1 conv head gives the maps.
The coarse stages see a whole die and its neighbours (big dice, touching dice); the
stride-4 features place the centre.

The weights (`die_detector.npz`, float16) are made by `scripts/train_detector.py`, whose
PyTorch model has exactly these layers (plus batch norm before folding).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

MODEL_PATH = Path(__file__).with_name("die_detector.npz")
OUTPUTS = 7
STRIDE = 4  # input pixels per output cell
ALIGN = 32  # input sides must be multiples of this (the coarsest stage's stride, 2 ** 5)
SIZE_UNIT = 16.0
HEAT, OFFSET_X, OFFSET_Y, LOG_SIZE, COS4, SIN4, COCKED = range(OUTPUTS)


@dataclass(frozen=True)
class Layout:
    """The channel widths; the model file says which it was trained with."""

    stem: int = 16
    stages: tuple[int, ...] = (16, 24, 40, 64)  # at strides 4, 8, 16, 32
    head: int = 24

    def to_array(self) -> np.ndarray:
        return np.array([self.stem, self.head, *self.stages], np.int32)

    @classmethod
    def from_array(cls, array: np.ndarray) -> "Layout":
        values = [int(v) for v in array]
        return cls(values[0], tuple(values[2:]), values[1])


def layer_shapes(layout: Layout) -> dict[str, tuple[int, ...]]:
    """Every conv's weight shape (OIHW) by name, in forward order."""
    stages = layout.stages
    shapes: dict[str, tuple[int, ...]] = {"stem": (layout.stem, 3, 3, 3)}
    cin = layout.stem
    for i, w in enumerate(stages):
        shapes[f"down{i}"] = (w, cin, 3, 3)
        shapes[f"conv{i}"] = (w, w, 3, 3)
        cin = w
    for i in reversed(range(len(stages) - 1)):
        shapes[f"lateral{i}"] = (stages[i], stages[i + 1], 1, 1)
        shapes[f"merge{i}"] = (stages[i], stages[i], 3, 3)
    shapes["head"] = (layout.head, stages[0], 3, 3)
    shapes["out"] = (OUTPUTS, layout.head, 1, 1)
    return shapes


def stage_count(params: dict[str, np.ndarray]) -> int:
    return sum(1 for k in params if k.startswith("down") and k.endswith("_w"))


def load_params(path: Path = MODEL_PATH) -> dict[str, np.ndarray]:
    """`{name}_w` (OIHW) and `{name}_b` float32 arrays for every layer, checked against
    the layout stored in the file (`meta_layout`)."""
    with np.load(path) as data:
        params = {k: data[k].astype(np.float32) for k in data.files if not k.startswith("meta_")}
        if "meta_layout" not in data.files:
            raise ValueError(f"{path}: no meta_layout (not a die detector model)")
        layout = Layout.from_array(data["meta_layout"])
    for name, shape in layer_shapes(layout).items():
        if params.get(f"{name}_w") is None or params[f"{name}_w"].shape != shape:
            raise ValueError(f"{path}: layer {name} missing or not {shape}")
    return params


def build_onnx(params: dict[str, np.ndarray]) -> bytes:
    """The network as ONNX bytes: input "x" 1 x 3 x H x W, output "maps" 1 x OUTPUTS x H/4 x W/4."""
    from vision.reader.onnx_graph import GraphBuilder

    g = GraphBuilder("die_detector")

    def conv(x: str, name: str, stride: int = 1, relu: bool = True, out: str | None = None) -> str:
        y = g.conv(x, params[f"{name}_w"], params[f"{name}_b"], stride=stride, out=None if relu else out)
        return g.relu(y) if relu else y

    x = conv("x", "stem", stride=2)
    features = []
    stages = stage_count(params)
    for i in range(stages):
        x = conv(conv(x, f"down{i}", stride=2), f"conv{i}")
        features.append(x)
    y = features[-1]
    for i in reversed(range(stages - 1)):
        y = g.upsample2(conv(y, f"lateral{i}", relu=False))
        y = conv(g.add(y, features[i]), f"merge{i}")
    conv(conv(y, "head"), "out", relu=False, out="maps")
    return g.build({"x": [1, 3, "H", "W"]}, {"maps": [1, OUTPUTS, "h", "w"]})


# ------------------------------------------------------------------ numpy reference


def _conv(x: np.ndarray, w: np.ndarray, b: np.ndarray, stride: int = 1) -> np.ndarray:
    """'Same' zero-padded convolution of a C x H x W array with OIHW weights."""
    cout, cin, kh, kw = w.shape
    ph, pw = kh // 2, kw // 2
    padded = np.pad(x, ((0, 0), (ph, ph), (pw, pw)))
    h = (x.shape[1] + 2 * ph - kh) // stride + 1
    wd = (x.shape[2] + 2 * pw - kw) // stride + 1
    cols = np.empty((cin, kh, kw, h, wd), np.float32)
    for dy in range(kh):
        for dx in range(kw):
            cols[:, dy, dx] = padded[:, dy : dy + stride * h : stride, dx : dx + stride * wd : stride]
    out = w.reshape(cout, -1) @ cols.reshape(cin * kh * kw, h * wd)
    return (out + b[:, None]).reshape(cout, h, wd)


def forward_numpy(params: dict[str, np.ndarray], x: np.ndarray) -> np.ndarray:
    """The same maps as the ONNX graph for a 1 x 3 x H x W input (slow; for tests)."""

    def conv(v: np.ndarray, name: str, stride: int = 1, relu: bool = True) -> np.ndarray:
        y = _conv(v, params[f"{name}_w"], params[f"{name}_b"], stride)
        return np.maximum(y, 0) if relu else y

    v = conv(x[0].astype(np.float32), "stem", 2)
    features = []
    stages = stage_count(params)
    for i in range(stages):
        v = conv(conv(v, f"down{i}", 2), f"conv{i}")
        features.append(v)
    y = features[-1]
    for i in reversed(range(stages - 1)):
        y = conv(y, f"lateral{i}", relu=False).repeat(2, axis=1).repeat(2, axis=2)
        y = conv(y + features[i], f"merge{i}")
    return conv(conv(y, "head"), "out", relu=False)[None]
