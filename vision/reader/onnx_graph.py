"""Small networks as ONNX graphs, built in memory for OpenCV's dnn module.

OpenCV's dnn runs our networks several times faster than numpy, and it reads ONNX. The
weights stay in `.npz` files; this module writes the few ONNX protobuf messages the graphs
need by hand, so no `onnx` package is needed on the Pi. Field numbers follow onnx.proto
(ModelProto, GraphProto, NodeProto, AttributeProto, TensorProto, ValueInfoProto).

`GraphBuilder` assembles a graph from the ops our networks use (Conv with stride, padding
and groups, Relu, Add, Concat, nearest Resize, Sigmoid, MaxPool). Only ops that OpenCV's
classic and new dnn engines both run are used.
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
ATTR_FLOAT, ATTR_INT, ATTR_STRING, ATTR_INTS = 1, 2, 3, 7  # AttributeProto.AttributeType


def _tensor(name: str, array: np.ndarray) -> bytes:
    array = np.ascontiguousarray(array, dtype="<f4")
    dims = b"".join(_int(1, d) for d in array.shape)
    return dims + _int(2, FLOAT) + _str(8, name) + _bytes(9, array.tobytes())


def _attr_ints(name: str, values: list[int]) -> bytes:
    return _str(1, name) + _int(20, ATTR_INTS) + b"".join(_int(8, v) for v in values)


def _attr_int(name: str, value: int) -> bytes:
    return _str(1, name) + _int(20, ATTR_INT) + _int(3, value)


def _attr_str(name: str, value: str) -> bytes:
    return _str(1, name) + _int(20, ATTR_STRING) + _str(4, value)


def _node(op: str, inputs: list[str], outputs: list[str], name: str, attributes: list[bytes] = ()) -> bytes:
    body = b"".join(_str(1, i) for i in inputs) + b"".join(_str(2, o) for o in outputs)
    body += _str(3, name) + _str(4, op) + b"".join(_bytes(5, a) for a in attributes)
    return body


def _value_info(name: str, dims: list[int | str]) -> bytes:
    shape = b"".join(_bytes(1, _str(2, d) if isinstance(d, str) else _int(1, d)) for d in dims)
    tensor_type = _int(1, FLOAT) + _bytes(2, shape)
    return _str(1, name) + _bytes(2, _bytes(1, tensor_type))


class GraphBuilder:
    """Collects nodes and weights, then `build()` gives the ONNX model bytes.

    Every method adds one op and returns the name of its output, so a network reads as its
    forward pass: `y = g.relu(g.conv(x, w, b, stride=2))`. Input and outputs are float32
    NCHW; their spatial sizes may be left symbolic (any image size)."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.nodes: list[bytes] = []
        self.initializers: list[bytes] = []
        self._count = 0

    def _fresh(self, prefix: str) -> str:
        self._count += 1
        return f"{prefix}{self._count}"

    def constant(self, array: np.ndarray, prefix: str = "k") -> str:
        name = self._fresh(prefix)
        self.initializers.append(_tensor(name, array))
        return name

    def op(self, op: str, inputs: list[str], attributes: list[bytes] = (), prefix: str = "t",
           out: str | None = None) -> str:
        """Add one node; its output is `out` (a graph output's name) or a fresh name."""
        out = out or self._fresh(prefix)
        self.nodes.append(_node(op, inputs, [out], f"{op.lower()}_{out}", list(attributes)))
        return out

    def conv(self, x: str, weight: np.ndarray, bias: np.ndarray, stride: int = 1, group: int = 1,
             out: str | None = None) -> str:
        """Convolution with OIHW `weight` and 'same' zero padding for odd kernels."""
        kh, kw = weight.shape[2:]
        attributes = [_attr_ints("kernel_shape", [kh, kw]), _attr_ints("strides", [stride, stride]),
                      _attr_ints("pads", [kh // 2, kw // 2, kh // 2, kw // 2])]
        if group != 1:
            attributes.append(_attr_int("group", group))
        return self.op("Conv", [x, self.constant(weight, "w"), self.constant(bias, "b")], attributes, "c", out)

    def relu(self, x: str) -> str:
        return self.op("Relu", [x])

    def sigmoid(self, x: str, out: str | None = None) -> str:
        return self.op("Sigmoid", [x], out=out)

    def add(self, a: str, b: str) -> str:
        return self.op("Add", [a, b])

    def concat(self, parts: list[str], axis: int = 1) -> str:
        return self.op("Concat", parts, [_attr_int("axis", axis)])

    def max_pool(self, x: str, size: int = 2) -> str:
        return self.op("MaxPool", [x], [_attr_ints("kernel_shape", [size, size]), _attr_ints("strides", [size, size])])

    def upsample2(self, x: str) -> str:
        """Nearest-neighbour resize by two in height and width (each pixel becomes 2x2)."""
        roi = self.constant(np.zeros(0, np.float32), "roi")
        scales = self.constant(np.array([1, 1, 2, 2], np.float32), "scales")
        return self.op("Resize", [x, roi, scales], [_attr_str("mode", "nearest"),
                                                    _attr_str("coordinate_transformation_mode", "asymmetric"),
                                                    _attr_str("nearest_mode", "floor")])

    def build(self, inputs: dict[str, list[int | str]], outputs: dict[str, list[int | str]]) -> bytes:
        """The model bytes; `inputs`/`outputs` map tensor names to their dims."""
        graph = b"".join(_bytes(1, n) for n in self.nodes) + _str(2, self.name)
        graph += b"".join(_bytes(5, t) for t in self.initializers)
        graph += b"".join(_bytes(11, _value_info(n, d)) for n, d in inputs.items())
        graph += b"".join(_bytes(12, _value_info(n, d)) for n, d in outputs.items())
        opset = _str(1, "") + _int(2, 13)
        return _int(1, 7) + _str(2, "cubilete") + _bytes(7, graph) + _bytes(8, opset)
