"""Unary elementwise math: Abs, Neg, Sqrt, Exp, trig, Erf, IsNaN, IsInf, Not ...

Opset 1 versions carried a `consumed_inputs` attribute (a leftover of in-place
planning) that changes nothing numerically, so the since-1 kernels accept it.
Later versions only widened the accepted types; numpy covers those for free.
"""
from __future__ import annotations

import numpy as np

from ..registry import kernel
from ._math_util import blockwise, bounded, float_math, prepare_native, quiet


def _register_unary(op: str, since: int, fn):
    compute = float_math(quiet(fn))

    def unary(x, consumed_inputs=None):
        return compute(x)

    unary.__name__ = unary.__qualname__ = op.lower()
    kernel(op, since=since, prepare=prepare_native(fn, unary))(unary)


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


# erf(x) = tanh(x * P(x^2)): atanh(erf(x)) / x is smooth and even, so a
# degree-6 polynomial in x^2 fitted to it (weighted for the error of erf
# itself, on |x| <= 3.9) gives erf within 6e-8 (1.4e-7 evaluated in float32).
# Past 3.9, where erf rounds to 1 in float32, x^2 is held at 3.9^2 so the
# argument keeps growing (x * P(3.9^2) >= 9.1, tanh saturates) and cannot
# turn back. That is 16 passes over the data with one transcendental (numpy's
# tanh), against ~20 with exp and a reciprocal for Abramowitz & Stegun 7.1.26,
# which this replaces (it was also less accurate: 1.5e-7, 5e-7 in float32).
# The odd form keeps erf(-x) = -erf(x) and the sign of zero.
_ERF_CLAMP = 3.9 ** 2
_ERF_P = (1.1283797053872888, 0.10276548101645445, -0.00018438211754546975, -0.0006257210812820001,
          8.971317685895851e-05, -5.9857890808253325e-06, 1.5896595638927304e-07)


def erf_values(x: np.ndarray) -> np.ndarray:
    """erf for float16/32/64 arrays without scipy, in x's own dtype."""
    t = x.dtype.type
    with np.errstate(over="ignore", invalid="ignore"):     # huge |x|: x^2 and the product go to inf, tanh to 1
        u = np.square(x)
        bounded(u, high=_ERF_CLAMP, out=u)
        p = u * t(_ERF_P[-1])
        p += t(_ERF_P[-2])
        for a in _ERF_P[-3::-1]:
            p *= u
            p += t(a)
        p *= x
        return np.tanh(p, out=p)


_erf_blockwise = blockwise(erf_values)


@kernel("Erf", since=9)
def erf(x):
    if x.dtype in (np.float32, np.float64):
        return _erf_blockwise(x)
    # float16 would lose the polynomial's precision; ints, bfloat16: no loops
    return _erf_blockwise(x.astype(np.float32)).astype(x.dtype)


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
