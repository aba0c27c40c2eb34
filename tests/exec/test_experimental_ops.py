"""The experimental operators onnxruntime still runs (Affine, Crop,
DynamicSlice, ImageScaler, ParametricSoftplus, Scale, ScaledTanh) run in our
executor as in onnxruntime (its kernels are plain float arithmetic, so it is
the oracle), and inference types them."""
from __future__ import annotations

import numpy as np
import onnxruntime as ort
import pytest
from onnx import TensorProto, helper, numpy_helper

from onnxstudio.core import load_bytes
from onnxstudio.core.exec.session import Session
from onnxstudio.core.infer import Inference

CASES = [
    ("ImageScaler", dict(bias=[1.0, -1.0], scale=2.0), [2, 2, 1, 2]),
    ("ImageScaler", dict(bias=[0.5, 1.0, -2.0]), [1, 3, 2, 2]),          # scale 1 by default
    ("Crop", dict(border=[1, 1, 0, 0], scale=[2, 2]), [1, 1, 4, 4]),
    ("Crop", dict(border=[0, 1, 1, 0]), [2, 3, 3, 4]),
    ("Scale", {}, [2, 2]),
    ("Scale", dict(scale=-1.5), [2, 3]),
    ("Affine", {}, [2, 2]),
    ("Affine", dict(alpha=2.0, beta=-1.0), [3]),
    ("ScaledTanh", dict(alpha=2.0, beta=0.5), [2, 3]),
    ("ParametricSoftplus", dict(alpha=2.0, beta=0.5), [2, 3]),
    ("ParametricSoftplus", dict(alpha=1.0, beta=30.0), [2, 5]),           # large exponents
]


def _data(op, attrs, shape, inputs=("x",), inits=()) -> bytes:
    g = helper.make_graph([helper.make_node(op, list(inputs), ["y"], **attrs)], "g",
                          [helper.make_tensor_value_info("x", TensorProto.FLOAT, shape)],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)], list(inits))
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", 8)], ir_version=3).SerializeToString()


@pytest.mark.parametrize("op, attrs, shape", CASES)
def test_as_onnxruntime_runs_it(op, attrs, shape):
    data = _data(op, attrs, shape)
    x = (np.arange(np.prod(shape), dtype=np.float32).reshape(shape) - 3) * 2.5
    theirs = ort.InferenceSession(data, providers=["CPUExecutionProvider"]).run(None, {"x": x})[0]
    model = load_bytes(data)
    ours = Session(model).run({"x": x})["y"]
    assert ours.shape == theirs.shape
    np.testing.assert_allclose(ours, theirs, rtol=1e-6, atol=1e-6)
    assert Inference(model).run()["y"].shape == theirs.shape


def test_dynamic_slice_takes_its_bounds_as_inputs():
    inits = [numpy_helper.from_array(np.array([0, 1], np.int64), "s"),
             numpy_helper.from_array(np.array([2, 3], np.int64), "e")]
    data = _data("DynamicSlice", {}, [3, 4], ("x", "s", "e"), inits)
    x = np.arange(12, dtype=np.float32).reshape(3, 4)
    theirs = ort.InferenceSession(data, providers=["CPUExecutionProvider"]).run(None, {"x": x})[0]
    np.testing.assert_array_equal(Session(load_bytes(data)).run({"x": x})["y"], theirs)


def test_a_missing_attribute_is_refused_as_onnxruntime_refuses_it():
    data = _data("ImageScaler", {}, [1, 2, 2, 2])
    with pytest.raises(Exception, match="needs the attribute bias"):
        Session(load_bytes(data)).run({"x": np.zeros((1, 2, 2, 2), np.float32)})
