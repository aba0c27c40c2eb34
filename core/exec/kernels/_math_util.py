"""Helpers shared by the math kernels (elementwise, reduce, normalization ...)."""
from __future__ import annotations

import threading

import numpy as np

from ...ir.dtypes import to_numpy_dtype
from ..errors import KernelInputError

# numpy's own float types. The ml_dtypes ones (bfloat16, float8 ...; their
# dtype.kind is "V" or even "f") would round after every step of a formula,
# so float math on them runs in float32 and rounds once at the end.
NATIVE_FLOATS = (np.dtype(np.float16), np.dtype(np.float32), np.dtype(np.float64))


def compute_dtype(dtype) -> np.dtype:
    """The dtype to do float math in: itself if numpy can, else float32."""
    dtype = np.dtype(dtype)
    return dtype if dtype in NATIVE_FLOATS else np.dtype(np.float32)


def float_math(fn):
    """Wrap a float-only numpy expression so ml_dtypes inputs (bfloat16, float8)
    are computed in float32 and cast back; numpy's own types pass through."""
    def run(x, *args, **kwargs):
        if x.dtype in NATIVE_FLOATS or x.dtype.kind in "biuc":
            return fn(x, *args, **kwargs)
        args = [a.astype(np.float32) if isinstance(a, np.ndarray) and a.dtype == x.dtype else a
                for a in args]
        return np.asarray(fn(x.astype(np.float32), *args, **kwargs)).astype(x.dtype)
    run.__name__ = getattr(fn, "__name__", "float_math")
    return run


class _QuietDepth(threading.local):
    depth = 0       # how many quiet_numpy blocks this thread is inside


_quiet_depth = _QuietDepth()


class quiet_numpy:
    """`np.errstate(all="ignore")` around a run or a step: NaN and inf are
    values like any other here (onnxruntime computes them silently too), and
    numpy's warnings about them would only name our kernels' source lines.
    Inside it, kernels wrapped in `quiet` skip setting an errstate of their
    own, which costs ~0.8 us a call: as much as a small kernel's arithmetic."""
    __slots__ = ("_errstate",)

    def __enter__(self):
        self._errstate = np.errstate(all="ignore")
        self._errstate.__enter__()
        _quiet_depth.depth += 1
        return self

    def __exit__(self, *exc):
        _quiet_depth.depth -= 1
        return self._errstate.__exit__(*exc)


def quiet(fn):
    """`fn` without numpy's floating-point warnings: domain errors (log(-1),
    0/0, overflow in exp) give NaN or inf, as ONNX expects. Within a session's
    run the errstate is already set (`quiet_numpy`) and `fn` is called as is."""
    def run(*args, **kwargs):
        if _quiet_depth.depth:
            return fn(*args, **kwargs)
        with np.errstate(all="ignore"):
            return fn(*args, **kwargs)
    run.__name__ = getattr(fn, "__name__", "quiet")
    return run


def prepare_native(fn, general):
    """A `prepare` hook for float kernels wrapped in float_math and quiet:
    a prepared call runs inside a session's quiet_numpy, so numpy's own float
    types go straight to `fn` (two call layers fewer, a third of a small
    activation's cost); other types take `general`, the registered kernel."""
    def prepare(consts, attrs):
        attrs = {k: v for k, v in attrs.items() if k != "consumed_inputs"}

        def run(x, *args):
            if x.dtype in NATIVE_FLOATS:
                return fn(x, *args, **attrs)
            return general(x, *args, **attrs)
        return run
    return prepare


def normalize_axis(axis: int, rank: int) -> int:
    if not -rank <= axis < max(rank, 1):
        raise KernelInputError(f"axis {axis} is out of range for a tensor of rank {rank}"
                               + (f" (valid axes: {-rank} to {rank - 1})" if rank else " (a scalar has no axis)"))
    return axis + rank if axis < 0 else axis


def normalize_axes(axes, rank: int) -> tuple[int, ...]:
    return tuple(sorted({normalize_axis(int(a), rank) for a in axes}))


def legacy_broadcast(b: np.ndarray, a_rank: int, broadcast: int, axis) -> np.ndarray:
    """Opset < 7 binary ops broadcast B onto A only when `broadcast=1`, aligning
    B's first dim with A's dim `axis` (default: trailing alignment, as numpy)."""
    if not broadcast or axis is None or b.ndim == 0:
        return b
    axis = normalize_axis(axis, a_rank)
    trailing = a_rank - axis - b.ndim
    return b.reshape(b.shape + (1,) * trailing) if trailing > 0 else b


def onnx_dtype(code: int) -> np.dtype:
    return to_numpy_dtype(int(code))


def last_axis_sum(x: np.ndarray) -> np.ndarray:
    """Sum over the last axis, keeping it as size 1. For float32/float64 this is
    a matrix-vector product with ones: BLAS sums ~3x faster than np.sum here."""
    if x.dtype in (np.float32, np.float64) and x.ndim >= 1 and x.shape[-1] > 0:
        return np.matmul(x, np.ones(x.shape[-1], dtype=x.dtype))[..., None]
    return np.sum(x, axis=-1, keepdims=True)


def last_axis_mean(x: np.ndarray) -> np.ndarray:
    total = last_axis_sum(x)
    total /= x.shape[-1]
    return total


# numpy's minimum/maximum of a float array and a scalar take a slow loop
# (20 us on 128x512 float32, against 3 us for a product), and so does np.clip
# with one bound left out; np.clip with both bounds given as 0-d arrays of
# the input's type takes a fast one (6 us). NaN stays NaN in all of them.
_INF_BOUNDS = {np.dtype(np.float32): (np.asarray(-np.inf, np.float32), np.asarray(np.inf, np.float32)),
               np.dtype(np.float64): (np.asarray(-np.inf, np.float64), np.asarray(np.inf, np.float64))}


def bounded(x: np.ndarray, low=None, high=None, out=None) -> np.ndarray:
    """max(x, low) then min(., high), either bound optional (None), as one
    fast np.clip for float32/float64 arrays. `out` may be x. Unlike
    np.maximum, a -0.0 at a bound of 0 keeps its sign."""
    inf = _INF_BOUNDS.get(x.dtype)
    # `v != v`: NaN, for a Python float or a 0-d array, without a ufunc call
    if inf is None or (low is not None and low != low) or (high is not None and high != high):
        y = x if low is None else np.maximum(x, x.dtype.type(low), out=out)
        return y if high is None else np.minimum(y, x.dtype.type(high), out=out)
    lo = inf[0] if low is None else np.asarray(low, x.dtype)
    hi = inf[1] if high is None else np.asarray(high, x.dtype)
    return np.clip(x, lo, hi, out=out)


BLOCK_ELEMENTS = 1 << 16


def blockwise(fn):
    """Run a multi-pass elementwise formula over cache-sized slices of x.

    A formula of n numpy steps over a big tensor streams it through memory n
    times and page-faults fresh temporaries on every step; on 64K-element
    slices the temporaries stay in cache: Erf on 1.6M floats measured 2.8x
    faster. Below ~1 MB the whole array is cache-resident anyway and the
    slicing only costs (measured), so small inputs run in one go. `fn` must be
    elementwise in x (extra arguments pass through, so must be scalars)."""
    def run(x, *args, **kwargs):
        if x.size <= 4 * BLOCK_ELEMENTS:
            return fn(x, *args, **kwargs)
        flat = np.ascontiguousarray(x).reshape(-1)
        first = np.asarray(fn(flat[:BLOCK_ELEMENTS], *args, **kwargs))
        out = np.empty(flat.size, dtype=first.dtype)
        out[:BLOCK_ELEMENTS] = first
        for start in range(BLOCK_ELEMENTS, flat.size, BLOCK_ELEMENTS):
            stop = start + BLOCK_ELEMENTS
            out[start:stop] = fn(flat[start:stop], *args, **kwargs)
        return out.reshape(x.shape)
    run.__name__ = getattr(fn, "__name__", "blockwise")
    return run
