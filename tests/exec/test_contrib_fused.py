"""onnxruntime's fused float operators (com.microsoft Gelu, FusedMatMul,
FusedGemm, FusedConv, SkipLayerNormalization ...; SimplifiedLayerNormalization
and pre-17 LayerNormalization in the default domain) against onnxruntime
itself: one node at a time, then whole models its optimizer fused."""
import numpy as np
import pytest
from onnx import TensorProto, helper, numpy_helper

ort = pytest.importorskip("onnxruntime")

from onnxstudio import core  # noqa: E402
from onnxstudio.core.exec import Session, run  # noqa: E402
from onnxstudio.core.infer import infer  # noqa: E402

MS = "com.microsoft"
_ONNX_TYPE = {np.dtype(np.float32): TensorProto.FLOAT, np.dtype(np.float64): TensorProto.DOUBLE,
              np.dtype(np.float16): TensorProto.FLOAT16}


def _rand(rng, *shape, dtype=np.float32):
    return rng.standard_normal(shape).astype(dtype)


def _one_node(op, inputs, attrs=None, outputs=("y",), domain=MS, opset=17):
    """A model of one node. `inputs`: (name, array or None) pairs; names
    starting with "x" become graph inputs, the others initializers (so
    prepared kernels get constant weights); None is an omitted input.
    `outputs`: names, "" for an omitted optional output."""
    graph_inputs, inits, names = [], [], []
    for name, value in inputs:
        if value is None:
            names.append("")
        elif name.startswith("x"):
            names.append(name)
            graph_inputs.append(helper.make_tensor_value_info(name, _ONNX_TYPE[value.dtype], value.shape))
        else:
            names.append(name)
            inits.append(numpy_helper.from_array(value, name))
    while names and not names[-1]:
        names.pop()
    node = helper.make_node(op, names, list(outputs), domain=domain, **(attrs or {}))
    graph = helper.make_graph([node], "g", graph_inputs,
                              [helper.make_empty_tensor_value_info(o) for o in outputs if o],
                              initializer=inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset), helper.make_opsetid(MS, 1)])
    model.ir_version = 9
    return model


def _ort_session(model_bytes, level=None):
    options = ort.SessionOptions()
    options.graph_optimization_level = level or ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    return ort.InferenceSession(model_bytes, options, providers=["CPUExecutionProvider"])


def _assert_close(ours, theirs, name, rtol, atol):
    ours = np.asarray(ours)
    assert ours.dtype == theirs.dtype, (name, ours.dtype, theirs.dtype)
    assert ours.shape == theirs.shape, (name, ours.shape, theirs.shape)
    np.testing.assert_allclose(ours.astype(np.float64), theirs.astype(np.float64), rtol=rtol, atol=atol,
                               err_msg=name)


def _check(op, inputs, attrs=None, outputs=("y",), domain=MS, opset=17, rtol=1e-5, atol=1e-5):
    """Our run of one node equals onnxruntime's on every requested output."""
    model = _one_node(op, inputs, attrs, outputs, domain, opset)
    feeds = {n: v for n, v in inputs if v is not None and n.startswith("x")}
    data = model.SerializeToString()
    names = [o for o in outputs if o]
    theirs = dict(zip(names, _ort_session(data).run(names, feeds)))
    ours = run(core.load_bytes(data), feeds)
    for name in names:
        _assert_close(ours[name], theirs[name], f"{op} {name}", rtol, atol)
    return ours


def _ours_fails(op, inputs, attrs, match):
    model = _one_node(op, inputs, attrs)
    feeds = {n: v for n, v in inputs if v is not None and n.startswith("x")}
    with pytest.raises(Exception, match=match):
        run(core.load_bytes(model.SerializeToString()), feeds)


# ---- GELU family -------------------------------------------------------------

def test_gelu():
    rng = np.random.default_rng(0)
    _check("Gelu", [("x", _rand(rng, 2, 3, 16) * 3)])


@pytest.mark.parametrize("with_bias", [False, True])
def test_fast_gelu(with_bias):
    rng = np.random.default_rng(1)
    _check("FastGelu", [("x", _rand(rng, 2, 5, 8) * 3), ("xb", _rand(rng, 8) if with_bias else None)])


def test_bias_gelu():
    rng = np.random.default_rng(2)
    _check("BiasGelu", [("x", _rand(rng, 4, 12) * 3), ("b", _rand(rng, 12))])


@pytest.mark.parametrize("alpha", [None, 1.0, -0.5, 2.5])
def test_quick_gelu(alpha):
    rng = np.random.default_rng(3)
    attrs = {} if alpha is None else {"alpha": alpha}
    _check("QuickGelu", [("x", _rand(rng, 3, 7, 5) * 4)], attrs)


# ---- FusedMatMul --------------------------------------------------------------

@pytest.mark.parametrize("a_shape,b_shape,attrs", [
    ((4, 5), (5, 6), {}),
    ((3, 4, 5), (5, 6), {"alpha": 0.125}),
    ((3, 5, 4), (5, 6), {"transA": 1, "alpha": -2.0}),
    ((4, 5), (7, 3, 6, 5), {"transB": 1}),
    ((2, 3, 5, 4), (2, 3, 6, 5), {"transA": 1, "transB": 1}),
    ((4, 2, 3, 5), (2, 3, 5, 6), {"transBatchA": 1}),
    ((2, 3, 4, 5), (5, 2, 3, 6), {"transBatchB": 1}),
    ((5, 2, 3, 4), (2, 3, 5, 6), {"transBatchA": 1, "transA": 1}),
    ((2, 3, 4, 5), (6, 2, 3, 5), {"transBatchB": 1, "transB": 1, "alpha": 0.5}),
    ((5, 3, 4), (6, 3, 5), {"transBatchA": 1, "transBatchB": 1, "transA": 1, "transB": 1}),
    ((4, 1, 5), (3, 5, 6), {"transBatchA": 1}),         # batch dims broadcast after the move
    ((5,), (5, 6), {}),
    ((5,), (6, 5), {"transB": 1}),
    ((5,), (5, 6), {"transA": 1}),                       # trans has no meaning for a vector
    ((3, 4, 5), (5,), {"alpha": 3.0}),
])
def test_fused_matmul(a_shape, b_shape, attrs):
    rng = np.random.default_rng(4)
    _check("FusedMatMul", [("xa", _rand(rng, *a_shape)), ("xb", _rand(rng, *b_shape))], attrs)


def test_fused_matmul_double():
    rng = np.random.default_rng(5)
    _check("FusedMatMul", [("xa", _rand(rng, 2, 4, 3, dtype=np.float64)), ("xb", _rand(rng, 2, 4, 6, dtype=np.float64))],
           {"transA": 1, "alpha": 0.3}, rtol=1e-12, atol=1e-12)


def test_fused_matmul_trans_batch_needs_equal_ranks():
    rng = np.random.default_rng(6)
    _ours_fails("FusedMatMul", [("xa", _rand(rng, 3, 5, 6)), ("xb", _rand(rng, 5, 3, 6, 7))], {"transBatchB": 1},
                "transBatch")


# ---- FusedGemm ---------------------------------------------------------------------

_GEMM_ACTIVATIONS = [
    ("Relu", {}), ("LeakyRelu", {"activation_alpha": 0.3}), ("Sigmoid", {}), ("Tanh", {}),
    ("HardSigmoid", {"activation_alpha": 0.3, "activation_beta": 0.4}), ("Elu", {"activation_alpha": 0.7}),
    ("Selu", {"activation_alpha": 1.5, "activation_gamma": 1.2}), ("Softplus", {}), ("Softsign", {}),
    ("ThresholdedRelu", {"activation_alpha": 0.2}), ("ScaledTanh", {"activation_alpha": 0.5, "activation_beta": 2.0}),
    ("ParametricSoftplus", {"activation_alpha": 0.5, "activation_beta": 2.0}),
]


@pytest.mark.parametrize("activation,params", _GEMM_ACTIVATIONS)
def test_fused_gemm_activations(activation, params):
    rng = np.random.default_rng(7)
    _check("FusedGemm", [("xa", _rand(rng, 3, 4)), ("w", _rand(rng, 4, 5)), ("c", _rand(rng, 5))],
           {"activation": activation, **params})


@pytest.mark.parametrize("attrs,c_shape", [
    ({"transA": 1, "transB": 1, "alpha": 0.5, "beta": 2.0}, (3, 5)),
    ({"transB": 1}, None),
    ({"alpha": -1.5, "beta": 0.0}, (1, 5)),
    ({"transA": 1}, (3, 1)),
])
def test_fused_gemm_attributes(attrs, c_shape):
    rng = np.random.default_rng(8)
    a = _rand(rng, 4, 3) if attrs.get("transA") else _rand(rng, 3, 4)
    b = _rand(rng, 5, 4) if attrs.get("transB") else _rand(rng, 4, 5)
    c = None if c_shape is None else _rand(rng, *c_shape)
    _check("FusedGemm", [("xa", a), ("xb", b), ("xc", c)], {"activation": "LeakyRelu", "activation_alpha": 0.1, **attrs})


@pytest.mark.parametrize("attrs,match", [
    ({"activation": "LeakyRelu"}, "activation_alpha"),
    ({"activation": "Selu", "activation_alpha": 1.5}, "activation_gamma"),
    ({"activation": "Gelu"}, "unknown activation"),
    ({}, "needs the attribute activation"),
])
def test_fused_gemm_rejects_what_onnxruntime_rejects(attrs, match):
    rng = np.random.default_rng(9)
    _ours_fails("FusedGemm", [("xa", _rand(rng, 3, 4)), ("xb", _rand(rng, 4, 5))], attrs, match)


# ---- FusedConv ----------------------------------------------------------------------

_CONV_ACTIVATIONS = [(None, None), ("Relu", None), ("LeakyRelu", [0.2]), ("Tanh", None), ("Sigmoid", None),
                     ("Clip", [-0.5, 0.5]), ("HardSigmoid", [0.3, 0.4])]


@pytest.mark.parametrize("activation,params", _CONV_ACTIVATIONS)
@pytest.mark.parametrize("const_weights", [True, False])
def test_fused_conv_activations(activation, params, const_weights):
    rng = np.random.default_rng(10)
    attrs = {} if activation is None else {"activation": activation}
    if params is not None:
        attrs["activation_params"] = params
    w_name = "w" if const_weights else "xw"
    _check("FusedConv", [("x", _rand(rng, 2, 3, 7, 6)), (w_name, _rand(rng, 4, 3, 3, 3)), ("b", _rand(rng, 4))],
           attrs, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("with_bias", [True, False])
@pytest.mark.parametrize("const_weights", [True, False])
def test_fused_conv_adds_z_before_the_activation(with_bias, const_weights):
    rng = np.random.default_rng(11)
    w_name = "w" if const_weights else "xw"
    _check("FusedConv", [("x", _rand(rng, 1, 3, 6, 6)), (w_name, _rand(rng, 4, 3, 3, 3)),
                         ("b", _rand(rng, 4) if with_bias else None), ("xz", _rand(rng, 1, 4, 4, 4) * 3)],
           {"activation": "Relu"}, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("x_shape,w_shape,attrs", [
    ((1, 4, 9, 8), (6, 2, 3, 3), {"group": 2, "strides": [2, 1], "pads": [1, 0, 1, 2]}),
    ((2, 3, 8, 8), (5, 3, 3, 2), {"strides": [2, 2], "auto_pad": "SAME_UPPER"}),
    ((2, 3, 7, 8), (5, 3, 2, 3), {"auto_pad": "SAME_LOWER"}),
    ((2, 3, 9, 8), (5, 3, 3, 2), {"dilations": [2, 3], "pads": [0, 1, 2, 1]}),
    ((2, 3, 11), (4, 3, 4), {"strides": [3], "kernel_shape": [4]}),
    ((1, 8, 5, 5), (8, 1, 3, 3), {"group": 8, "pads": [1, 1, 1, 1]}),
])
def test_fused_conv_geometry(x_shape, w_shape, attrs):
    rng = np.random.default_rng(12)
    _check("FusedConv", [("x", _rand(rng, *x_shape)), ("w", _rand(rng, *w_shape)), ("b", _rand(rng, w_shape[0]))],
           {"activation": "LeakyRelu", "activation_params": [0.05], **attrs}, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("activation,params", [("LeakyRelu", None), ("Clip", [0.1]), ("HardSigmoid", [0.1, 0.2, 0.3]),
                                               ("Elu", [1.0])])
def test_fused_conv_rejects_what_onnxruntime_rejects(activation, params):
    rng = np.random.default_rng(13)
    attrs = {"activation": activation} | ({} if params is None else {"activation_params": params})
    _ours_fails("FusedConv", [("x", _rand(rng, 1, 3, 5, 5)), ("xw", _rand(rng, 2, 3, 3, 3))], attrs, "FusedConv")


# ---- skip + layer normalization -----------------------------------------------------

_ALL_OUTPUTS = ("y", "mean", "inv_std", "sum")


@pytest.mark.parametrize("with_beta,with_bias", [(True, True), (True, False), (False, True), (False, False)])
def test_skip_layer_norm(with_beta, with_bias):
    rng = np.random.default_rng(14)
    h = 16
    _check("SkipLayerNormalization",
           [("x", _rand(rng, 2, 5, h) * 2 + 1), ("xs", _rand(rng, 2, 5, h)), ("g", _rand(rng, h)),
            ("be", _rand(rng, h) if with_beta else None), ("bi", _rand(rng, h) if with_bias else None)],
           {"epsilon": 1e-5}, outputs=_ALL_OUTPUTS)


@pytest.mark.parametrize("x_shape,skip_shape", [((2, 5, 8), (5, 8)), ((2, 5, 8), (1, 5, 8)), ((6, 8), (6, 8))])
@pytest.mark.parametrize("outputs", [("y",), ("y", "", "", "sum"), ("y", "mean", "inv_std")])
def test_skip_layer_norm_shapes_and_outputs(x_shape, skip_shape, outputs):
    rng = np.random.default_rng(15)
    _check("SkipLayerNormalization", [("x", _rand(rng, *x_shape)), ("xs", _rand(rng, *skip_shape)),
                                      ("g", _rand(rng, 8)), ("be", _rand(rng, 8))], outputs=outputs)


def test_skip_layer_norm_float16():
    # onnxruntime computes in float32 and rounds once; so do we
    rng = np.random.default_rng(16)
    dtype, tol = np.float16, 3e-3
    _check("SkipLayerNormalization",
           [("x", _rand(rng, 2, 3, 8, dtype=dtype)), ("xs", _rand(rng, 2, 3, 8, dtype=dtype)),
            ("g", _rand(rng, 8, dtype=dtype)), ("be", _rand(rng, 8, dtype=dtype)), ("bi", _rand(rng, 8, dtype=dtype))],
           outputs=_ALL_OUTPUTS, rtol=tol, atol=tol)


@pytest.mark.parametrize("with_bias", [True, False])
@pytest.mark.parametrize("epsilon", [None, 1e-3])
def test_skip_simplified_layer_norm(with_bias, epsilon):
    rng = np.random.default_rng(17)
    attrs = {} if epsilon is None else {"epsilon": epsilon}
    ours = _check("SkipSimplifiedLayerNormalization",
                  [("x", _rand(rng, 3, 4, 12)), ("xs", _rand(rng, 4, 12)), ("g", _rand(rng, 12)),
                   ("bi", _rand(rng, 12) if with_bias else None)], attrs, outputs=_ALL_OUTPUTS)
    assert not ours["mean"].any()     # an RMS norm has no mean: zeros, as onnxruntime's


@pytest.mark.parametrize("axis", [-1, -2, 1, 0])
@pytest.mark.parametrize("outputs", [("y",), ("y", "inv_std")])
def test_simplified_layer_norm(axis, outputs):
    rng = np.random.default_rng(18)
    x = _rand(rng, 2, 3, 4, 5) + 0.5
    _check("SimplifiedLayerNormalization", [("x", x), ("s", _rand(rng, *x.shape[axis:]))],
           {"axis": axis, "epsilon": 1e-3}, outputs=outputs, domain="", opset=13)


@pytest.mark.parametrize("dtype,tol", [(np.float64, 1e-6), (np.float16, 3e-3)])
def test_simplified_layer_norm_other_types(dtype, tol):
    rng = np.random.default_rng(19)
    _check("SimplifiedLayerNormalization", [("x", _rand(rng, 3, 6, dtype=dtype)), ("s", _rand(rng, 6, dtype=dtype))],
           {}, outputs=("y", "inv_std"), domain="", opset=13, rtol=tol, atol=tol)


def test_skip_simplified_layer_norm_float16():
    rng = np.random.default_rng(24)
    h = np.float16
    _check("SkipSimplifiedLayerNormalization", [("x", _rand(rng, 2, 3, 8, dtype=h)), ("xs", _rand(rng, 2, 3, 8, dtype=h)),
                                                ("g", _rand(rng, 8, dtype=h)), ("bi", _rand(rng, 8, dtype=h))],
           outputs=_ALL_OUTPUTS, rtol=3e-3, atol=3e-3)


@pytest.mark.parametrize("opset", [1, 13, 16])
@pytest.mark.parametrize("axis", [-1, 1])
def test_layer_norm_before_opset_17(opset, axis):
    rng = np.random.default_rng(20)
    x = _rand(rng, 2, 3, 4)
    _check("LayerNormalization", [("x", x), ("s", _rand(rng, *x.shape[axis:])), ("b", _rand(rng, *x.shape[axis:]))],
           {"axis": axis}, outputs=("y", "mean", "inv_std"), domain="", opset=opset)


# ---- models onnxruntime's optimizer fused ---------------------------------------------

class _GraphBuilder:
    """Nodes, initializers and fresh names for a small float model."""

    def __init__(self, seed):
        self.rng = np.random.default_rng(seed)
        self.nodes, self.inits = [], []
        self.count = 0

    def const(self, value):
        self.count += 1
        name = f"c{self.count}"
        self.inits.append(numpy_helper.from_array(np.asarray(value, np.float32), name))
        return name

    def weight(self, *shape, scale=0.3):
        return self.const(self.rng.standard_normal(shape) * scale)

    def op(self, op_type, *inputs, **attrs):
        self.count += 1
        out = f"v{self.count}"
        self.nodes.append(helper.make_node(op_type, list(inputs), [out], **attrs))
        return out

    def erf_gelu(self, x):
        # the exported form of GELU: x * 0.5 * (1 + erf(x / sqrt(2)))
        e = self.op("Erf", self.op("Div", x, self.const(np.sqrt(2.0))))
        return self.op("Mul", self.op("Mul", x, self.op("Add", e, self.const(1.0))), self.const(0.5))

    def decomposed_layer_norm(self, x, h):
        centered = self.op("Sub", x, self.op("ReduceMean", x, axes=[-1]))
        var = self.op("ReduceMean", self.op("Pow", centered, self.const(2.0)), axes=[-1])
        std = self.op("Sqrt", self.op("Add", var, self.const(1e-5)))
        return self.op("Add", self.op("Mul", self.op("Div", centered, std), self.weight(h, scale=1)), self.weight(h))

    def rms_norm(self, x, h):
        mean_square = self.op("ReduceMean", self.op("Pow", x, self.const(2.0)), axes=[-1])
        rms = self.op("Sqrt", self.op("Add", mean_square, self.const(1e-5)))
        return self.op("Mul", self.op("Div", x, rms), self.weight(h, scale=1))

    def model(self, inputs, outputs, opset):
        graph = helper.make_graph(self.nodes, "g", [helper.make_tensor_value_info(n, TensorProto.FLOAT, s) for n, s in inputs],
                                  [helper.make_tensor_value_info(o, TensorProto.FLOAT, None) for o in outputs],
                                  initializer=self.inits)
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
        model.ir_version = 8
        return model


def _transformer_block(opset):
    """MatMul+Add+GELU, residual Add + LayerNormalization, attention-like
    scores scaled by a constant, GELU, x*sigmoid(1.702x), residual + RMS norm.
    Below opset 17 the layer norms are written out (as exporters did)."""
    h = 16
    b = _GraphBuilder(21)
    if opset >= 17:
        ln = b.op("LayerNormalization", "x", b.weight(h, scale=1), b.weight(h), epsilon=1e-5)
    else:
        ln = b.decomposed_layer_norm("x", h)
    dense = b.op("Add", b.op("MatMul", ln, b.weight(h, h)), b.weight(h))
    res = b.op("Add", b.erf_gelu(dense), ln)
    ln2 = b.op("LayerNormalization", res, b.weight(h, scale=1), b.weight(h)) if opset >= 17 else b.decomposed_layer_norm(res, h)
    scores = b.op("Mul", b.op("MatMul", ln2, b.op("Transpose", ln2, perm=[0, 2, 1])), b.const(0.25))
    ctx = b.erf_gelu(b.op("MatMul", b.op("Softmax", scores, axis=-1), ln2))
    quick = b.op("Mul", ctx, b.op("Sigmoid", b.op("Mul", ctx, b.const(1.702))))
    y = b.rms_norm(b.op("Add", quick, ln2), h)
    return b.model([("x", ["batch", "seq", h])], [y], opset), {"x": (2, 5, h)}


def _conv_gemm_head():
    """Conv+Relu, Conv+Add+Relu, then Gemm+Sigmoid and Gemm+LeakyRelu on the flattened map."""
    b = _GraphBuilder(22)
    c1 = b.op("Relu", b.op("Conv", "img", b.weight(4, 3, 3, 3), b.weight(4), pads=[1, 1, 1, 1]))
    c2 = b.op("Conv", c1, b.weight(4, 4, 3, 3), b.weight(4), pads=[1, 1, 1, 1], strides=[2, 2])
    c3 = b.op("Relu", b.op("Add", c2, b.op("MaxPool", c1, kernel_shape=[2, 2], strides=[2, 2])))
    flat = b.op("Flatten", c3)
    y1 = b.op("Sigmoid", b.op("Gemm", flat, b.weight(6, 36), b.weight(6), transB=1))
    y2 = b.op("LeakyRelu", b.op("Gemm", y1, b.weight(6, 3), b.weight(3), alpha=0.5), alpha=0.2)
    return b.model([("img", [2, 3, 6, 6])], [y2], 17), {"img": (2, 3, 6, 6)}


@pytest.mark.parametrize("build,fused", [
    (lambda: _transformer_block(17), {(MS, "BiasGelu"), (MS, "Gelu"), (MS, "SkipLayerNormalization"),
                                      (MS, "FusedMatMul"), (MS, "QuickGelu"), ("", "SimplifiedLayerNormalization")}),
    (lambda: _transformer_block(13), {(MS, "BiasGelu"), (MS, "Gelu"), (MS, "SkipLayerNormalization"),
                                      ("", "LayerNormalization")}),
    (_conv_gemm_head, {(MS, "FusedConv"), (MS, "FusedGemm")}),
])
def test_models_onnxruntime_optimized(tmp_path, build, fused):
    """Our run of the file onnxruntime's optimizer wrote equals onnxruntime's
    run of the original model; inference knows every value's shape."""
    original, sizes = build()
    path = tmp_path / "optimized.onnx"
    options = ort.SessionOptions()
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_EXTENDED
    options.optimized_model_filepath = str(path)
    ort.InferenceSession(original.SerializeToString(), options, providers=["CPUExecutionProvider"])

    optimized = core.load(str(path))
    ops = {(n.domain, n.op_type) for n in optimized.graph.nodes}
    assert fused <= ops, f"onnxruntime did not fuse {fused - ops}"

    rng = np.random.default_rng(23)
    feeds = {name: rng.standard_normal(shape).astype(np.float32) for name, shape in sizes.items()}
    theirs = _ort_session(original.SerializeToString()).run(None, feeds)
    ours = Session(optimized).run(feeds)
    assert len(ours) == len(theirs)
    for (name, value), want in zip(ours.items(), theirs):
        _assert_close(value, want, name, rtol=1e-4, atol=1e-5)

    types = infer(optimized)
    partial = [n for n, t in types.items() if t is None or t.shape is None or None in t.shape]
    assert not partial, partial
