"""Summaries of one tensor for people: statistics, a histogram, NaN/Inf counts.

Shared by the app (edge tooltips, the tensor inspector, the initializer
editor), the debug run ("stop at the first NaN/Inf") and the CLI.

min/max/mean/std are taken over the finite elements only, and NaN, +Inf and
-Inf are counted apart: one Inf would otherwise make every other figure
Inf or NaN, and the count is what a user hunting an overflow wants.
Types numpy cannot do arithmetic on directly (ml_dtypes' bfloat16, float8,
int4 ...) are widened to float64 first; complex tensors are summarised by
their magnitude; bool as 0/1; strings and other objects only by count.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

import numpy as np


@dataclass
class TensorStats:
    count: int                      # elements
    numeric: bool                   # False for strings / objects: only `count` is meaningful
    finite: int = 0                 # elements that are neither NaN nor +-Inf
    min: Optional[float] = None     # over the finite elements (None when there are none)
    max: Optional[float] = None
    mean: Optional[float] = None
    std: Optional[float] = None
    nan: int = 0
    posinf: int = 0
    neginf: int = 0
    zeros: int = 0

    @property
    def inf(self) -> int:
        return self.posinf + self.neginf

    @property
    def nonfinite(self) -> bool:
        return bool(self.nan or self.posinf or self.neginf)

    def summary(self) -> str:
        """One line: 'min -1.2  max 3.4  mean 0.01  std 1  (2 NaN)'."""
        if not self.numeric:
            return f"{self.count} elements"
        if self.min is None:
            text = "no finite element" if self.count else "empty"
        else:
            text = (f"min {self.min:.6g}  max {self.max:.6g}  mean {self.mean:.6g}  "
                    f"std {self.std:.6g}")
        extra = [f"{n} {what}" for n, what in ((self.nan, "NaN"), (self.posinf, "+Inf"),
                                                (self.neginf, "-Inf")) if n]
        return text + (f"  ({', '.join(extra)})" if extra else "")

    def to_json(self) -> dict:
        return {k: getattr(self, k) for k in ("count", "min", "max", "mean", "std", "nan",
                                              "posinf", "neginf", "zeros")}


def as_float(array: np.ndarray) -> Optional[np.ndarray]:
    """`array` as a float array numpy can reduce (complex as magnitude), or
    None when its elements are not numbers."""
    a = np.asarray(array)
    kind = a.dtype.kind
    if kind == "f":
        return a
    if kind == "c":
        return np.abs(a)
    if kind in "iu":
        return a
    if kind == "b":
        return a.view(np.uint8)
    if kind == "V":    # ml_dtypes' types: bfloat16, float8, int4, float4 ...
        try:
            return a.astype(np.float64)
        except (TypeError, ValueError):
            return None
    return None


def tensor_stats(array) -> TensorStats:
    a = np.asarray(array)
    data = as_float(a)
    if data is None:
        return TensorStats(count=int(a.size), numeric=False)
    n = int(data.size)
    if n == 0:
        return TensorStats(count=0, numeric=True)
    stats = TensorStats(count=n, numeric=True)
    with np.errstate(all="ignore"):
        if data.dtype.kind == "f":
            finite_mask = np.isfinite(data)
            stats.finite = int(np.count_nonzero(finite_mask))
            if stats.finite != n:
                stats.nan = int(np.count_nonzero(np.isnan(data)))
                stats.posinf = int(np.count_nonzero(data == np.inf))
                stats.neginf = int(np.count_nonzero(data == -np.inf))
                data = data[finite_mask]
        else:
            stats.finite = n
        stats.zeros = int(data.size - np.count_nonzero(data))
        if data.size:
            stats.min = float(data.min())
            stats.max = float(data.max())
            stats.mean = float(data.mean(dtype=np.float64))
            stats.std = float(data.std(dtype=np.float64))
    return stats


def has_nonfinite(value) -> bool:
    """True when a tensor (or any tensor in a sequence/map/optional) holds
    NaN or Inf. Cheap for integer tensors: they cannot."""
    return _any_floats(value, lambda data: not bool(np.isfinite(data).all()))


def has_nan(value) -> bool:
    """True when a tensor (or any tensor in a sequence/map/optional) holds a
    NaN; Inf alone is not one (an attention mask's -inf)."""
    return _any_floats(value, lambda data: bool(np.isnan(data).any()))


def _any_floats(value, test) -> bool:
    """`test` on the float data of every tensor in `value`; True when it is
    for one of them."""
    if value is None:
        return False
    if isinstance(value, (list, tuple)):
        return any(_any_floats(v, test) for v in value)
    if isinstance(value, dict):
        return any(_any_floats(v, test) for v in value.values())
    a = np.asarray(value)
    kind = a.dtype.kind
    if kind in "fc":
        with np.errstate(all="ignore"):
            return test(a)
    if kind == "V":
        data = as_float(a)
        return data is not None and test(data)
    return False


def histogram(array, bins: int = 64) -> tuple[np.ndarray, np.ndarray]:
    """(counts, edges) of the finite elements; empty arrays when there is
    nothing to count. Integer tensors with a small range get one bin per
    integer, so token ids or masks show as bars, not smeared."""
    data = as_float(np.asarray(array))
    if data is None or data.size == 0:
        return np.zeros(0, np.int64), np.zeros(0)
    data = data.reshape(-1)
    if data.dtype.kind == "f":
        data = data[np.isfinite(data)]
        if data.size == 0:
            return np.zeros(0, np.int64), np.zeros(0)
    lo, hi = float(data.min()), float(data.max())
    if data.dtype.kind in "iu" and hi - lo < bins:
        edges = np.arange(lo, hi + 2) - 0.5
        counts, edges = np.histogram(data, bins=edges)
        return counts, edges
    if lo == hi:
        lo, hi = lo - 0.5, hi + 0.5
    counts, edges = np.histogram(data, bins=bins, range=(lo, hi))
    return counts, edges


__all__ = ["TensorStats", "tensor_stats", "has_nonfinite", "has_nan", "histogram", "as_float"]
