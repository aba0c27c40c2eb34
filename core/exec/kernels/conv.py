"""Convolutions: Conv, ConvTranspose, ConvInteger, QLinearConv.

Conv is the hottest kernel of a conv net: it is an im2col copy (a strided
window view made contiguous) followed by one BLAS matmul per batch item and
group. Grouped and depthwise convolutions are one batched matmul over groups,
built in chunks of groups when the column buffer would be large.
"""
from __future__ import annotations

import math

import numpy as np

from ..errors import KernelInputError
from ..registry import kernel
from ._conv_prepared import prepare_conv
from ._nn_util import (as_compute, check_conv_output, check_conv_shapes, offset_slices, pad_spatial, spatial_pads,
                       windows)


# im2col buffers above this many elements are built a few groups at a time,
# so a depthwise conv on a large image never materialises k*k copies of it.
_COLS_CHUNK = 1 << 21
# above this im2col size (elements) a stride-1 dense conv is memory bound and
# the shifted-GEMM form, which copies nothing, is faster
_SHIFT_MIN_COLS = 1 << 21
# a stride-1 grouped conv whose columns (all groups, C*K*out cells) reach this
# many elements copies them in whole image runs (_grouped_shift); below, the
# window view's smaller set-up wins. Measured crossover: 4-14k elements (8
# channels 7x7 5x5 even, 384 channels 10x10 5x5 2.2x faster by long runs).
_SHIFT_COLS_MIN = 1 << 13
_SHIFT_COLS_CHUNK = 1 << 18     # column elements built at a time: within L2


def conv_core(x, w, group, strides, dilations, begin, end, out_shape):
    """Cross-correlate x (N, C, *S) with w (M, C/group, *K); returns (N, M, *out).

    Every group is one batched BLAS matmul of its weights (M/G x C/G*K) with
    its im2col columns (C/G*K x P); a depthwise conv is the G-batched case."""
    n, c = x.shape[:2]
    m = w.shape[0]
    ks = w.shape[2:]
    cg, mg = c // group, m // group
    xp = pad_spatial(x, begin, end)
    kprod, oprod = math.prod(ks), math.prod(out_shape)
    wm = w.reshape(group, mg, cg * kprod)
    if kprod == 1 and all(s == 1 for s in strides) and tuple(xp.shape[2:]) == tuple(out_shape):
        cols = xp.reshape(n, group, cg, oprod)        # 1x1 conv: no im2col at all
        return np.matmul(wm, cols).reshape(n, m, *out_shape)
    per_group = n * cg * kprod * oprod
    if group == 1 and all(s == 1 for s in strides) and per_group > _SHIFT_MIN_COLS:
        return _shift_gemm(xp, w, dilations, out_shape)
    if group > 1 and per_group * group >= _SHIFT_COLS_MIN and all(s == 1 for s in strides):
        return _grouped_shift(xp, w, group, dilations, out_shape)
    grouped = xp.reshape(n, group, cg, *xp.shape[2:])
    view = windows(grouped, ks, strides, dilations, out_shape)   # (N, G, C/G, *K, *out)
    step = max(1, _COLS_CHUNK // per_group) if per_group * group > _COLS_CHUNK else group
    if step >= group:
        y = np.matmul(wm, view.reshape(n, group, cg * kprod, oprod))
    else:
        y = np.empty((n, group, mg, oprod), dtype=np.result_type(x.dtype, w.dtype))
        for g0 in range(0, group, step):
            g1 = min(group, g0 + step)
            np.matmul(wm[g0:g1], view[:, g0:g1].reshape(n, g1 - g0, cg * kprod, oprod), out=y[:, g0:g1])
    return y.reshape(n, m, *out_shape)


def _shift_gemm(xp, w, dilations, out_shape):
    """Stride-1 convolution without im2col: on the flattened padded image, a
    kernel tap is a constant shift, so each tap is one GEMM of its weights
    with a contiguous column slice of the input. The result is computed on
    the padded grid and the valid cells read out with a strided view."""
    n, c = xp.shape[:2]
    m = w.shape[0]
    ks = w.shape[2:]
    padded = xp.shape[2:]
    flat = xp.reshape(n, c, -1)
    row = [math.prod(padded[i + 1:]) for i in range(len(padded))]    # element strides
    span = sum((o - 1) * r for o, r in zip(out_shape, row)) + 1
    taps = w.reshape(m, c, -1).transpose(2, 0, 1).copy()              # (K, M, C)
    acc = np.zeros((n, m, flat.shape[2]), dtype=np.result_type(xp.dtype, w.dtype))
    for b in range(n):
        for t, off in enumerate(np.ndindex(*ks)):
            shift = sum(k * d * r for k, d, r in zip(off, dilations, row))
            acc[b, :, :span] += taps[t] @ flat[b, :, shift:shift + span]
    item = acc.itemsize
    view = np.lib.stride_tricks.as_strided(
        acc, (n, m, *out_shape), acc.strides[:2] + tuple(r * item for r in row), writeable=False)
    return np.ascontiguousarray(view)


def _grouped_shift(xp, w, group, dilations, out_shape):
    """Stride-1 grouped (depthwise) convolution with its columns copied in
    long runs. On the flattened padded image a kernel tap is a constant
    shift, so the columns of a group are runs of the image taken whole,
    where the window view copies output row by output row (20 floats at a
    time on a 20x20 map: measured 2x slower). Each group is then one
    product, as in conv_core, computed on the padded grid (a few groups at a
    time, so the columns stay in cache); the valid cells are read out at
    the end."""
    n, c = xp.shape[:2]
    m = w.shape[0]
    ks = w.shape[2:]
    cg, mg = c // group, m // group
    kprod = math.prod(ks)
    xp = np.ascontiguousarray(xp)
    padded, item = xp.shape[2:], xp.itemsize
    row = [math.prod(padded[i + 1:]) for i in range(len(padded))]    # element strides
    span = sum((o - 1) * r for o, r in zip(out_shape, row)) + 1
    # (N, G, C/G, *K, span): every tap's shifted run of the flat image
    taps = np.ndarray((n, group, cg, *ks, span), xp.dtype, buffer=xp,
                      strides=(xp.strides[0], cg * xp.strides[1], xp.strides[1],
                               *(d * r * item for d, r in zip(dilations, row)), item))
    wm = w.reshape(group, mg, cg * kprod)
    dtype = np.result_type(xp.dtype, w.dtype)
    full = np.empty((n, group, mg, out_shape[0] * row[0]), dtype=dtype)
    step = max(1, _SHIFT_COLS_CHUNK // (cg * kprod * span))
    for b in range(n):
        for g0 in range(0, group, step):
            g1 = min(group, g0 + step)
            cols = taps[b, g0:g1].reshape(g1 - g0, cg * kprod, span)      # the one copy
            np.matmul(wm[g0:g1], cols, out=full[b, g0:g1, :, :span])
    out = np.ndarray((n, m, *out_shape), dtype, buffer=full,
                     strides=(full.strides[0], full.strides[2], *(r * full.itemsize for r in row)))
    return np.ascontiguousarray(out)


def _add_bias(y, b):
    if b is not None:
        y += b.reshape((1, -1) + (1,) * (y.ndim - 2)).astype(y.dtype, copy=False)
    return y


def _resolve(x, w, kernel_shape, strides, dilations, pads, auto_pad, group=1):
    check_conv_shapes(x.shape, w.shape, group)
    ks = list(kernel_shape) if kernel_shape else list(w.shape[2:])
    geometry = spatial_pads(x.shape[2:], ks, strides, dilations, pads, auto_pad)
    check_conv_output(x.shape[2:], ks, geometry)
    return geometry


def _prepare_conv(consts, attrs):
    return prepare_conv(consts, attrs, conv_core, conv)


@kernel("Conv", since=1, prepare=_prepare_conv)
def conv(x, w, b=None, *, auto_pad="NOTSET", dilations=None, group=1, kernel_shape=None,
         pads=None, strides=None):
    begin, end, out, strides, dilations = _resolve(x, w, kernel_shape, strides, dilations, pads, auto_pad, group)
    y = conv_core(as_compute(x), as_compute(w), group, strides, dilations, begin, end, out)
    return _add_bias(y, b).astype(x.dtype, copy=False)


def _int_conv(x, x_zp, w, w_zp, auto_pad, dilations, group, kernel_shape, pads, strides):
    """Exact integer convolution of zero-point-shifted operands, done in float64
    (BLAS) since every partial sum stays far below 2**53."""
    xs = x.astype(np.float64)
    if x_zp is not None:
        xs -= np.float64(np.asarray(x_zp).reshape(-1)[0])
    ws = w.astype(np.float64)
    if w_zp is not None:
        zp = np.asarray(w_zp, dtype=np.float64).reshape(-1)
        ws -= zp.reshape((-1,) + (1,) * (w.ndim - 1)) if zp.size > 1 else zp[0]
    begin, end, out, strides, dilations = _resolve(x, w, kernel_shape, strides, dilations, pads, auto_pad, group)
    return conv_core(xs, ws, group, strides, dilations, begin, end, out)


@kernel("ConvInteger", since=10)
def conv_integer(x, w, x_zero_point=None, w_zero_point=None, *, auto_pad="NOTSET", dilations=None,
                 group=1, kernel_shape=None, pads=None, strides=None):
    y = _int_conv(x, x_zero_point, w, w_zero_point, auto_pad, dilations, group, kernel_shape, pads, strides)
    return np.rint(y).astype(np.int32)


@kernel("QLinearConv", since=10)
def qlinear_conv(x, x_scale, x_zero_point, w, w_scale, w_zero_point, y_scale, y_zero_point,
                 b=None, *, auto_pad="NOTSET", dilations=None, group=1, kernel_shape=None,
                 pads=None, strides=None):
    acc = _int_conv(x, x_zero_point, w, w_zero_point, auto_pad, dilations, group, kernel_shape, pads, strides)
    _add_bias(acc, b)
    ws = np.asarray(w_scale, dtype=np.float64).reshape(-1)
    scale = float(np.asarray(x_scale).reshape(-1)[0]) * ws / float(np.asarray(y_scale).reshape(-1)[0])
    acc *= scale.reshape((1, -1) + (1,) * (acc.ndim - 2)) if scale.size > 1 else scale[0]
    out_dt = np.asarray(y_zero_point).dtype if y_zero_point is not None else x.dtype
    q = np.rint(acc)
    if y_zero_point is not None:
        q += float(np.asarray(y_zero_point).reshape(-1)[0])
    info = np.iinfo(out_dt)
    return np.clip(q, info.min, info.max).astype(out_dt)


def _transpose_pads(in_shape, ks, strides, dilations, pads, auto_pad, output_padding, output_shape):
    nd = len(in_shape)
    full = [(in_shape[i] - 1) * strides[i] + (ks[i] - 1) * dilations[i] + 1 + output_padding[i]
            for i in range(nd)]
    if output_shape is not None or auto_pad in ("SAME_UPPER", "SAME_LOWER"):
        target = (list(output_shape)[-nd:] if output_shape is not None
                  else [in_shape[i] * strides[i] for i in range(nd)])
        begin, end = [], []
        for i in range(nd):
            total = full[i] - target[i]
            small, big = total // 2, total - total // 2
            b, e = (small, big) if auto_pad == "SAME_UPPER" else (big, small)
            begin.append(b)
            end.append(e)
        return begin, target
    if pads and auto_pad == "NOTSET":
        begin = list(pads[:nd])
        return begin, [full[i] - pads[i] - pads[i + nd] for i in range(nd)]
    return [0] * nd, full


def _check_transpose_shapes(x_shape, w_shape, group) -> None:
    """ConvTranspose's X [N, C, ...] and W [C, M/group, ...]."""
    if len(x_shape) < 3 or len(x_shape) != len(w_shape):
        raise KernelInputError(f"X {list(x_shape)} and W {list(w_shape)} must have the same rank, 3 or more "
                               "([N, C, spatial...] and [C, M/group, kernel...])")
    if group < 1 or x_shape[1] % group:
        raise KernelInputError(f"X has {x_shape[1]} channels, which group {group} does not divide")
    if x_shape[1] != w_shape[0]:
        raise KernelInputError(f"X has {x_shape[1]} channels but W {list(w_shape)} takes {w_shape[0]} "
                               "(W's first axis)")


@kernel("ConvTranspose", since=1)
def conv_transpose(x, w, b=None, *, auto_pad="NOTSET", dilations=None, group=1, kernel_shape=None,
                   output_padding=None, output_shape=None, pads=None, strides=None):
    _check_transpose_shapes(x.shape, w.shape, group)
    dt = x.dtype
    x, w = as_compute(x), as_compute(w)
    n, c = x.shape[:2]
    in_sp = x.shape[2:]
    nd = len(in_sp)
    ks = list(kernel_shape) if kernel_shape else list(w.shape[2:])
    strides = list(strides) if strides else [1] * nd
    dilations = list(dilations) if dilations else [1] * nd
    output_padding = list(output_padding) if output_padding else [0] * nd
    cg, mg = c // group, w.shape[1]
    kprod = math.prod(ks)
    # cols[n, g, m, *k, *in]: each input pixel's contribution to every kernel tap
    wm = w.reshape(group, cg, mg * kprod).transpose(0, 2, 1)
    cols = np.matmul(wm, x.reshape(n, group, cg, -1)).reshape(n, group, mg, *ks, *in_sp)
    full = [(in_sp[i] - 1) * strides[i] + (ks[i] - 1) * dilations[i] + 1 for i in range(nd)]
    acc = np.zeros((n, group, mg, *full), dtype=x.dtype)
    lead = (slice(None),) * 3
    for off in np.ndindex(*ks):
        acc[lead + offset_slices(off, dilations, strides, in_sp)] += cols[lead + off]
    begin, out = _transpose_pads(in_sp, ks, strides, dilations, pads, auto_pad, output_padding, output_shape)
    y = np.zeros((n, group * mg, *out), dtype=x.dtype)
    src, dst = [], []
    for i in range(nd):
        lo, hi = max(begin[i], 0), min(begin[i] + out[i], full[i])
        src.append(slice(lo, max(hi, lo)))
        dst.append(slice(lo - begin[i], lo - begin[i] + max(hi - lo, 0)))
    y[(slice(None), slice(None), *dst)] = acc.reshape(n, group * mg, *full)[(slice(None), slice(None), *src)]
    return _add_bias(y, b).astype(dt, copy=False)
