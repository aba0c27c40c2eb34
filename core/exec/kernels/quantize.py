"""Linear quantization: QuantizeLinear, DequantizeLinear (per-tensor,
per-axis and blocked; integer, 4/2-bit and float8/float4 targets),
DynamicQuantizeLinear, MatMulInteger and QLinearMatMul.

Later versions only added types and attributes whose defaults reproduce the
earlier behaviour (axis, saturate, block_size, output_dtype, precision), so
one kernel per operator covers every version.
"""
from __future__ import annotations

import ml_dtypes
import numpy as np

from ..registry import kernel
from ._math_util import compute_dtype, normalize_axis, onnx_dtype
from .cast import cast_array

_SUB_BYTE_INTS = {np.dtype(t) for t in (ml_dtypes.int4, ml_dtypes.uint4,
                                       ml_dtypes.int2, ml_dtypes.uint2)}


def _is_integer(dtype: np.dtype) -> bool:
    return dtype.kind in "iu" or dtype in _SUB_BYTE_INTS


def _int_range(dtype: np.dtype):
    info = ml_dtypes.iinfo(dtype) if dtype in _SUB_BYTE_INTS else np.iinfo(dtype)
    return int(info.min), int(info.max)


def _as_float(a: np.ndarray, dtype: np.dtype) -> np.ndarray:
    if a.dtype in _SUB_BYTE_INTS:           # ml_dtypes ints convert via int8
        a = a.astype(np.int8)
    return a.astype(dtype, copy=False)


def _broadcastable(param: np.ndarray, x_shape, axis: int, block_size: int) -> np.ndarray:
    """Shape a scale / zero point to broadcast against x: scalar (per tensor),
    1-D along `axis` (per axis) or repeated `block_size` times (blocked)."""
    if param.size == 1 and (param.ndim <= 1 or block_size == 0):
        return param.reshape(())
    rank = len(x_shape)
    axis = normalize_axis(axis, rank)
    if block_size > 0:
        repeated = np.repeat(param, block_size, axis=axis)
        return np.take(repeated, np.arange(x_shape[axis]), axis=axis)
    if param.ndim != 1:
        raise ValueError(f"scale of shape {param.shape} needs block_size for input {tuple(x_shape)}")
    shape = [1] * rank
    shape[axis] = param.shape[0]
    return param.reshape(shape)


def saturate_to(values: np.ndarray, dtype: np.dtype, saturate: int = 1) -> np.ndarray:
    """Round half to even and clamp into an integer type; float targets
    (float8, float4 ...) go through Cast's rules, saturation included."""
    if _is_integer(dtype):
        low, high = _int_range(dtype)
        rounded = np.clip(np.rint(values), low, high)
        if dtype in _SUB_BYTE_INTS:
            return rounded.astype(np.int8).astype(dtype)
        return rounded.astype(dtype)
    return cast_array(values, dtype, saturate)


@kernel("QuantizeLinear", since=10)
def quantize_linear(x, y_scale, y_zero_point=None, axis=1, saturate=1, block_size=0,
                    output_dtype=0, precision=0):
    if y_zero_point is not None:
        out_dtype = y_zero_point.dtype
    else:
        out_dtype = onnx_dtype(output_dtype) if output_dtype else np.dtype(np.uint8)
    # the division happens in the scale's type unless `precision` says otherwise
    precision_dtype = onnx_dtype(precision) if precision else y_scale.dtype
    work = compute_dtype(precision_dtype)
    scale = _as_float(_broadcastable(y_scale, x.shape, axis, block_size), work)
    scaled = _as_float(x, work) / scale
    if precision_dtype == np.dtype(ml_dtypes.bfloat16):
        # divide in float32, then round to the requested bfloat16 precision
        # (float8e8m0 scales are exact in float32 and set no precision)
        scaled = scaled.astype(precision_dtype).astype(work)
    if _is_integer(out_dtype):
        scaled = np.rint(scaled)
    if y_zero_point is not None:
        zero = _as_float(_broadcastable(y_zero_point, x.shape, axis, block_size), work)
        scaled = scaled + zero
    return saturate_to(scaled, out_dtype, saturate)


@kernel("DequantizeLinear", since=10)
def dequantize_linear(x, x_scale, x_zero_point=None, axis=1, block_size=0, output_dtype=0):
    out_dtype = onnx_dtype(output_dtype) if output_dtype else x_scale.dtype
    work = compute_dtype(out_dtype)
    values = _as_float(x, work)
    if x_zero_point is not None:
        values = values - _as_float(_broadcastable(x_zero_point, x.shape, axis, block_size), work)
    values = values * _as_float(_broadcastable(x_scale, x.shape, axis, block_size), work)
    return values.astype(out_dtype, copy=False)


@kernel("DynamicQuantizeLinear", since=11)
def dynamic_quantize_linear(x):
    """uint8 quantization whose range always includes 0."""
    low = np.float32(min(0.0, float(x.min())) if x.size else 0.0)
    high = np.float32(max(0.0, float(x.max())) if x.size else 0.0)
    # In float32 throughout, as onnxruntime and the reference do: the scale
    # rounded once more in float64 moves values sitting on a .5 by one step.
    # An all-zero x has no range; the reference then divides 1 by 255.
    scale = (high - low if high != low else np.float32(1)) / np.float32(255)
    zero_point = np.clip(np.rint(-low / scale), 0, 255)
    y = np.clip(np.rint(x.astype(np.float32) / scale) + zero_point, 0, 255).astype(np.uint8)
    return y, np.array(scale, dtype=np.float32), np.array(zero_point, dtype=np.uint8)


def centered(a: np.ndarray, zero_point, per_row: bool) -> np.ndarray:
    """a - zero_point in float64: exact for 8/16-bit data and sums below 2**53,
    and it lets the products below run on BLAS instead of numpy's int loops."""
    out = _as_float(a, np.float64)
    if zero_point is None:
        return out
    zp = _as_float(np.asarray(zero_point), np.float64)
    if per_row and zp.ndim == 1 and zp.size > 1:
        zp = zp.reshape(-1, 1)          # one zero point per row of A
    return out - zp


@kernel("MatMulInteger", since=10)
def matmul_integer(a, b, a_zero_point=None, b_zero_point=None):
    product = np.matmul(centered(a, a_zero_point, True), centered(b, b_zero_point, False))
    return product.astype(np.int32)


def _rows(scale: np.ndarray) -> np.ndarray:
    return scale.reshape(-1, 1) if scale.ndim == 1 and scale.size > 1 else scale


@kernel("QLinearMatMul", since=10)
def qlinear_matmul(a, a_scale, a_zero_point, b, b_scale, b_zero_point, y_scale, y_zero_point):
    accumulated = np.matmul(centered(a, a_zero_point, True), centered(b, b_zero_point, False))
    multiplier = (_rows(a_scale).astype(np.float64) * b_scale.astype(np.float64)
                  / y_scale.astype(np.float64))
    values = accumulated * multiplier
    if _is_integer(y_zero_point.dtype):
        values = np.rint(values)
    values = values + _as_float(y_zero_point, np.float64)
    return saturate_to(values, y_zero_point.dtype)
