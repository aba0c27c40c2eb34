"""DeformConv (2-D) and Col2Im.

DeformConv samples the input bilinearly at offset kernel positions (zero
outside the image), then multiplies the gathered columns with the weights in
one BLAS matmul per group - the im2col scheme of Conv with computed taps.
"""
from __future__ import annotations

import math

import numpy as np

from ..registry import kernel
from ._nn_util import as_compute, offset_slices


def _sampled_columns(img, pos_y, pos_x):
    """img (C, H, W); pos_* (K, P) float -> bilinear samples (C, K, P), zero outside."""
    c, h, w = img.shape
    flat = img.reshape(c, h * w)
    y0, x0 = np.floor(pos_y), np.floor(pos_x)
    fy, fx = pos_y - y0, pos_x - x0
    y0, x0 = y0.astype(np.int64), x0.astype(np.int64)
    out = np.zeros((c,) + pos_y.shape, dtype=img.dtype)
    for dy, wy in ((0, 1 - fy), (1, fy)):
        for dx, wx in ((0, 1 - fx), (1, fx)):
            yy, xx = y0 + dy, x0 + dx
            inside = (yy >= 0) & (yy < h) & (xx >= 0) & (xx < w)
            idx = np.where(inside, yy * w + xx, 0)
            out += flat[:, idx] * (wy * wx * inside).astype(img.dtype)
    return out


@kernel("DeformConv", since=19)
def deform_conv(x, w, offset, b=None, mask=None, *, dilations=None, group=1, kernel_shape=None,
                offset_group=1, pads=None, strides=None):
    dt = x.dtype
    x, w = as_compute(x), as_compute(w)
    n, c, ih, iw = x.shape
    m = w.shape[0]
    kh, kw = kernel_shape if kernel_shape else w.shape[2:]
    sh, sw = strides if strides else (1, 1)
    dh, dw = dilations if dilations else (1, 1)
    pt, pl, pb, pr = pads if pads else (0, 0, 0, 0)
    oh = (ih + pt + pb - ((kh - 1) * dh + 1)) // sh + 1
    ow = (iw + pl + pr - ((kw - 1) * dw + 1)) // sw + 1
    k, p = kh * kw, oh * ow
    off = offset.reshape(n, offset_group, kh, kw, 2, oh, ow).astype(x.dtype)
    msk = None if mask is None else mask.reshape(n, offset_group, k, p).astype(x.dtype)
    # undeformed sampling positions of every kernel tap for every output cell
    base_y = (np.arange(kh) * dh)[:, None, None, None] + (np.arange(oh) * sh - pt)[None, None, :, None]
    base_x = (np.arange(kw) * dw)[None, :, None, None] + (np.arange(ow) * sw - pl)[None, None, None, :]
    cpg = c // offset_group
    cg, mg = c // group, m // group
    y = np.empty((n, m, p), dtype=x.dtype)
    wm = w.reshape(group, mg, cg * k)
    for bi in range(n):
        cols = np.empty((c, k, p), dtype=x.dtype)
        for g in range(offset_group):
            py = (base_y + off[bi, g, :, :, 0]).reshape(k, p)
            px = (base_x + off[bi, g, :, :, 1]).reshape(k, p)
            part = _sampled_columns(x[bi, g * cpg:(g + 1) * cpg], py, px)
            if msk is not None:
                part *= msk[bi, g][None]
            cols[g * cpg:(g + 1) * cpg] = part
        y[bi] = np.matmul(wm, cols.reshape(group, cg * k, p)).reshape(m, p)
    if b is not None:
        y += b.reshape(1, -1, 1).astype(y.dtype)
    return y.reshape(n, m, oh, ow).astype(dt, copy=False)


@kernel("Col2Im", since=18)
def col2im(x, image_shape, block_shape, *, dilations=None, pads=None, strides=None):
    image = [int(v) for v in np.asarray(image_shape).reshape(-1)]
    block = [int(v) for v in np.asarray(block_shape).reshape(-1)]
    nd = len(image)
    dilations = list(dilations) if dilations else [1] * nd
    strides = list(strides) if strides else [1] * nd
    pads = list(pads) if pads else [0] * (2 * nd)
    padded = [image[i] + pads[i] + pads[i + nd] for i in range(nd)]
    blocks = [(padded[i] - ((block[i] - 1) * dilations[i] + 1)) // strides[i] + 1 for i in range(nd)]
    n = x.shape[0]
    c = x.shape[1] // math.prod(block)
    cols = x.reshape(n, c, *block, *blocks)
    acc = np.zeros((n, c, *padded), dtype=x.dtype)
    lead = (slice(None), slice(None))
    for off in np.ndindex(*block):
        acc[lead + offset_slices(off, dilations, strides, blocks)] += cols[lead + off]
    crop = tuple(slice(pads[i], pads[i] + image[i]) for i in range(nd))
    return acc[lead + crop]
