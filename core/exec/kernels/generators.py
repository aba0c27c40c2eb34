"""Kernels that make tensors from shapes and scalars: Constant,
ConstantOfShape, Range, EyeLike."""
from __future__ import annotations

import math

import numpy as np

from ...ir.dtypes import to_numpy_dtype
from ..errors import KernelInputError
from ..registry import kernel
from ._tensor_util import ints, str_array


@kernel("Constant", since=1)
def constant(value=None, value_float=None, value_floats=None, value_int=None,
             value_ints=None, value_string=None, value_strings=None, sparse_value=None):
    # Exactly one of these is set (the checker enforces it); the later opsets
    # only added alternatives, so one kernel serves every version.
    if value is not None:
        return value
    if sparse_value is not None:
        return sparse_value          # the session densifies sparse attributes
    if value_float is not None:
        return np.array(value_float, dtype=np.float32)
    if value_floats is not None:
        return np.array(value_floats, dtype=np.float32).reshape(-1)
    if value_int is not None:
        return np.array(value_int, dtype=np.int64)
    if value_ints is not None:
        return np.array(value_ints, dtype=np.int64).reshape(-1)
    if value_string is not None:
        return str_array([value_string], ())
    if value_strings is not None:
        return str_array(value_strings)
    raise ValueError("Constant has none of its value attributes")


@kernel("ConstantOfShape", since=9)
def constant_of_shape(shape, value=None):
    if value is None:
        return np.zeros(ints(shape), dtype=np.float32)
    return np.full(ints(shape), value.reshape(-1)[0], dtype=value.dtype)


def _range(start, limit, delta, compute_dtype):
    dtype = np.asarray(start).dtype
    s, e, d = (np.asarray(v).reshape(-1)[0].astype(compute_dtype) for v in (start, limit, delta))
    if d == 0:
        raise KernelInputError("delta is 0: the range would never reach its limit")
    if dtype.kind in "iu":
        # Exact for int64 beyond 2**53, where a float quotient would round.
        count = max(-((int(s) - int(e)) // int(d)), 0)
    else:
        count = max(int(math.ceil((float(e) - float(s)) / float(d))), 0)
    steps = np.arange(count, dtype=compute_dtype)
    return (s + steps * d).astype(dtype, copy=False)


@kernel("Range", since=11)
def range_(start, limit, delta):
    dtype = np.asarray(start).dtype
    # Integers are exact; floats are computed as start + i*delta (not by
    # repeated addition) in their own type, which matches the reference.
    return _range(start, limit, delta, dtype)


@kernel("Range", since=27)
def range_v27(start, limit, delta, stash_type=1):
    dtype = np.asarray(start).dtype
    narrow_float = dtype.kind == "f" and dtype.itemsize < 4 or dtype.kind == "V" or dtype.name == "bfloat16"
    if narrow_float and stash_type == 1:
        return _range(start, limit, delta, np.float32)
    return _range(start, limit, delta, dtype)


@kernel("EyeLike", since=9)
def eye_like(x, dtype=None, k=0):
    out_dtype = x.dtype if dtype is None else to_numpy_dtype(dtype)
    if x.ndim != 2:
        raise ValueError(f"EyeLike needs a 2-D input, got rank {x.ndim}")
    return np.eye(x.shape[0], x.shape[1], k=k, dtype=out_dtype)
