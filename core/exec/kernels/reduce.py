"""Reduce* and ArgMax/ArgMin.

Axes moved from an attribute to an optional input (ReduceSum at opset 13, the
others at 18), which also brought `noop_with_empty_axes`. Both spellings end
in the same `_reduce` helper.
"""
from __future__ import annotations

import numpy as np

from ..registry import VARIES, kernel
from ._math_util import compute_dtype, last_axis_mean, last_axis_sum, normalize_axes, normalize_axis, quiet


def _axes_tuple(x, axes, noop_with_empty_axes):
    """Normalized axes, or None meaning "leave the input as it is". Only a
    noop_with_empty_axes of 1 leaves it: onnxruntime reduces everything for
    any other value (2 too), and so does core.infer."""
    if axes is None or len(axes) == 0:
        return None if noop_with_empty_axes == 1 else tuple(range(x.ndim))
    return normalize_axes(np.asarray(axes).reshape(-1).tolist(), x.ndim)


def _empty_identity(dtype, largest: bool):
    """What Max/Min reduce an empty set to: -inf/+inf, or the integer extreme."""
    if dtype.kind == "b":
        return largest
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        return info.max if largest else info.min
    return np.inf if largest else -np.inf


def _is_last_axis_float(x, axes):
    return axes == (x.ndim - 1,) and x.dtype in (np.float32, np.float64)


def _sum(x, axes, keepdims):
    if _is_last_axis_float(x, axes):
        total = last_axis_sum(x)             # BLAS: ~3x faster than np.sum here
        return total if keepdims else total[..., 0]
    return np.sum(x, axis=axes, keepdims=keepdims, dtype=x.dtype)


def _mean(x, axes, keepdims):
    if _is_last_axis_float(x, axes):
        total = last_axis_mean(x)
        return total if keepdims else total[..., 0]
    if x.dtype.kind in "iu":
        return np.mean(x, axis=axes, keepdims=keepdims).astype(x.dtype)
    # no dtype=: numpy accumulates float16 means in float32, which is kinder
    return np.mean(x, axis=axes, keepdims=keepdims)


def _max(x, axes, keepdims):
    initial = _empty_identity(x.dtype, largest=False) if x.size == 0 else None
    kw = {} if initial is None else {"initial": initial}
    return np.max(x, axis=axes, keepdims=keepdims, **kw)


def _min(x, axes, keepdims):
    initial = _empty_identity(x.dtype, largest=True) if x.size == 0 else None
    kw = {} if initial is None else {"initial": initial}
    return np.min(x, axis=axes, keepdims=keepdims, **kw)


def _prod(x, axes, keepdims):
    return np.prod(x, axis=axes, keepdims=keepdims, dtype=x.dtype)


def _l1(x, axes, keepdims):
    return np.sum(np.abs(x), axis=axes, keepdims=keepdims, dtype=x.dtype)


def _l2(x, axes, keepdims):
    if x.dtype.kind in "iu":
        squares = np.sum(np.square(x.astype(np.float64)), axis=axes, keepdims=keepdims)
        return np.sqrt(squares).astype(x.dtype)
    return np.sqrt(np.sum(np.square(x), axis=axes, keepdims=keepdims, dtype=x.dtype))


def _sum_square(x, axes, keepdims):
    return np.sum(np.square(x), axis=axes, keepdims=keepdims, dtype=x.dtype)


@quiet
def _log_sum(x, axes, keepdims):
    return np.log(np.sum(x, axis=axes, keepdims=keepdims, dtype=x.dtype))


@quiet
def _log_sum_exp(x, axes, keepdims):
    if x.size == 0:
        return _log_sum(np.exp(x), axes, keepdims)
    # subtract the max so exp cannot overflow; an all -inf slice keeps shift 0
    shift = np.max(x, axis=axes, keepdims=True)
    shift = np.where(np.isfinite(shift), shift, 0).astype(x.dtype, copy=False)
    total = np.log(np.sum(np.exp(x - shift), axis=axes, keepdims=True, dtype=x.dtype)) + shift
    return total if keepdims else np.squeeze(total, axis=axes)


_REDUCERS = {
    "ReduceSum": _sum, "ReduceMean": _mean, "ReduceMax": _max, "ReduceMin": _min,
    "ReduceProd": _prod, "ReduceL1": _l1, "ReduceL2": _l2,
    "ReduceSumSquare": _sum_square, "ReduceLogSum": _log_sum,
    "ReduceLogSumExp": _log_sum_exp,
}
# ReduceSum took axes as an input from 13 on; the rest from 18 on.
_AXES_INPUT_SINCE = {op: 18 for op in _REDUCERS}
_AXES_INPUT_SINCE["ReduceSum"] = 13


def keeps_dims(keepdims) -> bool:
    """What a reduction's keepdims means: only 1 keeps the reduced axes.
    onnx's shape inference and onnxruntime read any other value (2, 99)
    as 0; read as a truth value it would give another shape than theirs."""
    return keepdims == 1


def _reduce(fn, x, axes, keepdims, noop_with_empty_axes):
    axes = _axes_tuple(x, axes, noop_with_empty_axes)
    if axes is None:
        return x.copy()
    work = x
    if x.dtype.kind == "V":     # bfloat16 & co: reduce in float32
        work = x.astype(compute_dtype(x.dtype))
    out = np.asarray(fn(work, axes, keeps_dims(keepdims)))
    return out.astype(x.dtype, copy=False)


def _prepare_reduce(fn, axes_from_input: bool):
    """A prepare hook for axes known before the run (the attribute, or a
    constant input): they are normalised once per input rank instead of on
    every call. Decomposed LayerNorms (older GPT-2 and BERT exports) run
    two ReduceMeans a layer on small rows, where that is a third of the cost."""
    def prepare(consts, attrs):
        axes = consts[1] if axes_from_input and len(consts) > 1 else attrs.get("axes")
        if axes is VARIES:
            return None
        keepdims = keeps_dims(attrs.get("keepdims", 1))
        noop = attrs.get("noop_with_empty_axes", 0) if axes_from_input else 0
        by_rank: dict = {}      # input rank -> normalised axes (None: the input unchanged)

        def run(data, *_axes):
            if data.dtype.kind == "V":          # bfloat16 & co: the kernel's float32 detour
                return _reduce(fn, data, axes, keepdims, noop)
            if data.ndim not in by_rank:
                by_rank[data.ndim] = _axes_tuple(data, axes, noop)
            normalised = by_rank[data.ndim]
            if normalised is None:
                return data.copy()
            return np.asarray(fn(data, normalised, keepdims)).astype(data.dtype, copy=False)
        return run
    return prepare


def _register(op: str, fn) -> None:
    def with_attr(data, axes=None, keepdims=1):
        return _reduce(fn, data, axes, keepdims, 0)

    def with_input(data, axes=None, keepdims=1, noop_with_empty_axes=0):
        return _reduce(fn, data, axes, keepdims, noop_with_empty_axes)

    name = op[len("Reduce"):].lower()
    with_attr.__name__ = with_attr.__qualname__ = f"reduce_{name}_axes_attr"
    with_input.__name__ = with_input.__qualname__ = f"reduce_{name}"
    kernel(op, since=1, prepare=_prepare_reduce(fn, False))(with_attr)
    kernel(op, since=_AXES_INPUT_SINCE[op], prepare=_prepare_reduce(fn, True))(with_input)


for _op, _fn in _REDUCERS.items():
    _register(_op, _fn)


def _arg_extreme(np_arg, x, axis, keepdims, select_last_index):
    axis = normalize_axis(axis, x.ndim)
    if x.dtype.kind == "V":
        x = x.astype(np.float32)
    if select_last_index:
        # search the reversed axis so ties resolve to the last position
        flipped = np_arg(np.flip(x, axis=axis), axis=axis)
        index = x.shape[axis] - 1 - flipped
    else:
        index = np_arg(x, axis=axis)
    index = index.astype(np.int64, copy=False)
    return np.expand_dims(index, axis) if keeps_dims(keepdims) else index


@kernel("ArgMax", since=1)
def arg_max(data, axis=0, keepdims=1, select_last_index=0):
    return _arg_extreme(np.argmax, data, axis, keepdims, select_last_index)


@kernel("ArgMin", since=1)
def arg_min(data, axis=0, keepdims=1, select_last_index=0):
    return _arg_extreme(np.argmin, data, axis, keepdims, select_last_index)
