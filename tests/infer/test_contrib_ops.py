"""Inference rules for onnxruntime's quantized com.microsoft operators,
checked against the shapes and types onnxruntime's own run produces."""
from __future__ import annotations

import numpy as np
import pytest

from onnxstudio.core.infer import infer

from .helpers import F, helper, make_model, node, out

ort = pytest.importorskip("onnxruntime")
U8, I8, BOOL = 2, 3, 9      # TensorProto.UINT8, INT8, BOOL
MS = {"com.microsoft": 1}


def _scalars(prefix, zp_type):
    return [(f"{prefix}_s", np.array(0.05, np.float32)),
            (f"{prefix}_z", np.array(3, np.uint8 if zp_type == U8 else np.int8))]


def _check_against_onnxruntime(nodes, inputs, inits, out_elem=U8):
    """Our inferred type of "y" equals what onnxruntime's run gives."""
    m = make_model(nodes, inputs, [out("y", out_elem)], initializers=inits, opset=17, extra_opsets=MS)
    got = infer(m)["y"]
    g = helper.make_graph(nodes, "g", [helper.make_tensor_value_info(n, e, s) for n, e, s in inputs],
                          [helper.make_tensor_value_info("y", out_elem, None)],
                          initializer=[helper.make_tensor(n, {np.float32: 1, np.uint8: U8, np.int8: I8}[a.dtype.type],
                                                          a.shape, a.reshape(-1).tolist()) for n, a in inits])
    om = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid("com.microsoft", 1)])
    om.ir_version = 10
    so = ort.SessionOptions()
    so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    sess = ort.InferenceSession(om.SerializeToString(), so, providers=["CPUExecutionProvider"])
    rng = np.random.default_rng(0)
    make = {U8: lambda s: rng.integers(0, 255, s).astype(np.uint8),
            I8: lambda s: rng.integers(-128, 127, s).astype(np.int8),
            BOOL: lambda s: rng.random(s) < 0.5, F: lambda s: rng.standard_normal(s).astype(np.float32)}
    feeds = {n: make[e](s) for n, e, s in inputs}
    y = sess.run(["y"], feeds)[0]
    assert got.shape == y.shape, (got, y.shape)
    assert {U8: np.uint8, I8: np.int8, F: np.float32}[got.elem_type] == y.dtype.type


@pytest.mark.parametrize("op", ["QLinearAdd", "QLinearMul"])
def test_binary_broadcasts(op):
    _check_against_onnxruntime(
        [node(op, ["a", "x_s", "x_z", "b", "x_s", "x_z", "y_s", "y_z"], ["y"], domain="com.microsoft")],
        [("a", U8, [2, 1, 4]), ("b", U8, [3, 1])], _scalars("x", U8) + _scalars("y", U8))


@pytest.mark.parametrize("op,attrs", [("QLinearSigmoid", {}), ("QLinearLeakyRelu", {"alpha": 0.2}),
                                      ("QLinearSoftmax", {"axis": -1, "opset": 13})])
def test_unary_keep_the_shape(op, attrs):
    _check_against_onnxruntime([node(op, ["x", "x_s", "x_z", "y_s", "y_z"], ["y"], domain="com.microsoft", **attrs)],
                               [("x", I8, [2, 3, 5])], _scalars("x", I8) + _scalars("y", I8), out_elem=I8)


@pytest.mark.parametrize("channels_last", [0, 1])
def test_pools(channels_last):
    shape = [1, 6, 7, 3] if channels_last else [1, 3, 6, 7]
    _check_against_onnxruntime(
        [node("QLinearGlobalAveragePool", ["x", "x_s", "x_z", "y_s", "y_z"], ["y"], domain="com.microsoft",
              channels_last=channels_last)], [("x", U8, shape)], _scalars("x", U8) + _scalars("y", U8))
    _check_against_onnxruntime(
        [node("QLinearAveragePool", ["x", "x_s", "x_z", "y_s", "y_z"], ["y"], domain="com.microsoft",
              channels_last=channels_last, kernel_shape=[3, 2], strides=[2, 2], pads=[1, 0, 1, 0])],
        [("x", U8, shape)], _scalars("x", U8) + _scalars("y", U8))


def test_where():
    _check_against_onnxruntime(
        [node("QLinearWhere", ["c", "a", "x_s", "x_z", "b", "x_s", "x_z", "y_s", "y_z"], ["y"],
              domain="com.microsoft")],
        [("c", BOOL, [2, 1, 4]), ("a", U8, [3, 1]), ("b", U8, [4])], _scalars("x", U8) + _scalars("y", U8))


def test_concat():
    _check_against_onnxruntime(
        [node("QLinearConcat", ["y_s", "y_z", "a", "x_s", "x_z", "b", "x_s", "x_z"], ["y"], domain="com.microsoft",
              axis=1)], [("a", U8, [2, 3, 4]), ("b", U8, [2, 5, 4])], _scalars("x", U8) + _scalars("y", U8))


@pytest.mark.parametrize("quantized_output", [True, False])
def test_qgemm(quantized_output):
    inputs = ["a", "x_s", "x_z", "w", "w_s", "w_z", ""] + (["y_s", "y_z"] if quantized_output else [])
    inits = _scalars("x", U8) + [("w", np.ones((5, 4), np.int8)), ("w_s", np.array(0.1, np.float32)),
                                 ("w_z", np.array(0, np.int8))] + (_scalars("y", U8) if quantized_output else [])
    _check_against_onnxruntime([node("QGemm", inputs, ["y"], domain="com.microsoft", transB=1)],
                               [("a", U8, [3, 4])], inits, out_elem=U8 if quantized_output else F)
