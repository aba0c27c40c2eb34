"""Edge cases of the math kernels (elementwise, Cast, Reduce*, activations,
normalization, quantization, random, training) that the ONNX backend node
cases miss: old opsets, negative axes, broadcasting, empty tensors, dtypes.
onnx.reference and onnxruntime serve as oracles only."""
from __future__ import annotations

import math

import ml_dtypes
import numpy as np
import pytest

from onnxstudio.core.exec import kernels  # noqa: F401  (registers kernels)
from onnxstudio.core.exec.registry import KernelContext, find_kernel

onnx = pytest.importorskip("onnx")
from onnx import helper  # noqa: E402
from onnx.reference import ReferenceEvaluator  # noqa: E402
from exact_integer import int16_pair_saturated_matmul, int_matmul  # noqa: E402

RNG = np.random.default_rng(1234)


def run(op, *args, opset=28, domain="", n_out=1, rng_seed=0, **attrs):
    k = find_kernel(domain, op, opset)
    assert k is not None, f"no kernel for {op} at {opset}"
    if k.context:
        ctx = KernelContext(opset=opset, num_outputs=n_out, rng=np.random.default_rng(rng_seed))
        return k.fn(ctx, *args, **attrs)
    return k.fn(*args, **attrs)


def reference(op, inputs, opset, n_out=1, **attrs):
    """The same node through onnx.reference (the oracle)."""
    names = [f"i{j}" for j in range(len(inputs))]
    outs = [f"o{j}" for j in range(n_out)]
    node = helper.make_node(op, names, outs, **attrs)
    np_to = helper.np_dtype_to_tensor_dtype
    ins = [helper.make_tensor_value_info(n, np_to(v.dtype), v.shape) for n, v in zip(names, inputs)]
    graph = helper.make_graph([node], "g", ins, [helper.make_value_info(o, helper.TypeProto()) for o in outs])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    return ReferenceEvaluator(model).run(None, dict(zip(names, inputs)))


def ort_run(op, inputs, opset, n_out=1, **attrs):
    """The same node through onnxruntime (skipped when it is not installed)."""
    ort = pytest.importorskip("onnxruntime")
    names = [f"i{j}" for j in range(len(inputs))]
    outs = [f"o{j}" for j in range(n_out)]
    np_to = helper.np_dtype_to_tensor_dtype
    ins = [helper.make_tensor_value_info(n, np_to(v.dtype), v.shape) for n, v in zip(names, inputs)]
    graph = helper.make_graph([helper.make_node(op, names, outs, **attrs)], "g", ins,
                              [helper.make_value_info(o, helper.TypeProto()) for o in outs])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)], ir_version=8)
    sess = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    return sess.run(None, dict(zip(names, inputs)))


# ---- elementwise --------------------------------------------------------------

def test_legacy_broadcast_aligns_b_at_axis():
    a = RNG.standard_normal((2, 3, 4, 5)).astype(np.float32)
    b = RNG.standard_normal((3, 4)).astype(np.float32)
    got = run("Add", a, b, opset=6, broadcast=1, axis=1)
    np.testing.assert_array_equal(got, a + b[None, :, :, None])
    # without axis, B aligns with A's trailing dims like numpy
    c = RNG.standard_normal(5).astype(np.float32)
    np.testing.assert_array_equal(run("Mul", a, c, opset=6, broadcast=1), a * c)
    np.testing.assert_array_equal(run("Sub", a, b, opset=1, broadcast=1, axis=-3), a - b[None, :, :, None])


def test_integer_div_truncates_toward_zero():
    a = np.array([-7, 7, -7, 7, 6, -6], np.int32)
    b = np.array([2, -2, -2, 2, -3, 3], np.int32)
    got = run("Div", a, b, opset=14)
    np.testing.assert_array_equal(got, [-3, -3, 3, 3, -2, -2])
    assert got.dtype == np.int32


def test_mod_sign_rules_for_ints_and_floats():
    a = np.array([-7, 7, -7, 7], np.int64)
    b = np.array([3, -3, -3, 3], np.int64)
    np.testing.assert_array_equal(run("Mod", a, b), [2, -2, -1, 1])          # sign of divisor
    np.testing.assert_array_equal(run("Mod", a, b, fmod=1), [-1, 1, -1, 1])  # sign of dividend
    fa, fb = a.astype(np.float32), b.astype(np.float32)
    got = run("Mod", fa, fb, opset=28)
    np.testing.assert_array_equal(got, [2, -2, -1, 1])
    assert got.dtype == np.float32
    np.testing.assert_array_equal(run("Mod", fa, fb, fmod=1), [-1, 1, -1, 1])


def test_pow_mixed_types_keep_base_type():
    x = np.array([1.5, 2.0, -3.0], np.float32)
    got = run("Pow", x, np.array([2, 3, 2], np.int64), opset=15)
    assert got.dtype == np.float32
    np.testing.assert_allclose(got, [2.25, 8.0, 9.0])
    ints = np.array([2, 3, 4], np.int32)
    got = run("Pow", ints, np.array([2.0, -1.0, 0.5], np.float32), opset=15)
    assert got.dtype == np.int32
    np.testing.assert_array_equal(got, [4, 0, 2])


def test_bit_shift_signed_and_out_of_range_amounts():
    x = np.array([-8, -8, 8, -1, 5], np.int8)
    np.testing.assert_array_equal(run("BitShift", x, np.array([1, 8, 9, -1, 2], np.int8), direction="RIGHT"),
                                  [-4, -1, 0, -1, 1])
    np.testing.assert_array_equal(run("BitShift", x, np.array([1, 8, 1, 7, 2], np.int8), direction="LEFT"),
                                  [-16, 0, 16, -128, 20])
    u = np.array([1, 2, 255], np.uint8)
    np.testing.assert_array_equal(run("BitShift", u, np.array([7, 8, 1], np.uint8), direction="LEFT"),
                                  [128, 0, 254])


def test_comparisons_broadcast_and_strings():
    a = np.array([[1.0], [np.nan], [3.0]], np.float32)
    b = np.array([1.0, 2.0], np.float32)
    np.testing.assert_array_equal(run("GreaterOrEqual", a, b), [[True, False], [False, False], [True, True]])
    s = np.array(["a", "b"], dtype=object)
    np.testing.assert_array_equal(run("Equal", s, np.array(["a"], dtype=object)), [True, False])


def test_variadic_ops_broadcast_many_inputs():
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    b = np.array([10, 20, 30], np.float32)
    c = np.array([[100], [200]], np.float32)
    np.testing.assert_array_equal(run("Sum", a, b, c), a + b + c)
    got = run("Mean", a, b, c)
    assert got.dtype == np.float32
    np.testing.assert_allclose(got, (a + b + c) / 3, rtol=1e-6)
    np.testing.assert_array_equal(run("Max", a, b, c, opset=13), np.maximum(np.maximum(a, b), c))
    np.testing.assert_array_equal(run("Min", a), a)


def test_clip_versions_and_bounds():
    x = np.array([-5.0, 0.5, 5.0], np.float32)
    np.testing.assert_array_equal(run("Clip", x, opset=6, min=-1.0, max=1.0), [-1, 0.5, 1])
    np.testing.assert_array_equal(run("Clip", x, opset=6), x)
    np.testing.assert_array_equal(run("Clip", x, None, np.array(1.0, np.float32), opset=13), [-5, 0.5, 1])
    np.testing.assert_array_equal(run("Clip", x, np.array(2.0, np.float32), np.array(1.0, np.float32),
                                      opset=13), [1, 1, 1])        # min > max gives max
    ints = np.array([-300, 7, 300], np.int32)
    got = run("Clip", ints, np.array(-10, np.int32), np.array(10, np.int32), opset=13)
    assert got.dtype == np.int32
    np.testing.assert_array_equal(got, [-10, 7, 10])


def test_erf_and_gelu_accuracy():
    x = np.linspace(-6, 6, 2001)
    exact = np.array([math.erf(v) for v in x])
    # the tanh(x * P(x^2)) fit (6e-8) plus float32 rounding
    np.testing.assert_allclose(run("Erf", x.astype(np.float32)), exact, atol=5e-7)
    np.testing.assert_allclose(run("Erf", x), exact, atol=2e-7)
    x32 = x.astype(np.float32)
    gelu_exact = 0.5 * x * (1 + np.array([math.erf(v / math.sqrt(2)) for v in x]))
    np.testing.assert_allclose(run("Gelu", x32), gelu_exact, atol=2e-6)
    tanh_form = 0.5 * x * (1 + np.tanh(np.sqrt(2 / np.pi) * (x + 0.044715 * x ** 3)))
    np.testing.assert_allclose(run("Gelu", x32, approximate="tanh"), tanh_form, atol=2e-6)


def test_float32_stays_float32_and_bfloat16_works():
    x = RNG.standard_normal((3, 4)).astype(np.float32)
    for op in ("Sqrt", "Exp", "Sigmoid", "Erf", "Softplus", "Elu", "Selu", "HardSwish", "Tanh", "Mish"):
        assert run(op, np.abs(x)).dtype == np.float32, op
    bf = x.astype(ml_dtypes.bfloat16)
    for op in ("Exp", "Sigmoid", "Abs", "Relu", "Erf"):
        got = run(op, bf)
        assert got.dtype == bf.dtype, op
    np.testing.assert_allclose(run("Add", bf, bf).astype(np.float32), (bf.astype(np.float32) * 2), rtol=1e-2)
    assert run("Greater", bf, bf).dtype == np.bool_


def test_isinf_directions():
    x = np.array([np.inf, -np.inf, 1.0, np.nan], np.float32)
    np.testing.assert_array_equal(run("IsInf", x), [True, True, False, False])
    np.testing.assert_array_equal(run("IsInf", x, detect_negative=0), [True, False, False, False])
    np.testing.assert_array_equal(run("IsInf", x, detect_positive=0), [False, True, False, False])


# ---- Cast -------------------------------------------------------------------------

def test_cast_strings_both_ways():
    s = np.array(["1.5", "+INF", "-inf", "NaN", "1e-5", "-0"], dtype=object)
    got = run("Cast", s, to=1)
    assert got.dtype == np.float32
    np.testing.assert_array_equal(got, np.array([1.5, np.inf, -np.inf, np.nan, 1e-5, -0.0], np.float32))
    np.testing.assert_array_equal(run("Cast", np.array(["12", "-3"], dtype=object), to=7), [12, -3])
    text = run("Cast", np.array([0.1, 2.0], np.float32), to=8)
    assert text.dtype == object and all(isinstance(v, str) for v in text)
    np.testing.assert_array_equal(run("Cast", text, to=1), np.array([0.1, 2.0], np.float32))


def test_cast_integer_wraps_and_legacy_string_to():
    np.testing.assert_array_equal(run("Cast", np.array([200, -200], np.int16), to=3), [-56, 56])
    np.testing.assert_array_equal(run("Cast", np.array([0.0, -0.0, 0.5, np.nan], np.float32), to=9),
                                  [False, False, True, True])
    got = run("Cast", np.array([1.7, -2.2], np.float32), opset=1, to="INT32")
    assert got.dtype == np.int32
    np.testing.assert_array_equal(got, [1, -2])


def test_cast_float8_saturation():
    x = np.array([1e6, -1e6, np.inf, 1.0], np.float32)
    sat = run("Cast", x, to=17)
    assert sat.dtype == ml_dtypes.float8_e4m3fn
    np.testing.assert_array_equal(sat.astype(np.float32), [448, -448, 448, 1])
    raw = run("Cast", x, to=17, saturate=0).astype(np.float32)
    assert np.isnan(raw[:3]).all()
    e5 = run("Cast", x, to=19, saturate=0).astype(np.float32)
    np.testing.assert_array_equal(e5, [np.inf, -np.inf, np.inf, 1])


@pytest.mark.parametrize("mode", ["up", "down", "nearest"])
@pytest.mark.parametrize("saturate", [0, 1])
def test_cast_float8e8m0_matches_oracle(mode, saturate):
    from onnx.numpy_helper import to_float8e8m0
    x = np.array([1.0, 1.5, 3.0, 0.7, 2.0 ** 127 * 1.9, 1e-39, np.inf, np.nan, 5.0, 6.0], np.float32)
    got = run("Cast", x, to=24, saturate=saturate, round_mode=mode)
    want = to_float8e8m0(x, saturate, mode).view(np.uint8).copy()
    if saturate:
        # the operator's table maps +inf to E8M0_MAX when saturating; the
        # oracle helper keeps it NaN, so that one entry follows the spec
        want[np.isposinf(x)] = 254
    np.testing.assert_array_equal(got.view(np.uint8), want)


def test_castlike_takes_target_type():
    got = run("CastLike", np.array([1.25], np.float64), np.zeros(0, ml_dtypes.bfloat16))
    assert got.dtype == ml_dtypes.bfloat16


# ---- reductions -------------------------------------------------------------------

def test_reduce_axes_attribute_and_input_forms():
    x = RNG.standard_normal((2, 3, 4)).astype(np.float32)
    np.testing.assert_allclose(run("ReduceSum", x, opset=11, axes=[-1, 0], keepdims=0), x.sum(axis=(0, 2)),
                               rtol=1e-6)
    np.testing.assert_allclose(run("ReduceMean", x, np.array([-2]), opset=18), x.mean(axis=1, keepdims=True),
                               rtol=1e-6)
    np.testing.assert_array_equal(run("ReduceMax", x, np.array([], np.int64), opset=18,
                                      noop_with_empty_axes=1), x)
    np.testing.assert_allclose(run("ReduceProd", x, None, opset=18, keepdims=0), np.prod(x), rtol=1e-5)
    assert run("ReduceSum", x, opset=1).shape == (1, 1, 1)


def test_reduce_empty_sets():
    e = np.zeros((2, 0), np.float32)
    np.testing.assert_array_equal(run("ReduceMax", e, np.array([1]), opset=18, keepdims=0), [-np.inf, -np.inf])
    np.testing.assert_array_equal(run("ReduceMin", np.zeros((2, 0), np.int32), np.array([1]), opset=18,
                                      keepdims=0), [2 ** 31 - 1] * 2)
    np.testing.assert_array_equal(run("ReduceProd", e, np.array([1]), opset=18, keepdims=0), [1, 1])
    np.testing.assert_array_equal(run("ReduceLogSumExp", e, np.array([1]), opset=18, keepdims=0),
                                  [-np.inf, -np.inf])


def test_reduce_log_sum_exp_is_stable_and_int_mean_truncates():
    x = np.array([[1000.0, 1000.0], [-1000.0, -np.inf]], np.float32)
    np.testing.assert_allclose(run("ReduceLogSumExp", x, np.array([1]), opset=18, keepdims=0),
                               [1000 + np.log(2), -1000], rtol=1e-6)
    ints = np.array([[1, 2], [3, 6]], np.int32)
    got = run("ReduceMean", ints, np.array([1]), opset=18, keepdims=0)
    assert got.dtype == np.int32
    np.testing.assert_array_equal(got, [1, 4])


def test_argmax_ties_and_negative_axis():
    x = np.array([[3, 1, 3], [0, 5, 5]], np.float32)
    np.testing.assert_array_equal(run("ArgMax", x, axis=-1, keepdims=0), [0, 1])
    np.testing.assert_array_equal(run("ArgMax", x, axis=-1, keepdims=0, select_last_index=1), [2, 2])
    np.testing.assert_array_equal(run("ArgMin", x, axis=0, select_last_index=1), [[1, 0, 0]])


# ---- softmax family and activations ------------------------------------------

def test_softmax_opset11_flattens_at_axis_and_13_uses_one_axis():
    x = RNG.standard_normal((2, 3, 4)).astype(np.float32)
    flat = x.reshape(2, 12)
    expect11 = (np.exp(flat) / np.exp(flat).sum(axis=1, keepdims=True)).reshape(x.shape)
    np.testing.assert_allclose(run("Softmax", x, opset=11), expect11, rtol=1e-5)
    expect13 = np.exp(x) / np.exp(x).sum(axis=1, keepdims=True)
    np.testing.assert_allclose(run("Softmax", x, opset=13, axis=1), expect13, rtol=1e-5)
    np.testing.assert_allclose(run("LogSoftmax", x, opset=13, axis=-3), reference("LogSoftmax", [x], 13,
                               axis=-3)[0], rtol=1e-5, atol=1e-6)
    assert run("Softmax", np.zeros((0, 3), np.float32), opset=13).shape == (0, 3)


def test_hardmax_picks_first_maximum():
    x = np.array([[1, 3, 3], [2, 2, 0]], np.float32)
    np.testing.assert_array_equal(run("Hardmax", x, opset=13), [[0, 1, 0], [1, 0, 0]])
    np.testing.assert_array_equal(run("Hardmax", x, opset=11, axis=0), [[0, 1, 0], [0, 0, 0]])


def test_activation_edge_values():
    x = np.array([-1000.0, -1.0, 0.0, 1.0, 1000.0], np.float32)
    with np.errstate(all="raise"):          # nothing may warn on extremes
        np.testing.assert_allclose(run("Sigmoid", x), [0, 1 / (1 + np.e), 0.5, 1 / (1 + np.exp(-1)), 1],
                                   rtol=1e-6)
        np.testing.assert_allclose(run("Softplus", x), [0, np.log1p(np.exp(-1)), np.log(2),
                                                       1 + np.log1p(np.exp(-1)), 1000], rtol=1e-6)
        np.testing.assert_allclose(run("Elu", x, alpha=2.0), [-2, 2 * (np.exp(-1) - 1), 0, 1, 1000], rtol=1e-6)
    np.testing.assert_array_equal(run("Relu", np.array([-3, 4], np.int8)), [0, 4])
    assert run("Relu", np.array([-3, 4], np.int8)).dtype == np.int8
    np.testing.assert_array_equal(run("Shrink", np.array([-3, 0, 3], np.int32), lambd=1.0, bias=1.0), [-2, 0, 2])
    chw = -np.ones((1, 3, 2, 2), np.float32)
    per_channel = np.array([0.1, 0.2, 0.3], np.float32)
    np.testing.assert_allclose(run("PRelu", chw, per_channel, opset=6), -per_channel[None, :, None, None]
                               * np.ones_like(chw))
    slope = np.array([0.1, 0.2, 0.3], np.float32)
    np.testing.assert_allclose(run("PRelu", -np.ones((2, 3), np.float32), slope), -np.tile(slope, (2, 1)))


# ---- normalization ------------------------------------------------------------------

def test_batchnorm_old_spatial0_and_inference():
    x = RNG.standard_normal((2, 3, 4)).astype(np.float32)
    s, b, m, v = (RNG.random((3, 4)).astype(np.float32) + 0.5 for _ in range(4))
    got = run("BatchNormalization", x, s, b, m, v, opset=7, spatial=0, epsilon=1e-3)
    np.testing.assert_allclose(got, (x - m) / np.sqrt(v + 1e-3) * s + b, rtol=1e-5, atol=1e-6)
    c = [RNG.random(3).astype(np.float32) + 0.5 for _ in range(4)]
    got = run("BatchNormalization", x, *c, opset=6, is_test=1)
    want = (x - c[2][:, None]) / np.sqrt(c[3][:, None] + 1e-5) * c[0][:, None] + c[1][:, None]
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


def test_batchnorm_training_mode_updates_running_stats():
    x = RNG.standard_normal((4, 2, 3)).astype(np.float32)
    s, b = np.ones(2, np.float32), np.zeros(2, np.float32)
    m, v = np.full(2, 0.5, np.float32), np.full(2, 2.0, np.float32)
    y, rm, rv = run("BatchNormalization", x, s, b, m, v, opset=15, training_mode=1, momentum=0.8)
    bm, bv = x.mean(axis=(0, 2)), x.var(axis=(0, 2))
    np.testing.assert_allclose(y, (x - bm[:, None]) / np.sqrt(bv[:, None] + 1e-5), rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(rm, 0.5 * 0.8 + bm * 0.2, rtol=1e-6)
    np.testing.assert_allclose(rv, 2.0 * 0.8 + bv * 0.2, rtol=1e-6)


def test_layer_norm_inner_axis_outputs_match_reference():
    x = RNG.standard_normal((2, 3, 4)).astype(np.float32)
    scale = RNG.standard_normal((3, 4)).astype(np.float32)
    bias = RNG.standard_normal((3, 4)).astype(np.float32)
    got = run("LayerNormalization", x, scale, bias, axis=-2, opset=17)
    want = reference("LayerNormalization", [x, scale, bias], 17, n_out=3, axis=-2)
    for g, w in zip(got, want):
        assert g.shape == w.shape and g.dtype == w.dtype
        np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-6)


def test_group_norm_scale_per_group_then_per_channel():
    x = RNG.standard_normal((2, 4, 3)).astype(np.float32)
    grouped = x.reshape(2, 2, -1)
    norm = ((grouped - grouped.mean(-1, keepdims=True)) / np.sqrt(grouped.var(-1, keepdims=True) + 1e-5))
    norm = norm.reshape(x.shape)
    per_group = np.array([2.0, 3.0], np.float32)
    np.testing.assert_allclose(run("GroupNormalization", x, per_group, np.zeros(2, np.float32), opset=18,
                                   num_groups=2), norm * np.repeat(per_group, 2)[None, :, None], rtol=1e-4,
                               atol=1e-5)
    per_channel = np.array([1.0, 2.0, 3.0, 4.0], np.float32)
    np.testing.assert_allclose(run("GroupNormalization", x, per_channel, np.zeros(4, np.float32), opset=21,
                                   num_groups=2), norm * per_channel[None, :, None], rtol=1e-4, atol=1e-5)


def test_lrn_and_mvn_match_oracles():
    x = RNG.standard_normal((2, 5, 3, 3)).astype(np.float32)
    for size in (1, 3, 5):
        # onnx.reference's LRN windows over the batch axis, so onnxruntime here
        np.testing.assert_allclose(run("LRN", x, size=size, alpha=0.01, beta=0.6, bias=2.0),
                                   ort_run("LRN", [x], 13, size=size, alpha=0.01, beta=0.6, bias=2.0)[0],
                                   rtol=1e-5)
    # even sizes (onnxruntime refuses them): window [c - 1, c + 2] for size 4
    want = np.empty_like(x)
    for c in range(5):
        window = np.square(x[:, max(0, c - 1):c + 3]).sum(axis=1)
        want[:, c] = x[:, c] / (2.0 + 0.01 / 4 * window) ** 0.6
    np.testing.assert_allclose(run("LRN", x, size=4, alpha=0.01, beta=0.6, bias=2.0), want, rtol=1e-5)
    np.testing.assert_allclose(run("MeanVarianceNormalization", x, axes=[1, -1]),
                               reference("MeanVarianceNormalization", [x], 13, axes=[1, -1])[0],
                               rtol=1e-4, atol=1e-5)


def test_lp_norm_zero_vector_stays_zero():
    x = np.array([[3.0, 4.0], [0.0, 0.0]], np.float32)
    np.testing.assert_allclose(run("LpNormalization", x, axis=-1), [[0.6, 0.8], [0, 0]])
    np.testing.assert_allclose(run("LpNormalization", x, p=1), [[3 / 7, 4 / 7], [0, 0]])


# ---- quantization -------------------------------------------------------------

def test_quantize_per_axis_negative_axis_and_default_uint8():
    x = RNG.standard_normal((2, 3, 4)).astype(np.float32) * 10
    scale = np.array([0.1, 0.2, 0.5], np.float32)
    zp = np.array([0, 10, -5], np.int8)
    got = run("QuantizeLinear", x, scale, zp, axis=-2)
    np.testing.assert_array_equal(got, reference("QuantizeLinear", [x, scale, zp], 21, axis=-2)[0])
    plain = run("QuantizeLinear", x, np.array(0.5, np.float32), opset=10)
    assert plain.dtype == np.uint8
    np.testing.assert_array_equal(plain, np.clip(np.rint(x / 0.5), 0, 255).astype(np.uint8))


def test_quantize_blocked_ragged_and_int4():
    x = RNG.standard_normal((3, 5)).astype(np.float32)
    scale = RNG.random((3, 3)).astype(np.float32) + 0.1       # ceil(5/2) blocks
    zp = np.zeros((3, 3), ml_dtypes.int4)
    got = run("QuantizeLinear", x, scale, zp, axis=1, block_size=2)
    assert got.dtype == ml_dtypes.int4
    want = np.clip(np.rint(x / np.repeat(scale, 2, axis=1)[:, :5]), -8, 7)
    np.testing.assert_array_equal(got.astype(np.int8), want)
    back = run("DequantizeLinear", got, scale, zp, axis=1, block_size=2)
    np.testing.assert_allclose(back, want * np.repeat(scale, 2, axis=1)[:, :5], rtol=1e-6)


def test_quantize_float8_and_output_dtype():
    x = np.array([1000.0, -1.0, 0.3], np.float32)
    got = run("QuantizeLinear", x, np.array(1.0, np.float32), output_dtype=17)
    assert got.dtype == ml_dtypes.float8_e4m3fn
    np.testing.assert_array_equal(got.astype(np.float32), np.array([448, -1, 0.3], np.float32)
                                  .astype(ml_dtypes.float8_e4m3fn).astype(np.float32))
    deq = run("DequantizeLinear", np.array([1, 2], np.int8), np.array(0.5, np.float32), output_dtype=10)
    assert deq.dtype == np.float16


def test_dynamic_quantize_linear_includes_zero():
    y, scale, zp = run("DynamicQuantizeLinear", np.array([1.0, 2.0, 3.0], np.float32))
    assert scale.dtype == np.float32 and zp.dtype == np.uint8 and scale.shape == ()
    np.testing.assert_allclose(scale, 3.0 / 255)
    assert zp == 0
    np.testing.assert_array_equal(y, [85, 170, 255])
    y, scale, zp = run("DynamicQuantizeLinear", np.zeros(3, np.float32))
    np.testing.assert_array_equal(y, [0, 0, 0])
    assert scale == np.float32(1) / np.float32(255) and zp == 0     # as the reference: no range, 1/255


def test_dynamic_quantize_linear_rounds_like_the_reference_bit_for_bit():
    """Scale and quotient in float32: a scale rounded once more in float64
    moved values sitting near .5 by one step (found on a dynamically
    quantized conv net)."""
    rng = np.random.default_rng(5)
    for _ in range(20):
        x = (rng.standard_normal(20000) * rng.uniform(0.1, 3)).astype(np.float32)
        got = run("DynamicQuantizeLinear", x, n_out=3)
        want = reference("DynamicQuantizeLinear", [x], 11, n_out=3)
        for g, w in zip(got, want):
            np.testing.assert_array_equal(g, w)


def test_matmul_integer_per_row_zero_points():
    a = RNG.integers(0, 255, (2, 3, 4)).astype(np.uint8)
    b = RNG.integers(-128, 127, (4, 5)).astype(np.int8)
    # 255 x 127 (and x -128) in two neighbouring k: a pair sum past int16,
    # which AVX2 kernels without VNNI saturate; the product must stay exact
    a[0, 0, :2], b[:2, 0], b[:2, 1] = 255, 127, -128
    azp = np.array([1, 2, 3], np.uint8)
    bzp = np.array([0, 1, 2, 3, 4], np.int8)
    got = run("MatMulInteger", a, b, azp, bzp)
    want = (a.astype(np.int32) - azp[:, None]) @ (b.astype(np.int32) - bzp)
    assert got.dtype == np.int32
    np.testing.assert_array_equal(got, want)
    assert not np.array_equal(int16_pair_saturated_matmul(a[0], azp, b, bzp), want[0])


@pytest.mark.parametrize("a_type", [np.uint8, np.int8])
def test_qlinear_matmul_is_exact_where_pair_sums_leave_int16(a_type):
    """Against int64 sums scaled by the operator's formula in float64 (our
    kernel's float type); rows meet 127 and -128 twice in neighbouring k."""
    rng = np.random.default_rng(79)
    info = np.iinfo(a_type)
    a = rng.integers(info.min, info.max + 1, (2, 6, 10)).astype(a_type)
    b = rng.integers(-128, 128, (10, 4)).astype(np.int8)
    a[:, 0, 4:6], a[:, 1, 4:6], b[4:6, 0], b[4:6, 1] = info.max, info.min, 127, -128
    a_scale, a_zp = np.array(0.03, np.float32), np.array(info.min + 100, a_type)
    b_scale, b_zp = np.array([0.002, 0.004, 0.001, 0.003], np.float32), np.array([0, 3, -2, 1], np.int8)
    y_scale, y_zp = np.array(0.5, np.float32), np.array(info.min + 128, a_type)
    got = run("QLinearMatMul", a, a_scale, a_zp, b, b_scale, b_zp, y_scale, y_zp)
    acc = int_matmul(a, a_zp, b, b_zp)
    values = np.rint(acc * (np.float64(a_scale) * b_scale.astype(np.float64) / np.float64(y_scale)))
    want = np.clip(values + int(y_zp), info.min, info.max).astype(a_type)
    assert got.dtype == want.dtype
    np.testing.assert_array_equal(got, want)


# ---- random ---------------------------------------------------------------------

def test_random_ops_are_seeded_typed_and_shaped():
    a = run("RandomUniform", shape=[1000], low=2.0, high=3.0, seed=None)
    b = run("RandomUniform", shape=[1000], low=2.0, high=3.0)
    np.testing.assert_array_equal(a, b)                   # same session seed, same values
    assert a.dtype == np.float32 and 2 <= a.min() and a.max() < 3
    # a node's own seed wins over the session's generator
    c = run("RandomUniform", shape=[1000], seed=5.0)
    np.testing.assert_array_equal(c, run("RandomUniform", shape=[1000], seed=5.0, **{}) * 1)
    assert not np.array_equal(c, run("RandomUniform", shape=[1000], seed=6.0))
    n = run("RandomNormalLike", np.zeros((200, 100), np.float64), mean=3.0, scale=0.5)
    assert n.dtype == np.float64 and abs(n.mean() - 3) < 0.02 and abs(n.std() - 0.5) < 0.02
    bern = run("Bernoulli", np.array([0.0, 1.0, 0.0, 1.0]), dtype=6)
    np.testing.assert_array_equal(bern, [0, 1, 0, 1])
    assert bern.dtype == np.int32


def test_multinomial_follows_probabilities():
    logits = np.log(np.array([[0.2, 0.8], [1.0, 1e-30]], np.float32))
    draws = run("Multinomial", logits, sample_size=4000)
    assert draws.shape == (2, 4000) and draws.dtype == np.int32
    assert abs(draws[0].mean() - 0.8) < 0.03
    assert (draws[1] == 0).all()


def test_dropout_inference_identity_and_training_mask():
    x = RNG.standard_normal((50, 40)).astype(np.float32)
    y, mask = run("Dropout", x, n_out=2, opset=13)
    np.testing.assert_array_equal(y, x)
    assert mask.dtype == np.bool_ and mask.all()
    y, mask = run("Dropout", x, np.array(0.25, np.float32), np.array(True), n_out=2, opset=13)
    np.testing.assert_allclose(y, np.where(mask, x / 0.75, 0), rtol=1e-6)
    assert 0.2 < 1 - mask.mean() < 0.3
    same = run("Dropout", x, np.array(0.0, np.float32), np.array(True), opset=13)
    np.testing.assert_array_equal(same, x)
    np.testing.assert_array_equal(run("Dropout", x, opset=6, is_test=1, ratio=0.3), x)
    assert run("Dropout", x, n_out=2, opset=7)[1].dtype == np.float32


# ---- training ---------------------------------------------------------------------

def test_adam_first_step_and_momentum_nesterov():
    r, t = np.array(0.1, np.float32), np.array(0, np.int64)
    x, g = np.array([1.0, 2.0], np.float32), np.array([0.5, -1.0], np.float32)
    v = h = np.zeros(2, np.float32)
    x1, v1, h1 = run("Adam", r, t, x, g, v, h, domain="ai.onnx.preview.training", opset=1)
    np.testing.assert_allclose(v1, 0.1 * g, rtol=1e-6)
    np.testing.assert_allclose(h1, 0.001 * g * g, rtol=1e-5)
    np.testing.assert_allclose(x1, x - 0.1 * v1 / (np.sqrt(h1) + 1e-6), rtol=1e-5)
    x2, v2 = run("Momentum", r, np.array(3, np.int64), x, g, np.ones(2, np.float32),
                 domain="ai.onnx.preview.training", opset=1, alpha=0.9, beta=0.5, mode="nesterov",
                 norm_coefficient=0.0)
    np.testing.assert_allclose(v2, 0.9 + 0.5 * g, rtol=1e-6)
    np.testing.assert_allclose(x2, x - 0.1 * (g + 0.9 * v2), rtol=1e-6)


# ---- signatures against the operator schemas -------------------------------

MATH_MODULES = {"elementwise", "elementwise_binary", "elementwise_variadic", "cast", "reduce",
                "activation", "normalization", "quantize", "random", "training"}


def _math_kernels_with_schemas():
    from onnx import defs
    from onnxstudio.core.exec.registry import registered
    ours = {(k.domain, k.op_type) for k in registered() if k.fn.__module__.rsplit(".", 1)[-1] in MATH_MODULES}
    for schema in defs.get_all_schemas_with_history():
        if (schema.domain, schema.name) in ours:
            yield schema, find_kernel(schema.domain, schema.name, schema.since_version)


def test_every_schema_version_has_a_kernel_taking_its_attributes_and_defaults():
    import inspect
    checked = 0
    for schema, k in _math_kernels_with_schemas():
        where = f"{schema.name} since {schema.since_version}"
        assert k is not None, where
        fn = getattr(k.fn, "__wrapped__", k.fn)
        params = inspect.signature(fn).parameters
        if fn is k.fn and any(p.kind == p.VAR_KEYWORD for p in params.values()):
            continue
        for name, attr in schema.attributes.items():
            if name == "consumed_inputs":
                continue
            assert name in params, f"{where}: attribute {name} not accepted"
            if attr.default_value.name:
                want = helper.get_attribute_value(attr.default_value)
                want = want.decode() if isinstance(want, bytes) else want
                got = params[name].default
                if isinstance(want, float):
                    assert got == pytest.approx(want, rel=1e-6), f"{where}: default of {name}"
                elif isinstance(want, list):
                    assert list(got) == want, f"{where}: default of {name}"
                else:
                    assert got == want, f"{where}: default of {name}"
        checked += 1
    assert checked > 200


def _all_element_types():
    from onnxstudio.core.ir.dtypes import DataType
    return [c for c in DataType if c not in (DataType.UNDEFINED, DataType.COMPLEX64, DataType.COMPLEX128)]


@pytest.mark.parametrize("src", _all_element_types(), ids=lambda c: c.name)
def test_cast_every_type_pair(src):
    """Small exact values survive Cast between every pair of element types
    (ml_dtypes refuses some pairs directly, e.g. int4 -> uint2)."""
    from onnxstudio.core.ir.dtypes import DataType, to_numpy_dtype
    values = np.array([1.0, 0.0, 1.0, 2.0])
    if src in (DataType.INT2, DataType.BOOL):      # 2 does not fit
        values = np.array([1.0, 0.0, 1.0, 1.0])
    elif src == DataType.FLOAT8E8M0:               # no zero in E8M0: powers of two only
        values = np.array([1.0, 0.5, 1.0, 2.0])
    if src == DataType.STRING:
        x = np.array([str(int(v)) for v in values], dtype=object)
    elif src == DataType.BOOL:
        x = values > 0
    elif src == DataType.FLOAT8E8M0:
        x = values.astype(to_numpy_dtype(src))
    else:
        x = values.astype(np.int8).astype(to_numpy_dtype(src))
    for dst in _all_element_types():
        got = run("Cast", x, to=int(dst))
        assert got.dtype == to_numpy_dtype(dst), (src.name, dst.name)
        if dst == DataType.STRING:
            numbers = np.array([float(v == "True") if v in ("True", "False") else float(v) for v in got])
        else:
            numbers = run("Cast", got, to=int(DataType.DOUBLE))
        want = values.copy()
        if dst == DataType.BOOL:
            want = (want != 0).astype(np.float64)
        elif dst in (DataType.UINT2, DataType.INT2) or "INT" in dst.name:
            want = np.trunc(want)
            if dst == DataType.INT2:
                want = np.where(want > 1, want - 4, want)     # wraps like two's complement
        if dst == DataType.FLOAT8E8M0:
            want = np.where(want == 0, 2.0 ** -127, want)     # smallest E8M0 value
        np.testing.assert_array_equal(numbers, want, err_msg=f"{src.name} -> {dst.name}")


def _frozen(*arrays):
    out = []
    for a in arrays:
        a = np.array(a)
        a.flags.writeable = False          # weights arrive as read-only views
        out.append(a)
    return out


@pytest.mark.parametrize("op,args,attrs,opset", [
    ("Softmax", [(2, 3)], {}, 13), ("Softmax", [(2, 3)], {}, 11), ("LogSoftmax", [(2, 3)], {}, 13),
    ("LayerNormalization", [(2, 3), (3,), (3,)], {}, 17), ("RMSNormalization", [(2, 3), (3,)], {}, 23),
    ("BatchNormalization", [(2, 3, 2), (3,), (3,), (3,), (3,)], {}, 15),
    ("BatchNormalization", [(2, 3, 2), (3,), (3,), (3,), (3,)], {"training_mode": 1}, 15),
    ("GroupNormalization", [(2, 4, 2), (4,), (4,)], {"num_groups": 2}, 21),
    ("InstanceNormalization", [(2, 3, 2), (3,), (3,)], {}, 22), ("Erf", [(5,)], {}, 13),
    ("Gelu", [(5,)], {}, 20), ("Sigmoid", [(5,)], {}, 13), ("HardSigmoid", [(5,)], {}, 22),
    ("Clip", [(5,)], {}, 13), ("Sum", [(5,)], {}, 13), ("ReduceSum", [(2, 3)], {}, 13),
    ("ReduceLogSumExp", [(2, 3)], {}, 18), ("Dropout", [(5,)], {}, 13), ("Cast", [(5,)], {"to": 1}, 21),
    ("LRN", [(1, 3, 2, 2)], {"size": 3}, 13), ("LpNormalization", [(2, 3)], {}, 22),
])
def test_kernels_leave_read_only_inputs_alone(op, args, attrs, opset):
    inputs = _frozen(*(np.abs(RNG.standard_normal(shape)).astype(np.float32) + 0.5 for shape in args))
    before = [a.copy() for a in inputs]
    result = run(op, *inputs, opset=opset, **attrs)
    for a, b in zip(inputs, before):
        np.testing.assert_array_equal(a, b)
    for r in result if isinstance(result, tuple) else (result,):
        assert r.dtype == np.float32, op
        assert not any(r is a for a in inputs), f"{op} returned its input object"


def test_blockwise_paths_agree_with_whole_array_math():
    from onnxstudio.core.exec.kernels.elementwise import erf_values
    x = RNG.standard_normal((3, 100_003)).astype(np.float32)    # not a multiple of the block
    np.testing.assert_array_equal(run("Erf", x), erf_values(x))
    strided = x[:, ::2]                                            # non-contiguous input
    np.testing.assert_array_equal(run("Erf", strided), erf_values(np.ascontiguousarray(strided)))
    g = run("Gelu", x)
    assert g.shape == x.shape and g.dtype == np.float32
    np.testing.assert_allclose(g, 0.5 * x * (1 + erf_values(x / np.float32(math.sqrt(2)))), rtol=1e-5, atol=1e-6)


def test_piecewise_activations_at_infinities_and_nan():
    x = np.array([-np.inf, -2.0, 0.0, 2.0, np.inf, np.nan], np.float32)
    np.testing.assert_array_equal(run("LeakyRelu", x, alpha=0.5), [-np.inf, -1, 0, 2, np.inf, np.nan])
    np.testing.assert_array_equal(run("LeakyRelu", x, alpha=3.0), [-np.inf, -6, 0, 2, np.inf, np.nan])
    np.testing.assert_allclose(run("Elu", x), [-1, np.expm1(-2), 0, 2, np.inf, np.nan], rtol=1e-6)
    np.testing.assert_array_equal(run("ThresholdedRelu", x, alpha=1.0), [0, 0, 0, 2, np.inf, np.nan])
    np.testing.assert_array_equal(run("ThresholdedRelu", x, alpha=2.0), [0, 0, 0, 0, np.inf, np.nan])
    np.testing.assert_array_equal(run("PRelu", x, np.array([0.5], np.float32)), [-np.inf, -1, 0, 2, np.inf, np.nan])
    np.testing.assert_allclose(run("Softplus", x), [0, np.log1p(np.exp(-2)), np.log(2), 2 + np.log1p(np.exp(-2)),
                                                   np.inf, np.nan], rtol=1e-6)
    np.testing.assert_allclose(run("Selu", x), [-1.67326319 * 1.05070102, 1.05070102 * 1.67326319 * np.expm1(-2),
                                               0, 2 * 1.05070102, np.inf, np.nan], rtol=1e-6)


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int8, np.bool_, np.float16, ml_dtypes.bfloat16])
def test_where_bit_select_matches_np_where(dtype):
    cond = RNG.random((4, 1, 2000)) < 0.5
    x = (RNG.standard_normal((4, 3, 2000)) * 10).astype(dtype)
    y = (RNG.standard_normal((3, 1)) * 10).astype(dtype)
    if np.dtype(dtype).kind == "f":
        x[0, 0, :3] = [np.inf, -np.inf, np.nan]
    got = run("Where", cond, x, y)
    want = np.where(cond, x, y)
    assert got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_array_equal(got.view(np.uint8), want.view(np.uint8))
    for uniform in (np.zeros_like(cond), np.ones_like(cond)):
        np.testing.assert_array_equal(run("Where", uniform, x, y).view(np.uint8),
                                      np.where(uniform, x, y).view(np.uint8))
    small = run("Where", cond[:1, :, :3], y, x[:1, :, :3])      # below the threshold: np.where
    np.testing.assert_array_equal(small, np.where(cond[:1, :, :3], y, x[:1, :, :3]))


def test_fast_paths_keep_shapes_and_values():
    x = RNG.standard_normal((2, 3, 5)).astype(np.float32)
    np.testing.assert_array_equal(run("Pow", x, np.array(2.0, np.float32)), x * x)
    wide = run("Pow", x[0, 0], np.array([[2.0]], np.float32))           # exponent of higher rank
    assert wide.shape == (1, 5)
    np.testing.assert_allclose(wide[0], x[0, 0] ** 2, rtol=1e-6)
    for keepdims in (0, 1):
        np.testing.assert_allclose(run("ReduceSum", x, np.array([-1]), keepdims=keepdims),
                                   x.sum(axis=-1, keepdims=bool(keepdims)), rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(run("ReduceMean", x, np.array([2]), keepdims=keepdims),
                                   x.mean(axis=-1, keepdims=bool(keepdims)), rtol=1e-5, atol=1e-6)
    assert run("ReduceMean", x, np.array([2]), keepdims=0).dtype == np.float32


def test_erf_tanh_form_accuracy_symmetry_and_limits():
    # the kernel's tanh(x * P(x^2)) form: within 2e-7 of erf in float32 and
    # 1e-7 in float64 everywhere, odd, saturating to exactly +-1
    x = np.concatenate([np.linspace(-9, 9, 90001), [1e-30, 3.8, 3.9, 3.95, 1e3, 3e38]])
    exact = np.array([math.erf(v) for v in x])
    np.testing.assert_allclose(run("Erf", x.astype(np.float32)), exact, atol=2e-7)
    np.testing.assert_allclose(run("Erf", x), exact, atol=1e-7)
    x32 = x.astype(np.float32)
    np.testing.assert_array_equal(run("Erf", -x32), -run("Erf", x32))
    special = np.array([np.inf, -np.inf, 0.0, -0.0, np.nan, -3.4e38], np.float32)
    with np.errstate(all="raise"):        # no warnings escape for huge inputs
        got = run("Erf", special)
    np.testing.assert_array_equal(got[:4], [1, -1, 0, 0])
    assert np.signbit(got[3]) and np.isnan(got[4]) and got[5] == -1
    tail = run("Erf", np.linspace(3.5, 50, 10000).astype(np.float32))
    assert (np.diff(tail) >= 0).all() and (tail[tail.size // 10:] == 1).all()     # no turning back past 3.9


def test_relu_large_inputs_match_maximum_bit_for_bit():
    # large float inputs take maximum against a row of zeros (numpy's fast
    # loop); results must be np.maximum(x, 0)'s exactly, -0, NaN, inf included
    for dtype in (np.float32, np.float64):
        for shape in [(3, 8192), (1, 5, 3001), (8191,), (2, 4096)]:
            x = RNG.standard_normal(shape).astype(dtype)
            x.reshape(-1)[:6] = [-0.0, 0.0, np.nan, np.inf, -np.inf, -1e-40]
            got, want = run("Relu", x), np.maximum(x, 0)
            assert got.dtype == want.dtype and got.shape == want.shape
            np.testing.assert_array_equal(got, want)
            assert np.array_equal(np.signbit(got), np.signbit(want), equal_nan=True)
        strided = RNG.standard_normal((64, 512)).astype(dtype)[:, ::2]
        np.testing.assert_array_equal(run("Relu", strided), np.maximum(strided, 0))


@pytest.mark.parametrize("dtype", [np.float32, np.int8, ml_dtypes.bfloat16])
def test_where_full_size_mask_takes_the_bit_select_with_np_where_bits(dtype):
    # a full-size mask is served by the bit select, a broadcast one by np.where
    from onnxstudio.core.exec.kernels import elementwise_variadic as ev
    cond = RNG.random((3, 4000)) < 0.5
    x = (RNG.standard_normal((3, 4000)) * 10).astype(dtype)
    y = (RNG.standard_normal((1,)) * 10).astype(dtype)
    if np.dtype(dtype).kind == "f":
        x[0, :3] = [np.inf, -np.inf, np.nan]
    calls = []
    real = ev._bit_select
    ev._bit_select = lambda *a: calls.append(1) or real(*a)
    try:
        got = run("Where", cond, x, y)
        run("Where", cond[:1], x, y)
    finally:
        ev._bit_select = real
    assert calls == [1]
    np.testing.assert_array_equal(got.view(np.uint8), np.where(cond, x, y).view(np.uint8))


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.float16, np.int32])
def test_bounded_equals_maximum_then_minimum(dtype):
    # the fast clip behind Erf's clamp and one-sided Clip: the values of
    # np.maximum/np.minimum for every bound combination, NaN and inf included
    from onnxstudio.core.exec.kernels._math_util import bounded
    x = (RNG.standard_normal(3 * 4099) * 10).astype(dtype)
    if x.dtype.kind == "f":
        x[:4] = [np.nan, np.inf, -np.inf, 2.5]
    for low, high in [(None, 4), (-3, None), (-3, 4), (None, None)]:
        want = x if low is None else np.maximum(x, x.dtype.type(low))
        want = want if high is None else np.minimum(want, x.dtype.type(high))
        got = bounded(x, low, high)
        assert got.dtype == x.dtype
        np.testing.assert_array_equal(got, want)
    out = x.copy()
    assert bounded(out, high=1, out=out) is out
    np.testing.assert_array_equal(out, np.minimum(x, x.dtype.type(1)))
