"""onnxruntime's MultiHeadAttention and Attention (domain com.microsoft), what
its transformer optimizers fuse BERT and GPT-2 style attention into:
Attention projects Q, K and V itself from one packed weight matrix;
MultiHeadAttention takes them projected (separate, packed QKV or packed KV),
with a past + new cache or a fixed buffer (past_sequence_length).

Unlike GroupQueryAttention these block a key by adding mask_filter_value
(-10000 by default) to its logit, not -inf, so a row with every key masked
attends evenly instead of giving zeros; we do the same.
"""
from __future__ import annotations

import numpy as np

from ..registry import kernel
from ._attention_util import as_float32, attend, heads_first, heads_merged

MS = "com.microsoft"


def _key_mask(mask, batch, seq, total, past):
    """True where a key is kept, broadcastable to (B, 1, S, total), from
    onnxruntime's mask forms: (B) key lengths (right padding); (2B) ends then
    starts (left padding); (B, total) or (B, S, total) raw 0/1 masks."""
    mask = np.asarray(mask)
    j = np.arange(total).reshape(1, 1, 1, -1)
    if mask.ndim == 1 and mask.shape[0] == batch:
        return j < mask.reshape(-1, 1, 1, 1)
    if mask.ndim == 1 and mask.shape[0] == 2 * batch:
        ends, starts = mask[:batch].reshape(-1, 1, 1, 1), mask[batch:].reshape(-1, 1, 1, 1)
        return (j < ends) & (j >= starts)
    if mask.ndim == 2 and mask.shape == (batch, total):
        return (mask != 0).reshape(batch, 1, 1, total)
    if mask.ndim == 3 and mask.shape == (batch, seq, total):
        return (mask != 0).reshape(batch, 1, seq, total)
    raise ValueError(f"mask of shape {mask.shape} is not supported (batch {batch}, sequence {seq}, "
                     f"total sequence {total}): give (B), (2B), (B, total) or (B, S, total)")


def _logit_bias(mask, attention_bias, batch, seq, total, past, unidirectional, filter_value):
    """Additive logit bias: filter_value for each masked key (padding mask,
    future keys when unidirectional), plus attention_bias."""
    fill = np.float32(filter_value)
    bias = np.zeros((1, 1, 1, total), np.float32)
    if mask is not None:
        bias = np.where(_key_mask(mask, batch, seq, total, past), np.float32(0), fill)
    if unidirectional:
        future = np.arange(total).reshape(1, -1) > past + np.arange(seq).reshape(-1, 1)
        bias = bias + np.where(future, fill, np.float32(0))
    if attention_bias is not None:
        bias = bias + as_float32(attention_bias)
    return bias


def _with_past(past, new):
    return new if past is None else np.concatenate([as_float32(past), new], axis=2)


def _project_inputs(query, key, value, bias, num_heads):
    """(Q, K, V) as (B, N, S|L, H) float32 from MultiHeadAttention's input
    forms, with the projection bias added where it belongs."""
    query = as_float32(query)
    if query.ndim == 5:                     # packed QKV (B, L, N, 3, H)
        q, k, v = (query[:, :, :, i].transpose(0, 2, 1, 3) for i in range(3))
        if bias is not None:
            q, k, v = (t + b.reshape(num_heads, 1, -1) for t, b in zip((q, k, v), np.split(as_float32(bias), 3)))
        return q, k, v
    q = query if bias is None else query + as_float32(bias)[:query.shape[-1]]
    q = heads_first(q, num_heads)
    if key.ndim == 5:                       # packed KV (B, L, N, 2, H)
        key = as_float32(key)
        k, v = key[:, :, :, 0].transpose(0, 2, 1, 3), key[:, :, :, 1].transpose(0, 2, 1, 3)
        if bias is not None:
            bk, bv = np.split(as_float32(bias)[query.shape[-1]:], 2)
            k, v = k + bk.reshape(num_heads, 1, -1), v + bv.reshape(num_heads, 1, -1)
        return q, k, v
    if key.ndim == 4:                       # already (B, N, L, H): cross attention's cached K and V
        return q, as_float32(key), as_float32(value)
    k, v = as_float32(key), as_float32(value)
    if bias is not None:
        d = query.shape[-1]
        k, v = k + as_float32(bias)[d:2 * d], v + as_float32(bias)[2 * d:]
    return q, heads_first(k, num_heads), heads_first(v, num_heads)


@kernel("MultiHeadAttention", since=1, domain=MS)
def multi_head_attention(query, key=None, value=None, bias=None, key_padding_mask=None, attention_bias=None,
                         past_key=None, past_value=None, past_sequence_length=None, cache_indirection=None, *,
                         num_heads, scale=0.0, mask_filter_value=-10000.0, unidirectional=0):
    if cache_indirection is not None:
        raise ValueError("MultiHeadAttention: beam search (cache_indirection) is not supported")
    q, k, v = _project_inputs(query, key, value, bias, num_heads)
    if past_sequence_length is not None:
        past = int(np.asarray(past_sequence_length).reshape(-1)[0])
        present_k, k = _into_shared_buffer(past_key, k, past)
        present_v, v = _into_shared_buffer(past_value, v, past)
    else:
        past = past_key.shape[2] if past_key is not None else 0
        k, v = _with_past(past_key, k), _with_past(past_value, v)
        present_k, present_v = k, v
    batch, _, seq, head = q.shape
    logit_bias = _logit_bias(key_padding_mask, attention_bias, batch, seq, k.shape[2], past, unidirectional,
                             mask_filter_value)
    out, _, _ = attend(q, k, v, logit_bias, scale=scale or 1.0 / np.sqrt(head))
    dtype = query.dtype
    return heads_merged(out).astype(dtype), present_k.astype(dtype), present_v.astype(dtype)


def _into_shared_buffer(buffer, new, past):
    """A fixed-size cache (past_sequence_length given): the new rows go in
    after the first `past`, the rest of the buffer stays as it was.
    Returns the buffer after the write and the rows attention reads."""
    if buffer is None:
        raise ValueError("MultiHeadAttention: past_sequence_length needs past_key and past_value")
    end = past + new.shape[2]
    if end > buffer.shape[2]:
        raise ValueError(f"MultiHeadAttention: {past} cached + {new.shape[2]} new rows do not fit the "
                         f"{buffer.shape[2]}-row buffer")
    present = as_float32(buffer).copy()
    present[:, :, past:end] = new
    return present, present[:, :, :end]


@kernel("Attention", since=1, domain=MS)
def attention(x, weights, bias=None, mask_index=None, past=None, attention_bias=None, past_sequence_length=None,
              *, num_heads, scale=0.0, mask_filter_value=-10000.0, unidirectional=0, qkv_hidden_sizes=None,
              do_rotary=0, past_present_share_buffer=0, rotary_embedding_dim=0):
    if do_rotary or past_present_share_buffer:
        raise ValueError("Attention: do_rotary and past_present_share_buffer are not supported")
    width = weights.shape[1]
    sizes = list(qkv_hidden_sizes) if qkv_hidden_sizes else [width // 3] * 3
    qkv = np.matmul(as_float32(x), as_float32(weights))
    if bias is not None:
        qkv += as_float32(bias)
    q, k, v = (heads_first(t, num_heads) for t in np.split(qkv, np.cumsum(sizes)[:2], axis=-1))
    past_len = past.shape[3] if past is not None else 0
    if past is not None:
        k, v = _with_past(past[0], k), _with_past(past[1], v)
    batch, _, seq, head = q.shape
    logit_bias = _logit_bias(mask_index, attention_bias, batch, seq, k.shape[2], past_len, unidirectional,
                             mask_filter_value)
    out, _, _ = attend(q, k, v, logit_bias, scale=scale or 1.0 / np.sqrt(head))
    dtype = x.dtype
    if k.shape != v.shape:          # no present: a cache needs K and V of one size
        return heads_merged(out).astype(dtype)
    return heads_merged(out).astype(dtype), np.stack([k, v]).astype(dtype)
