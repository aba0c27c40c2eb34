"""onnxruntime's quantized contrib operators (com.microsoft QLinear*, QGemm)
against onnxruntime itself, one node at a time and through a model its own
quantizer wrote; the integer products (QGemm, QLinearConv) against exact
int64 arithmetic instead (`exact_integer`), since onnxruntime's integers
for those depend on the CPU. The other operators' integers come from
float32 steps and tables that are the same on every CPU, so onnxruntime
stays their oracle."""
import numpy as np
import pytest
from onnx import TensorProto, helper, numpy_helper

ort = pytest.importorskip("onnxruntime")

from contrib_models import MS, ONNX_TYPE, one_node, ort_session  # noqa: E402
from exact_integer import (fits_int32, int16_pair_saturated_matmul, int_matmul,  # noqa: E402
                           qlinear_conv_reference, saturate)
from onnxstudio import core  # noqa: E402
from onnxstudio.core.exec import Session, run  # noqa: E402
from onnxstudio.core.exec.kernels import contrib_quantized as kernels  # noqa: E402
from onnxstudio.core.exec.kernels.contrib_quantized import _fma32, _mlas_logistic  # noqa: E402

def _ort_run(model, feeds):
    return ort_session(model).run(None, feeds)[0]


def _model_and_feeds(op, inputs, attrs=None, out_type=None, keep_trailing_empty=False):
    feeds = {n: np.asarray(v) for n, v in inputs if v is not None and n.startswith("x")}
    if out_type is None:
        out_type = ONNX_TYPE[np.asarray(inputs[0][1]).dtype]
    model = one_node(op, inputs, attrs, output_type=out_type, keep_trailing_empty=keep_trailing_empty)
    return model, feeds


def _ours(op, inputs, attrs=None, out_type=None):
    model, feeds = _model_and_feeds(op, inputs, attrs, out_type)
    return run(core.load_bytes(model.SerializeToString()), feeds)["y"]


def _both(op, inputs, attrs=None, out_type=None, keep_trailing_empty=False):
    model, feeds = _model_and_feeds(op, inputs, attrs, out_type, keep_trailing_empty)
    theirs = _ort_run(model, feeds)
    ours = run(core.load_bytes(model.SerializeToString()), feeds)["y"]
    return ours, theirs


def _rand_q(rng, shape, dtype):
    info = np.iinfo(dtype)
    return rng.integers(info.min, info.max + 1, size=shape).astype(dtype)


def _scale(rng):
    return np.float32(rng.uniform(0.002, 0.1))


def _zp(rng, dtype):
    """A zero point in the middle half of the range, where calibration puts them."""
    info = np.iinfo(dtype)
    return np.asarray(rng.integers(info.min + 64, info.max - 63), dtype=dtype)


def _assert_same(ours, theirs):
    assert ours.dtype == theirs.dtype and ours.shape == theirs.shape
    differ = ours.astype(np.int64) != theirs.astype(np.int64)
    assert not differ.any(), (f"{differ.sum()} of {differ.size} differ; first at "
                              f"{np.argwhere(differ)[:5].tolist()}: ours {ours[differ][:5]}, "
                              f"theirs {theirs[differ][:5]}")


DTYPES = [np.uint8, np.int8]


def _tie_prone_scales(rng):
    """Scales whose ratios (0.3, 0.7 ...) are inexact in float32: many results
    then land within float32 error of a .5, so any other order of rounding
    than onnxruntime's shows up as differing elements."""
    c = np.float32(rng.choice([0.1, 0.05, 0.02, 0.3]))
    a = np.float32(c * rng.choice([0.5, 1.5, 0.3, 0.7]))
    b = np.float32(c * rng.choice([0.5, 2.5, 0.1, 0.9]))
    return a, b, c


def _naive_add(a, sa, za, b, sb, zb, sc, zc):
    """QLinearAdd in float64 with a single rounding: mathematically right,
    and not what onnxruntime computes."""
    v = (np.float64(sa) * (a.astype(np.int64) - int(za)) + np.float64(sb) * (b.astype(np.int64) - int(zb)))
    info = np.iinfo(a.dtype)
    return np.clip(np.rint(v / np.float64(sc)) + int(zc), info.min, info.max)


SHAPE_PAIRS = [((2, 3, 16, 16), (2, 3, 16, 16)), ((2, 3, 16, 16), (1, 3, 1, 1)), ((1, 3, 1, 1), (2, 3, 16, 16)),
               ((4, 40), (40,)), ((4, 40), ()), ((), (4, 40)), ((3, 1), (1,)), ((5, 1, 7), (1, 6, 1))]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shapes", SHAPE_PAIRS, ids=str)
def test_qlinear_add_is_bit_exact(dtype, shapes):
    rng = np.random.default_rng(len(str(shapes)) + np.dtype(dtype).num)
    naive_differs = 0
    for trial in range(6):
        a, b = _rand_q(rng, shapes[0], dtype), _rand_q(rng, shapes[1], dtype)
        sa, sb, sc = _tie_prone_scales(rng)
        za, zb, zc = (_zp(rng, dtype) for _ in range(3))
        ours, theirs = _both("QLinearAdd", [("xa", a), ("sa", sa), ("za", za), ("xb", b), ("sb", sb), ("zb", zb),
                                            ("sc", sc), ("zc", zc)])
        _assert_same(ours, theirs)
        naive_differs += np.count_nonzero(_naive_add(a, sa, za, b, sb, zb, sc, zc) != theirs)
    if np.prod(np.broadcast_shapes(*shapes)) >= 160:
        # the inputs do reach cases where the float32 order of operations matters
        assert naive_differs > 0


@pytest.mark.parametrize("dtype", DTYPES)
def test_qlinear_add_and_mul_without_output_zero_point(dtype):
    """C_zero_point is optional and means 0 (onnxruntime's type checks want
    the input zero points present, so only the trailing one is left out)."""
    rng = np.random.default_rng(7)
    for op in ("QLinearAdd", "QLinearMul"):
        a, b = _rand_q(rng, (3, 50), dtype), _rand_q(rng, (50,), dtype)
        sa, sb, sc = _tie_prone_scales(rng)
        ours, theirs = _both(op, [("xa", a), ("sa", sa), ("za", _zp(rng, dtype)), ("xb", b), ("sb", sb),
                                  ("zb", _zp(rng, dtype)), ("sc", sc), ("zc", None)])
        _assert_same(ours, theirs)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shapes", SHAPE_PAIRS, ids=str)
def test_qlinear_mul_is_bit_exact(dtype, shapes):
    rng = np.random.default_rng(100 + len(str(shapes)) + np.dtype(dtype).num)
    for trial in range(4):
        a, b = _rand_q(rng, shapes[0], dtype), _rand_q(rng, shapes[1], dtype)
        sa, sb, sc = _tie_prone_scales(rng)
        sc = np.float32(sc / 40)        # products need a finer output scale
        ours, theirs = _both("QLinearMul", [("xa", a), ("sa", sa), ("za", _zp(rng, dtype)), ("xb", b),
                                            ("sb", sb), ("zb", _zp(rng, dtype)), ("sc", sc), ("zc", _zp(rng, dtype))])
        _assert_same(ours, theirs)


def _every_value(dtype):
    info = np.iinfo(dtype)
    return np.arange(info.min, info.max + 1).astype(dtype).reshape(4, 64)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("with_zero_points", [True, False])
@pytest.mark.parametrize("op,attrs", [("QLinearSigmoid", {}), ("QLinearLeakyRelu", {}),
                                      ("QLinearLeakyRelu", {"alpha": 0.2})])
def test_lookup_table_activations_match_on_every_input(dtype, with_zero_points, op, attrs):
    rng = np.random.default_rng(11)
    x = _every_value(dtype)
    for trial in range(12):
        y_scale = np.float32(rng.uniform(0.002, 0.01) if op == "QLinearSigmoid" else rng.uniform(0.01, 0.2))
        zps = (_zp(rng, dtype), _zp(rng, dtype)) if with_zero_points else (None, None)
        ours, theirs = _both(op, [("x", x), ("xs", np.float32(rng.uniform(0.01, 0.2))), ("xz", zps[0]),
                                  ("ys", y_scale), ("yz", zps[1])], attrs, keep_trailing_empty=True)
        _assert_same(ours, theirs)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("axis", [0, 1, -1])
def test_qlinear_concat_requantizes_or_copies(dtype, axis):
    """Input scales 0.5, 1.5 ... times the output's put requantized values on
    ties (0.1 and 0.3 being inexact in float32, on either side of them)."""
    rng = np.random.default_rng(13)
    for ys in (np.float32(0.1), np.float32(0.3), _scale(rng)):
        yz = _zp(rng, dtype)
        inputs = [("ys", ys), ("yz", yz)]
        for k, ratio in enumerate((1.5, 1.0, 0.5, 2.5)):
            shape = [2, 3, 4]
            shape[axis] = k + 2
            same = ratio == 1.0     # already in the output's quantization: copied as is
            inputs += [(f"x{k}", _rand_q(rng, shape, dtype)), (f"s{k}", np.float32(ys * ratio)),
                       (f"z{k}", yz if same else _zp(rng, dtype))]
        ours, theirs = _both("QLinearConcat", inputs, {"axis": axis}, out_type=ONNX_TYPE[np.dtype(dtype)])
        _assert_same(ours, theirs)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shapes", [((2, 3, 4), (2, 3, 4), (2, 3, 4)), ((3, 1), (1, 4), (4,)), ((4,), (), (3, 4))],
                         ids=str)
def test_qlinear_where_requantizes_both_sides(dtype, shapes):
    rng = np.random.default_rng(73)
    for same_as_output in ("x", "y", None):
        zs, zz = np.float32(0.1), _zp(rng, dtype)
        x_q = (zs, zz) if same_as_output == "x" else (np.float32(0.15), _zp(rng, dtype))
        y_q = (zs, zz) if same_as_output == "y" else (np.float32(0.25), _zp(rng, dtype))
        inputs = [("xc", rng.random(shapes[0]) < 0.5), ("xx", _rand_q(rng, shapes[1], dtype)), ("sx", x_q[0]),
                  ("zx", x_q[1]), ("xy", _rand_q(rng, shapes[2], dtype)), ("sy", y_q[0]), ("zy", y_q[1]),
                  ("sz", zs), ("zz", zz)]
        ours, theirs = _both("QLinearWhere", inputs, out_type=ONNX_TYPE[np.dtype(dtype)])
        _assert_same(ours, theirs)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("channels_last", [0, 1])
@pytest.mark.parametrize("shape", [(2, 3, 7, 5), (1, 16, 13, 13), (2, 9, 1, 1), (2, 4, 5)], ids=str)
def test_qlinear_global_average_pool(dtype, channels_last, shape):
    rng = np.random.default_rng(17)
    for trial in range(3):
        x = _rand_q(rng, shape, dtype)
        ours, theirs = _both("QLinearGlobalAveragePool", [("x", x), ("xs", _scale(rng)), ("xz", _zp(rng, dtype)),
                                                          ("ys", _scale(rng)), ("yz", _zp(rng, dtype))],
                             {"channels_last": channels_last})
        _assert_same(ours, theirs)


POOLS = [dict(kernel_shape=[3, 3]),
         dict(kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1]),
         dict(kernel_shape=[3, 3], strides=[2, 2], pads=[1, 0, 1, 2], count_include_pad=1),
         dict(kernel_shape=[2, 3], strides=[2, 2], ceil_mode=1),
         dict(kernel_shape=[2, 3], strides=[2, 2], ceil_mode=1, count_include_pad=1),
         dict(kernel_shape=[3, 3], auto_pad="SAME_UPPER", count_include_pad=1),
         dict(kernel_shape=[2, 2], auto_pad="SAME_LOWER", strides=[2, 2]),
         dict(kernel_shape=[9, 8]),            # the whole image: onnxruntime's global pool
         dict(kernel_shape=[3], strides=[2]),
         dict(kernel_shape=[2, 2, 2])]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("channels_last", [0, 1])
@pytest.mark.parametrize("attrs", POOLS, ids=str)
def test_qlinear_average_pool(dtype, channels_last, attrs):
    rng = np.random.default_rng(19)
    nd = len(attrs["kernel_shape"])
    shape = (2, 5, 9, 8, 6)[:2 + nd] if nd == 3 else (2, 5, 9, 8)[:2 + nd]
    if channels_last:
        shape = (shape[0],) + shape[2:] + (shape[1],)
    for with_output_zero_point in (True, False):
        # (only the trailing zero point can be left out: onnxruntime's type
        # checks reject an empty X_zero_point)
        x = _rand_q(rng, shape, dtype)
        zps = (_zp(rng, dtype), _zp(rng, dtype) if with_output_zero_point else None)
        ours, theirs = _both("QLinearAveragePool", [("x", x), ("xs", _scale(rng)), ("xz", zps[0]),
                                                    ("ys", _scale(rng)), ("yz", zps[1])],
                             dict(attrs, channels_last=channels_last))
        _assert_same(ours, theirs)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("opset", [12, 13])
@pytest.mark.parametrize("axis", [None, 0, 1, 2, -1])
def test_qlinear_softmax_axis_and_opset(dtype, opset, axis):
    """Before opset 13 the rows are everything from `axis` on, flattened;
    from 13 on one axis. onnxruntime's default axis is -1 for both."""
    rng = np.random.default_rng(23)
    attrs = {"opset": opset} if axis is None else {"opset": opset, "axis": axis}
    for trial in range(4):
        x = _rand_q(rng, (3, 4, 10), dtype)
        y_scale = np.float32(rng.choice([1 / 256, 1 / 255, 0.0037]))
        y_zp = np.asarray(0 if dtype == np.uint8 else -128, dtype=dtype)
        ours, theirs = _both("QLinearSoftmax", [("x", x), ("xs", np.float32(rng.uniform(0.02, 0.5))),
                                                ("xz", _zp(rng, dtype)), ("ys", y_scale), ("yz", y_zp)], attrs)
        _assert_same(ours, theirs)


@pytest.mark.parametrize("dtype", DTYPES)
def test_qlinear_softmax_long_rows(dtype):
    """1000 classes: the float32 row sum must run in onnxruntime's order."""
    rng = np.random.default_rng(29)
    x = _rand_q(rng, (4, 1000), dtype)
    ours, theirs = _both("QLinearSoftmax", [("x", x), ("xs", np.float32(0.05)), ("xz", _zp(rng, dtype)),
                                            ("ys", np.float32(1 / 256)), ("yz", _zp(rng, dtype))], {"opset": 13})
    _assert_same(ours, theirs)


def _qgemm_requantize(acc, a_scale, b_scale, y_scale, y_zp, alpha, out_dtype):
    """QGemm's float steps after the integer product, as onnxruntime defines
    them: the int32 accumulator (bias included) to float32, times one float32
    scale per column, (alpha * a_scale) * b_scale [/ y_scale]; for a quantized
    output, rounded half to even, the zero point added, saturated."""
    assert fits_int32(acc)
    scales = (np.float32(alpha) * np.float32(a_scale)) * np.asarray(b_scale, np.float32).reshape(-1)
    if y_scale is not None:
        scales = scales / np.float32(y_scale)
    values = acc.astype(np.float32) * scales
    if y_scale is None:
        return values
    zero = 0 if y_zp is None else int(y_zp)
    return saturate(np.rint(values).astype(np.int64) + zero, out_dtype)


def _qgemm_reference(inputs, attrs, product=int_matmul):
    """QGemm of `inputs` (as _qgemm_inputs names them) with exact integers,
    or with another model of the integer product."""
    v = dict(inputs)
    a = v["xa"].T if attrs["transA"] else v["xa"]
    b = v["b"].T if attrs["transB"] else v["b"]
    acc = product(a, v["az"], b, v["bz"])
    if v["c"] is not None:
        acc = acc + v["c"].astype(np.int64)
    return _qgemm_requantize(acc, v["as"], v["bs"], v.get("ys"), v.get("yz"), attrs["alpha"], a.dtype)


def _plant_saturating_pairs(a, b):
    """Rows 0 and 1 of A (m, k) meet columns 0 and 1 of B (k, n) at k = 2, 3,
    one pair of MLAS's packing, with the largest magnitudes: u8 255 with
    127 or -128 twice sums to 64770 or -65280, and s8 -128 with -128 to
    32768, all outside int16, where AVX2's vpmaddubsw saturates."""
    info = np.iinfo(a.dtype)
    a[0, 2:4], a[1, 2:4] = info.max, info.min
    b[2:4, 0], b[2:4, 1] = 127, -128


def _qgemm_inputs(rng, a_type, trans, bias, quantized_output, per_column, b_bound=None, plant=False):
    """QGemm's inputs (named for one_node) and attributes; B in [-b_bound,
    b_bound] when given, else over all of int8."""
    m, k, n = 5, 37, 6
    a = _rand_q(rng, (m, k), a_type)
    b = (rng.integers(-b_bound, b_bound + 1, size=(k, n)).astype(np.int8) if b_bound
         else _rand_q(rng, (k, n), np.int8))
    if plant:
        _plant_saturating_pairs(a, b)
    b_scale = rng.uniform(0.001, 0.01, size=n).astype(np.float32) if per_column else np.float32(0.005)
    b_zp = (rng.integers(-3, 4, size=n) if per_column else np.asarray(0)).astype(np.int8)
    inputs = [("xa", a.T.copy() if trans[0] else a), ("as", _scale(rng)), ("az", _zp(rng, a_type)),
              ("b", b.T.copy() if trans[1] else b), ("bs", b_scale), ("bz", b_zp),
              ("c", rng.integers(-5000, 5000, size=n).astype(np.int32) if bias else None)]
    if quantized_output:
        inputs += [("ys", np.float32(rng.uniform(0.05, 0.2))), ("yz", _zp(rng, a_type))]
    attrs = {"transA": trans[0], "transB": trans[1], "alpha": 0.75}
    return inputs, attrs, ONNX_TYPE[np.dtype(a_type)] if quantized_output else TensorProto.FLOAT


QGEMM_CASES = [pytest.mark.parametrize("a_type", DTYPES),
               pytest.mark.parametrize("trans", [(0, 0), (0, 1), (1, 0), (1, 1)], ids=str),
               pytest.mark.parametrize("bias", [False, True]),
               pytest.mark.parametrize("quantized_output", [True, False]),
               pytest.mark.parametrize("per_column", [False, True])]


def _qgemm_cases(test):
    for mark in reversed(QGEMM_CASES):
        test = mark(test)
    return test


def _assert_equal_result(ours, want):
    if ours.dtype == np.float32:
        assert want.dtype == np.float32 and ours.shape == want.shape
        assert np.array_equal(ours, want)
    else:
        _assert_same(ours, want)


@_qgemm_cases
def test_qgemm(a_type, trans, bias, quantized_output, per_column):
    """Against exact integers, on inputs over the whole of both types and
    with pairs planted whose int16 sums saturate: onnxruntime on an AVX2 CPU
    without VNNI gives other integers here, and so would this test if it
    took onnxruntime as its oracle."""
    rng = np.random.default_rng(31)
    inputs, attrs, out_type = _qgemm_inputs(rng, a_type, trans, bias, quantized_output, per_column, plant=True)
    ours = _ours("QGemm", inputs, attrs, out_type)
    want = _qgemm_reference(inputs, attrs)
    _assert_equal_result(ours, want)
    if a_type == np.uint8:
        # the inputs do tell exact sums from AVX2's saturating ones
        saturated = _qgemm_reference(inputs, attrs, product=int16_pair_saturated_matmul)
        assert not np.array_equal(saturated, want)


@_qgemm_cases
def test_qgemm_float_steps_match_onnxruntime(a_type, trans, bias, quantized_output, per_column):
    """With |B| <= 64 no pair of u8 x s8 products leaves int16 (2 x 255 x 64
    = 32640), so onnxruntime's integers are exact on every CPU and it can
    stand as the oracle for the float steps after them (the order of the
    float32 scale products, rounding, zero point)."""
    rng = np.random.default_rng(31)
    inputs, attrs, out_type = _qgemm_inputs(rng, a_type, trans, bias, quantized_output, per_column, b_bound=64)
    ours, theirs = _both("QGemm", inputs, attrs, out_type)
    _assert_equal_result(ours, theirs)
    _assert_equal_result(ours, _qgemm_reference(inputs, attrs))


def test_fma32_rounds_once_like_the_instruction():
    """Against exact rational arithmetic, including sums built to sit on a
    float32 tie after rounding to float64 (where double rounding would err)."""
    from fractions import Fraction
    rng = np.random.default_rng(37)
    a = rng.standard_normal(3000).astype(np.float32)
    b = rng.standard_normal(3000).astype(np.float32)
    c = (rng.standard_normal(3000) * 10.0 ** rng.integers(-8, 3, 3000)).astype(np.float32)
    # (1 + 2**-12)**2 sits exactly halfway between two float32 values; a tiny
    # c decides the side, but the float64 sum rounds c away and would tie
    near_tie = np.float32(1 + 2 ** -12)
    a = np.append(a, [near_tie] * 4)
    b = np.append(b, [near_tie, near_tie, -near_tie, -near_tie])
    c = np.append(c, np.array([2 ** -80, -2 ** -80, 2 ** -80, -2 ** -80], np.float32))
    double_rounded = (a.astype(np.float64) * b + c).astype(np.float32)
    assert not np.array_equal(double_rounded[-4:], _fma32(a[-4:], b[-4:], c[-4:]))
    got = _fma32(a, b, c)
    for x, y, z, g in zip(a, b, c, got):
        exact = Fraction(float(x)) * Fraction(float(y)) + Fraction(float(z))
        candidates = sorted({np.float32(float(exact)), np.nextafter(np.float32(float(exact)), np.float32(np.inf)),
                             np.nextafter(np.float32(float(exact)), np.float32(-np.inf))},
                            key=lambda v: (abs(Fraction(float(v)) - exact), int(np.float32(v).view(np.int32)) & 1))
        assert g == candidates[0], (x, y, z)


def test_sigmoid_table_uses_onnxruntimes_logistic():
    """The values the QLinearSigmoid table is built from are bit for bit what
    onnxruntime's float Sigmoid (the same MLAS routine) gives, which exp does not."""
    x = np.concatenate([np.random.default_rng(41).uniform(-20, 20, 20000), np.linspace(-3, 3, 20001)])
    x = x.astype(np.float32)
    graph = helper.make_graph([helper.make_node("Sigmoid", ["x"], ["y"])], "g",
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, [None])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [None])])
    theirs = _ort_run(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), {"x": x})
    assert np.array_equal(_mlas_logistic(x), theirs)
    assert not np.array_equal((1 / (1 + np.exp(-x.astype(np.float64)))).astype(np.float32), theirs)


# ---------------------------------------------------------------- a quantized model

def _small_float_model(rng):
    def weight(name, shape, scale=0.3):
        return numpy_helper.from_array((rng.standard_normal(shape) * scale).astype(np.float32), name)
    inits = [weight("w1", (8, 3, 3, 3)), weight("b1", (8,), 0.1), weight("w2", (8, 8, 3, 3), 0.15),
             weight("w3", (8, 8, 1, 1)), weight("w4", (8, 8, 3, 3), 0.15), weight("wg", (10, 16)),
             weight("bg", (10,), 0.1), numpy_helper.from_array(np.array([1, 16], np.int64), "flat")]
    n = helper.make_node
    nodes = [n("Conv", ["x", "w1", "b1"], ["c1"], pads=[1, 1, 1, 1]), n("Relu", ["c1"], ["r1"]),
             n("Conv", ["r1", "w2"], ["c2"], pads=[1, 1, 1, 1]), n("Sigmoid", ["c2"], ["s"]),
             n("Mul", ["r1", "s"], ["m"]), n("Conv", ["m", "w3"], ["c3"]),
             n("LeakyRelu", ["c3"], ["l"], alpha=0.1), n("Add", ["l", "r1"], ["a"]),
             n("AveragePool", ["a"], ["p"], kernel_shape=[2, 2], strides=[2, 2]),
             n("Conv", ["p", "w4"], ["c4"], pads=[1, 1, 1, 1]), n("Concat", ["p", "c4"], ["cat"], axis=1),
             n("GlobalAveragePool", ["cat"], ["g"]), n("Reshape", ["g", "flat"], ["f"]),
             n("Gemm", ["f", "wg", "bg"], ["gm"], transB=1), n("Softmax", ["gm"], ["probs"], axis=-1)]
    graph = helper.make_graph(nodes, "small", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, 16, 16])],
                              [helper.make_tensor_value_info("probs", TensorProto.FLOAT, [1, 10])], initializer=inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    return model


def test_model_quantized_by_onnxruntime_runs_like_onnxruntime(tmp_path):
    quantization = pytest.importorskip("onnxruntime.quantization")
    import onnx
    rng = np.random.default_rng(43)
    onnx.save(_small_float_model(rng), tmp_path / "float.onnx")

    class Reader(quantization.CalibrationDataReader):
        def __init__(self):
            self.batches = iter([{"x": rng.standard_normal((1, 3, 16, 16)).astype(np.float32)} for _ in range(4)])

        def get_next(self):
            return next(self.batches, None)

    quantization.quantize_static(tmp_path / "float.onnx", tmp_path / "q.onnx", Reader(),
                                 quant_format=quantization.QuantFormat.QOperator,
                                 activation_type=quantization.QuantType.QUInt8,
                                 weight_type=quantization.QuantType.QInt8)
    quantized = onnx.load(tmp_path / "q.onnx")
    contrib_ops = {node.op_type for node in quantized.graph.node if node.domain == MS}
    assert contrib_ops == {"QLinearAdd", "QLinearMul", "QLinearSigmoid", "QLinearLeakyRelu", "QLinearAveragePool",
                           "QLinearConcat", "QLinearGlobalAveragePool", "QGemm", "QLinearSoftmax"}

    # each node compared on the inputs our run gave it: a difference upstream
    # (onnxruntime's integer products depend on the CPU) then cannot move the
    # values that a node downstream is judged by
    inner = [o for node in quantized.graph.node for o in node.output if o and o != "probs"]
    for trial in range(3):
        feeds = {"x": rng.standard_normal((1, 3, 16, 16)).astype(np.float32)}
        session = Session(core.load_bytes(quantized.SerializeToString()), keep=True)
        outputs = session.run(feeds)
        ours = {**feeds, **session.values, **outputs}
        want = {name: value for node in quantized.graph.node for name, value in _node_oracle(quantized, node, ours)}
        for name in inner:
            assert np.array_equal(ours[name], want[name]), name
        # the float output: equal within one step of its quantization
        final = next(node for node in quantized.graph.node if "probs" in node.output)
        step = numpy_helper.to_array(next(t for t in quantized.graph.initializer if t.name == final.input[1]))
        difference = np.abs(ours["probs"] - want["probs"])
        assert difference.max() <= step * (1 + 1e-6)
        assert np.count_nonzero(difference) <= difference.size // 10


def _node_oracle(model, node, values):
    """(output name, value) pairs of `node` run on `values` (ours, by name) and
    the model's initializers: exact integers for the integer products, whose
    onnxruntime answers depend on the CPU; onnxruntime alone on the node for
    the rest, whose integers come from float32 steps and tables that every
    CPU computes alike."""
    constants = {t.name: numpy_helper.to_array(t) for t in model.graph.initializer}
    args = [None if not name else constants[name] if name in constants else values[name] for name in node.input]
    attrs = {a.name: helper.get_attribute_value(a) for a in node.attribute}
    if node.op_type == "QLinearConv":
        return [(node.output[0], qlinear_conv_reference(*args, **attrs))]
    if node.op_type == "QGemm":
        names = ["xa", "as", "az", "b", "bs", "bz", "c", "ys", "yz"]
        inputs = list(zip(names, args + [None] * (len(names) - len(args))))
        full = {"transA": 0, "transB": 0, "alpha": 1.0, **attrs}
        return [(node.output[0], _qgemm_reference(inputs, full))]
    inputs = [(("c" if name in constants else "x") + str(i), value) for i, (name, value) in
              enumerate(zip(node.input, args))]
    opset = next(o.version for o in model.opset_import if o.domain in ("", "ai.onnx"))
    out = values[node.output[0]]
    single = one_node(node.op_type, inputs, attrs, domain=node.domain, opset=opset, output_type=ONNX_TYPE[out.dtype])
    feeds = {n: v for n, v in inputs if v is not None and n.startswith("x")}
    return [(node.output[0], _ort_run(single, feeds))]


@pytest.mark.parametrize("dtype", DTYPES)
def test_an_omitted_zero_point_means_zero(dtype):
    """onnxruntime's type checks refuse most empty zero points, so this is
    checked against explicit zeros of the input's type."""
    rng = np.random.default_rng(47)
    zero = np.zeros((), dtype)
    x, b = _rand_q(rng, (2, 3, 6, 6), dtype), _rand_q(rng, (1, 3, 1, 1), dtype)
    s1, s2, s3 = np.float32(0.03), np.float32(0.02), np.float32(0.05)
    for fn in (kernels.qlinear_add, kernels.qlinear_mul):
        assert np.array_equal(fn(x, s1, None, b, s2, None, s3, None), fn(x, s1, zero, b, s2, zero, s3, zero))
    for fn, attrs in ((kernels.qlinear_sigmoid, {}), (kernels.qlinear_leaky_relu, {}),
                      (kernels.qlinear_global_average_pool, {}),
                      (kernels.qlinear_average_pool, {"kernel_shape": [3, 3], "pads": [1, 1, 1, 1]})):
        assert np.array_equal(fn(x, s1, None, s3, None, **attrs), fn(x, s1, zero, s3, zero, **attrs))
    other = _rand_q(rng, (2, 3, 2, 6), dtype)
    assert np.array_equal(kernels.qlinear_concat(s3, None, x, s1, None, other, s2, None, axis=2),
                          kernels.qlinear_concat(s3, zero, x, s1, zero, other, s2, zero, axis=2))
    a2 = x.reshape(6, 36)
    w = _rand_q(rng, (36, 4), np.int8)
    assert np.array_equal(kernels.qgemm(a2, s1, None, w, s2, None, None, s3, None),
                          kernels.qgemm(a2, s1, zero, w, s2, np.zeros((), np.int8), None, s3, zero))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("attrs", [dict(kernel_shape=[2, 2], strides=[2, 2]),
                                   dict(kernel_shape=[3, 3], pads=[1, 1, 1, 1]),
                                   dict(kernel_shape=[3, 3], pads=[1, 1, 1, 1], count_include_pad=1)], ids=str)
def test_qlinear_average_pool_on_ties(dtype, attrs):
    """Output scales that put exact averages on .5 (sums over 2x2 windows with
    y_scale = 2 x_scale ...): only float32 sums in onnxruntime's order, the
    zero point added before rounding, land on the same side of each tie."""
    rng = np.random.default_rng(53)
    for x_scale, ratio in [(0.1, 2.0), (0.3, 0.5), (0.07, 4.5), (0.02, 1.5)]:
        x = _rand_q(rng, (2, 4, 10, 10), dtype)
        ours, theirs = _both("QLinearAveragePool", [("x", x), ("xs", np.float32(x_scale)), ("xz", _zp(rng, dtype)),
                                                    ("ys", np.float32(x_scale * ratio)), ("yz", _zp(rng, dtype))],
                             attrs)
        _assert_same(ours, theirs)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("row", [30, 170, 510])
def test_qlinear_softmax_on_ties(dtype, row):
    """Constant rows with 255 / row = k + 1/2: every output sits on a tie that
    the float32 row sum decides (for 170 numpy's pairwise sum lands on the
    other side of it than onnxruntime's running sum). onnxruntime multiplies
    by floor(1 / y_scale), so y_scale = 1 / 255.5 stands for 255."""
    rng = np.random.default_rng(59)
    x = np.repeat(_rand_q(rng, (4, 1), dtype), row, axis=1)
    for x_scale in (0.003, 0.01, 0.05, 0.2):
        ours, theirs = _both("QLinearSoftmax", [("x", x), ("xs", np.float32(x_scale)), ("xz", _zp(rng, dtype)),
                                                ("ys", np.float32(1 / 255.5)),
                                                ("yz", np.zeros((), dtype))], {"opset": 13})
        _assert_same(ours, theirs)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("channels_last", [0, 1])
def test_qlinear_global_average_pool_on_ties(dtype, channels_last):
    """x_scale / (y_scale x 6) near 1/2 or 3/2, inexact in float32: outputs
    on ties, decided by how onnxruntime rounds that one factor."""
    rng = np.random.default_rng(61)
    for x_scale, y_scale in [(0.3, 0.1), (0.7, 0.7 / 3), (0.1, 0.1 / 9), (0.3, 0.3 / 9)]:
        x = _rand_q(rng, (2, 64, 2, 3) if not channels_last else (2, 2, 3, 64), dtype)
        ours, theirs = _both("QLinearGlobalAveragePool",
                             [("x", x), ("xs", np.float32(x_scale)), ("xz", _zp(rng, dtype)),
                              ("ys", np.float32(y_scale)), ("yz", _zp(rng, dtype))], {"channels_last": channels_last})
        _assert_same(ours, theirs)


@pytest.mark.parametrize("per_column", [False, True])
@pytest.mark.parametrize("quantized_output", [True, False])
def test_qgemm_on_ties(per_column, quantized_output):
    """Output scales of 0.3 x 0.5 / 0.9 (about 1/6) and 0.3 x 0.1 / 0.9: the
    int32 accumulator times the float32 scale, rounded to float32, lands on
    ties that a wider product would keep off, for about one in twelve.
    B is within [-3, 3], so onnxruntime's integer sums cannot saturate on any
    CPU and it stays an oracle here, next to the exact reference."""
    rng = np.random.default_rng(67)
    m, k, n = 32, 9, 8
    a = _rand_q(rng, (m, k), np.uint8)
    b = rng.integers(-3, 4, size=(k, n)).astype(np.int8)
    b_scale = np.tile(np.float32([0.5, 0.1]), n // 2) if per_column else np.float32(0.5)
    b_zp = np.zeros(n if per_column else (), np.int8)
    inputs = [("xa", a), ("as", np.float32(0.3)), ("az", np.asarray(128, np.uint8)), ("b", b), ("bs", b_scale),
              ("bz", b_zp), ("c", rng.integers(-50, 50, size=n).astype(np.int32))]
    if quantized_output:
        inputs += [("ys", np.float32(0.9)), ("yz", np.asarray(128, np.uint8))]
    attrs = {"alpha": 1.0, "transA": 0, "transB": 0}
    ours, theirs = _both("QGemm", inputs, {"alpha": 1.0}, TensorProto.UINT8 if quantized_output else TensorProto.FLOAT)
    if quantized_output:
        _assert_same(ours, theirs)
    else:
        assert np.array_equal(ours, theirs)
    _assert_equal_result(ours, _qgemm_reference(inputs, attrs))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("b_shape", [(1, 32, 48, 48), (1, 32, 1, 1), (48,)], ids=str)
def test_qlinear_add_on_big_tensors_goes_through_a_pair_table(dtype, b_shape, monkeypatch):
    """Past 65536 elements the kernel looks each (a, b) pair up in a table of
    all of them: the same integers as onnxruntime, and as element by element."""
    rng = np.random.default_rng(71)
    a, b = _rand_q(rng, (1, 32, 48, 48), dtype), _rand_q(rng, b_shape, dtype)
    sa, sb, sc = _tie_prone_scales(rng)
    zps = [_zp(rng, dtype) for _ in range(3)]
    ours, theirs = _both("QLinearAdd", [("xa", a), ("sa", sa), ("za", zps[0]), ("xb", b), ("sb", sb),
                                        ("zb", zps[1]), ("sc", sc), ("zc", zps[2])])
    _assert_same(ours, theirs)
    monkeypatch.setattr(kernels, "_PAIR_TABLE_SIZE", a.size)
    one_by_one = kernels.qlinear_add(a, sa, zps[0], b, sb, zps[1], sc, zps[2])
    assert np.array_equal(one_by_one, ours)


@pytest.mark.parametrize("per_column, bias, zero_points", [(False, False, False), (True, True, True),
                                                           (False, True, True)])
def test_matmul_integer_to_float_and_dynamic_quantize_matmul(per_column, bias, zero_points):
    """What onnxruntime's optimizer makes of a quantize_dynamic model. With
    |B| <= 64 no u8 x s8 pair sum leaves int16, so onnxruntime's values are
    the same on every CPU and it is the oracle (the float steps: the int sum
    made float32, times a_scale * b_scale, plus the bias); the integer
    product is also held to exact int64 arithmetic."""
    rng = np.random.default_rng(41)
    a_float = rng.standard_normal((2, 3, 16)).astype(np.float32)
    b = rng.integers(-64, 65, (16, 5)).astype(np.int8)
    b_scale = (rng.uniform(0.01, 0.1, 5) if per_column else rng.uniform(0.01, 0.1, 1)).astype(np.float32)
    b_zp = (rng.integers(-3, 4, 5 if per_column else 1).astype(np.int8) if zero_points else None)
    bias_v = rng.standard_normal(5).astype(np.float32) if bias else None
    a_q, a_scale, a_zp = kernels.dynamic_quantize_linear(a_float)
    inputs = [("xa", a_q), ("b", b), ("as", a_scale), ("bs", b_scale), ("az", a_zp if zero_points else None),
              ("bz", b_zp), ("bias", bias_v)]
    ours, theirs = _both("MatMulIntegerToFloat", inputs, out_type=TensorProto.FLOAT)
    np.testing.assert_array_equal(ours, theirs)
    exact = int_matmul(a_q.reshape(-1, 16), a_zp if zero_points else None, b, b_zp).reshape(2, 3, 5)
    want = exact.astype(np.float32) * (a_scale * b_scale)
    np.testing.assert_array_equal(ours, want + bias_v if bias else want)

    dynamic = [("xa", a_float), ("b", b), ("bs", b_scale), ("bz", b_zp), ("bias", bias_v)]
    ours_dynamic, theirs_dynamic = _both("DynamicQuantizeMatMul", dynamic, out_type=TensorProto.FLOAT)
    np.testing.assert_array_equal(ours_dynamic, theirs_dynamic)
    if zero_points:
        np.testing.assert_array_equal(ours_dynamic, ours)      # A quantized inside the node, as above
