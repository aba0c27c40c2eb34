"""onnxruntime's quantized contrib operators (domain com.microsoft), as its
quantizer writes them in QOperator format: QLinearAdd, QLinearMul,
QLinearSigmoid, QLinearLeakyRelu, QLinearGlobalAveragePool,
QLinearAveragePool, QLinearConcat, QLinearWhere, QLinearSoftmax and QGemm;
and what its optimizer makes of a dynamically quantized model:
MatMulIntegerToFloat and DynamicQuantizeMatMul.

These operators have no ONNX reference; onnxruntime's CPU kernels define
them. Each kernel here follows the arithmetic those kernels do (float32
steps in the same order, lookup tables over all 256 inputs, integer
accumulators) so a quantized model gives the same integers, not merely
close ones. Where onnxruntime's x86 code depends on the instruction set,
the AVX2/FMA path (any x86-64 CPU of the last decade) is the one followed,
except for QGemm's integer product, which is exact: onnxruntime's AVX2
kernel without VNNI saturates u8 x s8 pair sums at int16 (its VNNI and ARM
kernels do not): the exact sum is what every kernel that does not saturate
gives.
"""
from __future__ import annotations

import math

import numpy as np

from ..registry import kernel
from ._math_util import normalize_axis
from ._nn_util import offset_slices
from .pool import pool_geometry, pad_for_windows
from .quantize import centered, dynamic_quantize_linear, quantize_linear

_F32 = np.float32
# An 8-bit binary op has 65536 possible input pairs: past that many elements,
# a table of all of them is cheaper than emulating the float steps per element.
_PAIR_TABLE_SIZE = 256 * 256


def _scalar_scale(scale) -> np.float32:
    return _F32(np.asarray(scale).reshape(-1)[0])


def _zero_point(zp, dtype) -> int:
    """A per-tensor zero point as a Python int; an omitted one is 0."""
    return 0 if zp is None else int(np.asarray(zp).reshape(-1)[0])


def _int_range(dtype):
    info = np.iinfo(dtype)
    return int(info.min), int(info.max)


def _saturate(rounded: np.ndarray, dtype) -> np.ndarray:
    low, high = _int_range(dtype)
    return np.clip(rounded, low, high).astype(dtype)


def _fma32(a, b, c) -> np.ndarray:
    """a * b + c rounded once to float32, as an FMA instruction does.

    The product of two float32 values is exact in float64, so only the
    float64 sum can be inexact; its error (TwoSum, exact) matters only when
    that sum lands exactly on a float32 tie, where it decides the side."""
    a = np.asarray(a, _F32).astype(np.float64)
    b = np.asarray(b, _F32).astype(np.float64)
    c = np.asarray(c, _F32).astype(np.float64)
    p = a * b
    s = p + c
    c_part = s - p
    err = (p - (s - c_part)) + (c - c_part)
    r = np.asarray(s.astype(_F32))
    inexact = err != 0
    if not inexact.any():
        return r
    r64 = r.astype(np.float64)
    toward_s = np.where(s > r64, _F32(np.inf), _F32(-np.inf)).astype(_F32)
    other = np.nextafter(r, toward_s)
    on_tie = inexact & (s == (r64 + other.astype(np.float64)) / 2)
    if on_tie.any():
        # the exact value lies past the tie on the side err points to
        goes_other = on_tie & ((err > 0) == (other > r))
        r = np.where(goes_other, other, r)
    return r


# ---------------------------------------------------------------- lookup tables

def _all_values(dtype) -> np.ndarray:
    low, high = _int_range(dtype)
    return np.arange(low, high + 1, dtype=np.int32)


def _through_table(x: np.ndarray, table: np.ndarray) -> np.ndarray:
    """Map every element of x by a table indexed from the dtype's lowest value."""
    low = _int_range(x.dtype)[0]
    return table[x.astype(np.intp) - low]


def _dequantized_inputs(dtype, scale, zp) -> np.ndarray:
    """All 256 inputs dequantized as onnxruntime's tables do: the integer
    difference first, then one float32 multiply."""
    return _scalar_scale(scale) * (_all_values(dtype) - _zero_point(zp, dtype)).astype(_F32)


def _quantize_table(values: np.ndarray, scale, zp, dtype) -> np.ndarray:
    zero = np.asarray(_zero_point(zp, dtype), dtype=dtype)
    return quantize_linear(values.astype(_F32), np.asarray(_scalar_scale(scale)), zero)


def _table_op(x, x_scale, x_zp, y_scale, y_zp, fn) -> np.ndarray:
    table = _quantize_table(fn(_dequantized_inputs(x.dtype, x_scale, x_zp)), y_scale, y_zp, x.dtype)
    return _through_table(x, table)


# Coefficients of the rational logistic approximation MLAS uses (the same as
# Eigen's); onnxruntime's sigmoid table is built with it, not with exp.
_LOGISTIC_ALPHA = tuple(_F32(v) for v in (4.37031012579801e-11, 1.15627324459942e-07, 6.08574864600143e-05,
                                          8.51377133304701e-03, 2.48287947061529e-01))
_LOGISTIC_BETA = tuple(_F32(v) for v in (6.10247389755681e-13, 5.76102136993427e-09, 6.29106785017040e-06,
                                         1.70198817374094e-03, 1.16817656904453e-01, 9.93151921023180e-01))


def _mlas_logistic(x: np.ndarray) -> np.ndarray:
    """The FMA3 logistic kernel step by step: clamp to [-18, 18], two
    polynomials in x*x by fused multiply-adds, p/q + 1/2, clamp below at 0."""
    x = np.clip(x.astype(_F32), _F32(-18), _F32(18))
    x2 = x * x
    p = _fma32(x2, _LOGISTIC_ALPHA[0], _LOGISTIC_ALPHA[1])
    for coefficient in _LOGISTIC_ALPHA[2:]:
        p = _fma32(x2, p, coefficient)
    q = _fma32(x2, _LOGISTIC_BETA[0], _LOGISTIC_BETA[1])
    for coefficient in _LOGISTIC_BETA[2:]:
        q = _fma32(x2, q, coefficient)
    return np.maximum((x * p) / q + _F32(0.5), _F32(0))


@kernel("QLinearSigmoid", since=1, domain="com.microsoft")
def qlinear_sigmoid(x, x_scale, x_zero_point=None, y_scale=None, y_zero_point=None):
    return _table_op(x, x_scale, x_zero_point, y_scale, y_zero_point, _mlas_logistic)


@kernel("QLinearLeakyRelu", since=1, domain="com.microsoft")
def qlinear_leaky_relu(x, x_scale, x_zero_point=None, y_scale=None, y_zero_point=None, *, alpha=0.01):
    slope = _F32(alpha)
    return _table_op(x, x_scale, x_zero_point, y_scale, y_zero_point,
                     lambda v: np.where(v >= 0, v, slope * v))


def _requantized(x, scale, zp, out_scale, out_zp, dtype):
    """x brought to another quantization through the identity table, or
    as is when the quantization is the same (onnxruntime copies it then)."""
    if _scalar_scale(scale) == _scalar_scale(out_scale) and _zero_point(zp, dtype) == _zero_point(out_zp, dtype):
        return x
    return _table_op(x, scale, zp, out_scale, out_zp, lambda v: v)


@kernel("QLinearConcat", since=1, domain="com.microsoft")
def qlinear_concat(y_scale, y_zero_point, *tensors_scales_zero_points, axis):
    triples = tensors_scales_zero_points
    if not triples or len(triples) % 3:
        raise ValueError("QLinearConcat takes (tensor, scale, zero point) triples after Y_scale, Y_zero_point")
    dtype = np.asarray(y_zero_point).dtype if y_zero_point is not None else triples[0].dtype
    parts = [_requantized(x, scale, zp, y_scale, y_zero_point, dtype)
             for x, scale, zp in zip(triples[0::3], triples[1::3], triples[2::3])]
    return np.concatenate(parts, axis=normalize_axis(axis, parts[0].ndim))


@kernel("QLinearWhere", since=1, domain="com.microsoft")
def qlinear_where(condition, x, x_scale, x_zero_point, y, y_scale, y_zero_point, z_scale, z_zero_point):
    dtype = np.asarray(z_zero_point).dtype
    return np.where(condition, _requantized(x, x_scale, x_zero_point, z_scale, z_zero_point, dtype),
                    _requantized(y, y_scale, y_zero_point, z_scale, z_zero_point, dtype))


# ---------------------------------------------------------------- Add, Mul

def _scalar_side(a_shape, b_shape):
    """Which input onnxruntime's broadcaster hands to the kernel as one value
    repeated over a span ("a", "b") or neither: the one whose innermost
    dimension that is not 1 in both is 1. It decides the float32 formula."""
    if not a_shape:
        return "a"
    if not b_shape:
        return "a" if a_shape[-1] <= 1 else "b"
    common = min(len(a_shape), len(b_shape))
    for i in range(1, common + 1):
        da, db = a_shape[-i], b_shape[-i]
        if max(da, db) > 1 or i == common:
            if da <= 1:
                return "a"
            return "b" if db <= 1 else None
    return None


def _add_fixed_part(ratio_1, zp_1, ratio_2, zp_2, zp_out) -> np.float32:
    """zp_out - (ratio_1 * zp_1 + ratio_2 * zp_2) in float32, the constant
    MLAS folds the zero points into (compiled with FMA contraction)."""
    inner = _fma32(ratio_1, _F32(zp_1), _F32(ratio_2) * _F32(zp_2))
    return _F32(zp_out) - _F32(inner)


def _mlas_add(first, ratio_1, zp_1, second, ratio_2, zp_2, zp_out, second_is_scalar):
    """MLAS's AVX2 QLinearAdd with (first, second) in its argument order:
    the zero points folded into one constant, then per element fused
    multiply-adds (second, then first); a scalar second is folded in too."""
    fixed = _add_fixed_part(ratio_1, zp_1, ratio_2, zp_2, zp_out)
    f1 = first.astype(_F32)
    f2 = second.astype(_F32)
    if second_is_scalar:
        fixed = _fma32(f2, ratio_2, fixed)
        return _fma32(f1, ratio_1, fixed)
    return _fma32(f1, ratio_1, _fma32(f2, ratio_2, fixed))


@kernel("QLinearAdd", since=1, domain="com.microsoft")
def qlinear_add(a, a_scale, a_zero_point=None, b=None, b_scale=None, b_zero_point=None, c_scale=None,
                c_zero_point=None):
    dtype = a.dtype
    sc = _scalar_scale(c_scale)
    r_a, r_b = _scalar_scale(a_scale) / sc, _scalar_scale(b_scale) / sc
    za, zb, zc = (_zero_point(z, dtype) for z in (a_zero_point, b_zero_point, c_zero_point))
    side = _scalar_side(a.shape, b.shape)

    def add(x, y):
        if side == "a":
            # onnxruntime swaps the operands so that the repeated one comes second
            out = _mlas_add(y, r_b, zb, x, r_a, za, zc, True)
        else:
            out = _mlas_add(x, r_a, za, y, r_b, zb, zc, side == "b")
        return _saturate(np.rint(out), dtype)

    a_b, b_b = np.broadcast_arrays(a, b)
    if a_b.size <= _PAIR_TABLE_SIZE:
        return add(a_b, b_b)
    # the result depends only on the pair of input values: emulate the float
    # steps once per possible pair and look the big tensor up
    values = _all_values(dtype).astype(dtype)
    table = add(*np.meshgrid(values, values, indexing="ij"))
    low = _int_range(dtype)[0]
    pair = (a_b.astype(np.intp) - low) * len(values) + (b_b.astype(np.intp) - low)
    return np.take(table.reshape(-1), pair)


@kernel("QLinearMul", since=1, domain="com.microsoft")
def qlinear_mul(a, a_scale, a_zero_point=None, b=None, b_scale=None, b_zero_point=None, c_scale=None,
                c_zero_point=None):
    dtype = a.dtype
    ratio = (_scalar_scale(a_scale) * _scalar_scale(b_scale)) / _scalar_scale(c_scale)
    za, zb, zc = (_zero_point(z, dtype) for z in (a_zero_point, b_zero_point, c_zero_point))
    # the centred product is an exact integer (|.| <= 65025), then one float32
    # multiply and one add of the zero point, each rounded (SSE2, no FMA)
    product = ((a.astype(np.int32) - za) * (b.astype(np.int32) - zb)).astype(_F32)
    return _saturate(np.rint(product * ratio + _F32(zc)), dtype)


# ---------------------------------------------------------------- pooling

def _global_average(x, x_scale, x_zp, y_scale, y_zp, spatial_axes):
    """MLAS's integer global average: sum the raw values in int32, subtract
    zero point x count, one float32 multiply by x_scale / (y_scale * count)."""
    dtype = x.dtype
    count = math.prod(x.shape[a] for a in spatial_axes)
    scale = _scalar_scale(x_scale) / (_scalar_scale(y_scale) * _F32(count))
    sums = x.astype(np.int64).sum(axis=spatial_axes, keepdims=True) - _zero_point(x_zp, dtype) * count
    y = np.rint(sums.astype(_F32) * scale) + _zero_point(y_zp, dtype)
    return _saturate(y, dtype)


def _spatial(x, channels_last):
    return tuple(range(1, x.ndim - 1)) if channels_last else tuple(range(2, x.ndim))


@kernel("QLinearGlobalAveragePool", since=1, domain="com.microsoft")
def qlinear_global_average_pool(x, x_scale, x_zero_point=None, y_scale=None, y_zero_point=None, *,
                                channels_last=0):
    return _global_average(x, x_scale, x_zero_point, y_scale, y_zero_point, _spatial(x, channels_last))


def _average_pool_nchw(x, x_scale, x_zp, y_scale, y_zp, kernel_shape, strides, pads, auto_pad, ceil_mode,
                       count_include_pad):
    dtype = x.dtype
    begin, end, extra, out, strides, dilations = pool_geometry(
        x, kernel_shape, strides, None, pads, auto_pad, ceil_mode)
    if list(x.shape[2:]) == list(kernel_shape) and not any(begin) and not any(end):
        # onnxruntime hands a window covering the whole image to the global pool
        return _global_average(x, x_scale, x_zp, y_scale, y_zp, tuple(range(2, x.ndim)))
    values = _scalar_scale(x_scale) * (x.astype(np.int32) - _zero_point(x_zp, dtype)).astype(_F32)
    padded = pad_for_windows(values, begin, end, extra, 0)
    # one float32 running sum per window, taps in row-major order as
    # onnxruntime adds them; padding adds zeros, which change no sum
    lead = (slice(None), slice(None))
    sums = np.zeros(x.shape[:2] + tuple(out), dtype=_F32)
    for offset in np.ndindex(*kernel_shape):
        sums += padded[lead + offset_slices(offset, dilations, strides, out)]
    if count_include_pad:
        counts = _F32(math.prod(kernel_shape))
    else:
        inside = pad_for_windows(np.ones(x.shape[2:], dtype=_F32), begin, end, extra, 0)
        counts = np.zeros(tuple(out), dtype=_F32)
        for offset in np.ndindex(*kernel_shape):
            counts += inside[offset_slices(offset, dilations, strides, out)]
    y = (sums / counts) / _scalar_scale(y_scale) + _F32(_zero_point(y_zp, dtype))
    return _saturate(np.rint(y), dtype)


@kernel("QLinearAveragePool", since=1, domain="com.microsoft")
def qlinear_average_pool(x, x_scale, x_zero_point=None, y_scale=None, y_zero_point=None, *, auto_pad="NOTSET",
                         ceil_mode=0, channels_last=0, count_include_pad=0, kernel_shape, pads=None,
                         strides=None):
    if channels_last:
        to_first = (0, x.ndim - 1) + tuple(range(1, x.ndim - 1))
        y = _average_pool_nchw(x.transpose(to_first), x_scale, x_zero_point, y_scale, y_zero_point,
                               kernel_shape, strides, pads, auto_pad, ceil_mode, count_include_pad)
        return np.ascontiguousarray(y.transpose((0,) + tuple(range(2, x.ndim)) + (1,)))
    return _average_pool_nchw(x, x_scale, x_zero_point, y_scale, y_zero_point, kernel_shape, strides,
                              pads, auto_pad, ceil_mode, count_include_pad)


# ---------------------------------------------------------------- Softmax

def _softmax_exp_table(x_scale: np.float32, reduce_len: int) -> np.ndarray:
    """exp((i - 255) * x_scale) for i in 0..255, in double, stored as float32,
    times a common factor that keeps the row sum below float32's maximum
    (the factor cancels in the ratio but fixes the float32 rounding)."""
    # onnxruntime takes log of a float, and C++ evaluates that in float: the
    # factor must be rounded the same way, or sums of equal terms fall on the
    # other side of a tie
    headroom = float(_F32(math.log(float(np.finfo(_F32).max / _F32(reduce_len)))))
    shift = max(0.0, headroom - 5.0) / float(x_scale)
    i = np.arange(256, dtype=np.float64)
    return np.exp((i - 255 + shift) * float(x_scale)).astype(_F32)


def _softmax_rows(rows: np.ndarray, table: np.ndarray, y_scale: np.float32, y_zp: int) -> np.ndarray:
    """rows: (N, D) integers. Each element reads the table at 255 - (row max
    - x); the row sum runs in float32, element by element."""
    steps = (rows.max(axis=1, keepdims=True).astype(np.int32) - rows.astype(np.int32))
    exps = table[255 - steps]
    total = np.add.accumulate(exps, axis=1, dtype=_F32)[:, -1:]     # strictly in order
    q = np.rint((exps * y_scale) / total) + y_zp
    return _saturate(q, rows.dtype)


@kernel("QLinearSoftmax", since=1, domain="com.microsoft")
def qlinear_softmax(x, x_scale, x_zero_point=None, y_scale=None, y_zero_point=None, *, axis=-1, opset):
    if x.size == 0:
        return x.copy()
    axis = normalize_axis(axis, x.ndim)
    # y_scale is used as the integer 1 / y_scale rounded down
    out_scale = np.floor(_F32(1) / _scalar_scale(y_scale))
    y_zp = _zero_point(y_zero_point, x.dtype)
    if opset < 13:
        # before opset 13 softmax runs over everything from `axis` on, flattened
        rows = x.reshape(math.prod(x.shape[:axis]), -1)
        table = _softmax_exp_table(_scalar_scale(x_scale), rows.shape[1])
        return _softmax_rows(rows, table, out_scale, y_zp).reshape(x.shape)
    moved = np.moveaxis(x, axis, -1)
    rows = moved.reshape(-1, x.shape[axis])
    table = _softmax_exp_table(_scalar_scale(x_scale), rows.shape[1])
    y = _softmax_rows(rows, table, out_scale, y_zp).reshape(moved.shape)
    return np.ascontiguousarray(np.moveaxis(y, -1, axis))


# ---------------------------------------------------------------- Gemm

@kernel("QGemm", since=1, domain="com.microsoft")
def qgemm(a, a_scale, a_zero_point, b, b_scale, b_zero_point, c=None, y_scale=None, y_zero_point=None, *,
          alpha=1.0, transA=0, transB=0):
    a = a.T if transA else a
    b = b.T if transB else b
    # exact integer products (float64 holds every partial sum exactly; not
    # MLAS's AVX2 int16 pair sums, which saturate), the int32 bias C added
    # before scaling, as MLAS accumulates it
    acc = np.matmul(centered(a, a_zero_point, False), centered(b, b_zero_point, False))
    if c is not None:
        acc = acc + c.astype(np.float64)
    acc32 = acc.astype(np.int64).astype(_F32)
    scales = (_F32(alpha) * _scalar_scale(a_scale)) * np.asarray(b_scale, dtype=_F32).reshape(-1)
    if y_scale is not None:
        scales = scales / _scalar_scale(y_scale)
    scaled = acc32 * (scales if scales.size > 1 else scales[0])
    if y_scale is None:
        return scaled.astype(_F32)
    dtype = np.asarray(y_zero_point).dtype if y_zero_point is not None else a.dtype
    return _saturate(np.rint(scaled) + _zero_point(y_zero_point, dtype), dtype)


def _scaled_product(a, b, a_scale, b_scale, a_zero_point, b_zero_point, bias):
    """(A - a_zp)(B - b_zp) made float32 and scaled by a_scale * b_scale
    (b_scale per tensor or per column of B), then the bias added, as
    onnxruntime's scale-and-bias output step does; the integer product is
    exact, as for MatMulInteger (the AVX2 kernel's saturated one is not)."""
    acc = np.matmul(centered(a, a_zero_point, False), centered(b, b_zero_point, False))
    scales = _scalar_scale(a_scale) * np.asarray(b_scale, dtype=_F32).reshape(-1)
    y = acc.astype(np.int64).astype(_F32) * (scales if scales.size > 1 else scales[0])
    if bias is not None:
        y = y + np.asarray(bias, dtype=_F32)
    return y.astype(_F32)


@kernel("MatMulIntegerToFloat", since=1, domain="com.microsoft")
def matmul_integer_to_float(a, b, a_scale, b_scale, a_zero_point=None, b_zero_point=None, bias=None):
    """What onnxruntime's optimizer makes of MatMulInteger + Cast + Mul (+ Add)."""
    return _scaled_product(a, b, a_scale, b_scale, a_zero_point, b_zero_point, bias)


@kernel("DynamicQuantizeMatMul", since=1, domain="com.microsoft")
def dynamic_quantize_matmul(a, b, b_scale, b_zero_point=None, bias=None):
    """A quantized to uint8 as DynamicQuantizeLinear does, then
    MatMulIntegerToFloat: what onnxruntime's optimizer makes of a
    quantize_dynamic model's DynamicQuantizeLinear + MatMulInteger + scaling."""
    quantized, scale, zero_point = dynamic_quantize_linear(np.asarray(a, dtype=_F32))
    return _scaled_product(quantized, b, scale, b_scale, zero_point, b_zero_point, bias)
