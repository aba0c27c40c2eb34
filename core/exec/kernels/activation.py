"""Activations and the softmax family.

Before opset 13, Softmax/LogSoftmax/Hardmax flattened the input to 2-D at
`axis` ([prod(dims before axis), prod(dims from axis)]) and normalized each
row; from 13 on they work along the single axis. Math stays in the input's
own numpy float type (float32 stays float32); ml_dtypes floats compute in
float32 and round once, except where noted.
"""
from __future__ import annotations

import math

import ml_dtypes
import numpy as np

from ..registry import kernel
from ._math_util import NATIVE_FLOATS, blockwise, float_math, last_axis_sum, normalize_axis, prepare_native, quiet
from .elementwise import erf_values


_BFLOAT16 = np.dtype(ml_dtypes.bfloat16)


# ---- softmax family -------------------------------------------------------

def _sum_along(x, axis):
    if axis == x.ndim - 1:
        return last_axis_sum(x)
    return np.sum(x, axis=axis, keepdims=True)


def _softmax(x, axis):
    return _softmax_flagged(x, axis)[0]


def _softmax_flagged(x, axis):
    """Softmax, and whether it is sure to hold no NaN (so a caller about to
    scrub NaN can skip looking: see fusion.py)."""
    if axis == x.ndim - 1 and x.dtype in _SHARED_SHIFT_TYPES and x.size >= _SHARED_SHIFT_MIN_ROWS * x.shape[-1] > 0:
        return _softmax_shared_shift(x)
    return _softmax_row_max(x, axis), False


@quiet
def softmax_last_axis(x):
    """Softmax over the last axis of a float32/float64 array as the opset-13
    kernel computes it, with `_softmax_flagged`'s no-NaN flag."""
    return _softmax_flagged(x, x.ndim - 1)


def _softmax_row_max(x, axis):
    e = x - np.max(x, axis=axis, keepdims=True)
    np.exp(e, out=e)
    e /= _sum_along(e, axis)
    return e


# Softmax is the same for any shift of a row; the row maximum only keeps exp
# from overflowing. numpy reduces many short rows slowly (the row maxima of
# 512 rows of 128 floats cost as much as the exp), while one maximum over the
# whole tensor is a single fast pass and cannot overflow either. Rows whose
# own maximum lies far below it would lose their small terms to underflow:
# a row sum under _SHARED_SHIFT_MIN_SUM means its maximum is more than
# ln(n / _SHARED_SHIFT_MIN_SUM) below (~30 for n = 4096), so every term within
# ~55 of its row maximum was still a normal float; those rows are redone with
# their own maximum anyway. Results differ from the row-maximum form only in
# the last bits of the subtraction's rounding.
_SHARED_SHIFT_TYPES = (np.dtype(np.float32), np.dtype(np.float64))
_SHARED_SHIFT_MIN_ROWS = 16
_SHARED_SHIFT_MIN_SUM = 1e-4


def _softmax_shared_shift(x):
    """The softmax, and True when it cannot hold NaN: a finite maximum means
    no NaN or inf in x, and every row summing to at least
    _SHARED_SHIFT_MIN_SUM divides by no zero."""
    top = np.max(x)
    if not np.isfinite(top):            # inf or NaN somewhere: the row-maximum form's own results
        return _softmax_row_max(x, x.ndim - 1), False
    e = x - top
    np.exp(e, out=e)
    sums = last_axis_sum(e)
    low = sums < _SHARED_SHIFT_MIN_SUM
    e /= sums
    if low.any():
        rows = np.nonzero(low[..., 0])
        e[rows] = _softmax_row_max(x[rows], -1)     # an all -inf row gives NaN here
        return e, False
    return e, True


def _log_softmax(x, axis):
    shifted = x - np.max(x, axis=axis, keepdims=True)
    shifted -= np.log(_sum_along(np.exp(shifted), axis))
    return shifted


def _hardmax(x, axis):
    # one-hot of the first maximum along the axis
    index = np.expand_dims(np.argmax(x, axis=axis), axis)
    out = np.zeros_like(x)
    np.put_along_axis(out, index, 1, axis=axis)
    return out


def _on_2d(x, fn, axis):
    """Pre-13 semantics: normalize rows of the input flattened at `axis`."""
    axis = normalize_axis(axis, x.ndim)
    rows = int(np.prod(x.shape[:axis], dtype=np.int64))
    return fn(x.reshape(rows, -1), 1).reshape(x.shape)


def _register_softmax_family(op, fn):
    on_rows = float_math(quiet(_on_2d))
    native, via_float32 = quiet(fn), float_math(quiet(fn))

    def coerced_2d(input, axis=1):  # noqa: A002  (ONNX input name)
        if input.size == 0:
            return input.copy()
        return on_rows(input, fn, axis)

    def one_axis(input, axis=-1):  # noqa: A002
        if input.size == 0:
            return input.copy()
        axis = normalize_axis(axis, input.ndim)
        if input.dtype == _BFLOAT16:
            # ml_dtypes has bfloat16 loops for every step; rounding each step
            # in bfloat16 is what the ONNX test data (and the spec's numpy
            # definition) expects, float32 would round differently
            return native(input, axis)
        return via_float32(input, axis)

    def prepare(consts, attrs):
        # in a session (numpy already quiet): numpy's float types straight to
        # fn with the axis normalised, as one_axis would pass it
        axis = attrs.get("axis", -1)

        def prepared(input):  # noqa: A002
            if input.dtype in NATIVE_FLOATS and input.size:
                return fn(input, normalize_axis(axis, input.ndim))
            return one_axis(input, axis)
        return prepared

    coerced_2d.__name__ = coerced_2d.__qualname__ = f"{fn.__name__[1:]}_2d"
    one_axis.__name__ = one_axis.__qualname__ = fn.__name__[1:]
    kernel(op, since=1)(coerced_2d)
    kernel(op, since=13, prepare=prepare)(one_axis)


_register_softmax_family("Softmax", _softmax)
_register_softmax_family("LogSoftmax", _log_softmax)
_register_softmax_family("Hardmax", _hardmax)


# ---- activations ----------------------------------------------------------

def _activation(op: str, since: int, blocked: bool = False):
    """Register `fn(x, **attrs)`; ml_dtypes floats run through float32, and
    opset-1 kernels accept the obsolete `consumed_inputs` attribute. Long
    formulas (`blocked`) run over cache-sized slices of big inputs."""
    def register(fn):
        direct = blockwise(fn) if blocked else fn
        compute = float_math(quiet(direct))

        def activation(x, *args, consumed_inputs=None, **attrs):
            return compute(x, *args, **attrs)

        activation.__name__ = activation.__qualname__ = fn.__name__
        activation.__wrapped__ = fn
        kernel(op, since=since, prepare=prepare_native(direct, activation))(activation)
        return fn
    return register


def _sigmoid_values(x):
    # 1/(1+exp(-x)): exp overflow to inf yields the correct limit 0
    out = np.negative(x)
    np.exp(out, out=out)
    out += 1
    return np.reciprocal(out, out=out)


# numpy's maximum against a scalar takes a slow loop (46 us on 96x40x40
# float32, against 15 us for two arrays); against a row of zeros broadcast
# over rows of the same length it takes the fast one, with the same results
# (NaN kept, -0 becomes 0).
_ZERO_ROW = 4096
_ZERO_ROWS = {np.dtype(np.float32): np.zeros(_ZERO_ROW, np.float32),
              np.dtype(np.float64): np.zeros(_ZERO_ROW, np.float64)}


# small inputs: a 0-d zero of their own type is ~0.25 us cheaper than numpy converting a Python 0
_ZERO = {np.dtype(np.float32): np.zeros((), np.float32), np.dtype(np.float64): np.zeros((), np.float64)}


@_activation("Relu", since=1)
def relu(x):
    if x.dtype not in _ZERO_ROWS or x.size < 2 * _ZERO_ROW:
        return np.maximum(x, _ZERO.get(x.dtype, 0))
    return relu_into(x, out=np.empty(x.shape, x.dtype))


def relu_into(x, *, out):
    """Relu of a float32/float64 x written into `out`, a C-contiguous array
    of its shape (which may be x: core/exec/in_place.py), against the row of
    zeros."""
    zeros = _ZERO_ROWS[x.dtype]
    flat, dst = x.reshape(-1), out.reshape(-1)
    body = flat.size - flat.size % _ZERO_ROW
    np.maximum(flat[:body].reshape(-1, _ZERO_ROW), zeros, out=dst[:body].reshape(-1, _ZERO_ROW))
    if body < flat.size:
        np.maximum(flat[body:], zeros[:flat.size - body], out=dst[body:])
    return out


# np.where with a data-dependent mask is branchy (~10 ns/element, measured
# 15 ms on 1.6M floats against 0.5 ms for maximum), so the piecewise
# activations below are written with maximum/minimum instead.

@_activation("LeakyRelu", since=1)
def leaky_relu(x, alpha=0.01):
    # for alpha <= 1 the larger of x and alpha*x is the right piece; above 1
    # the smaller one is
    scaled = x * x.dtype.type(alpha)
    return np.maximum(x, scaled, out=scaled) if alpha <= 1 else np.minimum(x, scaled, out=scaled)


@_activation("PRelu", since=1)
def prelu_legacy(x, slope):
    # Before opset 7 a 1-D slope of length C meant one slope per channel
    # (dim 1), which numpy's trailing alignment would put on the last dim.
    if slope.ndim == 1 and x.ndim > 2 and slope.size == x.shape[1] and slope.size != x.shape[-1]:
        slope = slope.reshape((-1,) + (1,) * (x.ndim - 2))
    return prelu(x, slope)


@_activation("PRelu", since=7)
def prelu(x, slope):
    negative = np.minimum(x, 0) * slope
    negative += np.maximum(x, 0)
    return negative.astype(x.dtype, copy=False)


@_activation("Elu", since=1)
def elu(x, alpha=1.0):
    y = np.expm1(np.minimum(x, 0))
    y *= x.dtype.type(alpha)
    y += np.maximum(x, 0)
    return y


@_activation("Selu", since=1)
def selu_v1(x, alpha=1.6732, gamma=1.0507):
    # opset 1 had 4-digit defaults; opset 6 made them exact
    return selu(x, alpha, gamma)


@_activation("Selu", since=6)
def selu(x, alpha=1.67326319217681884765625, gamma=1.05070102214813232421875):
    t = x.dtype.type
    y = np.expm1(np.minimum(x, 0))
    y *= t(alpha)
    y += np.maximum(x, 0)
    y *= t(gamma)
    return y


@_activation("Celu", since=12)
def celu(x, alpha=1.0):
    t = x.dtype.type
    return np.maximum(x, 0) + np.minimum(0, t(alpha) * np.expm1(np.minimum(x, 0) / t(alpha)))


@_activation("Gelu", since=20, blocked=True)
def gelu(x, approximate="none"):
    t = x.dtype.type
    if approximate == "tanh":
        inner = t(math.sqrt(2 / math.pi)) * (x + t(0.044715) * x * x * x)
        return t(0.5) * x * (1 + np.tanh(inner))
    if approximate != "none":
        raise ValueError(f'approximate must be "none" or "tanh", got {approximate!r}')
    scaled = x * t(1 / math.sqrt(2))
    if x.dtype == np.float16:
        scaled = scaled.astype(np.float32)
    y = erf_values(scaled)
    y += 1
    y *= x
    y *= 0.5
    return y.astype(x.dtype, copy=False)


@_activation("HardSigmoid", since=1)
def hard_sigmoid(x, alpha=0.2, beta=0.5):
    t = x.dtype.type
    y = x * t(alpha)
    y += t(beta)
    return np.clip(y, 0, 1, out=y)


@_activation("HardSwish", since=14)
def hard_swish(x):
    t = x.dtype.type
    return x * np.clip(x * t(1 / 6) + t(0.5), 0, 1)


@_activation("Sigmoid", since=1)
def sigmoid(x):
    return _sigmoid_values(x)


@_activation("Softplus", since=1)
def softplus(x):
    return _softplus_values(x)


def _softplus_values(x):
    # log(1 + e^x) = max(x, 0) + log1p(e^-|x|): no overflow, and ~20x faster
    # than np.logaddexp, whose loop is scalar code
    y = np.abs(x)
    np.negative(y, out=y)
    np.exp(y, out=y)
    np.log1p(y, out=y)
    y += np.maximum(x, 0)
    return y


@_activation("Mish", since=18)
def mish(x):
    y = _softplus_values(x)
    np.tanh(y, out=y)
    y *= x
    return y


@_activation("Softsign", since=1)
def softsign(x):
    return x / (1 + np.abs(x))


@_activation("ThresholdedRelu", since=10)
def thresholded_relu(x, alpha=1.0):
    # max(x, alpha) is x above the threshold and alpha at or below it; the
    # subtraction then removes alpha exactly there (also for x = -inf)
    t = x.dtype.type
    y = np.maximum(x, t(alpha))
    y -= (x <= t(alpha)) * t(alpha)
    return y


@_activation("Swish", since=24)
def swish(x, alpha=1.0):
    return x * _sigmoid_values(x * x.dtype.type(alpha))


@_activation("Shrink", since=9)
def shrink(x, bias=0.0, lambd=0.5):
    # Shrink also takes integers: compute in float64 there and cast back
    work = x if x.dtype.kind == "f" else x.astype(np.float64)
    t = work.dtype.type
    out = np.where(work < -lambd, work + t(bias), np.where(work > lambd, work - t(bias), 0))
    return out.astype(x.dtype, copy=False)
