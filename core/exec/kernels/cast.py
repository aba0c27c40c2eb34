"""Cast and CastLike between every element type, strings included.

numpy + ml_dtypes do the numeric conversions (round to nearest even). What
ONNX adds on top: saturation for the float8 kinds, the rounding modes of
float8e8m0, and the textual forms of strings.
"""
from __future__ import annotations

import ml_dtypes
import numpy as np

from ...ir.dtypes import DataType
from ..registry import kernel
from ._math_util import onnx_dtype

# float8 kinds whose overflow saturates to ±max when `saturate=1`
_SATURATING = {np.dtype(t) for t in (ml_dtypes.float8_e4m3fn, ml_dtypes.float8_e4m3fnuz,
                                    ml_dtypes.float8_e5m2, ml_dtypes.float8_e5m2fnuz)}
# types with no infinity and no NaN-on-overflow: they always clamp
_ALWAYS_CLAMP = {np.dtype(t) for t in (ml_dtypes.float4_e2m1fn, ml_dtypes.float6_e2m3fn,
                                      ml_dtypes.float6_e3m2fn)}
_E8M0 = np.dtype(ml_dtypes.float8_e8m0fnu)
_SUB_BYTE_INTS = {np.dtype(t) for t in (ml_dtypes.int4, ml_dtypes.uint4,
                                       ml_dtypes.int2, ml_dtypes.uint2)}


def _from_strings(x: np.ndarray, dtype: np.dtype) -> np.ndarray:
    flat = x.reshape(-1)
    if dtype == np.bool_:
        # numbers in text: "0" is False; anything else numeric is True
        values = [float(s) != 0 for s in flat]
        return np.array(values, dtype=bool).reshape(x.shape)
    if dtype.kind in "iu" or dtype in _SUB_BYTE_INTS:
        def parse(s):
            try:
                return int(s)
            except ValueError:
                return int(float(s))
        values = np.array([parse(s) for s in flat], dtype=np.int64)
        return values.astype(dtype).reshape(x.shape)
    # float() already accepts "inf", "+INF", "-Inf", "nan" in any case
    values = np.array([float(s) for s in flat], dtype=np.float64).reshape(x.shape)
    return cast_array(values, dtype)


def _to_strings(x: np.ndarray) -> np.ndarray:
    if x.dtype.kind == "V" or x.dtype in _SUB_BYTE_INTS:
        x = x.astype(np.float32 if x.dtype.kind == "V" else np.int64)
    # numpy's str() of a float32 is its shortest round-tripping form ("0.1")
    out = np.empty(x.shape, dtype=object)
    out.reshape(-1)[:] = [str(v) for v in x.reshape(-1).tolist()] if x.dtype.kind != "f" \
        else list(x.reshape(-1).astype(str))
    return out


def _to_e8m0(x: np.ndarray, saturate: int, round_mode: str) -> np.ndarray:
    """E8M0 holds only powers of two: its byte is float32's exponent field, so
    rounding means deciding whether the mantissa bumps the exponent."""
    bits = np.ascontiguousarray(x, dtype=np.float32).view(np.uint32)
    exponent = ((bits >> 23) & 0xFF).astype(np.uint16)
    mantissa = bits & 0x7FFFFF
    special = exponent == 0xFF                       # inf / NaN
    if round_mode == "up":
        bump = mantissa > 0
    elif round_mode == "down":
        bump = np.zeros(bits.shape, dtype=bool)
    elif round_mode == "nearest":
        # ties round up; the half-way bit is the mantissa's top bit
        bump = (mantissa & 0x400000) > 0
    else:
        raise ValueError(f'round_mode must be "up", "down" or "nearest", got {round_mode!r}')
    bump &= ~special
    if saturate:
        bump &= exponent < 0xFE
    exponent = np.where(special, 0xFF, exponent + bump)
    if saturate:
        # +inf saturates to the largest power of two; NaN stays NaN
        is_inf = special & (mantissa == 0)
        exponent = np.where(is_inf, 0xFE, exponent)
    return np.minimum(exponent, 0xFF).astype(np.uint8).view(_E8M0)


def cast_array(x: np.ndarray, dtype: np.dtype, saturate: int = 1, round_mode: str = "up"):
    dtype = np.dtype(dtype)
    if x.dtype == dtype:
        return x.copy()
    if dtype == object:
        return _to_strings(x)
    if x.dtype == object:
        return _from_strings(x, dtype)
    if dtype == _E8M0:
        return _to_e8m0(x, saturate, round_mode)
    if dtype in _SATURATING and saturate and x.dtype.kind != "b":
        limit = float(ml_dtypes.finfo(dtype).max)
        src = x if x.dtype.kind == "f" else x.astype(np.float32)
        return np.clip(src, -limit, limit).astype(dtype)
    if dtype in _ALWAYS_CLAMP and x.dtype.kind != "b":
        limit = float(ml_dtypes.finfo(dtype).max)
        src = x if x.dtype.kind == "f" else x.astype(np.float32)
        return np.clip(src, -limit, limit).astype(dtype)
    if x.dtype.kind == "V" and dtype.kind in "iub":
        return x.astype(np.float32).astype(dtype)
    with np.errstate(invalid="ignore", over="ignore"):
        return x.astype(dtype)


@kernel("Cast", since=1)
def cast_v1(x, to):
    # opset 1 spelled `to` as a string ("FLOAT"); later ones as the enum
    code = DataType[to.upper()] if isinstance(to, str) else to
    return cast_array(x, onnx_dtype(code))


@kernel("Cast", since=6)
def cast(x, to, saturate=1, round_mode="up"):
    return cast_array(x, onnx_dtype(to), saturate, round_mode)


@kernel("CastLike", since=15)
def cast_like(x, target_type, saturate=1, round_mode="up"):
    return cast_array(x, target_type.dtype, saturate, round_mode)
