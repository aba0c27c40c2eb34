"""GridSample (opset 16 names and the N-D opset 20 form) and AffineGrid.

Sampling is vectorised over every output point: for each of the 2**d
(linear) or 4**d (cubic) neighbour offsets, one gather + weighted add.
"""
from __future__ import annotations

import itertools

import numpy as np

from ..registry import kernel


def _reflect(x, lo, hi):
    """Fold coordinates into [lo, hi] by mirroring at the borders."""
    span = hi - lo
    if span <= 0:
        return np.full_like(x, lo)
    below, above = x < lo, x > hi
    dist = np.where(below, lo - x, x - hi)
    k = np.floor(dist / span)
    rest = dist - k * span
    even = (k % 2) == 0
    from_below = np.where(even, lo + rest, hi - rest)
    from_above = np.where(even, hi - rest, lo + rest)
    return np.where(below, from_below, np.where(above, from_above, x))


def _keys_cubic(t):
    a = -0.75
    t = np.abs(t)
    return np.where(t <= 1, ((a + 2) * t - (a + 3)) * t * t + 1,
                    np.where(t < 2, ((a * t - 5 * a) * t + 8 * a) * t - 4 * a, 0.0))


class _Fetcher:
    """Reads X[n, :, i0, i1, ...] at integer indices under a padding mode."""

    def __init__(self, x, padding_mode, lo, hi):
        self.x, self.mode, self.lo, self.hi = x, padding_mode, lo, hi
        self.dims = x.shape[2:]

    def __call__(self, idx):
        ok = None
        fixed = []
        for i, (v, d) in enumerate(zip(idx, self.dims)):
            if self.mode == "zeros":
                inside = (v >= 0) & (v < d)
                ok = inside if ok is None else ok & inside
                fixed.append(np.clip(v, 0, d - 1))
            elif self.mode == "border":
                fixed.append(np.clip(v, 0, d - 1))
            else:
                fixed.append(np.clip(_reflect(v.astype(np.float64), self.lo[i], self.hi[i]).astype(np.int64),
                                     0, d - 1))
        n = np.arange(self.x.shape[0]).reshape((-1,) + (1,) * (idx[0].ndim - 1))
        vals = self.x[(n, slice(None), *fixed)]            # (N, *out, C)
        if ok is not None:
            vals = vals * ok[..., None]
        return vals


def _grid_sample(x, grid, mode, padding_mode, align_corners):
    nd = x.ndim - 2
    dims = x.shape[2:]
    work = x if x.dtype.kind == "f" and x.dtype.itemsize >= 4 else x.astype(np.float32)
    g = grid.astype(np.float64)[..., ::-1]              # grid lists (x, y, z): reverse to axis order
    coords, lo, hi = [], [], []
    for i, d in enumerate(dims):
        c = g[..., i]
        c = (c + 1) / 2 * (d - 1) if align_corners else ((c + 1) * d - 1) / 2
        lo.append(0.0 if align_corners else -0.5)
        hi.append(d - 1.0 if align_corners else d - 0.5)
        coords.append(c)
    if mode == "nearest":
        coords = [np.rint(c) for c in coords]
    for i, d in enumerate(dims):
        if padding_mode == "border":
            # only points beyond the border move; (-0.5, 0) stays put, which
            # matters to the cubic taps
            out = (coords[i] < lo[i]) | (coords[i] > hi[i])
            coords[i] = np.where(out, np.clip(coords[i], 0, d - 1), coords[i])
        elif padding_mode == "reflection":
            coords[i] = _reflect(coords[i], lo[i], hi[i])
    fetch = _Fetcher(work, padding_mode, lo, hi)
    if mode == "nearest":
        out = fetch([c.astype(np.int64) for c in coords])
    else:
        first = [np.floor(c).astype(np.int64) for c in coords]
        taps = (0, 1) if mode == "linear" else (-1, 0, 1, 2)
        out = 0
        for combo in itertools.product(taps, repeat=nd):
            w = 1.0
            idx = []
            for i, t in enumerate(combo):
                pos = first[i] + t
                dist = coords[i] - pos
                w = w * (np.clip(1 - np.abs(dist), 0, 1) if mode == "linear" else _keys_cubic(dist))
                idx.append(pos)
            out = out + fetch(idx) * w[..., None].astype(work.dtype)
    return np.moveaxis(np.asarray(out), -1, 1).astype(x.dtype, copy=False)


_V16_MODES = {"bilinear": "linear", "bicubic": "cubic", "nearest": "nearest"}


@kernel("GridSample", since=16)
def grid_sample_v16(x, grid, *, align_corners=0, mode="bilinear", padding_mode="zeros"):
    return _grid_sample(x, grid, _V16_MODES[mode], padding_mode, align_corners)


@kernel("GridSample", since=20)
def grid_sample(x, grid, *, align_corners=0, mode="linear", padding_mode="zeros"):
    return _grid_sample(x, grid, mode, padding_mode, align_corners)


@kernel("AffineGrid", since=20)
def affine_grid(theta, size, *, align_corners=0):
    size = [int(v) for v in np.asarray(size).reshape(-1)]
    n, spatial = size[0], size[2:]
    axes = []
    for d in spatial:
        if align_corners:
            axes.append(np.linspace(-1.0, 1.0, d) if d > 1 else np.zeros(1))
        else:
            axes.append((np.arange(d) * 2.0 + 1.0) / d - 1.0)
    mesh = np.meshgrid(*axes, indexing="ij")
    # homogeneous points listed as (x, y[, z], 1): the innermost axis first
    pts = np.stack([m.reshape(-1) for m in mesh[::-1]] + [np.ones(mesh[0].size)], axis=-1)
    out = np.matmul(pts.astype(theta.dtype), theta.transpose(0, 2, 1))
    return out.reshape(n, *spatial, len(spatial))
