"""A pool rounds its output sizes up for ceil_mode 1 only: onnx's inference
and onnxruntime round down for 2 or -1 (the checker does not flag them), and we
read any non-zero value as "round up" (a fuzzed test_averagepool_2d_ceil
with ceil_mode 2: we said 2x2, the run gives 1x1). The oracle is
onnxruntime's float run."""
from __future__ import annotations

import numpy as np
import onnxruntime as ort
import pytest
from onnx import TensorProto, helper

from onnxstudio import core
from onnxstudio.core.infer import infer

F = TensorProto.FLOAT


@pytest.mark.parametrize("op", ["AveragePool", "MaxPool"])
@pytest.mark.parametrize("ceil_mode", [0, 1, 2, -1])
def test_pool_output_size_follows_the_run_for_every_ceil_mode(op, ceil_mode):
    node = helper.make_node(op, ["x"], ["y"], kernel_shape=[3, 3], strides=[2, 2], ceil_mode=ceil_mode)
    g = helper.make_graph([node], "g", [helper.make_tensor_value_info("x", F, [1, 1, 4, 4])],
                          [helper.make_tensor_value_info("y", F, None)])
    m = helper.make_model(g, ir_version=9, opset_imports=[helper.make_opsetid("", 19)])
    sess = ort.InferenceSession(m.SerializeToString(), providers=["CPUExecutionProvider"])
    (real,) = sess.run(None, {"x": np.ones((1, 1, 4, 4), np.float32)})
    assert infer(core.load_bytes(m.SerializeToString()))["y"].shape == real.shape
