"""Hostile models built on purpose: each is well-formed protobuf whose
structure asks for something absurd. Every builder writes `model.onnx` (and
whatever it needs beside it) into a folder and returns the model's path.
"""
from __future__ import annotations

import os
import pathlib

from onnxstudio.core.proto import onnx_pb2 as pb
from onnxstudio.core.serde.wire import encode_varint

FLOAT, INT64 = 1, 7
HUGE = 10**12


def _model(graph: pb.GraphProto, opset: int = 18) -> pb.ModelProto:
    m = pb.ModelProto(ir_version=8, producer_name="fuzz-hostile", graph=graph)
    m.opset_import.add(domain="", version=opset)
    return m


def _value(name: str, dims, elem=FLOAT) -> pb.ValueInfoProto:
    v = pb.ValueInfoProto(name=name)
    v.type.tensor_type.elem_type = elem
    shape = v.type.tensor_type.shape
    shape.SetInParent()                 # a scalar has a shape with no dims
    for d in dims:
        if isinstance(d, str):
            shape.dim.add(dim_param=d)
        else:
            shape.dim.add(dim_value=d)
    return v


def _node(op, inputs, outputs, name="", **attrs) -> pb.NodeProto:
    n = pb.NodeProto(op_type=op, input=inputs, output=outputs, name=name)
    for key, value in attrs.items():
        a = n.attribute.add(name=key)
        if isinstance(value, pb.GraphProto):
            a.type = pb.AttributeProto.GRAPH
            a.g.CopyFrom(value)
        elif isinstance(value, pb.TensorProto):
            a.type = pb.AttributeProto.TENSOR
            a.t.CopyFrom(value)
        elif isinstance(value, int):
            a.type, a.i = pb.AttributeProto.INT, value
        elif isinstance(value, list):
            a.type = pb.AttributeProto.INTS
            a.ints.extend(value)
    return n


def _write(folder: pathlib.Path, m: pb.ModelProto) -> pathlib.Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "model.onnx"
    path.write_bytes(m.SerializeToString())
    return path


def huge_input(folder):
    """A graph input of 10**12 floats: `run --random` would have to make it."""
    g = pb.GraphProto(name="huge_input", node=[_node("Relu", ["x"], ["y"])],
                      input=[_value("x", [HUGE])], output=[_value("y", [HUGE])])
    return _write(folder, _model(g))


def huge_initializer(folder):
    """An initializer whose dims claim 10**12 elements but which holds 4 bytes."""
    t = pb.TensorProto(name="w", dims=[10**6, 10**6], data_type=FLOAT, raw_data=b"\0\0\0\0")
    g = pb.GraphProto(name="huge_initializer", node=[_node("Add", ["x", "w"], ["y"])],
                      input=[_value("x", [1])], output=[_value("y", [10**6, 10**6])], initializer=[t])
    return _write(folder, _model(g))


def huge_constant_of_shape(folder):
    """ConstantOfShape asked for a 10**6 x 10**6 tensor: small file, 4 TB result."""
    shape = pb.TensorProto(name="shape", dims=[2], data_type=INT64, int64_data=[10**6, 10**6])
    g = pb.GraphProto(name="huge_constant_of_shape",
                      node=[_node("ConstantOfShape", ["shape"], ["y"])],
                      output=[_value("y", [10**6, 10**6])], initializer=[shape])
    return _write(folder, _model(g))


def _field(number: int, payload: bytes) -> bytes:
    """One length-delimited field, written by hand: protobuf's own objects
    refuse to hold messages nested past its depth limit."""
    return encode_varint((number << 3) | 2) + encode_varint(len(payload)) + payload


def deep_if(folder, depth: int = 100):
    """If inside the then-branch of an If, `depth` levels down (each level is
    three protobuf messages deep: graph, node, attribute)."""
    body = pb.GraphProto(name=f"level{depth}", node=[_node("Identity", ["x"], [f"out{depth}"])],
                         output=[_value(f"out{depth}", [1])]).SerializeToString()
    for level in range(depth - 1, -1, -1):
        other = pb.GraphProto(name=f"else{level}", node=[_node("Identity", ["x"], [f"e{level}"])],
                              output=[_value(f"e{level}", [1])])
        node = _node("If", ["c"], [f"out{level}"], name=f"if{level}", else_branch=other).SerializeToString()
        then = pb.AttributeProto(name="then_branch", type=pb.AttributeProto.GRAPH).SerializeToString()
        node += _field(5, then + _field(6, body))                      # NodeProto.attribute, .g
        head = pb.GraphProto(name=f"level{level}", output=[_value(f"out{level}", [1])])
        if level == 0:
            head.input.extend([_value("c", [], elem=9), _value("x", [1])])
            head.name = "deep_if"
        body = head.SerializeToString() + _field(1, node)              # GraphProto.node
    m = _model(pb.GraphProto())
    m.ClearField("graph")
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "model.onnx"
    path.write_bytes(m.SerializeToString() + _field(7, body))          # ModelProto.graph
    return path


def cycle(folder):
    """Two nodes that feed each other."""
    g = pb.GraphProto(name="cycle", node=[_node("Add", ["x", "b"], ["a"], name="A"),
                                          _node("Relu", ["a"], ["b"], name="B")],
                      input=[_value("x", [2])], output=[_value("b", [2])])
    return _write(folder, _model(g))


def many_identities(folder, count: int = 10**6):
    """A chain of `count` Identity nodes (about 30 MB of graph)."""
    g = pb.GraphProto(name="many_identities", input=[_value("v0", [1])], output=[_value(f"v{count}", [1])])
    for i in range(count):
        g.node.add(op_type="Identity", input=[f"v{i}"], output=[f"v{i + 1}"])
    return _write(folder, _model(g))


def _external_model(folder, location: str, length: int = 16):
    t = pb.TensorProto(name="w", dims=[length // 4], data_type=FLOAT, data_location=1)
    t.external_data.add(key="location", value=location)
    t.external_data.add(key="length", value=str(length))
    g = pb.GraphProto(name="external", node=[_node("Add", ["x", "w"], ["y"])],
                      input=[_value("x", [length // 4])], output=[_value("y", [length // 4])],
                      initializer=[t])
    return _write(folder, _model(g))


def external_dev_zero(folder):
    """External data at the absolute path /dev/zero."""
    return _external_model(folder, "/dev/zero")


def external_link_to_dev_zero(folder):
    """External data through a link in the model's folder to /dev/zero, 10**12 bytes claimed."""
    folder.mkdir(parents=True, exist_ok=True)
    os.symlink("/dev/zero", folder / "weights.bin")
    return _external_model(folder, "weights.bin", length=4 * 10**12)


def external_fifo(folder):
    """External data in a FIFO nobody writes to: opening it would block forever."""
    folder.mkdir(parents=True, exist_ok=True)
    os.mkfifo(folder / "weights.bin")
    return _external_model(folder, "weights.bin")


def external_folder(folder):
    """External data 'file' that is a folder."""
    (folder / "weights.bin").mkdir(parents=True)
    return _external_model(folder, "weights.bin")


def deep_if_25(folder):
    """25 levels of If: as deep as protobuf can read (about 31), so every stage must cope."""
    return deep_if(folder, 25)


BUILDERS = {f.__name__: f for f in (huge_input, huge_initializer, huge_constant_of_shape, deep_if, deep_if_25, cycle,
                                    many_identities, external_dev_zero, external_link_to_dev_zero,
                                    external_fifo, external_folder)}
