"""Bit-exact array equality for the codec and round-trip tests."""
from __future__ import annotations

import numpy as np


def same_bits(expected: np.ndarray, got: np.ndarray) -> bool:
    """Same dtype, shape and bytes, so NaN payloads and negative zeros count
    too; object arrays (strings) compare element by element."""
    if expected.dtype != got.dtype or expected.shape != got.shape:
        return False
    if expected.dtype == object:
        return list(expected.flat) == list(got.flat)
    return np.ascontiguousarray(expected).tobytes() == np.ascontiguousarray(got).tobytes()
