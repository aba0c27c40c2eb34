"""Differences that are the reference's, recognised exactly.

On x86 CPUs with AVX2 but no VNNI, onnxruntime's products of uint8 A and
int8 B (MatMulInteger, QLinearMatMul, QLinearConv, the QGemm its quantizer
writes, and the MatMulIntegerToFloat and DynamicQuantizeMatMul its
optimizer fuses them into) are not the exact integer product: MLAS multiplies with vpmaddubsw,
which adds two neighbouring u8*s8 products (along k) into an int16 and
saturates it (255*127 + 255*127 = 64770 > 32767), then sums those in int32
and takes the zero points out with exact row and column sums. With VNNI or
on ARM the sums are exact. A dynamically quantized transformer compared
with onnxruntime on such a CPU then showed its first MatMulInteger as the
node that goes wrong, which it is not: our executor computes the exact
product the operator defines.

`saturated_product_explains` recomputes onnxruntime's saturated sum (scaled
in float32 as onnxruntime scales it, where the operator scales) for the
output elements that differ, and says so only when every one checked equals
it exactly: a guess would tell the user something false. (Its ConvInteger
and depthwise QLinearConv are exact on such a CPU: measured 2026-11-28.)

Also recognised: onnxruntime's DynamicQuantizeLinear gives an input of
zeros only the scale 1, where the definition gives 1/255 (a dynamically
quantized model at batch 1, sequence length 1 meets one).
"""
from __future__ import annotations

from typing import Optional

import numpy as np

from .kernels.quantize import dynamic_quantize_linear

# What the user is told (with the evidence for each node after it).
SATURATION = ("onnxruntime's arithmetic, not the model's: its uint8 x int8 kernel adds two products at a time "
              "into an int16 that saturates, as on x86 CPUs with AVX2 but no VNNI; ours is the exact "
              "product the operator defines")
ZERO_RANGE = ("onnxruntime's arithmetic, not the model's: for an input of zeros only it gives the scale 1 "
              "where the operator's definition (and onnx's reference) give 1/255; the quantized values and "
              "the zero point are the same, and a product scaled by it stays zero")
# The operators this module recognises a difference of, with their domains:
# the standard's, and onnxruntime's for what its optimizer fuses.
_STANDARD, _ONNXRUNTIME = ("", "ai.onnx"), ("com.microsoft",)
_DOMAINS = {"MatMulInteger": _STANDARD, "QLinearMatMul": _STANDARD, "QLinearConv": _STANDARD,
            "DynamicQuantizeLinear": _STANDARD, "MatMulIntegerToFloat": _ONNXRUNTIME,
            "DynamicQuantizeMatMul": _ONNXRUNTIME, "QGemm": _ONNXRUNTIME}
# What the comparison asks this module about (by op type; `explains` checks the domain).
EXPLAINABLE_OPS = frozenset(_DOMAINS)
INT16_MIN, INT16_MAX = -32768, 32767
# Differing elements recomputed at most (each costs k products); a larger
# difference is checked on this many, spread over it, and the note says so.
MAX_CHECKED = 65536
_BLOCK = 2048           # elements recomputed at once (a block holds _BLOCK x k int32 products)


def explains(node, inputs: list, attrs: dict, ours: list, theirs: list) -> Optional[str]:
    """Why `node`'s outputs (`ours`, `theirs`: one array or None per output)
    differ from onnxruntime's without being wrong, shown exactly; None when
    that is not so."""
    if node.domain not in _DOMAINS.get(node.op_type, ()):
        return None
    if node.op_type == "DynamicQuantizeLinear":
        return zero_range_scale_explains(node, inputs, ours, theirs)
    if not ours or ours[0] is None or theirs[0] is None:
        return None
    return saturated_product_explains(node, inputs, theirs[0], ours[0], attrs)


def zero_range_scale_explains(node, inputs: list, ours: list, theirs: list) -> Optional[str]:
    """DynamicQuantizeLinear of zeros only: onnxruntime's scale 1 against the
    definition's 1/255, every other output the same."""
    if not inputs or inputs[0] is None or len(ours) < 3 or len(theirs) < 3:
        return None
    x = np.asarray(inputs[0])
    if x.size == 0 or np.any(x != 0) or any(v is None for v in (*ours[:3], *theirs[:3])):
        return None
    y, scale, zero_point = (np.asarray(v) for v in ours[:3])
    their_y, their_scale, their_zero_point = (np.asarray(v) for v in theirs[:3])
    if not (np.array_equal(y, their_y) and np.array_equal(zero_point, their_zero_point)):
        return None
    if their_scale.size != 1 or scale.size != 1 or float(their_scale) != 1.0 or float(scale) == 1.0:
        return None
    return ZERO_RANGE


def saturated_product_explains(node, inputs: list, theirs, ours, attrs: Optional[dict] = None) -> Optional[str]:
    """Why `node`'s output differs from onnxruntime's, when it is onnxruntime's
    saturating u8 x s8 product: a sentence for the user; None otherwise.
    `inputs` are the node's input arrays as run (None for an absent one),
    `attrs` its decoded attributes, `theirs` and `ours` its output from
    onnxruntime and from us."""
    if node.domain not in _DOMAINS.get(node.op_type, ()) or node.op_type == "DynamicQuantizeLinear":
        return None                     # not a product (zero_range_scale_explains)
    theirs, ours = np.asarray(theirs), np.asarray(ours)
    if theirs.shape != ours.shape or theirs.dtype.kind not in "iuf" or theirs.ndim < 2:
        return None
    given = list(inputs) + [None] * 9
    if node.op_type == "QLinearConv":
        recompute = _conv(given, attrs or {}, theirs.shape)
    elif node.op_type == "QGemm":
        recompute = _gemm(given, attrs or {}, theirs.shape)
    else:
        recompute = _matmul(node.op_type, given, theirs.shape)
    if recompute is None:
        return None
    differing = np.argwhere(theirs != ours)
    if not len(differing):
        return None
    total = len(differing)
    if total > MAX_CHECKED:
        differing = differing[np.linspace(0, total - 1, MAX_CHECKED).astype(np.int64)]
    for start in range(0, len(differing), _BLOCK):
        at = differing[start:start + _BLOCK]
        if not np.array_equal(recompute(at, theirs.dtype), theirs[tuple(at.T)]):
            return None
    checked = ("its one differing element equals" if total == 1
               else f"all {total:,} differing elements equal" if total == len(differing)
               else f"{len(differing):,} of its {total:,} differing elements, spread over them, equal")
    what = ("that saturated sum" if node.op_type == "MatMulInteger"
            else "that saturated sum, scaled in float32 as onnxruntime scales it")
    return f"{SATURATION}; {checked} exactly {what}"


def _u8_s8(a, b):
    """The two operands as arrays when they are uint8 x int8 (the saturating
    kernel's), else None."""
    if a is None or b is None:
        return None
    a, b = np.asarray(a), np.asarray(b)
    return (a, b) if a.dtype == np.uint8 and b.dtype == np.int8 and a.ndim >= 2 and b.ndim >= 2 else None


def _matmul(op: str, given: list, shape: tuple):
    """recompute(at, dtype): the output elements at the indices `at` as
    onnxruntime makes them, for MatMulInteger (a, b, a_zp, b_zp),
    QLinearMatMul (a, a_scale, a_zp, b, b_scale, b_zp, y_scale, y_zp),
    MatMulIntegerToFloat (a, b, a_scale, b_scale, a_zp, b_zp, bias) or
    DynamicQuantizeMatMul (a as float, b, b_scale, b_zp, bias)."""
    if op == "DynamicQuantizeMatMul":
        if given[0] is None or np.asarray(given[0]).dtype != np.float32:
            return None
        a_q, a_scale, a_zp = dynamic_quantize_linear(np.asarray(given[0]))
        given = [a_q, given[1], a_scale, given[2], a_zp, given[3], given[4]]
        op = "MatMulIntegerToFloat"
    a_at, b_at, a_zp_at, b_zp_at = {"MatMulInteger": (0, 1, 2, 3), "QLinearMatMul": (0, 3, 2, 5),
                                    "MatMulIntegerToFloat": (0, 1, 4, 5)}[op]
    operands = _u8_s8(given[a_at], given[b_at])
    if operands is None:
        return None
    a, b = operands
    a_zp, b_zp = _zero_point(given[a_zp_at], a.shape[-2]), _zero_point(given[b_zp_at], b.shape[-1])
    requantize = (_requantizer(given[1], given[4], given[6], given[7], b.shape[-1]) if op == "QLinearMatMul"
                  else _scaler(given[2], given[3], given[6], b.shape[-1]) if op == "MatMulIntegerToFloat"
                  else _as_is)
    if a_zp is None or b_zp is None or requantize is None:
        return None
    batch = shape[:-2]
    try:
        a_full = np.broadcast_to(a, batch + a.shape[-2:])
        b_full = np.moveaxis(np.broadcast_to(b, batch + b.shape[-2:]), -1, -2)     # (..., n, k)
    except ValueError:
        return None

    def recompute(at, dtype):
        lead, rows, cols = tuple(at[:, :-2].T), at[:, -2], at[:, -1]
        sums = _saturated(a_full[lead + (rows,)].astype(np.int32), b_full[lead + (cols,)].astype(np.int32),
                          a_zp[rows], b_zp[cols])
        return requantize(sums, cols, dtype)
    return recompute


def _conv(given: list, attrs: dict, shape: tuple):
    """recompute(at, dtype) for QLinearConv (x, x_scale, x_zp, w, w_scale,
    w_zp, y_scale, y_zp, B) with explicit pads: onnxruntime lays each window
    out channels last (for every kernel tap, the channels of the output
    channel's group), so neighbouring products pair along that order;
    padding holds x's zero point. (Its depthwise kernel sums exactly: there
    the recomputed sums differ from its own and no claim is made.)"""
    operands = _u8_s8(given[0], given[3])
    if operands is None or attrs.get("auto_pad", "NOTSET") not in ("NOTSET", b"NOTSET"):
        return None
    x, w = operands
    m, c, kernel = w.shape[0], w.shape[1], w.shape[2:]
    group = int(attrs.get("group", 1))
    nd = len(kernel)
    if x.ndim != nd + 2 or x.shape[1] != c * group or m % group or len(shape) != nd + 2:
        return None
    strides = list(attrs.get("strides") or [1] * nd)
    dilations = list(attrs.get("dilations") or [1] * nd)
    pads = list(attrs.get("pads") or [0] * (2 * nd))
    x_zp = given[2]
    if x_zp is not None and np.asarray(x_zp).size != 1:
        return None
    x_zp = int(np.asarray(x_zp).reshape(())) if x_zp is not None else 0
    w_zp = _zero_point(given[5], m)
    bias = np.zeros(m, np.int64) if given[8] is None else np.asarray(given[8]).astype(np.int64).reshape(-1)
    requantize = _requantizer(given[1], given[4], given[6], given[7], m)
    if w_zp is None or requantize is None or bias.size != m:
        return None
    padded = np.pad(x, [(0, 0), (0, 0)] + [(pads[i], pads[i + nd]) for i in range(nd)], constant_values=x_zp)
    taps = list(np.ndindex(*kernel))
    # The weights as onnxruntime pairs them: per output channel, for each tap, the channels.
    w_rows = np.stack([w[(slice(None), slice(None)) + t] for t in taps], axis=1).reshape(m, -1).astype(np.int32)

    def recompute(at, dtype):
        batch, channels, where = at[:, 0], at[:, 1], at[:, 2:]
        # The input channels of each output channel's group, (n, c).
        inputs = (channels // (m // group) * c)[:, None] + np.arange(c)
        windows = np.stack([padded[(batch[:, None], inputs) + tuple((where[:, i] * strides[i] + t[i] * dilations[i])
                                                                    [:, None] for i in range(nd))]
                            for t in taps], axis=1)                                     # (n, taps, c)
        sums = _saturated(windows.reshape(len(at), -1).astype(np.int32), w_rows[channels],
                          np.full(len(at), x_zp, np.int64), w_zp[channels]) + bias[channels]
        return requantize(sums, channels, dtype)
    return recompute


def _gemm(given: list, attrs: dict, shape: tuple):
    """recompute(at, dtype) for com.microsoft QGemm (a, a_scale, a_zp, b,
    b_scale, b_zp, C, y_scale, y_zp; alpha, transA, transB): the saturated
    sum plus the int32 C, made float32 and scaled by alpha * a_scale *
    b_scale, over y_scale, rounded and offset by y_zp when Y is quantized
    (measured against onnxruntime 2026-11-28: every element equal)."""
    operands = _u8_s8(given[0], given[3])
    if operands is None or len(shape) != 2 or given[1] is None:
        return None
    a, b = operands
    a = a.T if int(attrs.get("transA", 0)) else a
    b = b.T if int(attrs.get("transB", 0)) else b
    m, n = shape
    if a.ndim != 2 or b.ndim != 2 or a.shape[0] != m or b.shape[1] != n or a.shape[1] != b.shape[0]:
        return None
    a_zp, b_zp = _zero_point(given[2], m), _zero_point(given[5], n)
    try:
        c = np.zeros(shape, np.int64) if given[6] is None else np.broadcast_to(np.asarray(given[6]).astype(np.int64),
                                                                              shape)
    except ValueError:
        return None
    # alpha folds into A's scale: onnxruntime multiplies alpha * a_scale first.
    a_scale = np.float32(attrs.get("alpha", 1.0)) * np.asarray(given[1], np.float32)
    requantize = (_scaler(a_scale, given[4], None, n) if given[7] is None
                  else _requantizer(a_scale, given[4], given[7], given[8], n))
    if a_zp is None or b_zp is None or requantize is None:
        return None
    b_cols = np.ascontiguousarray(b.T)                                                # (n, k)

    def recompute(at, dtype):
        rows, cols = at[:, 0], at[:, 1]
        sums = _saturated(a[rows].astype(np.int32), b_cols[cols].astype(np.int32), a_zp[rows], b_zp[cols])
        return requantize(sums + c[rows, cols], cols, dtype)
    return recompute


def _as_is(sums, columns, dtype):
    return sums


def _scaler(a_scale, b_scale, bias, columns: int):
    """scale(sums, columns, dtype) as onnxruntime's scale-and-bias output step
    makes a float product: the sum made a float32, times a_scale * b_scale
    (b_scale per tensor or per output column), plus the bias; None for
    other shapes."""
    if a_scale is None or b_scale is None:
        return None
    a_scale, b_scale = np.asarray(a_scale, np.float32), np.asarray(b_scale, np.float32)
    bias = None if bias is None else np.asarray(bias, np.float32).reshape(-1)
    if a_scale.size != 1 or b_scale.size not in (1, columns) or bias is not None and bias.size != columns:
        return None
    scales = a_scale.reshape(()) * b_scale.reshape(-1)

    def scale(sums, cols, dtype):
        y = sums.astype(np.int64).astype(np.float32) * scales[cols if scales.size > 1 else 0]
        return (y if bias is None else y + bias[cols]).astype(dtype)
    return scale


def _requantizer(a_scale, b_scale, y_scale, y_zp, columns: int):
    """requantize(sums, columns, dtype) as onnxruntime scales a QLinear
    product: (a_scale * b_scale) / y_scale in float32 (b_scale per tensor or
    per output column), the sum made a float32, rounded half to even, the
    zero point added, clipped to the output's type; None for other shapes."""
    if a_scale is None or b_scale is None or y_scale is None:
        return None
    a_scale, b_scale, y_scale = (np.asarray(v, np.float32) for v in (a_scale, b_scale, y_scale))
    y_zp = np.asarray(y_zp) if y_zp is not None else np.zeros((), np.uint8)
    if a_scale.size != 1 or y_scale.size != 1 or y_zp.size != 1 or b_scale.size not in (1, columns):
        return None
    multiplier = (a_scale.reshape(()) * b_scale.reshape(-1)) / y_scale.reshape(())
    limits = np.iinfo(y_zp.dtype)

    def requantize(sums, cols, dtype):
        scaled = np.rint(sums.astype(np.float32) * multiplier[cols if multiplier.size > 1 else 0])
        return np.clip(scaled + np.float32(y_zp.reshape(())), limits.min, limits.max).astype(dtype)
    return requantize


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
