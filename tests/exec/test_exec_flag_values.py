"""Integer flags the executor reads as onnxruntime runs them: only 1 counts
as set. A pool's ceil_mode 2 rounds down (we rounded up: 2x2 where
onnxruntime gives 1x1), a Reduce's noop_with_empty_axes 2 with empty axes
reduces everything (we returned the input), a Reshape's allowzero 2 copies
the input's dim for a 0 (we refused the target). core.infer reads them the
same way (tests/infer/test_infer_flag_values.py, test_infer_pool_ceil_mode.py).
The oracle is onnxruntime's float run."""
from __future__ import annotations

import numpy as np
import onnx
import onnxruntime as ort
import pytest
from onnx import TensorProto, helper, numpy_helper

from onnxstudio import core
from onnxstudio.core.exec import run

F = TensorProto.FLOAT


def _ours_and_real(node, x, target=None):
    inits = [] if target is None else [numpy_helper.from_array(target, "t")]
    g = helper.make_graph([node], "g", [helper.make_tensor_value_info("x", F, list(x.shape))],
                          [onnx.ValueInfoProto(name="y")], inits)
    m = helper.make_model(g, ir_version=9, opset_imports=[helper.make_opsetid("", 19)])
    sess = ort.InferenceSession(m.SerializeToString(), providers=["CPUExecutionProvider"])
    (real,) = sess.run(None, {"x": x})
    ours = run(core.load_bytes(m.SerializeToString()), {"x": x})["y"]
    return np.asarray(ours), real


@pytest.mark.parametrize("op", ["AveragePool", "MaxPool", "LpPool"])
@pytest.mark.parametrize("ceil_mode", [0, 1, 2, -1])
def test_pools_round_up_for_ceil_mode_1_only(op, ceil_mode):
    x = np.arange(16, dtype=np.float32).reshape(1, 1, 4, 4)
    node = helper.make_node(op, ["x"], ["y"], kernel_shape=[3, 3], strides=[2, 2], ceil_mode=ceil_mode)
    ours, real = _ours_and_real(node, x)
    assert ours.shape == real.shape
    np.testing.assert_allclose(ours, real, rtol=1e-6)


@pytest.mark.parametrize("flag", [0, 1, 2, -1])
def test_noop_with_empty_axes_is_a_noop_for_1_only(flag):
    x = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    node = helper.make_node("ReduceSum", ["x", "t"], ["y"], noop_with_empty_axes=flag)
    ours, real = _ours_and_real(node, x, np.array([], np.int64))
    assert ours.shape == real.shape
    np.testing.assert_allclose(ours, real, rtol=1e-6)


@pytest.mark.parametrize("flag", [0, 2, -1])
def test_allowzero_other_than_1_copies_the_dim(flag):
    x = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    node = helper.make_node("Reshape", ["x", "t"], ["y"], allowzero=flag)
    ours, real = _ours_and_real(node, x, np.array([0, 12], np.int64))
    assert ours.shape == real.shape == (2, 12)
    np.testing.assert_array_equal(ours, real)
