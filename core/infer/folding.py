"""Constant folding of small shape arithmetic with the executor's kernels.

Only operators that typically compute shapes are folded, and only when every
input is a known constant with few elements: folding is for making Reshape /
Expand / Slice targets concrete, not for pre-computing the model.
"""
from __future__ import annotations

from typing import Optional

import numpy as np

FOLDABLE = frozenset({
    "Add", "Sub", "Mul", "Div", "Mod", "Neg", "Abs", "Max", "Min", "Sum", "Floor", "Ceil",
    "Sqrt", "Pow", "Cast", "CastLike", "Concat", "Gather", "GatherElements", "Slice",
    "Squeeze", "Unsqueeze", "Reshape", "Flatten", "Identity", "Range", "ConstantOfShape",
    "Equal", "Less", "Greater", "LessOrEqual", "GreaterOrEqual", "Not", "And", "Or",
    "Where", "Expand", "Tile", "ReduceProd", "ReduceSum", "ReduceMax", "ReduceMin",
    "Transpose", "Shape", "Size", "Split", "Clip", "Sign", "NonZero", "Round", "Reciprocal",
})
MAX_FOLD_ELEMENTS = 1024

_kernels_loaded = False


def _find(domain: str, op_type: str, opset: int):
    global _kernels_loaded
    from ..exec.registry import find_kernel
    if not _kernels_loaded:
        from ..exec import kernels  # noqa: F401  (registers every kernel)
        _kernels_loaded = True
    return find_kernel(domain, op_type, opset)


def _attr_for_kernel(v):
    # Kernels take tensors as numpy arrays.
    numpy = getattr(v, "numpy", None)
    if callable(numpy):
        return numpy()
    return v


def fold(op_type: str, domain: str, opset: int, inputs: list, attrs: dict,
         num_outputs: int) -> Optional[list]:
    """Outputs of the node as numpy arrays, or None if it cannot be folded."""
    if domain or op_type not in FOLDABLE:
        return None
    for x in inputs:
        if x is not None and x.size > MAX_FOLD_ELEMENTS:
            return None
    k = _find(domain, op_type, opset)
    if k is None or k.context:
        return None
    kwargs = {name: _attr_for_kernel(v) for name, v in attrs.items()}
    while inputs and inputs[-1] is None:
        inputs = inputs[:-1]
    with np.errstate(all="ignore"):
        out = k.fn(*inputs, **kwargs)
    outs = list(out) if isinstance(out, tuple) else [out]
    return [np.asarray(o) if o is not None else None for o in outs[:num_outputs]]
