"""SwiGLU (opset 28): Swish_alpha(A) * B, with Swish_alpha(a) = a * sigmoid(alpha * a)."""
from __future__ import annotations

import numpy as np

from ..registry import kernel


@kernel("SwiGLU", since=28)
def swiglu(a, b, alpha=1.0):
    a, b = np.asarray(a), np.asarray(b)
    # The operator does not broadcast: gate and value come from the same
    # projection split in two, so a shape mismatch is a modelling error.
    if a.shape != b.shape:
        raise ValueError(f"SwiGLU needs A and B of the same shape, got {list(a.shape)} and {list(b.shape)}")
    if a.dtype != b.dtype:
        raise ValueError(f"SwiGLU needs A and B of the same type, got {a.dtype} and {b.dtype}")
    # The sigmoid is evaluated in at least float32 (float16 exp overflows
    # early) and rounded to the input type before the products, as Swish does.
    wide = a.astype(np.promote_types(a.dtype, np.float32))
    gate = (1.0 / (1.0 + np.exp(-alpha * wide))).astype(a.dtype)
    return (a * gate * b).astype(a.dtype)
