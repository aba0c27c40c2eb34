"""Conv with constant weights, specialised once per node (the registry's
`prepare` hook).

Small convolutions (audio frames, RNN front ends, late stages of detectors)
cost more in Python set-up than in arithmetic: resolving pads, padding into a
new buffer, building the window view, copying it, reshaping the weights and
bias. With the weights known before the run, all of that is done once: the
weights become one (M, C*K) matrix, the bias a column, and for each input
shape seen the im2col copy becomes one `take` through a precomputed index
(padding cells point at an appended zero). Large convolutions keep the
general path, whose cost is the arithmetic.
"""
from __future__ import annotations

import math

import numpy as np

from ..registry import VARIES
from ._nn_util import check_conv_output, check_conv_shapes, compute_dtype, spatial_pads

# Above this many im2col cells per batch item the index would cost more memory
# traffic than the window view it replaces.
_INDEX_MAX_CELLS = 1 << 16
# Geometries (each with its index) kept per node: a few input shapes recur in
# practice (fixed frames, a handful of image sizes).
_SHAPES_KEPT = 8


def prepare_conv(consts, attrs, conv_core, general):
    """The Conv kernel for constant weight (and bias): `conv_core` is the
    routine for grouped or large inputs, `general` the whole kernel (for
    inputs whose element type does not match the weights')."""
    if len(consts) < 2 or consts[0] is not VARIES or consts[1] is VARIES:
        return None
    w = consts[1]
    b = consts[2] if len(consts) > 2 else None
    if b is VARIES or not isinstance(w, np.ndarray) or w.ndim < 3:
        return None
    dtype = compute_dtype(w.dtype)
    group = attrs.get("group", 1)
    m = w.shape[0]
    wk = w.astype(dtype, copy=False)
    w2d = np.ascontiguousarray(wk.reshape(m, -1)) if group == 1 else None
    bias = None if b is None else np.asarray(b).astype(dtype).reshape(m, 1)
    kernel = list(attrs.get("kernel_shape") or w.shape[2:])
    pointwise = group == 1 and all(k == 1 for k in kernel) and list(w.shape[2:]) == kernel
    geometry: dict = {}    # input shape -> (pads, out shape, im2col index or None)

    def plan_for(shape):
        check_conv_shapes(shape, w.shape, group)
        geometry = spatial_pads(shape[2:], kernel, attrs.get("strides"), attrs.get("dilations"), attrs.get("pads"),
                                attrs.get("auto_pad", "NOTSET"))
        check_conv_output(shape[2:], kernel, geometry)
        begin, end, out, strides, dilations = geometry
        cells = shape[1] * math.prod(kernel) * math.prod(out)
        index = None
        if pointwise and all(s == 1 for s in strides) and not any(begin) and not any(end):
            index = _POINTWISE
        elif group == 1 and cells <= _INDEX_MAX_CELLS and shape[1] == w.shape[1]:
            index = _im2col_index(shape[1], shape[2:], kernel, strides, dilations, begin, out)
        return begin, end, out, strides, dilations, index

    def conv(x, *args):
        if compute_dtype(x.dtype) != dtype:
            return general(x, *args, **attrs)
        g = geometry.get(x.shape)
        if g is None:
            if len(geometry) >= _SHAPES_KEPT:    # input shapes that keep changing: bound the memory
                geometry.clear()
            g = geometry[x.shape] = plan_for(x.shape)
        begin, end, out, strides, dilations, index = g
        xc = x if x.dtype == dtype else x.astype(dtype)
        n = x.shape[0]
        if index is _POINTWISE:     # a 1x1 convolution is one product with the input as it lies
            flat = xc.reshape(n, xc.shape[1], -1)
            y = w2d @ flat[0] if n == 1 else np.matmul(w2d, flat)
        elif index is None:
            y = conv_core(xc, wk, group, strides, dilations, begin, end, out).reshape(n, m, -1)
        else:
            flat = xc.reshape(n, -1)
            if index.pads:
                flat = np.concatenate((flat, np.zeros((n, 1), dtype)), axis=1)
            cols = flat.take(index.cells, axis=1)          # (N, C*K, P)
            y = w2d @ cols[0] if n == 1 else np.matmul(w2d, cols)
        if bias is not None:
            y += bias
        return y.reshape(n, m, *out).astype(x.dtype, copy=False)

    return conv


_POINTWISE = object()    # the geometry's index for a 1x1, stride-1, unpadded convolution


class _Index:
    __slots__ = ("cells", "pads")

    def __init__(self, cells: np.ndarray, pads: bool):
        self.cells = cells
        self.pads = pads


def _im2col_index(channels, spatial, kernel, strides, dilations, begin, out) -> _Index:
    """For each (channel, kernel tap) row and output position column, the flat
    position in the unpadded input it reads, or one past the end (a zero)
    where the window hangs over the padding."""
    d = len(spatial)
    size = math.prod(spatial)
    flat = np.arange(channels, dtype=np.intp).reshape((channels,) + (1,) * (2 * d)) * size
    valid = np.ones((1,) * (1 + 2 * d), dtype=bool)
    row = 1
    for i in reversed(range(d)):
        taps = np.arange(kernel[i]).reshape(-1, 1) * dilations[i]
        pos = taps + np.arange(out[i]).reshape(1, -1) * strides[i] - begin[i]      # (K_i, O_i)
        shape = [1] * (1 + 2 * d)
        shape[1 + i], shape[1 + d + i] = kernel[i], out[i]
        pos = pos.reshape(shape)
        valid = valid & (pos >= 0) & (pos < spatial[i])
        flat = flat + pos * row
        row *= spatial[i]
    flat = np.where(valid, flat, channels * size)
    cells = np.ascontiguousarray(flat.reshape(channels * math.prod(kernel), math.prod(out)))
    return _Index(cells, not bool(valid.all()))
