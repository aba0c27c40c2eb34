"""Exact integer references for the quantized products (MatMulInteger,
ConvInteger, QLinearConv, QGemm ...), written here in numpy int64 and
independent of the kernels under test.

Why not onnxruntime: its answers for u8 x s8 products depend on the CPU. On
x86 with AVX2 but no VNNI, MLAS multiplies with vpmaddubsw, which adds two
neighbouring u8*s8 products into an int16 and saturates it (255*127 + 255*127
= 64770 > 32767); with VNNI (vpdpbusd) or on ARM the sums are exact. An
oracle has to give one answer on every machine, so the integer part is
computed here exactly, and `int16_pair_saturated_matmul` models the AVX2
kernel so that tests can show their inputs would tell the two apart.
"""
from __future__ import annotations

import numpy as np

INT16_MAX, INT16_MIN = 32767, -32768
INT32_MIN, INT32_MAX = -2 ** 31, 2 ** 31 - 1


def _zero_point(zp, per_row=False, per_column=False):
    """A zero point as int64, shaped to broadcast over a (rows, k) or (k, cols) operand."""
    if zp is None:
        return np.int64(0)
    zp = np.asarray(zp).astype(np.int64)
    if zp.size > 1 and per_row:
        return zp.reshape(-1, 1)
    return zp.reshape(-1) if zp.size > 1 and per_column else zp.reshape(())


def int_matmul(a, a_zp, b, b_zp):
    """(A - a_zp) @ (B - b_zp) in int64: a_zp per tensor or per row of A,
    b_zp per tensor or per column of B (the last axis)."""
    a64 = np.asarray(a).astype(np.int64) - _zero_point(a_zp, per_row=True)
    b64 = np.asarray(b).astype(np.int64) - _zero_point(b_zp, per_column=True)
    return np.matmul(a64, b64)


def int16_pair_saturated_matmul(a, a_zp, b, b_zp):
    """What MLAS's AVX2 u8 x s8 kernel computes for `int_matmul` (2-D A, B):
    raw products added two neighbours along k at a time into a saturating
    int16, those added into int32, and the zero points taken out afterwards
    with exact row and column sums. Equals `int_matmul` when no pair sum
    leaves the int16 range."""
    a64, b64 = np.asarray(a).astype(np.int64), np.asarray(b).astype(np.int64)
    k = a64.shape[1]
    if k % 2:       # the kernel pads k with zeros to whole pairs
        a64 = np.pad(a64, ((0, 0), (0, 1)))
        b64 = np.pad(b64, ((0, 1), (0, 0)))
    products = a64[:, :, None] * b64[None, :, :]               # (m, k, n)
    pairs = products[:, 0::2, :] + products[:, 1::2, :]
    raw = np.clip(pairs, INT16_MIN, INT16_MAX).sum(axis=1)
    az = _zero_point(a_zp, per_row=True)
    bz = _zero_point(b_zp, per_column=True)
    row_sums = a64.sum(axis=1, keepdims=True)
    column_sums = b64.sum(axis=0)
    return raw - row_sums * bz - az * column_sums + k * az * bz


def im2col(x, kernel_shape, strides, pads, dilations):
    """Windows of x (N, C, *spatial) as (N, *out, C * prod(kernel)), the
    last axis ordered (c, k0, k1 ...) like a weight (M, C, *kernel) flattened;
    `pads` as ONNX gives them (all begins, then all ends), padded with 0."""
    nd = len(kernel_shape)
    x = np.pad(np.asarray(x).astype(np.int64), [(0, 0), (0, 0)] + [(pads[i], pads[i + nd]) for i in range(nd)])
    spatial = x.shape[2:]
    out = [(spatial[i] - dilations[i] * (kernel_shape[i] - 1) - 1) // strides[i] + 1 for i in range(nd)]
    taps = []
    for offset in np.ndindex(*kernel_shape):
        index = tuple(slice(offset[i] * dilations[i], offset[i] * dilations[i] + strides[i] * (out[i] - 1) + 1,
                            strides[i]) for i in range(nd))
        taps.append(x[(slice(None), slice(None)) + index])          # (N, C, *out)
    cols = np.stack(taps, axis=2)                                    # (N, C, taps, *out)
    cols = cols.reshape(cols.shape[0], -1, *out)                     # (N, C * taps, *out)
    return np.moveaxis(cols, 1, -1)


def int_conv(x, x_zp, w, w_zp, *, strides=None, pads=None, dilations=None, group=1):
    """ConvInteger's integers: (x - x_zp) convolved with (w - w_zp) in int64;
    w_zp per tensor or per output channel. Padding stands for x_zp, so a
    padded tap adds nothing once the zero point is taken out."""
    x64 = np.asarray(x).astype(np.int64) - _zero_point(x_zp)
    w = np.asarray(w)
    wz = _zero_point(w_zp, per_column=True)      # one per output channel, or one
    w64 = w.astype(np.int64) - (wz.reshape((-1,) + (1,) * (w.ndim - 1)) if wz.ndim else wz)
    nd = w.ndim - 2
    strides, dilations = strides or [1] * nd, dilations or [1] * nd
    pads = pads or [0] * (2 * nd)
    m, cg = w.shape[:2]
    outputs = []
    for g in range(group):
        cols = im2col(x64[:, g * cg:(g + 1) * cg], w.shape[2:], strides, pads, dilations)
        weights = w64[g * (m // group):(g + 1) * (m // group)].reshape(m // group, -1)
        outputs.append(np.moveaxis(cols @ weights.T, -1, 1))
    return np.concatenate(outputs, axis=1)


def int16_pair_saturated_conv(x, x_zp, w, w_zp, *, strides=None, pads=None, dilations=None):
    """`int_conv` (one group) as MLAS's AVX2 u8 x s8 kernel computes it: the
    windows as rows of A (padded with x_zp, as onnxruntime pads), the
    weights as columns of B, through `int16_pair_saturated_matmul`."""
    nd = np.asarray(w).ndim - 2
    strides, dilations = strides or [1] * nd, dilations or [1] * nd
    x_zero = _zero_point(x_zp)
    cols = im2col(np.asarray(x).astype(np.int64) - x_zero, np.asarray(w).shape[2:], strides, pads or [0] * (2 * nd),
                  dilations) + x_zero
    rows = cols.reshape(-1, cols.shape[-1])
    weights = np.asarray(w).reshape(np.asarray(w).shape[0], -1).T
    product = int16_pair_saturated_matmul(rows, x_zp, weights, w_zp)
    return np.moveaxis(product.reshape(cols.shape[:-1] + (-1,)), -1, 1)


def fits_int32(acc) -> bool:
    """The kernels accumulate in int32; a reference past it would mean a test input too large."""
    return bool(acc.size == 0 or (acc.min() >= INT32_MIN and acc.max() <= INT32_MAX))


def saturate(values, dtype):
    """Integers clamped into `dtype`."""
    info = np.iinfo(dtype)
    return np.clip(values, info.min, info.max).astype(dtype)


def qlinear_conv_reference(x, x_scale, x_zp, w, w_scale, w_zp, y_scale, y_zp, bias=None, *, auto_pad="NOTSET",
                            dilations=None, group=1, kernel_shape=None, pads=None, strides=None):
    """QLinearConv with exact integers (bias included), scaled in float64 by
    x_scale * w_scale / y_scale, rounded half to even, zero point added,
    saturated: the ONNX operator's formula, in float64 (onnxruntime scales in
    float32, which puts some values near a .5 on the other side)."""
    assert auto_pad == "NOTSET"
    acc = int_conv(x, x_zp, w, w_zp, strides=strides, pads=pads, dilations=dilations, group=group)
    if bias is not None:
        acc = acc + bias.astype(np.int64).reshape((1, -1) + (1,) * (acc.ndim - 2))
    assert fits_int32(acc)
    scale = np.float64(x_scale) * np.asarray(w_scale, np.float64).reshape(-1) / np.float64(y_scale)
    scaled = acc * (scale.reshape((1, -1) + (1,) * (acc.ndim - 2)) if scale.size > 1 else scale[0])
    return saturate(np.rint(scaled).astype(np.int64) + int(y_zp), y_zp.dtype)
