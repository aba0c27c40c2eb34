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
_NUMPY_NATIVE = {np.dtype(t) for t in (np.bool_, np.int8, np.int16, np.int32, np.int64, np.uint8,
                                      np.uint16, np.uint32, np.uint64, np.float16, np.float32,
                                      np.float64, np.complex64, np.complex128)}


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


def _widened(x: np.ndarray) -> np.ndarray:
    """The values of an ml_dtypes array in a numpy type that every cast
    accepts: int64 for int4/int2 & co, float32 for bfloat16/float8/float4/
    float6 (all exact there). numpy arrays come back unchanged. (dtype.kind
    cannot tell these apart: int4 reports "V", float8_e5m2 reports "f".)"""
    if x.dtype in _SUB_BYTE_INTS:
        return x.astype(np.int64)
    if x.dtype not in _NUMPY_NATIVE:
        return x.astype(np.float32)
    return x


def _to_strings(x: np.ndarray) -> np.ndarray:
    x = _widened(x)
    out = np.empty(x.shape, dtype=object)
    if x.dtype.kind == "f":
        # numpy's str() of a float32 is its shortest round-tripping form ("0.1")
        out.reshape(-1)[:] = list(x.reshape(-1).astype(str))
    else:
        out.reshape(-1)[:] = [str(v) for v in x.reshape(-1).tolist()]
    return out


def _to_e8m0(x: np.ndarray, saturate: int, round_mode: str) -> np.ndarray:
    """E8M0 holds only powers of two: its byte is float32's exponent field, so
    rounding means deciding whether the mantissa bumps the exponent."""
    bits = np.ascontiguousarray(_widened(x), dtype=np.float32).view(np.uint32)
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
    if (dtype in _ALWAYS_CLAMP or (dtype in _SATURATING and saturate)) and x.dtype != np.bool_:
        limit = float(ml_dtypes.finfo(dtype).max)
        src = _widened(x)
        if src.dtype.kind != "f":
            src = src.astype(np.float64)
        return np.clip(src, -limit, limit).astype(dtype)
    if x.dtype in _NUMPY_NATIVE or dtype not in _NUMPY_NATIVE:
        try:
            with np.errstate(invalid="ignore", over="ignore"):
                return x.astype(dtype)
        except TypeError:        # ml_dtypes lacks some pairs (int4 -> uint2 ...)
            pass
    with np.errstate(invalid="ignore", over="ignore"):
        return _widened(x).astype(dtype)


@kernel("Cast", since=1)
def cast_v1(x, to):
    # opset 1 spelled `to` as a string ("FLOAT"); later ones as the enum
    code = DataType[to.upper()] if isinstance(to, str) else to
    return cast_array(x, onnx_dtype(code))


def _quiet_cast(src: np.dtype, dst: np.dtype) -> bool:
    """True when numpy's astype from `src` to `dst` can neither overflow nor
    meet a NaN, so it needs no errstate (whose set-up costs more than a
    small cast)."""
    if src not in _NUMPY_NATIVE or dst not in _NUMPY_NATIVE:
        return False
    if src.kind in "biu":   # integers wrap silently; float32 and wider hold any of them
        return dst.kind in "biu" or (dst.kind == "f" and dst.itemsize >= 4)
    return bool(np.can_cast(src, dst, "safe"))


def _prepare_cast(consts, attrs):
    """The target type resolved once; casts between numpy's own types that
    cannot overflow skip cast_array's checks."""
    dtype = onnx_dtype(attrs["to"])
    saturate, round_mode = attrs.get("saturate", 1), attrs.get("round_mode", "up")
    quiet: dict = {}     # input dtype -> plain astype is exact and silent

    def cast_to(x):
        plain = quiet.get(x.dtype)
        if plain is None:
            plain = quiet[x.dtype] = x.dtype != dtype and _quiet_cast(x.dtype, dtype)
        return x.astype(dtype) if plain else cast_array(x, dtype, saturate, round_mode)
    return cast_to


@kernel("Cast", since=6, prepare=_prepare_cast)
def cast(x, to, saturate=1, round_mode="up"):
    return cast_array(x, onnx_dtype(to), saturate, round_mode)


@kernel("CastLike", since=15)
def cast_like(x, target_type, saturate=1, round_mode="up"):
    return cast_array(x, target_type.dtype, saturate, round_mode)
