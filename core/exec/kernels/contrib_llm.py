"""onnxruntime's operators for LLM exports (domain com.microsoft), the ones
the onnxruntime-genai model builder and Olive write into Phi-3, Llama,
Qwen ... models: MatMulNBits (block-quantized weights), RotaryEmbedding and
GatherBlockQuantized (quantized embedding tables). The attention operators
live in contrib_attention.py (GroupQueryAttention) and contrib_mha.py.

No ONNX reference exists for them: each kernel follows the operator's
definition in onnxruntime and is checked against onnxruntime's CPU kernels.
"""
from __future__ import annotations

import numpy as np

from ..registry import VARIES, kernel
from .attention import rotary_embedding as onnx_rotary_embedding

MS = "com.microsoft"

_PACKED_BITS = (2, 4, 8)


def unpack_bits(packed: np.ndarray, bits: int) -> np.ndarray:
    """uint8 bytes -> one uint8 per value along the last axis; each byte
    holds 8 // bits values, the first in its lowest bits."""
    if bits == 8:
        return packed
    per_byte = 8 // bits
    mask = np.uint8((1 << bits) - 1)
    values = np.empty(packed.shape + (per_byte,), np.uint8)
    # one whole-array pass per slot: broadcasting the shifts against a
    # trailing axis of 2 or 4 runs numpy's inner loop on tiny rows (15x slower)
    for slot in range(per_byte):
        np.bitwise_and(packed >> np.uint8(slot * bits), mask, out=values[..., slot])
    return values.reshape(packed.shape[:-1] + (packed.shape[-1] * per_byte,))


def _block_zero_points(zero_points, bits, n, k_blocks, dtype):
    """Zero points as a (N, k_blocks) array of `dtype`: packed uint8 (same
    bit packing as the weights, each row padded to whole bytes), or floats
    of A's type; absent means the middle of the range, 2^(bits-1)."""
    if zero_points is None:
        return np.full((n, k_blocks), 1 << (bits - 1), dtype)
    if zero_points.dtype == np.uint8:
        rows = unpack_bits(zero_points.reshape(n, -1), bits)
        return rows[:, :k_blocks].astype(dtype)
    return zero_points.reshape(n, k_blocks).astype(dtype)


def _check_layout(b, *, K, N, bits, block_size):
    """(k_blocks, blob_size) of B, after checking B has that many bytes."""
    if bits not in _PACKED_BITS:
        raise ValueError(f"MatMulNBits: bits={bits} is not supported (onnxruntime supports 2, 4 and 8)")
    k_blocks = -(-K // block_size)
    blob = block_size * bits // 8
    if b.size != N * k_blocks * blob:
        raise ValueError(f"MatMulNBits: B holds {b.size} bytes; N={N}, K={K}, block_size={block_size}, "
                         f"bits={bits} need (N, k_blocks, blob_size) = ({N}, {k_blocks}, {blob})")
    return k_blocks, blob


def dequantize_nbits(b, scales, zero_points=None, g_idx=None, *, K, N, bits, block_size):
    """The float32 weight matrix (N, K) that MatMulNBits' B stands for:
    (q - zero_point) * scale, one scale and zero point per block of
    `block_size` values along K (or per group g_idx[k], the deprecated
    act-order layout)."""
    k_blocks, blob = _check_layout(b, K=K, N=N, bits=bits, block_size=block_size)
    scale = scales.reshape(N, k_blocks).astype(np.float32)
    zero = _block_zero_points(zero_points, bits, N, k_blocks, np.float32)
    if g_idx is not None:
        q = unpack_bits(b.reshape(N, k_blocks * blob), bits)[:, :K].astype(np.float32)
        group = np.asarray(g_idx, dtype=np.int64).reshape(-1)[:K]
        return (q - zero[:, group]) * scale[:, group]
    # block by block, in place: no (N, K) index arrays, one float buffer
    w = unpack_bits(b.reshape(N, k_blocks, blob), bits).astype(np.float32)
    w -= zero[:, :, None]
    w *= scale[:, :, None]
    return w.reshape(N, k_blocks * block_size)[:, :K]


def _projection_omitted(b):
    # an empty B stands for a projection the model leaves out (Y = bias)
    return b.size == 0


# A dequantized weight up to this many values (16 MB of float32) is kept for
# the session; larger ones (an LLM's projections: all of them in float32
# would take 8x the model's size) are dequantized at each call, a slab of
# output columns at a time so the temporary stays this small.
_KEEP_DEQUANTIZED = 1 << 22


def int8_blocks(a, block_size):
    """A as onnxruntime's CPU kernel reads it at accuracy_level 4: each
    block of block_size values along K rounded to int8 with the scale
    max|a| / 127, then (here) back to float32, so the product equals its
    int8 dot products times the two scales."""
    k = a.shape[-1]
    blocks = -(-k // block_size)
    padded = np.zeros(a.shape[:-1] + (blocks * block_size,), np.float32)
    padded[..., :k] = a
    grouped = padded.reshape(a.shape[:-1] + (blocks, block_size))
    scale = np.max(np.abs(grouped), axis=-1, keepdims=True) / np.float32(127)
    # multiplying by the reciprocal, as onnxruntime does, decides the ties
    inverse = np.divide(np.float32(1), scale, out=np.zeros_like(scale), where=scale > 0)
    quantized = np.rint(grouped * inverse) * scale
    return quantized.reshape(padded.shape)[..., :k]


def _a_as_read(a, accuracy_level, block_size, zero_points, g_idx):
    """A in float32, int8-rounded per block when accuracy_level is 4 and
    the weights are plain blocks with integer zero points (float zero
    points and g_idx keep onnxruntime on its float path)."""
    a32 = a.astype(np.float32, copy=False)
    integer_zero = zero_points is None or zero_points.dtype == np.uint8
    if accuracy_level == 4 and integer_zero and g_idx is None:
        return int8_blocks(a32, block_size)
    return a32


def _nbits_product(a, a_read, weight_t, bias):
    """A @ W^T (+ bias) in float32, returned in A's type."""
    y = np.matmul(a_read, weight_t)
    if bias is not None:
        y += bias.astype(np.float32, copy=False)
    return y.astype(a.dtype, copy=False)


def _rows(x, n, start, stop):
    return None if x is None else x.reshape(n, -1)[start:stop]


def _product_by_slabs(a, a32, b, scales, zero_points, g_idx, bias, *, K, N, bits, block_size):
    """A @ dequantized(B)^T, dequantizing at most _KEEP_DEQUANTIZED weight
    values at a time (a32: A as read, in float32)."""
    y = np.empty(a.shape[:-1] + (N,), np.float32)
    step = max(1, _KEEP_DEQUANTIZED // max(K, 1))
    for start in range(0, N, step):
        stop = min(N, start + step)
        weight = dequantize_nbits(_rows(b, N, start, stop), _rows(scales, N, start, stop),
                                  _rows(zero_points, N, start, stop), g_idx, K=K, N=stop - start, bits=bits,
                                  block_size=block_size)
        np.matmul(a32, weight.T, out=y[..., start:stop])
    if bias is not None:
        y += bias.astype(np.float32, copy=False)
    return y.astype(a.dtype, copy=False)


def _omitted_result(a, bias, n):
    y = np.zeros(a.shape[:-1] + (n,), a.dtype)
    if bias is not None:
        y += bias.astype(a.dtype, copy=False)
    return y


def _prepare_matmul_nbits(consts, attrs):
    """With constant weights small enough to keep, dequantize them once per
    session."""
    b, scales, zero_points, g_idx = (list(consts[1:5]) + [None] * 4)[:4]
    if any(v is VARIES for v in (b, scales, zero_points, g_idx)) or _projection_omitted(b):
        return None
    if attrs["K"] * attrs["N"] > _KEEP_DEQUANTIZED:
        return None
    shape_attrs = {k: attrs[k] for k in ("K", "N", "block_size")}
    weight_t = np.ascontiguousarray(
        dequantize_nbits(b, scales, zero_points, g_idx, bits=attrs.get("bits", 4), **shape_attrs).T)
    level, block_size = attrs.get("accuracy_level", 0), attrs["block_size"]

    def run(a, b, scales, zero_points=None, g_idx=None, bias=None):
        return _nbits_product(a, _a_as_read(a, level, block_size, zero_points, g_idx), weight_t, bias)
    return run


@kernel("MatMulNBits", since=1, domain=MS, prepare=_prepare_matmul_nbits)
def matmul_nbits(a, b, scales, zero_points=None, g_idx=None, bias=None, *, K, N, block_size, bits=4,
                 accuracy_level=0, weight_prepacked=0):
    # accuracy_level 4 lets onnxruntime round A to int8 per block, and its
    # CPU kernel does (on x86-64 with AVX2 and on ARM64) for weights stored
    # in the model with integer zero points and no g_idx: we do the same so
    # results compare (also for weights fed at run time, which onnxruntime
    # then multiplies in float: real exports store them). Levels 1-3
    # compute in float32 there as here.
    if weight_prepacked:
        raise ValueError("MatMulNBits: weight_prepacked B is in a CUDA-specific layout the CPU cannot read")
    if _projection_omitted(b):
        return _omitted_result(a, bias, N)
    _check_layout(b, K=K, N=N, bits=bits, block_size=block_size)
    a_read = _a_as_read(a, accuracy_level, block_size, zero_points, g_idx)
    return _product_by_slabs(a, a_read, b, scales, zero_points, g_idx, bias, K=K, N=N, bits=bits,
                             block_size=block_size)


# ---- RotaryEmbedding -----------------------------------------------------------

def _token_positions(position_ids, batch, seq):
    """(batch, seq) positions: one element is the first token's position
    (the tokens follow it), otherwise one per token."""
    position_ids = np.asarray(position_ids, dtype=np.int64)
    if position_ids.size == 1:
        return np.broadcast_to(position_ids.reshape(1, 1) + np.arange(seq), (batch, seq))
    return position_ids.reshape(batch, seq)


@kernel("RotaryEmbedding", since=1, domain=MS)
def rotary_embedding(x, position_ids, cos_cache, sin_cache, *, interleaved=0, num_heads=0,
                     rotary_embedding_dim=0, is_packed_batching=0, scale=1.0):
    # onnxruntime's CPU kernel reads but never applies `scale`, and gives
    # the same result with is_packed_batching (only its GPU kernels use it)
    if x.ndim == 4:
        batch, seq = x.shape[0], x.shape[2]
        heads = x.shape[1]
    else:
        batch, seq = x.shape[:2]
        # without num_heads the head size is what the caches rotate
        head_size = cos_cache.shape[-1] * 2 if not num_heads else x.shape[2] // num_heads
        heads = x.shape[2] // head_size
    positions = _token_positions(position_ids, batch, seq)
    if positions.size and (positions.min() < 0 or positions.max() >= cos_cache.shape[0]):
        raise ValueError(f"RotaryEmbedding: positions reach {positions.max()}, past the caches' "
                         f"{cos_cache.shape[0]} rows")
    # the rotation itself is ONNX's RotaryEmbedding-23 with explicit positions
    return onnx_rotary_embedding(x, cos_cache, sin_cache, positions, interleaved=interleaved,
                                 num_heads=heads, rotary_embedding_dim=cos_cache.shape[-1] * 2)


# ---- GatherBlockQuantized --------------------------------------------------------

def _logical_values(data, bits):
    """The quantized values as float32 in their logical shape: uint8 data
    with bits < 8 holds 8 // bits values per byte along its last axis."""
    if data.dtype == np.uint8 and bits < 8:
        return unpack_bits(data, bits).astype(np.float32)
    return data.astype(np.float32)


def _per_element(params, axis, block_size, length):
    """Block parameters (scales or zero points) repeated along `axis` to
    one per element of a dimension of `length`."""
    if block_size == 0:                      # one block spans the whole axis
        return params
    return np.repeat(params, block_size, axis=axis).take(np.arange(length), axis=axis)


def _default_zero_point(data, bits):
    # uint8 stores offset values (2^(bits-1) is zero); int4/uint4 are plain
    return float(1 << (bits - 1)) if data.dtype == np.uint8 else 0.0


def dequantize_blocks(data, scales, zero_points=None, *, bits=4, block_size=128, quantize_axis=1):
    """The float table GatherBlockQuantized's data stands for, in the
    scales' type: (q - zero_point) * scale per block along quantize_axis."""
    rank = data.ndim
    axis = quantize_axis % rank
    q = _logical_values(data, bits)
    zero = (_logical_values(zero_points, bits) if zero_points is not None
            else np.float32(_default_zero_point(data, bits)))
    scale = scales.astype(np.float32)
    length = q.shape[axis]
    scale = _per_element(scale, axis, block_size, length)
    if zero_points is not None:
        # packed zero points may end in padding values: one per scale
        zero = zero[tuple(slice(0, d) for d in scales.shape)]
        zero = _per_element(zero, axis, block_size, length)
    return ((q - zero) * scale).astype(scales.dtype, copy=False)


def _inside(indices, size):
    """Indices with those outside [-size, size) replaced by 0, and where
    they were inside."""
    indices = np.asarray(indices, dtype=np.int64)
    inside = (indices >= -size) & (indices < size)
    return np.where(inside, indices, 0), inside


def _zero_outside(values, inside, axis):
    """Zeros for the slices an out-of-range index picked (onnxruntime's
    rule, unlike ONNX Gather, which fails)."""
    if inside.all():
        return values
    shape = (1,) * axis + inside.shape + (1,) * (values.ndim - axis - inside.ndim)
    return np.where(inside.reshape(shape), values, values.dtype.type(0))


@kernel("GatherBlockQuantized", since=1, domain=MS)
def gather_block_quantized(data, indices, scales, zero_points=None, *, bits=4, block_size=128, quantize_axis=1,
                           gather_axis=0):
    rank = data.ndim
    g_axis, q_axis = gather_axis % rank, quantize_axis % rank
    picks, inside = _inside(indices, data.shape[g_axis])
    packed_along_gather = data.dtype == np.uint8 and bits < 8 and g_axis == rank - 1
    if g_axis == q_axis or packed_along_gather:
        table = dequantize_blocks(data, scales, zero_points, bits=bits, block_size=block_size,
                                  quantize_axis=q_axis)
        return _zero_outside(np.take(table, picks, axis=g_axis), inside, g_axis)

    # Gather the quantized rows and their blocks' parameters first, so only
    # the rows asked for are dequantized (an LLM's embedding table is large)
    def take(t):
        if t is None:
            return None
        # a parameter dimension of 1 is shared by every row
        return np.take(t, picks if t.shape[g_axis] > 1 else np.zeros_like(picks), axis=g_axis)
    gathered_q_axis = q_axis if q_axis < g_axis else q_axis + picks.ndim - 1
    values = dequantize_blocks(take(data), take(scales), take(zero_points), bits=bits, block_size=block_size,
                               quantize_axis=gathered_q_axis)
    return _zero_outside(values, inside, g_axis)
