"""Converting and checking runtime values against declared types."""
from __future__ import annotations

from typing import Optional

import numpy as np

from ..ir import Tensor, Value
from ..ir.dtypes import DataType, from_numpy_dtype, is_known, to_numpy_dtype, type_name
from ..ir.tensor import SparseTensor
from ..ir.types import MapType, OptionalType, SequenceType, TensorType, format_shape
from .errors import FeedError


def _strings_to_str(a: np.ndarray) -> np.ndarray:
    if a.dtype.kind in "US" or (a.dtype == object and any(isinstance(x, bytes) for x in a.flat)):
        out = np.empty(a.shape, dtype=object)
        flat = out.reshape(-1)
        for i, x in enumerate(a.reshape(-1)):
            flat[i] = x.decode("utf-8", "replace") if isinstance(x, bytes) else str(x)
        return out
    return a


def normalize(value):
    """Bring a user value into the executor's conventions (strings as object arrays of str)."""
    if isinstance(value, Tensor):
        return value.numpy()
    if isinstance(value, SparseTensor):
        return value.to_dense()
    if isinstance(value, np.ndarray):
        return _strings_to_str(value) if value.dtype.kind in "OUS" else value
    if isinstance(value, list):
        return [normalize(v) for v in value]
    if isinstance(value, dict):
        return {k: normalize(v) for k, v in value.items()}
    if value is None:
        return None
    if isinstance(value, np.generic):
        return np.asarray(value)
    return np.asarray(value)


def describe(value) -> str:
    """'float32[1,3,224,224]', 'seq(3)', 'None' — for error messages."""
    if value is None:
        return "None"
    if isinstance(value, list):
        return f"sequence of {len(value)}"
    if isinstance(value, dict):
        return f"map of {len(value)}"
    a = np.asarray(value)
    try:
        name = type_name(from_numpy_dtype(a.dtype))
    except ValueError:
        name = str(a.dtype)
    return name + format_shape(a.shape)


def _expected(t) -> str:
    return str(t) if t is not None else "?"


# Symbolic names exporters write for "any size" (Paddle writes "?" on every
# dynamic axis): they name no size, so two such axes need not agree.
ANONYMOUS_DIMS = frozenset({"", "?"})


def tensor_mismatch(t: TensorType, value, typed: str = "expected") -> Optional[str]:
    """Why `value` does not fit tensor type `t` ("expected float[1,3], got
    float[2,3] (dimension 0 is 2, not 1)"; `typed` is the first word), or
    None when it does: element type, rank and every dim the type gives as a
    number (symbols and negative dims take any size)."""
    if not isinstance(value, np.ndarray):
        return f"{typed} a tensor {_expected(t)}, got {describe(value)}"
    said = f"{typed} {_expected(t)}, got {describe(value)}"
    if t.elem_type:
        want = DataType(t.elem_type) if is_known(t.elem_type) else None
        got = DataType.STRING if value.dtype == object else _safe_code(value.dtype)
        if want is not None and got != want:
            return said
    if t.shape is not None:
        if value.ndim != len(t.shape):
            return f"{said} (rank {value.ndim} instead of {len(t.shape)})"
        for i, (d, n) in enumerate(zip(t.shape, value.shape)):
            if isinstance(d, int) and d >= 0 and d != n:     # a negative dim means any size
                return f"{said} (dimension {i} is {n}, not {d})"
    return None


def declared_mismatch(v: Value, value) -> Optional[str]:
    """What a run's value of graph output `v` shows its declared tensor type
    to be wrong about (see tensor_mismatch), or None. A file can declare an
    output [1] that a batch makes [9] (onnxmltools' LightGBM converter
    does); onnxruntime only warns and returns the value, so the user is told
    rather than shown the declaration as if it held."""
    t = v.type
    if not isinstance(t, TensorType) or value is None:
        return None
    return tensor_mismatch(t, value, "declared")


def check_feed(v: Value, value, dims: dict) -> None:
    """Raise FeedError if `value` does not fit `v`'s declared type.

    `dims` collects the sizes bound to symbolic dims, so `batch` must be the
    same in every input.
    """
    t = v.type
    where = f'input "{v.name}"'
    if t is None:
        return
    if isinstance(t, TensorType):
        why = tensor_mismatch(t, value)
        if why is not None:
            raise FeedError(f"{where}: {why}")
        for i, (d, n) in enumerate(zip(t.shape or (), value.shape)):
            if isinstance(d, str) and d not in ANONYMOUS_DIMS:
                bound = dims.setdefault(d, n)
                if bound != n:
                    raise FeedError(f"{where}: dimension {i} ({d}) is {n}, but another input "
                                    f"already set {d} = {bound}")
    elif isinstance(t, SequenceType) and not isinstance(value, list):
        raise FeedError(f"{where}: expected a sequence ({t}), got {describe(value)}")
    elif isinstance(t, MapType) and not isinstance(value, dict):
        raise FeedError(f"{where}: expected a map ({t}), got {describe(value)}")
    elif isinstance(t, OptionalType) and value is not None:
        check_feed(Value(v.name, t.elem), value, dims) if t.elem is not None else None


class FeedCheck:
    """check_feed for one graph input with its declared type decoded once: a
    feed of the declared numeric dtype and shape passes in a few attribute
    reads (start() runs this for every input of every run); anything else
    goes through check_feed, which says what is wrong."""
    __slots__ = ("value", "dtype", "shape")

    def __init__(self, v: Value):
        self.value = v
        self.dtype = self.shape = None
        t = v.type
        if isinstance(t, TensorType) and t.elem_type and t.shape is not None:
            try:
                dtype = to_numpy_dtype(t.elem_type)
            except ValueError:
                return
            if dtype.kind not in "OUSV":     # strings and ml_dtypes: the general check
                self.dtype, self.shape = dtype, tuple(t.shape)

    def __call__(self, value, dims: dict) -> None:
        shape = self.shape
        if shape is not None and type(value) is np.ndarray and value.dtype == self.dtype \
                and len(value.shape) == len(shape):
            for d, n in zip(shape, value.shape):
                if d is None or d == "" or d == n:
                    continue
                if type(d) is not str or dims.setdefault(d, n) != n:
                    break
            else:
                return
        check_feed(self.value, value, dims)


def _safe_code(dtype) -> Optional[int]:
    try:
        return from_numpy_dtype(dtype)
    except ValueError:
        return None


def empty_like_type(t) -> np.ndarray:
    """An empty tensor of the type's element type (for zero-trip loops)."""
    code = getattr(t, "elem_type", 0) or DataType.FLOAT
    shape = getattr(t, "shape", None)
    dims = [0] + [d if isinstance(d, int) else 0 for d in (shape or ())]
    return np.zeros(dims[: max(1, len(dims))], dtype=to_numpy_dtype(code))
