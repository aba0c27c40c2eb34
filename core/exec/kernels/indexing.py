"""Kernels that pick or place elements by index: Slice, Gather*, Scatter*,
Compress, NonZero, OneHot, ReverseSequence, Trilu."""
from __future__ import annotations

import math

import numpy as np

from ..errors import KernelInputError
from ..registry import VARIES, kernel
from ._tensor_util import ints, norm_axes, norm_axis, scalar


def _slice_index(rank, starts, ends, axes, steps) -> tuple:
    """The Python index tuple of a Slice on a tensor of `rank`."""
    starts, ends = ints(starts), ints(ends)
    axes = norm_axes(axes, rank) if axes is not None else range(len(starts))
    steps = ints(steps) if steps is not None else None
    if len(ends) != len(starts) or len(axes) != len(starts) or (steps is not None and len(steps) != len(starts)):
        raise KernelInputError(f"starts, ends, axes and steps must have one value per sliced axis; got "
                               f"{len(starts)} starts, {len(ends)} ends, {len(axes)} axes"
                               + (f", {len(steps)} steps" if steps is not None else ""))
    if len(set(axes)) != len(axes):
        raise KernelInputError(f"axes {list(axes)} name an axis twice (after counting negative axes from the end)")
    index = [slice(None)] * rank
    # ONNX's rules (negative values count from the end, then clamp to the
    # dimension, differently for negative steps) are exactly Python's.
    if steps is None:
        for a, s, e in zip(axes, starts, ends):
            index[a] = slice(s, e)
    else:
        for a, s, e, st in zip(axes, starts, ends, steps):
            if st == 0:
                raise KernelInputError(f"a step of 0 on axis {a}: a slice's steps must not be 0")
            index[a] = slice(s, e, st)
    return tuple(index)


def _slice(data, starts, ends, axes, steps):
    return data[_slice_index(data.ndim, starts, ends, axes, steps)]


def _prepare_slice(consts, attrs):
    """Constant starts/ends/axes/steps: the index tuple is built once per rank."""
    data, *bounds = consts
    if data is not VARIES or any(b is VARIES for b in bounds):
        return None
    bounds += [None] * (4 - len(bounds))
    starts, ends, axes, steps = (None if b is None else ints(b) for b in bounds)
    by_rank: dict = {}

    def sliced(data, *_):
        index = by_rank.get(data.ndim)
        if index is None:
            index = by_rank[data.ndim] = _slice_index(data.ndim, starts, ends, axes, steps)
        return data[index]
    return sliced


@kernel("Slice", since=1)
def slice_v1(data, starts, ends, axes=None):
    return _slice(data, starts, ends, axes, None)


@kernel("Slice", since=10, prepare=_prepare_slice)
def slice_(data, starts, ends, axes=None, steps=None):
    return _slice(data, starts, ends, axes, steps)


@kernel("Gather", since=1)
def gather(data, indices, axis=0):
    axis = norm_axis(axis, data.ndim)
    # Basic fancy indexing, not np.take: take is ~100x slower on the unaligned
    # read-only weight views that zero-copy loading produces (embeddings).
    # A lone index array keeps its dimensions in place, as Gather wants;
    # negative indices wrap as ONNX specifies.
    picked = data[(slice(None),) * axis + (indices,)]
    # A scalar pick from a vector is a numpy scalar: keep arrays.
    return np.asarray(picked)


def _positive(indices, dim, axis):
    """Indices in [-dim, dim) counted from 0. Out of range ones are refused
    here: numpy would take -dim - 1 (made -1) as the last element."""
    indices = indices.astype(np.int64, copy=False)
    if not indices.size:
        return indices
    lo, hi = int(indices.min()), int(indices.max())
    if lo < -dim or hi >= dim:
        _out_of_range(lo if lo < -dim else hi, dim, axis)
    return np.where(indices < 0, indices + dim, indices) if lo < 0 else indices


def _positive_nd(idx, dims, first_axis=0):
    """_positive for the last axis of ND indices, column j indexing axis first_axis + j (size dims[j])."""
    if not idx.size:
        return idx
    lo, hi = idx.min(axis=tuple(range(idx.ndim - 1))), idx.max(axis=tuple(range(idx.ndim - 1)))
    for j, d in enumerate(dims.tolist()):
        if lo[j] < -d or hi[j] >= d:
            _out_of_range(int(lo[j] if lo[j] < -d else hi[j]), d, first_axis + j)
    return np.where(idx < 0, idx + dims, idx) if lo.min() < 0 else idx


def _out_of_range(index, dim, axis):
    valid = f"from {-dim} to {dim - 1}" if dim else "none: the axis is empty"
    raise KernelInputError(f"index {index} is out of range for axis {axis} of size {dim} (valid indices: {valid})")


@kernel("GatherElements", since=11)
def gather_elements(data, indices, axis=0):
    axis = norm_axis(axis, data.ndim)
    return np.take_along_axis(data, _positive(indices, data.shape[axis], axis), axis=axis)


@kernel("GatherND", since=11)
def gather_nd(data, indices, batch_dims=0):
    b = batch_dims
    k = indices.shape[-1]
    batch_shape = data.shape[:b]
    nb = math.prod(batch_shape)
    flat_data = data.reshape((nb,) + data.shape[b:])
    idx = indices.reshape(nb, -1, k).astype(np.int64, copy=False)
    dims = np.array(data.shape[b:b + k], dtype=np.int64)
    idx = _positive_nd(idx, dims, b)
    batch = np.arange(nb)[:, None]
    picked = flat_data[(batch,) + tuple(idx[..., j] for j in range(k))]
    return picked.reshape(indices.shape[:-1] + data.shape[b + k:])


_REDUCERS = {"add": np.add, "mul": np.multiply, "max": np.maximum, "min": np.minimum}


def _put(out, index, updates, reduction):
    if reduction == "none":
        out[index] = updates
    elif reduction in _REDUCERS:
        # ufunc.at applies repeated indices one after another, as ONNX asks.
        _REDUCERS[reduction].at(out, index, updates)
    else:
        raise ValueError(f"unknown reduction {reduction!r}")
    return out


def _scatter_elements(data, indices, updates, axis, reduction):
    axis = norm_axis(axis, data.ndim)
    grid = list(np.indices(indices.shape, sparse=True))
    grid[axis] = _positive(indices, data.shape[axis], axis)
    return _put(data.copy(), tuple(grid), updates, reduction)


@kernel("Scatter", since=9)
def scatter(data, indices, updates, axis=0):
    return _scatter_elements(data, indices, updates, axis, "none")


@kernel("ScatterElements", since=11)
def scatter_elements(data, indices, updates, axis=0, reduction="none"):
    # reduction arrived in opset 16 (add/mul) and 18 (max/min); its default
    # keeps the older versions' meaning, so one kernel serves them all.
    return _scatter_elements(data, indices, updates, axis, reduction)


@kernel("ScatterND", since=11)
def scatter_nd(data, indices, updates, reduction="none"):
    k = indices.shape[-1]
    dims = np.array(data.shape[:k], dtype=np.int64)
    idx = _positive_nd(indices.astype(np.int64, copy=False), dims)
    index = tuple(idx[..., j] for j in range(k))
    return _put(data.copy(), index, updates, reduction)


@kernel("Compress", since=9)
def compress(x, condition, axis=None):
    cond = np.asarray(condition, dtype=bool).reshape(-1)
    # a condition longer than the data: the spec reads only its first values
    # (onnxruntime too), where np.compress refuses it
    if axis is None:
        return np.compress(cond[:x.size], x.reshape(-1))
    axis = norm_axis(axis, x.ndim)
    return np.compress(cond[:x.shape[axis]], x, axis=axis)


@kernel("NonZero", since=9)
def nonzero(x):
    return np.array(np.nonzero(np.atleast_1d(x)), dtype=np.int64)


@kernel("OneHot", since=9)
def one_hot(indices, depth, values, axis=-1):
    depth = int(scalar(depth))
    if depth < 1:
        raise KernelInputError(f"depth {depth}: a one-hot encoding needs 1 class or more")
    rank = indices.ndim + 1
    axis = norm_axis(axis, rank)
    idx = np.asarray(indices).astype(np.int64)
    idx = np.where(idx < 0, idx + depth, idx)
    classes = np.arange(depth).reshape((depth,) + (1,) * (rank - 1 - axis))
    hot = np.expand_dims(idx, axis) == classes
    off, on = values.reshape(-1)[:2]
    return np.where(hot, on, off).astype(values.dtype, copy=False)


@kernel("ReverseSequence", since=10)
def reverse_sequence(x, sequence_lens, batch_axis=1, time_axis=0):
    moved = np.moveaxis(x, (batch_axis, time_axis), (0, 1))
    nb, nt = moved.shape[:2]
    lens = np.asarray(sequence_lens, dtype=np.int64).reshape(nb, 1)
    t = np.arange(nt).reshape(1, nt)
    source = np.where(t < lens, lens - 1 - t, t)
    out = moved[np.arange(nb)[:, None], source]
    return np.ascontiguousarray(np.moveaxis(out, (0, 1), (batch_axis, time_axis)))


@kernel("Trilu", since=14)
def trilu(x, k=None, upper=1):
    k = 0 if k is None else int(scalar(k))
    return np.triu(x, k) if upper else np.tril(x, k)
