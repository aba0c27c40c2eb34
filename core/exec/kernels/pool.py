"""Pooling: MaxPool (with indices), AveragePool, LpPool, their Global forms,
MaxRoiPool and MaxUnpool.

Windows are reduced by iterating over the kernel offsets (k*k strided
whole-tensor operations), never over output elements.
"""
from __future__ import annotations

import math

import numpy as np

from ..registry import kernel
from ._nn_util import offset_slices, pad_spatial, spatial_pads


def pool_geometry(x, kernel_shape, strides, dilations, pads, auto_pad, ceil_mode):
    begin, end, out, strides, dilations = spatial_pads(
        x.shape[2:], kernel_shape, strides, dilations, pads, auto_pad, ceil_mode == 1, pooling=True)
    # Only ceil_mode 1 rounds up: onnx and onnxruntime round down for any other
    # value (2 too). Rounding up can make the last window run past the end padding: pad further
    # (with the neutral value) so every window stays inside the array.
    extra = [max(0, (o - 1) * s + (k - 1) * d + 1 - (n + b + e))
             for o, s, k, d, n, b, e in zip(out, strides, kernel_shape, dilations, x.shape[2:], begin, end)]
    return begin, end, extra, out, strides, dilations


def pad_for_windows(x, begin, end, extra, value):
    return pad_spatial(x, begin, [e + x_ for e, x_ in zip(end, extra)], value)


def _lowest(dtype):
    return -np.inf if np.dtype(dtype).kind == "f" else np.iinfo(dtype).min


def _max_pool(x, kernel_shape, strides, dilations, pads, auto_pad, ceil_mode, want_indices, storage_order):
    begin, end, extra, out, strides, dilations = pool_geometry(
        x, kernel_shape, strides, dilations, pads, auto_pad, ceil_mode)
    work = x if x.dtype.kind in "iu" or x.dtype.itemsize >= 4 else x.astype(np.float32)
    xp = pad_for_windows(work, begin, end, extra, _lowest(work.dtype))
    if not want_indices:
        return _separable(xp, kernel_shape, strides, dilations, out, np.maximum, work.dtype).astype(x.dtype, copy=False)
    lead = (slice(None), slice(None))
    y = None
    arg = None
    for i, off in enumerate(np.ndindex(*kernel_shape)):
        v = xp[lead + offset_slices(off, dilations, strides, out)]
        if y is None:
            y = v.copy()
            arg = np.zeros(y.shape, dtype=np.int64) if want_indices else None
        elif want_indices:
            better = v > y
            y[better] = v[better]
            arg[better] = i
        else:
            np.maximum(y, v, out=y)
    y = y.astype(x.dtype, copy=False)
    if not want_indices:
        return y
    return y, _flat_indices(x.shape, arg, kernel_shape, strides, dilations, begin, out, storage_order)


def _flat_indices(shape, arg, kernel_shape, strides, dilations, begin, out, storage_order):
    """Kernel-offset argmax -> flat index into the unpadded input tensor."""
    nd = len(kernel_shape)
    koff = np.unravel_index(arg, kernel_shape)
    coords = []
    for i in range(nd):
        o = np.arange(out[i]).reshape((-1,) + (1,) * (nd - 1 - i))
        coords.append(o * strides[i] + koff[i] * dilations[i] - begin[i])
    spatial = shape[2:]
    if storage_order == 1:      # column-major over the spatial axes
        flat = np.zeros_like(arg)
        for i in reversed(range(nd)):
            flat = flat * spatial[i] + coords[i]
    else:
        flat = np.ravel_multi_index(tuple(np.broadcast_to(c, arg.shape) for c in coords), spatial, mode="wrap")
    n, c = shape[:2]
    base = (np.arange(n).reshape(-1, 1) * c + np.arange(c)).reshape((n, c) + (1,) * nd) * math.prod(spatial)
    return (flat + base).astype(np.int64)


@kernel("MaxPool", since=1)
def max_pool(x, *, auto_pad="NOTSET", ceil_mode=0, dilations=None, kernel_shape, pads=None,
             storage_order=0, strides=None):
    return _max_pool(x, kernel_shape, strides, dilations, pads, auto_pad, ceil_mode, False, storage_order)


@kernel("MaxPool", since=8, context=True)
def max_pool_v8(ctx, x, *, auto_pad="NOTSET", ceil_mode=0, dilations=None, kernel_shape, pads=None,
                storage_order=0, strides=None):
    return _max_pool(x, kernel_shape, strides, dilations, pads, auto_pad, ceil_mode,
                     ctx.num_outputs > 1, storage_order)


def _separable(xp, kernel_shape, strides, dilations, out, ufunc, dtype):
    """Reduce every window with `ufunc` (maximum or add) one spatial axis at a
    time: sum(k) strided passes instead of prod(k), each on a shrinking array."""
    acc = xp
    first_spatial = xp.ndim - len(kernel_shape)
    for i, (k, s, d, o) in enumerate(zip(kernel_shape, strides, dilations, out)):
        axis = first_spatial + i
        index = [slice(None)] * acc.ndim

        def tap(j):
            index[axis] = slice(j * d, j * d + (o - 1) * s + 1, s)
            return acc[tuple(index)]

        step = tap(0).astype(dtype, copy=True)
        for j in range(1, k):
            ufunc(step, tap(j), out=step)
        acc = step
    return acc


def _window_sum(xp, kernel_shape, strides, dilations, out, dtype):
    return _separable(xp, kernel_shape, strides, dilations, out, np.add, dtype)


def _average(x, kernel_shape, strides, dilations, pads, auto_pad, ceil_mode, count_include_pad):
    begin, end, extra, out, strides, dilations = pool_geometry(
        x, kernel_shape, strides, dilations, pads, auto_pad, ceil_mode)
    work_dt = x.dtype if x.dtype.itemsize >= 4 else np.dtype(np.float32)
    sums = _window_sum(pad_for_windows(x, begin, end, extra, 0), kernel_shape, strides, dilations, out, work_dt)
    # how many cells each window averages: the real input, plus explicit
    # padding when count_include_pad, never the ceil_mode overhang
    inside = np.ones(x.shape[2:], dtype=work_dt)
    if count_include_pad and auto_pad == "NOTSET":
        inside = pad_spatial(inside, begin, end, 1)
        counts_p = pad_spatial(inside, [0] * len(extra), extra)
    else:
        counts_p = pad_for_windows(inside, begin, end, extra, 0)
    counts = _window_sum(counts_p, kernel_shape, strides, dilations, out, work_dt)
    return (sums / counts).astype(x.dtype, copy=False)


@kernel("AveragePool", since=1)
def average_pool(x, *, auto_pad="NOTSET", ceil_mode=0, count_include_pad=0, dilations=None,
                 kernel_shape, pads=None, strides=None):
    return _average(x, kernel_shape, strides, dilations, pads, auto_pad, ceil_mode, count_include_pad)


@kernel("LpPool", since=1)
def lp_pool(x, *, auto_pad="NOTSET", ceil_mode=0, dilations=None, kernel_shape, p=2, pads=None,
            strides=None):
    begin, end, extra, out, strides, dilations = pool_geometry(
        x, kernel_shape, strides, dilations, pads, auto_pad, ceil_mode)
    work = np.abs(x if x.dtype.itemsize >= 4 else x.astype(np.float32))
    powered = work * work if p == 2 else work ** p
    sums = _window_sum(pad_for_windows(powered, begin, end, extra, 0), kernel_shape, strides, dilations, out,
                       powered.dtype)
    return (np.sqrt(sums) if p == 2 else sums ** (1.0 / p)).astype(x.dtype, copy=False)


def _spatial_axes(x):
    return tuple(range(2, x.ndim))


@kernel("GlobalAveragePool", since=1)
def global_average_pool(x):
    return x.mean(axis=_spatial_axes(x), keepdims=True, dtype=np.float32 if x.dtype.itemsize < 4 else None
                  ).astype(x.dtype, copy=False)


@kernel("GlobalMaxPool", since=1)
def global_max_pool(x):
    return x.max(axis=_spatial_axes(x), keepdims=True)


@kernel("GlobalLpPool", since=1)
def global_lp_pool(x, *, p=2):
    work = np.abs(x.astype(np.float32) if x.dtype.itemsize < 4 else x)
    s = np.sum(work ** p, axis=_spatial_axes(x), keepdims=True)
    return (s ** (1.0 / p)).astype(x.dtype, copy=False)


@kernel("MaxRoiPool", since=1)
def max_roi_pool(x, rois, *, pooled_shape, spatial_scale=1.0):
    ph, pw = pooled_shape
    h, w = x.shape[2:]
    y = np.zeros((rois.shape[0], x.shape[1], ph, pw), dtype=x.dtype)
    # one region per roi and bin: a python loop over rois x bins, each bin a
    # vectorised max over all channels
    for r, roi in enumerate(rois):
        b = int(roi[0])
        # C rounding (halves away from zero), not numpy's half-to-even
        x1, y1, x2, y2 = (int(np.sign(v) * np.floor(abs(v * spatial_scale) + 0.5)) for v in roi[1:5])
        rh, rw = max(y2 - y1 + 1, 1), max(x2 - x1 + 1, 1)
        for i in range(ph):
            hs = min(max(int(np.floor(i * rh / ph)) + y1, 0), h)
            he = min(max(int(np.ceil((i + 1) * rh / ph)) + y1, 0), h)
            for j in range(pw):
                ws = min(max(int(np.floor(j * rw / pw)) + x1, 0), w)
                we = min(max(int(np.ceil((j + 1) * rw / pw)) + x1, 0), w)
                if he > hs and we > ws:
                    y[r, :, i, j] = x[b, :, hs:he, ws:we].max(axis=(1, 2))
    return y


@kernel("MaxUnpool", since=9)
def max_unpool(x, indices, output_shape=None, *, kernel_shape, pads=None, strides=None):
    nd = len(kernel_shape)
    strides = list(strides) if strides else [1] * nd
    pads = list(pads) if pads else [0] * (2 * nd)
    # indices address the shape the pooling came from; an explicit (larger)
    # output_shape only adds zeros after it
    inferred = x.shape[:2] + tuple((x.shape[2 + i] - 1) * strides[i] + kernel_shape[i] - pads[i] - pads[i + nd]
                                   for i in range(nd))
    y = np.zeros(math.prod(inferred), dtype=x.dtype)
    y[np.asarray(indices).reshape(-1)] = x.reshape(-1)
    y = y.reshape(inferred)
    if output_shape is None:
        return y
    shape = tuple(int(v) for v in np.asarray(output_shape).reshape(-1))
    out = np.zeros(shape, dtype=x.dtype)
    common = tuple(slice(0, min(a, b)) for a, b in zip(inferred, shape))
    out[common] = y[common]
    return out
