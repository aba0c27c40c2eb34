"""GroupQueryAttention's window-sized KV cache (sliding_window_cache=1).

The cache holds, per batch entry, only the most recent positions: after T
tokens its rows [0, L(T)) hold positions T - L(T) .. T - 1 in order. L
depends on T alone: the whole cache while T fits its capacity C, then
G = C - W + 1 positions evicted at once whenever it overflows (W is
local_window_size), so eviction is amortized over G steps.
"""
from __future__ import annotations

import math

import numpy as np

from ._attention_util import attend


def resident_count(total: int, capacity: int, window: int) -> int:
    """L(T): how many of the T positions seen so far the cache keeps."""
    if total <= capacity:
        return total
    group = capacity - window + 1
    return total - group * math.ceil((total - capacity) / group)


def windowed_cache_attention(q, k, v, past_k, past_v, pasts, totals, attention_bias, *, window, scale,
                             softcap, sink):
    """q (B, Nq, S, H); k, v (B, Nkv, S, H) new rows (float32, as stored);
    past_k, past_v (B, Nkv, C, H) window caches; pasts[b] tokens seen
    before this call, totals[b] after. attention_bias columns are absolute
    positions. Returns the output (B, Nq, S, H) and the present caches."""
    if window <= 0:
        raise ValueError("GroupQueryAttention: sliding_window_cache=1 needs local_window_size > 0")
    if past_k is None:
        raise ValueError("GroupQueryAttention: sliding_window_cache=1 needs past_key and past_value "
                         "(their length is the cache capacity)")
    capacity = past_k.shape[2]
    if capacity < window:
        raise ValueError(f"GroupQueryAttention: a window cache of {capacity} rows cannot hold "
                         f"local_window_size={window}")
    batch, _, seq, _ = q.shape
    out = np.zeros(q.shape[:3] + (v.shape[-1],), np.float32)
    present_k, present_v = past_k.copy(), past_v.copy()
    for b in range(batch):
        before, after = int(pasts[b]), int(totals[b])
        kept_before = resident_count(before, capacity, window)
        new = after - before
        # every position this call can see, oldest first
        keys = np.concatenate([past_k[b, :, :kept_before], k[b, :, :new]], axis=1)
        values = np.concatenate([past_v[b, :, :kept_before], v[b, :, :new]], axis=1)
        key_pos = np.arange(before - kept_before, after)
        query_pos = before + np.arange(seq)
        diff = query_pos[:, None] - key_pos[None, :]
        bias = np.where((diff >= 0) & (diff < window), np.float32(0), np.float32(-np.inf))
        if attention_bias is not None:
            bias = bias + attention_bias[min(b, attention_bias.shape[0] - 1)][..., key_pos]
        out[b], _, _ = attend(q[b:b + 1], keys[None], values[None], bias, scale=scale, softcap=softcap, sink=sink)
        kept = resident_count(after, capacity, window)
        present_k[b, :, :kept] = keys[:, keys.shape[1] - kept:]
        present_v[b, :, :kept] = values[:, values.shape[1] - kept:]
    return out, present_k, present_v
