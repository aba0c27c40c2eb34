"""Unary elementwise math: Abs, Neg, Sqrt, Exp, trig, Erf, IsNaN, IsInf, Not ...

Opset 1 versions carried a `consumed_inputs` attribute (a leftover of in-place
planning) that changes nothing numerically, so the since-1 kernels accept it.
Later versions only widened the accepted types; numpy covers those for free.
"""
from __future__ import annotations

import math

import numpy as np

from ..registry import kernel
from ._math_util import float_math


def _quiet(fn):
    """Domain errors (log(-1), sqrt(-1), acos(2)) give NaN, as ONNX expects,
    without numpy warnings leaking to the user's console."""
    def run(x):
        with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
            return fn(x)
    return run


def _register_unary(op: str, since: int, fn):
    compute = float_math(_quiet(fn))

    def unary(x, consumed_inputs=None):
        return compute(x)

    unary.__name__ = unary.__qualname__ = op.lower()
    kernel(op, since=since)(unary)


_UNARY = {
    # op: (first since_version, numpy function)
    "Sqrt": (1, np.sqrt), "Exp": (1, np.exp), "Log": (1, np.log),
    "Floor": (1, np.floor), "Ceil": (1, np.ceil), "Reciprocal": (1, np.reciprocal),
    "Tanh": (1, np.tanh), "Round": (11, np.round),  # half to even, as ONNX says
    "Sin": (7, np.sin), "Cos": (7, np.cos), "Tan": (7, np.tan),
    "Asin": (7, np.arcsin), "Acos": (7, np.arccos), "Atan": (7, np.arctan),
    "Sinh": (9, np.sinh), "Cosh": (9, np.cosh), "Asinh": (9, np.arcsinh),
    "Acosh": (9, np.arccosh), "Atanh": (9, np.arctanh),
    # these three accept integers too
    "Abs": (1, np.abs), "Neg": (1, np.negative), "Sign": (9, np.sign),
}
for _op, (_since, _fn) in _UNARY.items():
    _register_unary(_op, _since, _fn)


# Abramowitz & Stegun 7.1.26 (|error| < 1.5e-7) away from zero; near zero the
# Maclaurin series, where 1 - erfc would lose relative precision.
_AS_P = 0.3275911
_AS_A = (0.254829592, -0.284496736, 1.421413741, -1.453152027, 1.061405429)
_SERIES = tuple((-1) ** n / (math.factorial(n) * (2 * n + 1)) for n in range(8))


def erf_values(x: np.ndarray) -> np.ndarray:
    """erf for float arrays without scipy, in x's own (numpy float) dtype."""
    ax = np.abs(x)
    t = 1.0 / (1.0 + _AS_P * ax)
    poly = t * (_AS_A[0] + t * (_AS_A[1] + t * (_AS_A[2] + t * (_AS_A[3] + t * _AS_A[4]))))
    far = 1.0 - poly * np.exp(-ax * ax)
    x2 = x * x
    series = _SERIES[-1]
    for c in reversed(_SERIES[:-1]):
        series = series * x2 + c
    near = (2.0 / math.sqrt(math.pi)) * ax * series
    out = np.where(ax < 0.5, near, far)
    return np.copysign(out, x).astype(x.dtype, copy=False)


@kernel("Erf", since=9)
def erf(x):
    if x.dtype.kind in "iu":
        return float_math(erf_values)(x.astype(np.float64)).astype(x.dtype)
    return float_math(erf_values)(x)


@kernel("IsNaN", since=9)
def isnan(x):
    return np.isnan(x.astype(np.float32) if x.dtype.kind == "V" or x.dtype.itemsize == 1 else x)


@kernel("IsInf", since=10)
def isinf(x, detect_negative=1, detect_positive=1):
    if x.dtype not in (np.float16, np.float32, np.float64):
        x = x.astype(np.float32)
    if detect_negative and detect_positive:
        return np.isinf(x)
    if detect_positive:
        return np.isposinf(x)
    if detect_negative:
        return np.isneginf(x)
    return np.zeros(x.shape, dtype=bool)


@kernel("Not", since=1)
def logical_not(x):
    return np.logical_not(x)


@kernel("BitwiseNot", since=18)
def bitwise_not(x):
    return np.invert(x)
