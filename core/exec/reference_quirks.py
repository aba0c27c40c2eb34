"""Differences that are the reference's, recognised exactly.

onnxruntime's MatMulInteger and QLinearMatMul of uint8 A and int8 B are not
built on the exact integer product on x86 CPUs with AVX2 but no VNNI: MLAS
multiplies with vpmaddubsw,
which adds two neighbouring u8*s8 products (along k) into an int16 and
saturates it (255*127 + 255*127 = 64770 > 32767), then sums those in int32
and takes the zero points out with exact row and column sums. With VNNI
or on ARM the sums are exact. A dynamically quantized transformer
(onnxruntime.quantization.quantize_dynamic) compared with onnxruntime on
such a CPU then shows its first MatMulInteger as the node that goes wrong,
which it is not: our executor computes the exact product the spec asks for.

`saturated_product_explains` recomputes onnxruntime's saturated sum (for
QLinearMatMul scaled as it scales, in float32) for the output elements that
differ and says so only when every one checked equals it to the integer: a
guess would tell the user something false. (Its ConvInteger is exact on
such a CPU: measured, 2026-11-28.)
"""
from __future__ import annotations

from typing import Optional

import numpy as np

# What the user is told (with the evidence for each node after it).
SATURATION = ("onnxruntime's integers, not the model's: its uint8 x int8 kernel adds two products at a time "
              "into an int16 that saturates, as on x86 CPUs with AVX2 but no VNNI; ours is the exact "
              "product the operator defines")
# The operators whose differences the comparison asks this module about.
EXPLAINABLE_OPS = frozenset({"MatMulInteger", "QLinearMatMul"})
INT16_MIN, INT16_MAX = -32768, 32767
# Differing elements recomputed at most (each costs k products); a larger
# difference is checked on this many, spread over it, and the note says so.
MAX_CHECKED = 65536
_BLOCK = 2048           # elements recomputed at once (a block holds _BLOCK x k int32 products)


def saturated_product_explains(node, inputs: list, theirs, ours) -> Optional[str]:
    """Why `node`'s output differs from onnxruntime's, when it is onnxruntime's
    saturating u8 x s8 product: a sentence for the user; None otherwise.
    `inputs` are the node's input arrays as run (None for an absent one),
    `theirs` and `ours` its output from onnxruntime and from us."""
    operands = _operands(node, inputs)
    theirs, ours = np.asarray(theirs), np.asarray(ours)
    if operands is None or theirs.shape != ours.shape or theirs.dtype.kind not in "iu":
        return None
    a, b, a_zp, b_zp, requantize = operands
    differing = np.argwhere(theirs != ours)
    if not len(differing) or a.ndim < 2 or b.ndim < 2 or theirs.ndim < 2:
        return None
    total = len(differing)
    if total > MAX_CHECKED:
        differing = differing[np.linspace(0, total - 1, MAX_CHECKED).astype(np.int64)]
    batch = theirs.shape[:-2]
    try:
        a_full = np.broadcast_to(a, batch + a.shape[-2:])
        b_full = np.broadcast_to(b, batch + b.shape[-2:])
    except ValueError:
        return None
    for start in range(0, len(differing), _BLOCK):
        at = differing[start:start + _BLOCK]
        lead, rows, cols = tuple(at[:, :-2].T), at[:, -2], at[:, -1]
        a_rows = a_full[lead + (rows,)].astype(np.int32)                 # (n, k)
        b_cols = np.moveaxis(b_full, -1, -2)[lead + (cols,)].astype(np.int32)   # (n, k)
        sums = _saturated(a_rows, b_cols, a_zp[rows], b_zp[cols])
        if not np.array_equal(requantize(sums, cols, theirs.dtype), theirs[tuple(at.T)]):
            return None
    checked = ("its one differing element equals" if total == 1
               else f"all {total:,} differing elements equal" if total == len(differing)
               else f"{len(differing):,} of its {total:,} differing elements, spread over them, equal")
    what = ("that saturated sum" if node.op_type == "MatMulInteger"
            else "that saturated sum, scaled in float32 as onnxruntime scales")
    return f"{SATURATION}; {checked} exactly {what}"


def _operands(node, inputs: list):
    """(A, B, A's zero point per row, B's per column, requantize) of a u8 x s8
    product this module follows; None for anything else. `requantize(sums,
    columns, dtype)` turns the integer sums into the node's output."""
    if node.domain not in ("", "ai.onnx") or node.op_type not in EXPLAINABLE_OPS:
        return None
    quantized = node.op_type == "QLinearMatMul"
    at = (0, 3, 2, 5) if quantized else (0, 1, 2, 3)
    given = [np.asarray(inputs[i]) if i < len(inputs) and inputs[i] is not None else None for i in at]
    a, b, a_zp, b_zp = given
    if a is None or b is None or a.dtype != np.uint8 or b.dtype != np.int8 or a.ndim < 2 or b.ndim < 2:
        return None
    a_zp, b_zp = _zero_point(a_zp, a.shape[-2]), _zero_point(b_zp, b.shape[-1])
    if a_zp is None or b_zp is None:
        return None
    if not quantized:
        return a, b, a_zp, b_zp, lambda sums, cols, dtype: sums
    if len(inputs) < 8 or any(inputs[i] is None for i in (1, 4, 6)):
        return None
    a_scale, b_scale, y_scale = (np.asarray(inputs[i], np.float32) for i in (1, 4, 6))
    y_zp = np.asarray(inputs[7]) if inputs[7] is not None else np.zeros((), np.uint8)
    if a_scale.size != 1 or y_scale.size != 1 or y_zp.size != 1 or b_scale.size not in (1, b.shape[-1]):
        return None
    # onnxruntime scales in float32: (a_scale * b_scale) / y_scale, the sum made a float32, rounded
    # half to even, the zero point added, clipped to the output's type.
    multiplier = (a_scale.reshape(()) * b_scale.reshape(-1)) / y_scale.reshape(())
    limits = np.iinfo(y_zp.dtype)

    def requantize(sums, cols, dtype):
        scaled = np.rint(sums.astype(np.float32) * multiplier[cols if multiplier.size > 1 else 0])
        return np.clip(scaled + np.float32(y_zp.reshape(())), limits.min, limits.max).astype(dtype)
    return a, b, a_zp, b_zp, requantize


def _zero_point(zp, length: int) -> Optional[np.ndarray]:
    """A zero point as int64 of `length` (per row of A, per column of B);
    None for a shape the check does not follow."""
    if zp is None:
        return np.zeros(length, np.int64)
    zp = np.asarray(zp).astype(np.int64)
    if zp.size == 1:
        return np.full(length, zp.reshape(()), np.int64)
    return zp if zp.ndim == 1 and zp.size == length else None


def _saturated(a_rows: np.ndarray, b_cols: np.ndarray, a_zp: np.ndarray, b_zp: np.ndarray) -> np.ndarray:
    """Each row's sum as the AVX2 kernel makes it: raw products paired along
    k (k padded to even with a zero), each pair clipped to int16, summed;
    then the zero points taken out with exact sums."""
    k = a_rows.shape[1]
    products = a_rows * b_cols
    if k % 2:
        products = np.pad(products, ((0, 0), (0, 1)))
    pairs = np.clip(products[:, 0::2] + products[:, 1::2], INT16_MIN, INT16_MAX)
    raw = pairs.sum(axis=1, dtype=np.int64)
    return (raw - a_rows.sum(axis=1, dtype=np.int64) * b_zp - a_zp * b_cols.sum(axis=1, dtype=np.int64)
            + k * a_zp * b_zp)
