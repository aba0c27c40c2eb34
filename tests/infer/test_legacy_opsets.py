"""Old since_versions whose rules differ (attributes that later became
inputs, other defaults), against onnx.shape_inference and exact shapes."""
from __future__ import annotations

import numpy as np
import pytest
from onnx import TensorProto, helper, numpy_helper

from onnxstudio import core
from onnxstudio.core.infer import infer

from .oracle import infer_with_onnx

F = TensorProto.FLOAT
X = ("x", F, [2, 3, 4, 6])

CASES = [
    # (id, opset, node, extra initializers, expected shape of "y")
    ("Reshape-1 shape attribute", 1, helper.make_node("Reshape", ["x"], ["y"], shape=[6, -1]), [], (6, 24)),
    ("Slice-1 attributes", 9, helper.make_node("Slice", ["x"], ["y"], starts=[1], ends=[3], axes=[3]),
     [], (2, 3, 4, 2)),
    ("Pad-2 pads attribute", 2, helper.make_node("Pad", ["x"], ["y"], pads=[0, 0, 1, 1, 0, 0, 1, 1]), [], (2, 3, 6, 8)),
    ("Split-2 split attribute", 2, helper.make_node("Split", ["x"], ["y", "y2"], axis=3, split=[2, 4]),
     [], (2, 3, 4, 2)),
    ("Squeeze-1 axes attribute", 1, helper.make_node("Squeeze", ["s"], ["y"], axes=[1]),
     [("s", np.zeros((2, 1, 3), np.float32))], (2, 3)),
    ("Unsqueeze-1 axes attribute", 1, helper.make_node("Unsqueeze", ["x"], ["y"], axes=[0, 5]), [], (1, 2, 3, 4, 6, 1)),
    ("TopK-1 k attribute", 1, helper.make_node("TopK", ["x"], ["y", "i"], k=2), [], (2, 3, 4, 2)),
    ("Upsample-7 scales attribute", 7, helper.make_node("Upsample", ["x"], ["y"], scales=[1.0, 1.0, 2.0, 3.0]),
     [], (2, 3, 8, 18)),
    ("Upsample-9 scales input", 9, helper.make_node("Upsample", ["x", "sc"], ["y"]),
     [("sc", np.array([1, 1, 2, 2], np.float32))], (2, 3, 8, 12)),
    ("Resize-10 scales input", 10, helper.make_node("Resize", ["x", "sc"], ["y"]),
     [("sc", np.array([1, 1, 0.5, 0.5], np.float32))], (2, 3, 2, 3)),
    ("Concat-1 default axis 1", 1, helper.make_node("Concat", ["x", "x"], ["y"]), [], (2, 6, 4, 6)),
    ("Dropout-6 mask like data", 6, helper.make_node("Dropout", ["x"], ["y", "mask"], is_test=1), [], (2, 3, 4, 6)),
    ("ReduceSum-11 axes attribute", 11, helper.make_node("ReduceSum", ["x"], ["y"], axes=[1, 3], keepdims=0),
     [], (2, 4)),
    ("ReduceSum-13 axes input", 13, helper.make_node("ReduceSum", ["x", "ax"], ["y"]),
     [("ax", np.array([-1], np.int64))], (2, 3, 4, 1)),
    ("Flatten-1", 1, helper.make_node("Flatten", ["x"], ["y"], axis=2), [], (6, 24)),
    ("Gemm-6", 6, helper.make_node("Gemm", ["a", "b"], ["y"], transB=1),
     [("a", np.zeros((5, 7), np.float32)), ("b", np.zeros((9, 7), np.float32))], (5, 9)),
    ("MaxPool-1", 1, helper.make_node("MaxPool", ["x"], ["y"], kernel_shape=[2, 2], strides=[2, 2]), [], (2, 3, 2, 3)),
    ("AveragePool-10 ceil_mode", 10,
     helper.make_node("AveragePool", ["x"], ["y"], kernel_shape=[3, 3], strides=[2, 2], ceil_mode=1),
     [], (2, 3, 2, 3)),
    ("DFT-17 axis attribute", 17, helper.make_node("DFT", ["c"], ["y"], axis=1),
     [("c", np.zeros((1, 8, 1), np.float32))], (1, 8, 2)),
]


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_legacy_rule(case):
    _, opset, node, inits, expected = case
    g = helper.make_graph([node], "g", [helper.make_tensor_value_info(*X)],
                          [helper.make_tensor_value_info("y", F, None)],
                          initializer=[numpy_helper.from_array(a, n) for n, a in inits])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)])
    m.ir_version = 7
    ours = infer(core.load_bytes(m.SerializeToString()))
    assert ours["y"].shape == expected
    theirs = infer_with_onnx(m)
    found = {o.name: o for o in list(theirs.graph.output) + list(theirs.graph.value_info)}
    dims = [d.dim_value if d.HasField("dim_value") else None for d in found["y"].type.tensor_type.shape.dim]
    if dims:                    # onnx agrees wherever it knows the shape
        assert tuple(dims) == expected
    for name, vi in found.items():
        if vi.type.tensor_type.elem_type and name in ours:
            assert ours[name].elem_type == vi.type.tensor_type.elem_type, name
