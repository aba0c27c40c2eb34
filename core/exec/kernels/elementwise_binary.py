"""Binary elementwise ops: arithmetic, Pow, Mod, bit shifts, bitwise, logical
and comparison operators.

Opsets before 7 did not broadcast numpy-style: B was stretched onto A only
with `broadcast=1`, starting at dim `axis`. Those versions get their own
kernels; from 7 on numpy broadcasting is the specification.
"""
from __future__ import annotations

import numpy as np

from ..registry import kernel
from ._math_util import float_math, legacy_broadcast, quiet


def _int_div_truncating(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """C-style integer division (rounds toward zero); numpy floors."""
    with np.errstate(divide="ignore", invalid="ignore"):
        q = np.floor_divide(a, b)
        if a.dtype.kind == "i":
            r = np.remainder(a, b)
            # floor and trunc differ exactly when the division is inexact
            # and the operands have opposite signs.
            fix = (r != 0) & ((a < 0) != (b < 0))
            if fix.any():
                q = q + fix.astype(q.dtype)
    return q


_float_divide = quiet(float_math(np.divide))
_add = float_math(np.add)
_sub = float_math(np.subtract)
_mul = float_math(np.multiply)


def _divide(a, b):
    if a.dtype.kind in "iu":
        return _int_div_truncating(a, b)
    return _float_divide(a, b)


_ARITH = {"Add": _add, "Sub": _sub, "Mul": _mul, "Div": _divide}
# Where Add/Sub/Mul are numpy's ufunc as it is (no ml_dtypes detour).
_UFUNC_DIRECT = {"Add": np.add, "Sub": np.subtract, "Mul": np.multiply}
_NUMPY_TYPES = frozenset(np.dtype(t) for t in (
    np.float16, np.float32, np.float64, np.complex64, np.complex128, np.bool_,
    np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64))


def _direct(ufunc, fn):
    """prepare hook: the ufunc itself for numpy's own types (one call layer
    instead of three, which is most of the cost on tiny tensors)."""
    def prepare(consts, attrs):
        def run(a, b):
            if a.dtype in _NUMPY_TYPES:
                return ufunc(a, b)
            return fn(a, b)
        return run
    return prepare


def _register_arith(op: str, fn) -> None:
    def legacy(a, b, broadcast=0, axis=None, consumed_inputs=None):
        return fn(a, legacy_broadcast(b, a.ndim, broadcast, axis))

    def modern(a, b):
        return fn(a, b)

    legacy.__name__ = legacy.__qualname__ = f"{op.lower()}_legacy"
    modern.__name__ = modern.__qualname__ = op.lower()
    kernel(op, since=1)(legacy)
    direct = _UFUNC_DIRECT.get(op)
    kernel(op, since=7, prepare=_direct(direct, fn) if direct is not None else None)(modern)


for _op, _fn in _ARITH.items():
    _register_arith(_op, _fn)


def _power(x, y):
    """Pow's result has the base's type whatever the exponent's type is."""
    if x.dtype.kind in "iu":
        if y.dtype.kind in "iu" and not (y < 0).any():
            return np.power(x, y.astype(x.dtype, copy=False))
        # negative or fractional exponents: compute in float, truncate back
        return np.power(x.astype(np.float64), y.astype(np.float64)).astype(x.dtype)
    if y.size == 1 and y.ndim <= x.ndim and x.dtype.kind == "f":
        e = float(y.reshape(-1)[0])
        if e == 2:
            # x**2 (LayerNorm decompositions, variances): np.square is exact and
            # ~4x faster than numpy's generic power loop
            return np.square(x)
        if e == 3 and x.dtype in (np.float32, np.float64):
            # x**3 (GPT-2's tanh Gelu): numpy's power loop takes ~40 ns an
            # element here against ~1 for two products (onnxruntime multiplies too)
            cube = np.square(x)
            cube *= x
            return cube
    if y.dtype != x.dtype:
        y = y.astype(x.dtype if x.dtype.kind == "f" else np.float32)
    return _float_power(x, y)


_float_power = quiet(float_math(np.power))


@kernel("Pow", since=1)
def pow_legacy(x, y, broadcast=0, axis=None):
    return _power(x, legacy_broadcast(y, x.ndim, broadcast, axis))


@kernel("Pow", since=7)
def pow_(x, y):
    return _power(x, y)


@kernel("Mod", since=10)
def mod(a, b, fmod=0):
    """fmod=1: C fmod (sign of the dividend); fmod=0: floor modulo (sign of the
    divisor) — integers only before opset 28, floats too from 28 on."""
    with np.errstate(divide="ignore", invalid="ignore"):
        if fmod:
            return float_math(np.fmod)(a, b)
        return float_math(np.mod)(a, b)


@kernel("BitShift", since=11)
def bit_shift(x, y, direction):
    bits = x.dtype.itemsize * 8
    # Shifts by a negative amount or by >= the width are defined (opset 28) as
    # the fill alone; numpy's own result there is platform-dependent.
    out_of_range = (y < 0) | (y >= bits)
    amount = np.where(out_of_range, 0, y).astype(x.dtype, copy=False)
    if direction == "LEFT":
        out = np.left_shift(x, amount)
        fill = np.zeros((), x.dtype)
    elif direction == "RIGHT":
        out = np.right_shift(x, amount)
        fill = np.where(x < 0, -1, 0).astype(x.dtype) if x.dtype.kind == "i" else np.zeros((), x.dtype)
    else:
        raise ValueError(f'direction must be "LEFT" or "RIGHT", got {direction!r}')
    if out_of_range.any():
        out = np.where(out_of_range, fill, out)
    return out


def _register_plain(op: str, since: int, fn, legacy_since: int | None = None) -> None:
    """Ops whose only versions before `since` differ by legacy broadcasting."""
    def plain(a, b):
        return fn(a, b)

    plain.__name__ = plain.__qualname__ = op.lower()
    kernel(op, since=since)(plain)
    if legacy_since is not None:
        def legacy(a, b, broadcast=0, axis=None):
            return fn(a, legacy_broadcast(b, a.ndim, broadcast, axis))

        legacy.__name__ = legacy.__qualname__ = f"{op.lower()}_legacy"
        kernel(op, since=legacy_since)(legacy)


def _compare(ufunc):
    def run(a, b):
        if a.dtype == object or b.dtype == object:   # strings
            return np.asarray(ufunc(a, b), dtype=bool)
        if a.dtype.kind == "V":   # ml_dtypes floats: compare as float32
            return ufunc(a.astype(np.float32), b.astype(np.float32))
        return ufunc(a, b)
    return run


_register_plain("BitwiseAnd", 18, np.bitwise_and)
_register_plain("BitwiseOr", 18, np.bitwise_or)
_register_plain("BitwiseXor", 18, np.bitwise_xor)
_register_plain("And", 7, np.logical_and, legacy_since=1)
_register_plain("Or", 7, np.logical_or, legacy_since=1)
_register_plain("Xor", 7, np.logical_xor, legacy_since=1)
_register_plain("Equal", 7, _compare(np.equal), legacy_since=1)
_register_plain("Greater", 7, _compare(np.greater), legacy_since=1)
_register_plain("Less", 7, _compare(np.less), legacy_since=1)
_register_plain("GreaterOrEqual", 12, _compare(np.greater_equal))
_register_plain("LessOrEqual", 12, _compare(np.less_equal))
