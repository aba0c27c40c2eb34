"""Attention (opset 23/24/25) and RotaryEmbedding (opset 23)."""
from __future__ import annotations

import numpy as np

from ...ir.dtypes import to_numpy_dtype
from ..registry import kernel
from ._nn_util import compute_dtype


def _split_heads(x, heads):
    b, s, hidden = x.shape
    return x.reshape(b, s, heads, hidden // heads).transpose(0, 2, 1, 3)


def _softmax_rows(x):
    """Softmax over the last axis; rows whose every entry is -inf give zeros."""
    top = np.max(x, axis=-1, keepdims=True)
    top = np.where(np.isneginf(top), 0, top)
    e = np.exp(x - top)
    total = np.sum(e, axis=-1, keepdims=True)
    total[total == 0] = 1
    e /= total
    return e


def _bias(q_len, kv_len, dt, attn_mask, is_causal, past_len, nonpad, left, right, batch):
    """Additive bias (0 = attend, -inf = blocked), broadcastable to (B, H, q, kv)."""
    bias = np.zeros((q_len, kv_len), dtype=dt)
    if attn_mask is not None:
        if attn_mask.shape[-1] < kv_len:    # a shorter mask leaves the extra keys blocked
            fill = False if attn_mask.dtype == np.bool_ else -np.inf
            attn_mask = np.pad(attn_mask, [(0, 0)] * (attn_mask.ndim - 1) + [(0, kv_len - attn_mask.shape[-1])],
                               constant_values=fill)
        if attn_mask.dtype == np.bool_:
            attn_mask = np.where(attn_mask, dt.type(0), dt.type(-np.inf))
        bias = bias + attn_mask.astype(dt, copy=False)
    i = np.arange(q_len).reshape(-1, 1)
    j = np.arange(kv_len).reshape(1, -1)
    # queries sit at the end of the key sequence: after the past cache, or
    # before the padding of an externally managed (nonpad_kv_seqlen) cache
    if past_len is None and nonpad is not None:
        offset = (np.asarray(nonpad).reshape(-1) - q_len).reshape(-1, 1, 1, 1)
    else:
        offset = past_len or 0
    diff = i + offset - j
    allowed = np.ones(np.shape(diff), dtype=bool)
    if is_causal:
        allowed &= diff >= 0
    if left >= 0:
        allowed &= diff <= left
    if right >= 0:
        allowed &= -diff <= right
    if not allowed.all():
        bias = bias + np.where(allowed, dt.type(0), dt.type(-np.inf))
    if nonpad is not None:
        valid = j.reshape(1, 1, 1, -1) < np.asarray(nonpad).reshape(-1, 1, 1, 1)
        bias = bias + np.where(valid, dt.type(0), dt.type(-np.inf))
    return bias


def _attention(q, k, v, attn_mask=None, past_key=None, past_value=None, nonpad_kv_seqlen=None, *,
               is_causal=0, kv_num_heads=None, q_num_heads=None, qk_matmul_output_mode=0, scale=None,
               softcap=0.0, softmax_precision=None, left_window_size=-1, right_window_size=-1):
    out_dt = q.dtype
    # bfloat16 keeps its own rounding at every step (the published results
    # were computed that way; float32 throughout differs by an ulp)
    stepwise = out_dt.name == "bfloat16"
    dt = out_dt if stepwise else compute_dtype(out_dt)
    three_d = q.ndim == 3
    if three_d:
        q, k, v = _split_heads(q, q_num_heads), _split_heads(k, kv_num_heads), _split_heads(v, kv_num_heads)
    q, k, v = (t.astype(dt, copy=False) for t in (q, k, v))
    if past_key is not None:
        k = np.concatenate([past_key.astype(dt, copy=False), k], axis=2)
        v = np.concatenate([past_value.astype(dt, copy=False), v], axis=2)
    present_k, present_v = k, v
    b, hq, q_len, d = q.shape
    hkv, kv_len = k.shape[1], k.shape[2]
    if scale is None:
        scale = 1.0 / np.sqrt(d)
    rep = hq // hkv
    # grouped-query attention: each kv head serves `rep` consecutive q heads;
    # fold them into the query axis instead of copying K and V
    if stepwise:
        # split the scale over Q and K as the spec suggests, rounding as we go
        half = dt.type(np.sqrt(scale))
        qg = (q * half).reshape(b, hkv, rep * q_len, d)
        raw = np.matmul(qg, k.transpose(0, 1, 3, 2) * half).astype(dt).reshape(b, hq, q_len, kv_len)
    else:
        qg = (q * dt.type(scale)).reshape(b, hkv, rep * q_len, d)
        raw = np.matmul(qg, k.transpose(0, 1, 3, 2)).reshape(b, hq, q_len, kv_len)
    capped = softcap * np.tanh(raw / softcap) if softcap > 0 else raw
    bias = _bias(q_len, kv_len, dt, attn_mask, is_causal, past_key.shape[2] if past_key is not None else None,
                 nonpad_kv_seqlen, left_window_size, right_window_size, b)
    logits = capped + bias
    if softmax_precision:
        logits = logits.astype(compute_dtype(to_numpy_dtype(softmax_precision)), copy=False)
    probs = _softmax_rows(logits)
    # a row with nothing to attend to gives zeros, whatever the logits were
    blocked = np.isneginf(np.max(np.broadcast_to(bias, logits.shape[:-2] + bias.shape[-2:]), axis=-1, keepdims=True))
    if blocked.any():
        probs = np.where(blocked, 0, probs)
    probs = probs.astype(dt, copy=False)
    y = np.matmul(probs.reshape(b, hkv, rep * q_len, kv_len), v).astype(dt, copy=False)
    y = y.reshape(b, hq, q_len, v.shape[-1])
    if three_d:
        y = y.transpose(0, 2, 1, 3).reshape(b, q_len, -1)
    qk_out = {0: raw, 1: capped, 2: logits, 3: probs}[qk_matmul_output_mode]
    return (y.astype(out_dt, copy=False), present_k.astype(out_dt, copy=False),
            present_v.astype(out_dt, copy=False), qk_out.astype(out_dt, copy=False))


@kernel("Attention", since=23)
def attention(q, k, v, attn_mask=None, past_key=None, past_value=None, nonpad_kv_seqlen=None, **attrs):
    return _attention(q, k, v, attn_mask, past_key, past_value, nonpad_kv_seqlen, **attrs)


@kernel("RotaryEmbedding", since=23)
def rotary_embedding(x, cos_cache, sin_cache, position_ids=None, *, interleaved=0, num_heads=0,
                     rotary_embedding_dim=0):
    if x.ndim == 4:
        xs = x.transpose(0, 2, 1, 3)                     # (B, S, H, D)
    else:
        b, s, hidden = x.shape
        xs = x.reshape(b, s, num_heads, hidden // num_heads)
    rot = rotary_embedding_dim or xs.shape[-1]
    if position_ids is not None:
        cos_cache, sin_cache = cos_cache[position_ids], sin_cache[position_ids]
    cos, sin = cos_cache[:, :, None, :], sin_cache[:, :, None, :]
    part = xs[..., :rot]
    if interleaved:
        x1, x2 = part[..., 0::2], part[..., 1::2]
    else:
        x1, x2 = part[..., : rot // 2], part[..., rot // 2:]
    out = xs.copy()
    first, second = cos * x1 - sin * x2, sin * x1 + cos * x2
    if interleaved:
        out[..., 0:rot:2], out[..., 1:rot:2] = first, second
    else:
        out[..., : rot // 2], out[..., rot // 2: rot] = first, second
    out = out.astype(x.dtype, copy=False)
    return out.transpose(0, 2, 1, 3) if x.ndim == 4 else out.reshape(x.shape)
