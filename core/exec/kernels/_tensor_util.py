"""Small helpers shared by the tensor, sequence, string and ml kernels."""
from __future__ import annotations

import numpy as np

from ..errors import KernelInputError


def norm_axis(axis: int, rank: int) -> int:
    """A possibly negative axis as a non-negative one, checked against rank."""
    a = int(axis)
    if not -rank <= a < max(rank, 1):
        raise KernelInputError(f"axis {axis} is out of range for a tensor of rank {rank}"
                               + (f" (valid axes: {-rank} to {rank - 1})" if rank else " (a scalar has no axis)"))
    return a + rank if a < 0 else a


def norm_axes(axes, rank: int) -> list[int]:
    return [norm_axis(a, rank) for a in ints(axes)]


def ints(v) -> list[int]:
    """Attribute list or 1-D int tensor → list of Python ints."""
    if v is None:
        return []
    if isinstance(v, (list, tuple)):
        return [int(x) for x in v]
    a = np.asarray(v).reshape(-1)
    # tolist() yields Python ints in one C call; iterating numpy scalars is ~10x slower
    return (a if a.dtype.kind in "iu" else a.astype(np.int64)).tolist()


def scalar(v):
    """A 0-d or 1-element tensor as a Python number."""
    return np.asarray(v).reshape(-1)[0].item()


def str_array(values, shape=None) -> np.ndarray:
    """Object array of str (the executor's string tensor convention)."""
    out = np.empty(len(values), dtype=object)
    out[:] = list(values)
    return out if shape is None else out.reshape(shape)
