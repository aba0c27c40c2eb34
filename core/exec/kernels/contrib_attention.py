"""onnxruntime's GroupQueryAttention (domain com.microsoft), the attention of
LLM exports for onnxruntime-genai: grouped kv heads, a KV cache that is
either exactly past + new, a fixed-size buffer shared with the present
outputs, or a window-sized cache that evicts (_windowed_kv_cache.py);
per-batch lengths (seqlens_k, query_seqlens), optional rotary embedding,
local (sliding-window) attention, softcap, smooth softmax, Qwen3's Q/K
norms, 8- and 4-bit caches and the output_qk scores.

Follows onnxruntime's CPU kernel (checked against it; the Q/K norms, which
that kernel refuses, against the graph pattern they fold): without
query_seqlens, the first prompt is the call whose sequence length equals
total_sequence_length; there every batch entry starts at position 0 and may
be right-padded (seqlens_k[b] + 1 valid tokens). In later calls entry b has
seqlens_k[b] + 1 - S cached tokens and its new tokens follow them.
"""
from __future__ import annotations

import numpy as np

from ..registry import kernel
from ._attention_util import as_float32, attend, heads_first, heads_merged
from ._windowed_kv_cache import windowed_cache_attention
from .attention import rotary_embedding as onnx_rotary_embedding
from .contrib_llm import unpack_bits

MS = "com.microsoft"


def _split_packed_qkv(query, num_heads, kv_num_heads):
    """Q, K, V from one (B, S, (Nq + 2 Nkv) * H) tensor."""
    head = query.shape[-1] // (num_heads + 2 * kv_num_heads)
    q_end = num_heads * head
    k_end = q_end + kv_num_heads * head
    return query[..., :q_end], query[..., q_end:k_end], query[..., k_end:]


def _rotate(x, positions, cos_cache, sin_cache, heads, interleaved):
    return onnx_rotary_embedding(x, cos_cache, sin_cache, positions, interleaved=interleaved, num_heads=heads,
                                 rotary_embedding_dim=cos_cache.shape[-1] * 2)


def _head_rms_norm(x, weight, heads, epsilon):
    """RMS normalization of each head's vector in (B, S, heads * H)."""
    b, s, hidden = x.shape
    per_head = x.reshape(b, s, heads, hidden // heads)
    mean_square = np.mean(np.square(per_head), axis=-1, keepdims=True)
    normed = per_head / np.sqrt(mean_square + np.float32(epsilon)) * as_float32(weight)
    return normed.reshape(x.shape)


def _lengths(seqlens_k, total_sequence_length, query_seqlens, batch, seq):
    """Per batch entry: tokens in the cache after this call, and before it;
    and whether this is the first prompt. query_seqlens (right-padded
    chunks) says how many of the S rows are real; without it the first
    prompt starts every entry at 0."""
    totals = np.asarray(seqlens_k, dtype=np.int64).reshape(batch) + 1
    if query_seqlens is not None:
        valid = np.asarray(query_seqlens, dtype=np.int64).reshape(batch)
        if (valid < 0).any() or (valid > np.minimum(seq, totals)).any():
            raise ValueError(f"GroupQueryAttention: query_seqlens {valid.tolist()} must lie in "
                             f"[0, min({seq}, seqlens_k + 1)]")
        return totals, totals - valid, False
    first_prompt = seq == int(np.asarray(total_sequence_length).reshape(-1)[0])
    pasts = np.zeros(batch, np.int64) if first_prompt else totals - seq
    if (pasts < 0).any():
        raise ValueError(f"GroupQueryAttention: seqlens_k + 1 = {totals.tolist()} is shorter than the "
                         f"{seq} new tokens")
    return totals, pasts, first_prompt


def _rotary_positions(position_ids, pasts, batch, seq, first_prompt):
    """(B, S) positions for the rotary embedding: after the cached tokens,
    or position_ids; on the first prompt onnxruntime reads only their first
    element and counts on from it, for every entry."""
    if position_ids is None:
        return pasts.reshape(-1, 1) + np.arange(seq)
    position_ids = np.asarray(position_ids, np.int64)
    if first_prompt:
        return np.broadcast_to(position_ids.reshape(-1)[0] + np.arange(seq), (batch, seq))
    return position_ids.reshape(batch, seq)


def _present(past, new, pasts, totals, length):
    """The cache after this call: each entry's new tokens (the real ones of
    a right-padded chunk) written after its cached ones. A buffer longer than needed (shared with past) keeps the
    rest of its content, as an in-place update would."""
    b, heads, _, h = new.shape
    present = np.zeros((b, heads, length, h), np.float32)
    if past is not None:
        present[:, :, :past.shape[2]] = past[:, :, :length]
    for i in range(b):
        count = min(new.shape[2], int(totals[i] - pasts[i]))
        if pasts[i] + count > length:
            raise ValueError(f"GroupQueryAttention: batch entry {i} needs {pasts[i] + count} cache rows, "
                             f"the present buffer has {length}")
        present[i, :, pasts[i]:pasts[i] + count] = new[i, :, :count]
    return present


def _cache_codec(quant_type, scale, bit_width, which):
    """(decode, encode) between the KV cache as stored and float32: as is
    in the model's float type, or quantized with a scale per tensor or per
    channel (k_quant_type / v_quant_type): int8, or 4 bits (value + 8, two
    per uint8 byte, the first in the low nibble)."""
    if quant_type == "NONE":
        return as_float32, lambda x, dtype: x.astype(dtype)
    if quant_type not in ("PER_TENSOR", "PER_CHANNEL"):
        raise ValueError(f"GroupQueryAttention: unknown {which}_quant_type {quant_type!r}")
    if bit_width not in (0, 4, 8):
        raise ValueError(f"GroupQueryAttention: a {bit_width}-bit KV cache is not supported (4 and 8 are)")
    if scale is None:
        raise ValueError(f"GroupQueryAttention: {which}_quant_type {quant_type} needs the input {which}_scale")
    scale = as_float32(scale)
    if bit_width == 4:
        def decode(cache):
            if cache is None:
                return None
            return (unpack_bits(cache, 4).astype(np.float32) - np.float32(8)) * scale

        def encode(x, _dtype):
            nibbles = (np.clip(np.rint(x / scale), -8, 7) + 8).astype(np.uint8)
            return nibbles[..., 0::2] | (nibbles[..., 1::2] << np.uint8(4))
        return decode, encode

    def decode(cache):
        return None if cache is None else cache.astype(np.float32) * scale

    def encode(x, _dtype):
        return np.clip(np.rint(x / scale), -128, 127).astype(np.int8)
    return decode, encode


def _key_bias(pasts, totals, seq, keys, causal, local_window_size):
    """(B, 1, S, keys) additive bias: 0 where query row s (at position
    pasts[b] + s) may see key j, -inf elsewhere."""
    position = pasts.reshape(-1, 1, 1, 1) + np.arange(seq).reshape(1, 1, -1, 1)
    j = np.arange(keys).reshape(1, 1, 1, -1)
    allowed = j < totals.reshape(-1, 1, 1, 1)
    if causal:
        allowed = allowed & (j <= position)
    if local_window_size >= 0:
        # a window of local_window_size keys ending at the query's own
        allowed = allowed & (j > position - local_window_size)
    return np.where(allowed, np.float32(0), np.float32(-np.inf))


@kernel("GroupQueryAttention", since=1, domain=MS)
def group_query_attention(query, key=None, value=None, past_key=None, past_value=None, seqlens_k=None,
                          total_sequence_length=None, cos_cache=None, sin_cache=None, position_ids=None,
                          attention_bias=None, head_sink=None, k_scale=None, v_scale=None, q_norm_weight=None,
                          k_norm_weight=None, query_seqlens=None, *, num_heads, kv_num_heads, scale=0.0,
                          softcap=0.0, local_window_size=-1, do_rotary=0, rotary_interleaved=0,
                          smooth_softmax=-1, causal=1, qk_output=0, k_quant_type="NONE", v_quant_type="NONE",
                          kv_cache_bit_width=0, sliding_window_cache=0, qk_norm_epsilon=1e-6,
                          q_norm_epsilon=None, k_norm_epsilon=None):
    decode_k, encode_k = _cache_codec(k_quant_type, k_scale, kv_cache_bit_width, "k")
    decode_v, encode_v = _cache_codec(v_quant_type, v_scale, kv_cache_bit_width, "v")
    if (q_norm_weight is None) != (k_norm_weight is None):
        raise ValueError("GroupQueryAttention: q_norm_weight and k_norm_weight go together")
    out_dtype = query.dtype
    if key is None:
        query, key, value = _split_packed_qkv(query, num_heads, kv_num_heads)
    batch, seq = query.shape[:2]
    totals, pasts, first_prompt = _lengths(seqlens_k, total_sequence_length, query_seqlens, batch, seq)
    query, key, value = as_float32(query), as_float32(key), as_float32(value)
    if q_norm_weight is not None:
        # Qwen3's per-head RMS norm of Q and K, before the rotary embedding
        query = _head_rms_norm(query, q_norm_weight, num_heads, q_norm_epsilon or qk_norm_epsilon)
        key = _head_rms_norm(key, k_norm_weight, kv_num_heads, k_norm_epsilon or qk_norm_epsilon)
    if do_rotary:
        positions = _rotary_positions(position_ids, pasts, batch, seq, first_prompt)
        cos, sin = as_float32(cos_cache), as_float32(sin_cache)
        query = _rotate(query, positions, cos, sin, num_heads, rotary_interleaved)
        key = _rotate(key, positions, cos, sin, kv_num_heads, rotary_interleaved)
    total = int(np.asarray(total_sequence_length).reshape(-1)[0])
    head_scale = scale or 1.0 / np.sqrt(query.shape[-1] // num_heads)
    sink = as_float32(head_sink) if head_sink is not None else (0.0 if smooth_softmax > 0 else None)
    if sliding_window_cache:
        if qk_output:
            raise ValueError("GroupQueryAttention: qk_output with sliding_window_cache is not supported")
        # new keys and values are read back as the cache stores them
        stored_k = decode_k(encode_k(heads_first(key, kv_num_heads), out_dtype))
        stored_v = decode_v(encode_v(heads_first(value, kv_num_heads), out_dtype))
        out, present_k, present_v = windowed_cache_attention(
            heads_first(query, num_heads), stored_k, stored_v,
            decode_k(past_key), decode_v(past_value), pasts, totals, as_float32(attention_bias),
            window=local_window_size, scale=head_scale, softcap=softcap, sink=sink)
        return (heads_merged(out).astype(out_dtype), encode_k(present_k, out_dtype),
                encode_v(present_v, out_dtype))
    return _full_cache_attention(
        heads_first(query, num_heads), heads_first(key, kv_num_heads), heads_first(value, kv_num_heads), past_key,
        past_value, (decode_k, encode_k), (decode_v, encode_v), pasts, totals, total, attention_bias, out_dtype,
        causal=causal, window=local_window_size, scale=head_scale, softcap=softcap, sink=sink, qk_output=qk_output)


def _full_cache_attention(q, k, v, past_key, past_value, k_codec, v_codec, pasts, totals, total, attention_bias,
                          out_dtype, *, causal, window, scale, softcap, sink, qk_output):
    """Attention over a cache holding every position (past + new, or a
    longer shared buffer). q, k, v (B, N, S, H) float32 after rotary."""
    (decode_k, encode_k), (decode_v, encode_v) = k_codec, v_codec
    length = max(total, past_key.shape[2] if past_key is not None else 0)
    present_k = encode_k(_present(decode_k(past_key), k, pasts, totals, length), out_dtype)
    present_v = encode_v(_present(decode_v(past_value), v, pasts, totals, length), out_dtype)
    # attention reads the cache as stored: new tokens quantized like the old
    keys, values = decode_k(present_k[:, :, :total]), decode_v(present_v[:, :, :total])
    bias = _key_bias(pasts, totals, q.shape[2], total, causal, window)
    if attention_bias is not None:
        attention_bias = as_float32(attention_bias)[..., :total]
        bias = bias + attention_bias
    out, scores, probs = attend(q, keys, values, bias, scale=scale, softcap=softcap, sink=sink)
    results = (heads_merged(out).astype(out_dtype), present_k, present_v)
    if qk_output:
        if attention_bias is not None:
            scores = scores + attention_bias
        results += (_qk_output(scores, probs, bias, qk_output).astype(out_dtype),)
    return results


def _qk_output(scores, probs, bias, mode):
    """output_qk: the scores with the attention bias (mode 1) or the
    probabilities (mode 2), with zeros where a key is blocked."""
    values = scores if mode == 1 else probs
    return np.where(np.isneginf(np.broadcast_to(bias, values.shape)), np.float32(0), values)
