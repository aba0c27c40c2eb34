"""Kernels that compute along an axis or reorder values: Pad, TopK, Unique,
CumSum, CumProd, BitCast."""
from __future__ import annotations

import numpy as np

from ...ir.dtypes import to_numpy_dtype
from ..errors import KernelInputError
from ..registry import VARIES, kernel
from ._tensor_util import ints, norm_axes, norm_axis, scalar

_NUMPY_PAD_MODE = {"constant": "constant", "reflect": "reflect", "edge": "edge", "wrap": "wrap"}


def _pad_layout(rank: int, pads, axes):
    """(crop index or None, per-axis (before, after) widths) of a Pad on a
    tensor of `rank`. Negative pads remove elements: crop first, then pad
    what is left."""
    pads = ints(pads)
    axes = norm_axes(axes, rank) if axes is not None else list(range(rank))
    if len(pads) != 2 * len(axes):
        raise KernelInputError(f"pads has {len(pads)} values; {len(axes)} padded axes need {2 * len(axes)} "
                               "(every axis's begin, then every axis's end)")
    begin, end = [0] * rank, [0] * rank
    for i, a in enumerate(axes):
        begin[a], end[a] = pads[i], pads[i + len(axes)]
    crop = None
    if any(b < 0 for b in begin) or any(e < 0 for e in end):
        crop = tuple(slice(max(-b, 0), -max(-e, 0) or None) for b, e in zip(begin, end))
    return crop, [(max(b, 0), max(e, 0)) for b, e in zip(begin, end)]


def _padded(data, crop, widths, mode, value):
    if mode not in _NUMPY_PAD_MODE:
        raise ValueError(f"unknown Pad mode {mode!r}")
    if crop is not None:
        for axis, (n, c) in enumerate(zip(data.shape, crop)):
            removed = c.start - (c.stop or 0)
            if removed > n:     # numpy's slice would clamp and give an empty axis
                raise KernelInputError(f"negative pads remove {removed} values from axis {axis}, which has {n}")
        data = data[crop]
    if mode == "constant":
        if data.dtype == object:
            return np.pad(data, widths, mode="constant", constant_values=value)
        # a filled buffer and one slice assignment: np.pad's generic
        # machinery costs ~15 us a call
        out = np.full([n + b + e for n, (b, e) in zip(data.shape, widths)], value, dtype=data.dtype)
        out[tuple(slice(b, b + n) for n, (b, _) in zip(data.shape, widths))] = data
        return out
    _check_pad_source(data.shape, widths, mode)
    if mode in ("reflect", "edge"):
        quick = _pad_by_concatenation(data, widths, mode)
        if quick is not None:
            return quick
    return np.pad(data, widths, mode=_NUMPY_PAD_MODE[mode])


def _check_pad_source(shape, widths, mode) -> None:
    """Reflect, edge and wrap padding copy values of the axis: an empty axis
    has none, and a reflection never repeats the edge value, so it reaches at
    most length - 1 values out (onnxruntime refuses more; numpy would repeat
    the reflection instead)."""
    for axis, (b, e) in enumerate(widths):
        if not (b or e):
            continue
        n = shape[axis]
        if n == 0:
            raise KernelInputError(f"{mode} padding of axis {axis}, which is empty: there is no value to copy "
                                   "(use constant padding, or check what made the axis empty)")
        if mode == "reflect" and max(b, e) > n - 1:
            raise KernelInputError(f"reflect padding of {max(b, e)} on axis {axis} of length {n}: a reflection "
                                   f"reaches at most {n - 1} values out (length - 1); give that axis at least "
                                   f"{max(b, e) + 1} values")


def _pad(data, pads, mode, value, axes=None):
    crop, widths = _pad_layout(data.ndim, pads, axes)
    return _padded(data, crop, widths, mode, value)


def _pad_by_concatenation(data, widths, mode):
    """Reflect/edge padding as one concatenate per padded axis: np.pad costs
    ~50 us a call whatever the size, which shows in small audio models.
    None when a reflection is wider than the axis (np.pad repeats it)."""
    for axis, (b, e) in enumerate(widths):
        if not b and not e:
            continue
        n = data.shape[axis]
        if n == 0 or (mode == "reflect" and max(b, e) > n - 1):
            return None
        lead = (slice(None),) * axis
        if mode == "reflect":
            before = data[lead + (slice(b, 0, -1),)]
            stop = n - 2 - e
            after = data[lead + (slice(n - 2, stop if stop >= 0 else None, -1),)]   # -1 would wrap
        else:
            before = np.repeat(data[lead + (slice(0, 1),)], b, axis=axis)
            after = np.repeat(data[lead + (slice(n - 1, n),)], e, axis=axis)
        data = np.concatenate((before, data, after), axis=axis)
    return data


@kernel("Pad", since=1)
def pad_v1(data, paddings, mode="constant", value=0.0):
    return _pad(data, paddings, mode, value)


@kernel("Pad", since=2)
def pad_v2(data, pads, mode="constant", value=0.0):
    return _pad(data, pads, mode, value)


def _fill_value(data, constant_value):
    if constant_value is None or np.asarray(constant_value).size == 0:
        return "" if data.dtype == object else 0
    return np.asarray(constant_value).reshape(-1)[0]


def _prepare_pad(consts, attrs):
    """Constant pads (and value, axes): the layout is worked out once per rank."""
    data, *rest = consts
    if data is not VARIES or not rest or any(c is VARIES for c in rest):
        return None
    rest += [None] * (3 - len(rest))
    pads, constant_value, axes = ints(rest[0]), rest[1], rest[2]
    axes = None if axes is None else ints(axes)
    mode = attrs.get("mode", "constant")
    by_rank: dict = {}

    def padded(data, *_):
        layout = by_rank.get(data.ndim)
        if layout is None:
            layout = by_rank[data.ndim] = _pad_layout(data.ndim, pads, axes)
        return _padded(data, *layout, mode, _fill_value(data, constant_value))
    return padded


@kernel("Pad", since=11, prepare=_prepare_pad)
def pad(data, pads, constant_value=None, axes=None, mode="constant"):
    # axes arrived in opset 18 and "wrap" in 19; both are absent from older
    # models, so this kernel serves 11..current.
    return _pad(data, pads, mode, _fill_value(data, constant_value), axes)


def _sorted_order(x, axis, largest):
    """Argsort along axis, descending if largest, ties by the lower index."""
    if largest:
        # Sort the reversed axis ascending (stable), then reverse back: equal
        # values keep ascending indices, and unsigned types need no negation.
        order = np.argsort(np.flip(x, axis), axis=axis, kind="stable")
        return np.flip(x.shape[axis] - 1 - order, axis)
    return np.argsort(x, axis=axis, kind="stable")


def _winners(rows, k, largest):
    """Per row, the indices (ascending) of the k elements TopK keeps: all
    strictly better than the k-th value, then the lowest-indexed ties."""
    n = rows.shape[1]
    at = n - k if largest else k - 1
    kth = np.partition(rows, at, axis=1)[:, at:at + 1]
    better = rows > kth if largest else rows < kth
    tied = rows == kth
    room = k - better.sum(axis=1, keepdims=True)
    chosen = better | (tied & (np.cumsum(tied, axis=1) <= room))
    return np.nonzero(chosen)[1].reshape(rows.shape[0], k)


def _topk(x, k, axis, largest, sorted_):
    axis = norm_axis(axis, x.ndim)
    n = x.shape[axis]
    if not 0 <= k <= n:
        raise KernelInputError(f"k={k}: TopK takes from 0 to the {n} values along axis {axis}")
    moved = np.moveaxis(x, axis, -1)
    # For a small k, select in O(n) with a partition and sort only the k
    # winners; NaNs (which partition places arbitrarily) take the full sort.
    small_k = 0 < k < n // 8 and x.dtype.kind in "biuf" and not (x.dtype.kind == "f" and np.isnan(x).any())
    if small_k:
        rows = moved.reshape(-1, n)
        picked = _winners(rows, k, largest)
        order = _sorted_order(np.take_along_axis(rows, picked, 1), 1, largest)
        idx = np.take_along_axis(picked, order, 1).reshape(moved.shape[:-1] + (k,))
    else:
        idx = _sorted_order(moved, moved.ndim - 1, largest)[..., :k]
    idx = np.moveaxis(idx, -1, axis)
    return np.take_along_axis(x, idx, axis=axis), idx.astype(np.int64, copy=False)


@kernel("TopK", since=1)
def topk_v1(x, k, axis=-1):
    return _topk(x, int(k), axis, True, True)


@kernel("TopK", since=10)
def topk(x, k, axis=-1, largest=1, sorted=1):  # noqa: A002  (the attribute's name)
    # largest/sorted arrived in opset 11; their defaults give opset 10's result.
    # sorted=0 leaves the order unspecified, so sorted output is fine.
    return _topk(x, int(scalar(k)), axis, largest, sorted)


@kernel("Unique", since=11)
def unique(x, axis=None, sorted=1):  # noqa: A002
    if axis is None:
        flat = x.reshape(-1)
        y, first, inverse, counts = np.unique(flat, return_index=True, return_inverse=True, return_counts=True)
        take_axis = 0
    else:
        take_axis = norm_axis(axis, x.ndim)
        y, first, inverse, counts = np.unique(x, axis=take_axis, return_index=True,
                                              return_inverse=True, return_counts=True)
    inverse = inverse.reshape(-1)
    if not sorted:
        # Reorder by first occurrence and renumber the inverse map to match.
        perm = np.argsort(first, kind="stable")
        rank = np.empty_like(perm)
        rank[perm] = np.arange(perm.size)
        y = np.take(y, perm, axis=take_axis)
        first, counts, inverse = first[perm], counts[perm], rank[inverse]
    i64 = np.int64
    return y, first.astype(i64), inverse.astype(i64), counts.astype(i64)


def _cumulative(x, axis, exclusive, reverse, op, identity):
    axis = norm_axis(scalar(axis), x.ndim)
    data = np.flip(x, axis) if reverse else x
    out = op(data, axis=axis, dtype=x.dtype)
    if exclusive:
        # Shift by one along the axis and start from the identity element.
        first = np.full_like(np.take(out, [0], axis=axis), identity)
        out = np.concatenate([first, np.take(out, np.arange(out.shape[axis] - 1), axis=axis)], axis=axis)
    return np.ascontiguousarray(np.flip(out, axis)) if reverse else out


@kernel("CumSum", since=11)
def cumsum(x, axis, exclusive=0, reverse=0):
    return _cumulative(x, axis, exclusive, reverse, np.cumsum, 0)


@kernel("CumProd", since=26)
def cumprod(x, axis, exclusive=0, reverse=0):
    return _cumulative(x, axis, exclusive, reverse, np.cumprod, 1)


@kernel("BitCast", since=26)
def bitcast(x, to):
    target = to_numpy_dtype(to)
    if target.itemsize != x.dtype.itemsize:
        raise ValueError(f"BitCast needs equal widths: {x.dtype} to {target}")
    # ONNX asks for little-endian bytes, which is numpy's native order here.
    # (ascontiguousarray would turn a scalar into shape (1,).)
    return (x if x.flags.c_contiguous else x.copy()).view(target)
