"""The die classifier as an ONNX graph, built in memory for OpenCV's dnn module.

OpenCV's dnn runs the network several times faster than numpy, and it reads ONNX. The
weights stay in the `.npz` file; this module writes the few ONNX protobuf messages the
graph needs (Conv, Relu, MaxPool, Flatten, Gemm) by hand, so no `onnx` package is needed
on the Pi. Field numbers follow onnx.proto (ModelProto, GraphProto, NodeProto,
AttributeProto, TensorProto, ValueInfoProto).
"""

from __future__ import annotations

import struct

import numpy as np

# ----------------------------------------------------------------- protobuf wire format


def _varint(value: int) -> bytes:
    out = bytearray()
    value &= (1 << 64) - 1
    while True:
        byte = value & 0x7F
        value >>= 7
        if value:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)


def _key(field: int, wire: int) -> bytes:
    return _varint((field << 3) | wire)


def _int(field: int, value: int) -> bytes:
    return _key(field, 0) + _varint(value)


def _bytes(field: int, data: bytes) -> bytes:
    return _key(field, 2) + _varint(len(data)) + data


def _str(field: int, text: str) -> bytes:
    return _bytes(field, text.encode())


def _float(field: int, value: float) -> bytes:
    return _key(field, 5) + struct.pack("<f", value)


# ----------------------------------------------------------------- ONNX messages

FLOAT = 1  # TensorProto.DataType
ATTR_INT, ATTR_INTS = 2, 7  # AttributeProto.AttributeType


def _tensor(name: str, array: np.ndarray) -> bytes:
    array = np.ascontiguousarray(array, dtype="<f4")
    dims = b"".join(_int(1, d) for d in array.shape)
    return dims + _int(2, FLOAT) + _str(8, name) + _bytes(9, array.tobytes())


def _attr_ints(name: str, values: list[int]) -> bytes:
    return _str(1, name) + _int(20, ATTR_INTS) + b"".join(_int(8, v) for v in values)


def _attr_int(name: str, value: int) -> bytes:
    return _str(1, name) + _int(20, ATTR_INT) + _int(3, value)


def _node(op: str, inputs: list[str], outputs: list[str], name: str, attributes: list[bytes] = ()) -> bytes:
    body = b"".join(_str(1, i) for i in inputs) + b"".join(_str(2, o) for o in outputs)
    body += _str(3, name) + _str(4, op) + b"".join(_bytes(5, a) for a in attributes)
    return body


def _value_info(name: str, dims: list[int | str]) -> bytes:
    shape = b"".join(_bytes(1, _str(2, d) if isinstance(d, str) else _int(1, d)) for d in dims)
    tensor_type = _int(1, FLOAT) + _bytes(2, shape)
    return _str(1, name) + _bytes(2, _bytes(1, tensor_type))


def classifier_onnx(params: dict[str, np.ndarray], conv_count: int, in_channels: int, crop_px: int) -> bytes:
    """ONNX bytes computing the same logits as `net.logits` for N x C x H x W input."""
    nodes: list[bytes] = []
    initializers: list[bytes] = []
    current = "x"
    cin = in_channels
    side = crop_px
    for i in range(conv_count):
        w = params[f"w{i}"]
        cout = w.shape[1]
        kernel = w.reshape(3, 3, cin, cout).transpose(3, 2, 0, 1)  # rows (dy, dx, c) -> OIHW
        initializers += [_tensor(f"w{i}", kernel), _tensor(f"b{i}", params[f"b{i}"])]
        nodes.append(_node("Conv", [current, f"w{i}", f"b{i}"], [f"c{i}"], f"conv{i}",
                           [_attr_ints("kernel_shape", [3, 3]), _attr_ints("pads", [1, 1, 1, 1]),
                            _attr_ints("strides", [1, 1])]))
        nodes.append(_node("Relu", [f"c{i}"], [f"r{i}"], f"relu{i}"))
        nodes.append(_node("MaxPool", [f"r{i}"], [f"p{i}"], f"pool{i}",
                           [_attr_ints("kernel_shape", [2, 2]), _attr_ints("strides", [2, 2])]))
        current = f"p{i}"
        cin = cout
        side //= 2
    # numpy flattens channels last (h, w, c); ONNX Flatten of NCHW gives (c, h, w)
    wh = params["wh"].reshape(side, side, cin, -1).transpose(2, 0, 1, 3).reshape(cin * side * side, -1)
    initializers += [_tensor("wh", wh), _tensor("bh", params["bh"]), _tensor("wo", params["wo"]), _tensor("bo", params["bo"])]
    nodes.append(_node("Flatten", [current], ["flat"], "flatten", [_attr_int("axis", 1)]))
    nodes.append(_node("Gemm", ["flat", "wh", "bh"], ["hidden_pre"], "hidden"))
    nodes.append(_node("Relu", ["hidden_pre"], ["hidden_out"], "hidden_relu"))
    nodes.append(_node("Gemm", ["hidden_out", "wo", "bo"], ["logits"], "logits"))
    graph = b"".join(_bytes(1, n) for n in nodes) + _str(2, "die_classifier")
    graph += b"".join(_bytes(5, t) for t in initializers)
    graph += _bytes(11, _value_info("x", ["N", in_channels, crop_px, crop_px]))
    graph += _bytes(12, _value_info("logits", ["N", params["wo"].shape[1]]))
    opset = _str(1, "") + _int(2, 13)
    return _int(1, 7) + _str(2, "cubilete") + _bytes(7, graph) + _bytes(8, opset)
