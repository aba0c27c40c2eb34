"""onnxruntime's fused float operators (com.microsoft Gelu, FusedMatMul,
FusedGemm, FusedConv, SkipLayerNormalization ...; SimplifiedLayerNormalization
and pre-17 LayerNormalization in the default domain) against onnxruntime
itself: one node at a time, then whole models its optimizer fused."""
import numpy as np
import pytest
from onnx import TensorProto, helper, numpy_helper

ort = pytest.importorskip("onnxruntime")

from contrib_models import MS, assert_close, check, one_node, ort_session, rand  # noqa: E402
from onnxstudio import core  # noqa: E402
from onnxstudio.core.exec import Session, run  # noqa: E402
from onnxstudio.core.infer import infer  # noqa: E402

def _ours_fails(op, inputs, attrs, match):
    model = one_node(op, inputs, attrs)
    feeds = {n: v for n, v in inputs if v is not None and n.startswith("x")}
    with pytest.raises(Exception, match=match):
        run(core.load_bytes(model.SerializeToString()), feeds)


# ---- GELU family -------------------------------------------------------------

def test_gelu():
    rng = np.random.default_rng(0)
    check("Gelu", [("x", rand(rng, 2, 3, 16) * 3)])


@pytest.mark.parametrize("with_bias", [False, True])
def test_fast_gelu(with_bias):
    rng = np.random.default_rng(1)
    check("FastGelu", [("x", rand(rng, 2, 5, 8) * 3), ("xb", rand(rng, 8) if with_bias else None)])


def test_bias_gelu():
    rng = np.random.default_rng(2)
    check("BiasGelu", [("x", rand(rng, 4, 12) * 3), ("b", rand(rng, 12))])


@pytest.mark.parametrize("alpha", [None, 1.0, -0.5, 2.5])
def test_quick_gelu(alpha):
    rng = np.random.default_rng(3)
    attrs = {} if alpha is None else {"alpha": alpha}
    check("QuickGelu", [("x", rand(rng, 3, 7, 5) * 4)], attrs)


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
    check("FusedMatMul", [("xa", rand(rng, *a_shape)), ("xb", rand(rng, *b_shape))], attrs)


def test_fused_matmul_double():
    rng = np.random.default_rng(5)
    check("FusedMatMul", [("xa", rand(rng, 2, 4, 3, dtype=np.float64)), ("xb", rand(rng, 2, 4, 6, dtype=np.float64))],
           {"transA": 1, "alpha": 0.3}, rtol=1e-12, atol=1e-12)


def test_fused_matmul_trans_batch_needs_equal_ranks():
    rng = np.random.default_rng(6)
    _ours_fails("FusedMatMul", [("xa", rand(rng, 3, 5, 6)), ("xb", rand(rng, 5, 3, 6, 7))], {"transBatchB": 1},
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
    check("FusedGemm", [("xa", rand(rng, 3, 4)), ("w", rand(rng, 4, 5)), ("c", rand(rng, 5))],
           {"activation": activation, **params})


@pytest.mark.parametrize("attrs,c_shape", [
    ({"transA": 1, "transB": 1, "alpha": 0.5, "beta": 2.0}, (3, 5)),
    ({"transB": 1}, None),
    ({"alpha": -1.5, "beta": 0.0}, (1, 5)),
    ({"transA": 1}, (3, 1)),
])
def test_fused_gemm_attributes(attrs, c_shape):
    rng = np.random.default_rng(8)
    a = rand(rng, 4, 3) if attrs.get("transA") else rand(rng, 3, 4)
    b = rand(rng, 5, 4) if attrs.get("transB") else rand(rng, 4, 5)
    c = None if c_shape is None else rand(rng, *c_shape)
    check("FusedGemm", [("xa", a), ("xb", b), ("xc", c)], {"activation": "LeakyRelu", "activation_alpha": 0.1, **attrs})


@pytest.mark.parametrize("attrs,match", [
    ({"activation": "LeakyRelu"}, "activation_alpha"),
    ({"activation": "Selu", "activation_alpha": 1.5}, "activation_gamma"),
    ({"activation": "Gelu"}, "unknown activation"),
    ({}, "needs the attribute activation"),
])
def test_fused_gemm_rejects_what_onnxruntime_rejects(attrs, match):
    rng = np.random.default_rng(9)
    _ours_fails("FusedGemm", [("xa", rand(rng, 3, 4)), ("xb", rand(rng, 4, 5))], attrs, match)


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
    check("FusedConv", [("x", rand(rng, 2, 3, 7, 6)), (w_name, rand(rng, 4, 3, 3, 3)), ("b", rand(rng, 4))],
           attrs, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("with_bias", [True, False])
@pytest.mark.parametrize("const_weights", [True, False])
def test_fused_conv_adds_z_before_the_activation(with_bias, const_weights):
    rng = np.random.default_rng(11)
    w_name = "w" if const_weights else "xw"
    check("FusedConv", [("x", rand(rng, 1, 3, 6, 6)), (w_name, rand(rng, 4, 3, 3, 3)),
                         ("b", rand(rng, 4) if with_bias else None), ("xz", rand(rng, 1, 4, 4, 4) * 3)],
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
    check("FusedConv", [("x", rand(rng, *x_shape)), ("w", rand(rng, *w_shape)), ("b", rand(rng, w_shape[0]))],
           {"activation": "LeakyRelu", "activation_params": [0.05], **attrs}, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("activation,params", [("LeakyRelu", None), ("Clip", [0.1]), ("HardSigmoid", [0.1, 0.2, 0.3]),
                                               ("Elu", [1.0])])
def test_fused_conv_rejects_what_onnxruntime_rejects(activation, params):
    rng = np.random.default_rng(13)
    attrs = {"activation": activation} | ({} if params is None else {"activation_params": params})
    _ours_fails("FusedConv", [("x", rand(rng, 1, 3, 5, 5)), ("xw", rand(rng, 2, 3, 3, 3))], attrs, "FusedConv")


# ---- skip + layer normalization -----------------------------------------------------

_ALL_OUTPUTS = ("y", "mean", "inv_std", "sum")


@pytest.mark.parametrize("with_beta,with_bias", [(True, True), (True, False), (False, True), (False, False)])
def test_skip_layer_norm(with_beta, with_bias):
    rng = np.random.default_rng(14)
    h = 16
    check("SkipLayerNormalization",
           [("x", rand(rng, 2, 5, h) * 2 + 1), ("xs", rand(rng, 2, 5, h)), ("g", rand(rng, h)),
            ("be", rand(rng, h) if with_beta else None), ("bi", rand(rng, h) if with_bias else None)],
           {"epsilon": 1e-5}, outputs=_ALL_OUTPUTS)


@pytest.mark.parametrize("x_shape,skip_shape", [((2, 5, 8), (5, 8)), ((2, 5, 8), (1, 5, 8)), ((6, 8), (6, 8))])
@pytest.mark.parametrize("outputs", [("y",), ("y", "", "", "sum"), ("y", "mean", "inv_std")])
def test_skip_layer_norm_shapes_and_outputs(x_shape, skip_shape, outputs):
    rng = np.random.default_rng(15)
    check("SkipLayerNormalization", [("x", rand(rng, *x_shape)), ("xs", rand(rng, *skip_shape)),
                                      ("g", rand(rng, 8)), ("be", rand(rng, 8))], outputs=outputs)


def test_skip_layer_norm_float16():
    # onnxruntime computes in float32 and rounds once; so do we
    rng = np.random.default_rng(16)
    dtype, tol = np.float16, 3e-3
    check("SkipLayerNormalization",
           [("x", rand(rng, 2, 3, 8, dtype=dtype)), ("xs", rand(rng, 2, 3, 8, dtype=dtype)),
            ("g", rand(rng, 8, dtype=dtype)), ("be", rand(rng, 8, dtype=dtype)), ("bi", rand(rng, 8, dtype=dtype))],
           outputs=_ALL_OUTPUTS, rtol=tol, atol=tol)


@pytest.mark.parametrize("with_bias", [True, False])
@pytest.mark.parametrize("epsilon", [None, 1e-3])
def test_skip_simplified_layer_norm(with_bias, epsilon):
    rng = np.random.default_rng(17)
    attrs = {} if epsilon is None else {"epsilon": epsilon}
    ours, _ = check("SkipSimplifiedLayerNormalization",
                  [("x", rand(rng, 3, 4, 12)), ("xs", rand(rng, 4, 12)), ("g", rand(rng, 12)),
                   ("bi", rand(rng, 12) if with_bias else None)], attrs, outputs=_ALL_OUTPUTS)
    assert not ours["mean"].any()     # an RMS norm has no mean: zeros, as onnxruntime's


@pytest.mark.parametrize("axis", [-1, -2, 1, 0])
@pytest.mark.parametrize("outputs", [("y",), ("y", "inv_std")])
def test_simplified_layer_norm(axis, outputs):
    rng = np.random.default_rng(18)
    x = rand(rng, 2, 3, 4, 5) + 0.5
    check("SimplifiedLayerNormalization", [("x", x), ("s", rand(rng, *x.shape[axis:]))],
           {"axis": axis, "epsilon": 1e-3}, outputs=outputs, domain="", opset=13)


@pytest.mark.parametrize("dtype,tol", [(np.float64, 1e-6), (np.float16, 3e-3)])
def test_simplified_layer_norm_other_types(dtype, tol):
    rng = np.random.default_rng(19)
    check("SimplifiedLayerNormalization", [("x", rand(rng, 3, 6, dtype=dtype)), ("s", rand(rng, 6, dtype=dtype))],
           {}, outputs=("y", "inv_std"), domain="", opset=13, rtol=tol, atol=tol)


def test_skip_simplified_layer_norm_float16():
    rng = np.random.default_rng(24)
    h = np.float16
    check("SkipSimplifiedLayerNormalization", [("x", rand(rng, 2, 3, 8, dtype=h)), ("xs", rand(rng, 2, 3, 8, dtype=h)),
                                                ("g", rand(rng, 8, dtype=h)), ("bi", rand(rng, 8, dtype=h))],
           outputs=_ALL_OUTPUTS, rtol=3e-3, atol=3e-3)


@pytest.mark.parametrize("opset", [1, 13, 16])
@pytest.mark.parametrize("axis", [-1, 1])
def test_layer_norm_before_opset_17(opset, axis):
    rng = np.random.default_rng(20)
    x = rand(rng, 2, 3, 4)
    check("LayerNormalization", [("x", x), ("s", rand(rng, *x.shape[axis:])), ("b", rand(rng, *x.shape[axis:]))],
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
        graph = helper.make_graph(self.nodes, "g",
                                  [helper.make_tensor_value_info(n, TensorProto.FLOAT, s) for n, s in inputs],
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
    if opset >= 17:
        ln2 = b.op("LayerNormalization", res, b.weight(h, scale=1), b.weight(h))
    else:
        ln2 = b.decomposed_layer_norm(res, h)
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
    theirs = ort_session(original.SerializeToString()).run(None, feeds)
    ours = Session(optimized).run(feeds)
    assert len(ours) == len(theirs)
    for (name, value), want in zip(ours.items(), theirs):
        assert_close(value, want, name, rtol=1e-4, atol=1e-5)

    types = infer(optimized)
    partial = [n for n, t in types.items() if t is None or t.shape is None or None in t.shape]
    assert not partial, partial
