"""Inference rules for onnxruntime's fused float operators (com.microsoft, and
SimplifiedLayerNormalization in the default domain), checked against the
shapes and types onnxruntime's own run produces. Inputs may be declared with
symbolic dims: the inferred shape, with the symbols replaced by the sizes fed,
must equal the run's."""
from __future__ import annotations

import numpy as np
import pytest

from onnxstudio import core
from onnxstudio.core.infer import infer

from .helpers import F, helper, onnx

numpy_helper = onnx.numpy_helper

ort = pytest.importorskip("onnxruntime")
MS = "com.microsoft"
D, H = 11, 10      # TensorProto.DOUBLE, FLOAT16
_NUMPY = {F: np.float32, D: np.float64, H: np.float16}
_SIZES = {"batch": 2, "seq": 5}     # what symbolic dims are fed as


def _concrete(shape):
    return [_SIZES.get(d, d) for d in shape]


def _check(op, inputs, attrs=None, outputs=("y",), domain=MS, opset=17, names=None):
    """inputs: (name, elem, shape) graph inputs (shape may hold symbols);
    names: the node's inputs if not all of those in order ("" = omitted).
    Every output's inferred type equals the run's."""
    names = [n for n, *_ in inputs] if names is None else names
    nodes = [helper.make_node(op, names, list(outputs), domain=domain, **(attrs or {}))]
    graph = helper.make_graph(
        nodes, "g", [helper.make_tensor_value_info(n, e, s) for n, e, s in inputs],
        [helper.make_empty_tensor_value_info(o) for o in outputs if o])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset), helper.make_opsetid(MS, 1)])
    model.ir_version = 9
    data = model.SerializeToString()
    got = infer(core.load_bytes(data))
    so = ort.SessionOptions()
    so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    sess = ort.InferenceSession(data, so, providers=["CPUExecutionProvider"])
    rng = np.random.default_rng(0)
    feeds = {n: rng.standard_normal(_concrete(s)).astype(_NUMPY[e]) for n, e, s in inputs}
    names = [o for o in outputs if o]
    for name, value in zip(names, sess.run(names, feeds)):
        t = got[name]
        assert t.shape is not None and all(d is not None for d in t.shape), (name, t)
        assert _concrete(t.shape) == list(value.shape), (name, t.shape, value.shape)
        assert _NUMPY[t.elem_type] == value.dtype.type, (name, t.elem_type, value.dtype)
    return got


@pytest.mark.parametrize("op", ["Gelu", "FastGelu", "QuickGelu"])
def test_gelu_like_keep_the_type(op):
    _check(op, [("x", F, ["batch", "seq", 8])])


def test_fast_gelu_with_bias_and_bias_gelu():
    _check("FastGelu", [("x", F, ["batch", 3, 8]), ("b", F, [8])])
    got = _check("BiasGelu", [("x", F, ["batch", "seq", 8]), ("b", F, [8])])
    assert got["y"].shape == ("batch", "seq", 8)


@pytest.mark.parametrize("a,b,attrs", [
    ([4, 5], [5, 6], {}),
    (["batch", "seq", 5], [5, 6], {"alpha": 0.5}),
    (["batch", 5, 4], [5, 6], {"transA": 1}),
    ([4, 5], [7, 3, 6, 5], {"transB": 1}),
    ([4, "batch", 3, 5], ["batch", 3, 5, 6], {"transBatchA": 1}),
    ([2, 3, 4, 5], [5, 2, 3, 6], {"transBatchB": 1}),
    ([5, 2, 3, 4], [2, 3, 5, 6], {"transBatchA": 1, "transA": 1}),
    ([2, 3, 4, 5], [6, 2, 3, 5], {"transBatchB": 1, "transB": 1}),
    ([4, 1, 5], [3, 5, 6], {"transBatchA": 1}),
    ([5], [5, 6], {"transA": 1}),
    ([3, 4, 5], [5], {}),
])
def test_fused_matmul(a, b, attrs):
    _check("FusedMatMul", [("a", F, a), ("b", F, b)], attrs)


@pytest.mark.parametrize("attrs", [{}, {"transA": 1}, {"transB": 1}, {"transA": 1, "transB": 1}])
def test_fused_gemm(attrs):
    a = [4, "batch"] if attrs.get("transA") else ["batch", 4]
    b = [5, 4] if attrs.get("transB") else [4, 5]
    got = _check("FusedGemm", [("a", F, a), ("b", F, b), ("c", F, [5])], {"activation": "Relu", **attrs})
    assert got["y"].shape == ("batch", 5)


@pytest.mark.parametrize("x,w,attrs", [
    (["batch", 3, 7, 6], [4, 3, 3, 3], {}),
    ([1, 4, 9, 8], [6, 2, 3, 3], {"group": 2, "strides": [2, 1], "pads": [1, 0, 1, 2]}),
    ([2, 3, 8, 8], [5, 3, 3, 2], {"strides": [2, 2], "auto_pad": "SAME_UPPER"}),
    ([2, 3, 9, 8], [5, 3, 3, 2], {"dilations": [2, 3]}),
    (["batch", 3, 11], [4, 3, 4], {"strides": [3]}),
])
def test_fused_conv(x, w, attrs):
    _check("FusedConv", [("x", F, x), ("w", F, w)], {"activation": "LeakyRelu", "activation_params": [0.1], **attrs})


def test_fused_conv_with_z():
    _check("FusedConv", [("x", F, ["batch", 3, 6, 6]), ("w", F, [4, 3, 3, 3]), ("z", F, ["batch", 4, 4, 4])],
           {"activation": "Relu"}, names=["x", "w", "", "z"])


_ALL = ("y", "mean", "inv_std", "sum")


@pytest.mark.parametrize("op", ["SkipLayerNormalization", "SkipSimplifiedLayerNormalization"])
@pytest.mark.parametrize("x,skip", [(["batch", "seq", 8], ["seq", 8]), ([6, 8], [6, 8]),
                                    (["batch", 4, 8], [1, 4, 8])])
def test_skip_layer_norms(op, x, skip):
    got = _check(op, [("x", F, x), ("s", F, skip), ("g", F, [8])], outputs=_ALL)
    assert got["mean"].shape == tuple(x[:-1]) + (1,)


def test_skip_layer_norm_float16_statistics_stay_float():
    _check("SkipLayerNormalization", [("x", H, [2, 3, 8]), ("s", H, [2, 3, 8]), ("g", H, [8]), ("b", H, [8])],
           outputs=("y", "", "inv_std", "sum"), names=["x", "s", "g", "", "b"])


@pytest.mark.parametrize("axis", [-1, -2, 1, 0])
@pytest.mark.parametrize("elem", [F, D, H])
def test_simplified_layer_norm(axis, elem):
    x = ["batch", 3, 4, 5]
    _check("SimplifiedLayerNormalization", [("x", elem, x), ("s", elem, x[axis:])],
           {"axis": axis}, outputs=("y", "inv_std"), domain="", opset=13)


def test_layer_norm_before_opset_17():
    _check("LayerNormalization", [("x", F, ["batch", 3, 4]), ("s", F, [4]), ("b", F, [4])],
           outputs=("y", "mean", "inv_std"), domain="", opset=13)
