"""Matrix products: MatMul, Gemm, Einsum, Det."""
from __future__ import annotations

import numpy as np

from ..registry import kernel
from ._nn_util import as_compute, compute_dtype


_BLAS_FLOATS = (np.dtype(np.float32), np.dtype(np.float64))


def matmul_core(a, b):
    if a.dtype in _BLAS_FLOATS and b.dtype == a.dtype:
        # the usual case, without the type resolution below (~1.5 us a call,
        # 96 calls in a 12-layer BERT)
        if a.ndim > 2 and b.ndim == 2 and a.flags.c_contiguous:
            return np.matmul(a.reshape(-1, a.shape[-1]), b).reshape(*a.shape[:-1], b.shape[-1])
        return np.matmul(a, b)
    if a.ndim > 2 and b.ndim == 2 and a.flags.c_contiguous:
        # (..., M, K) @ (K, N): one big GEMM instead of one per leading index
        return matmul_core(a.reshape(-1, a.shape[-1]), b).reshape(*a.shape[:-1], b.shape[-1])
    dt = np.result_type(a.dtype, b.dtype)
    if compute_dtype(dt) == dt:
        return np.matmul(a, b)
    if dt.kind in "iu":
        # integer matmul has no BLAS and numpy wraps on overflow exactly like
        # the fixed-width ONNX types do, so keep it in the integer domain.
        return np.matmul(a, b)
    return np.matmul(as_compute(a), as_compute(b)).astype(dt)


@kernel("MatMul", since=1)
def matmul(a, b):
    return matmul_core(a, b)


def gemm_core(a, b, c, alpha, beta, transA, transB):
    dt = a.dtype
    a = a.T if transA else a
    b = b.T if transB else b
    y = matmul_core(a, b)
    if alpha != 1.0:
        y = y * alpha if dt.kind == "f" else (y * alpha).astype(dt)
    if c is not None and beta != 0.0:
        if beta != 1.0:
            c = c * beta
        if (y.flags.writeable and y.dtype == np.result_type(y.dtype, c.dtype)
                and y.shape == np.broadcast_shapes(y.shape, c.shape)):
            y += c.astype(y.dtype, copy=False)
        else:
            y = y + c
    return y.astype(dt, copy=False)


@kernel("Gemm", since=1)
def gemm_v1(a, b, c=None, *, alpha=1.0, beta=1.0, transA=0, transB=0, broadcast=0):
    # `broadcast` only allowed C to broadcast; numpy broadcasting covers both cases.
    return gemm_core(a, b, c, alpha, beta, transA, transB)


@kernel("Gemm", since=7)
def gemm(a, b, c=None, *, alpha=1.0, beta=1.0, transA=0, transB=0):
    return gemm_core(a, b, c, alpha, beta, transA, transB)


@kernel("Einsum", since=12)
def einsum(*inputs, equation):
    eq = equation.replace(" ", "")
    dt = np.result_type(*[x.dtype for x in inputs])
    if compute_dtype(dt) == dt or dt.kind in "iu":
        return np.asarray(np.einsum(eq, *inputs, optimize=True), dtype=dt)
    return np.einsum(eq, *[as_compute(x) for x in inputs], optimize=True).astype(dt)


@kernel("Det", since=11)
def det(x):
    d = np.linalg.det(as_compute(x))
    return np.asarray(d).astype(x.dtype, copy=False)
