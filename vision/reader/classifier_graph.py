"""The die-value network as data: a layer list, its ONNX graph for OpenCV's dnn, and a numpy
reference forward pass.

A network is a list of layers (plain dicts, stored as JSON in the model file) and a dict of
weight arrays named `l<index>_w` / `l<index>_b`:
  {"op": "conv", "stride": s, "pad": p, "group": g}   weights O x I/g x k x k, bias O
  {"op": "relu"}
  {"op": "maxpool"}                                    2x2, stride 2
  {"op": "gap"}                                        global average pool -> N x C
  {"op": "flatten"}                                    N x C x H x W -> N x CHW
  {"op": "dense"}                                      weights out x in, bias out
Batch normalisation is folded into the convolutions when the model is exported, so the
device runs only these ops. The ONNX protobuf is written with the small helpers of
`onnx_graph` (no `onnx` package on the Pi); the numpy forward is the slow, obviously
correct twin the tests compare the graph against.
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from vision.reader.onnx_graph import _attr_int, _attr_ints, _bytes, _int, _node, _str, _tensor, _value_info

Layer = dict[str, Any]


def network_onnx(layers: Sequence[Layer], weights: dict[str, np.ndarray], in_channels: int, side: int,
                 name: str = "die_values") -> bytes:
    """ONNX bytes of the network for N x in_channels x side x side float input -> N x classes logits."""
    nodes: list[bytes] = []
    initializers: list[bytes] = []
    current = "x"
    outputs = 0
    for i, layer in enumerate(layers):
        op = layer["op"]
        out = f"t{i}"
        if op == "conv":
            w, b = weights[f"l{i}_w"], weights[f"l{i}_b"]
            k = w.shape[2]
            pad, stride = int(layer.get("pad", k // 2)), int(layer.get("stride", 1))
            initializers += [_tensor(f"l{i}_w", w), _tensor(f"l{i}_b", b)]
            nodes.append(_node("Conv", [current, f"l{i}_w", f"l{i}_b"], [out], f"conv{i}", [
                _attr_ints("kernel_shape", [k, k]), _attr_ints("pads", [pad] * 4),
                _attr_ints("strides", [stride, stride]), _attr_int("group", int(layer.get("group", 1)))]))
        elif op == "relu":
            nodes.append(_node("Relu", [current], [out], f"relu{i}"))
        elif op == "maxpool":
            nodes.append(_node("MaxPool", [current], [out], f"pool{i}",
                               [_attr_ints("kernel_shape", [2, 2]), _attr_ints("strides", [2, 2])]))
        elif op == "gap":
            nodes.append(_node("GlobalAveragePool", [current], [f"g{i}"], f"gap{i}"))
            nodes.append(_node("Flatten", [f"g{i}"], [out], f"gapflat{i}", [_attr_int("axis", 1)]))
        elif op == "flatten":
            nodes.append(_node("Flatten", [current], [out], f"flatten{i}", [_attr_int("axis", 1)]))
        elif op == "dense":
            w, b = weights[f"l{i}_w"], weights[f"l{i}_b"]
            initializers += [_tensor(f"l{i}_w", w.T), _tensor(f"l{i}_b", b)]
            nodes.append(_node("Gemm", [current, f"l{i}_w", f"l{i}_b"], [out], f"dense{i}"))
            outputs = w.shape[0]
        else:
            raise ValueError(f"unknown layer op {op!r}")
        current = out
    nodes.append(_node("Identity", [current], ["logits"], "output"))
    graph = b"".join(_bytes(1, n) for n in nodes) + _str(2, name)
    graph += b"".join(_bytes(5, t) for t in initializers)
    graph += _bytes(11, _value_info("x", ["N", in_channels, side, side]))
    graph += _bytes(12, _value_info("logits", ["N", outputs]))
    opset = _str(1, "") + _int(2, 13)
    return _int(1, 7) + _str(2, "cubilete") + _bytes(7, graph) + _bytes(8, opset)


def _conv(x: np.ndarray, w: np.ndarray, b: np.ndarray, stride: int, pad: int, group: int) -> np.ndarray:
    n, c, h, width = x.shape
    o, cg, k, _ = w.shape
    x = np.pad(x, ((0, 0), (0, 0), (pad, pad), (pad, pad)))
    oh, ow = (h + 2 * pad - k) // stride + 1, (width + 2 * pad - k) // stride + 1
    out = np.empty((n, o, oh, ow), np.float32)
    og = o // group
    for g in range(group):
        xs = x[:, g * cg:(g + 1) * cg]
        cols = np.empty((n, cg, k, k, oh, ow), np.float32)
        for dy in range(k):
            for dx in range(k):
                cols[:, :, dy, dx] = xs[:, :, dy:dy + stride * oh:stride, dx:dx + stride * ow:stride]
        wg = w[g * og:(g + 1) * og].reshape(og, -1)
        out[:, g * og:(g + 1) * og] = np.einsum("ok,nkhw->nohw", wg, cols.reshape(n, cg * k * k, oh, ow))
    return out + b[None, :, None, None]


def forward(layers: Sequence[Layer], weights: dict[str, np.ndarray], x: np.ndarray) -> np.ndarray:
    """The network's logits computed with numpy (reference and fallback; slow)."""
    x = np.asarray(x, np.float32)
    for i, layer in enumerate(layers):
        op = layer["op"]
        if op == "conv":
            w = weights[f"l{i}_w"]
            x = _conv(x, w, weights[f"l{i}_b"], int(layer.get("stride", 1)), int(layer.get("pad", w.shape[2] // 2)),
                      int(layer.get("group", 1)))
        elif op == "relu":
            x = np.maximum(x, 0)
        elif op == "maxpool":
            n, c, h, w_ = x.shape
            x = x[:, :, :h // 2 * 2, :w_ // 2 * 2].reshape(n, c, h // 2, 2, w_ // 2, 2).max(axis=(3, 5))
        elif op == "gap":
            x = x.mean(axis=(2, 3))
        elif op == "flatten":
            x = x.reshape(x.shape[0], -1)
        elif op == "dense":
            x = x @ weights[f"l{i}_w"].T + weights[f"l{i}_b"]
        else:
            raise ValueError(f"unknown layer op {op!r}")
    return x
