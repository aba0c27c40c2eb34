"""Flags onnxruntime reads as "== 1": noop_with_empty_axes 2 on a Reduce
with empty axes reduces everything at run (we said the input's shape,
[2,3,4] for a [1,1,1] output), and allowzero 2 on a Reshape copies the
input's dim for a 0 (we said unknown). onnx's inference reads both as 1;
the run is the truth here. The oracle is onnxruntime's float run."""
from __future__ import annotations

import numpy as np
import onnx
import onnxruntime as ort
import pytest
from onnx import TensorProto, helper, numpy_helper

from onnxstudio import core
from onnxstudio.core.infer import infer

F = TensorProto.FLOAT


def _ours_and_real(node, target):
    g = helper.make_graph([node], "g", [helper.make_tensor_value_info("x", F, [2, 3, 4])],
                          [onnx.ValueInfoProto(name="y")], [numpy_helper.from_array(target, "t")])
    m = helper.make_model(g, ir_version=9, opset_imports=[helper.make_opsetid("", 19)])
    sess = ort.InferenceSession(m.SerializeToString(), providers=["CPUExecutionProvider"])
    (real,) = sess.run(None, {"x": np.ones((2, 3, 4), np.float32)})
    return infer(core.load_bytes(m.SerializeToString()))["y"].shape, real.shape


@pytest.mark.parametrize("flag", [0, 1, 2, -1])
def test_noop_with_empty_axes_is_a_noop_for_1_only(flag):
    node = helper.make_node("ReduceSum", ["x", "t"], ["y"], noop_with_empty_axes=flag)
    ours, real = _ours_and_real(node, np.array([], np.int64))
    assert ours == real


@pytest.mark.parametrize("flag", [0, 2, -1])
def test_allowzero_other_than_1_copies_the_dim(flag):
    node = helper.make_node("Reshape", ["x", "t"], ["y"], allowzero=flag)
    ours, real = _ours_and_real(node, np.array([0, 12], np.int64))
    assert ours == real == (2, 12)
