"""Stateful sequence operators of opset 27, the building blocks of linear-time
language models (Mamba, Gated DeltaNet, RetNet, GLA): CausalConvWithState and
LinearAttention. Both take an optional state from the previous call and return
the state for the next one, so prefill and decode are the same operator."""
from __future__ import annotations

import numpy as np

from ..registry import kernel


def _wide(dtype):
    # float16/bfloat16 inputs are computed in float32, as the reference does.
    return np.promote_types(dtype, np.float32)


@kernel("CausalConvWithState", since=27)
def causal_conv_with_state(input, weight, bias=None, past_state=None, activation="none"):  # noqa: A002
    x, w = np.asarray(input), np.asarray(weight)
    if x.ndim != 3 or w.ndim != 3 or w.shape[1] != 1:
        raise ValueError(f"input must be (batch, channels, length) and weight (channels, 1, k); "
                         f"got {list(x.shape)} and {list(w.shape)}")
    if activation not in ("none", "silu", "swish"):
        raise ValueError(f"activation must be 'none', 'silu' or 'swish', got {activation!r}")
    batch, channels, length = x.shape
    k = w.shape[2]
    if w.shape[0] != channels:
        raise ValueError(f"weight has {w.shape[0]} channels, input has {channels}")
    if past_state is None:
        history = np.zeros((batch, channels, k - 1), dtype=x.dtype)
    else:
        history = np.asarray(past_state)
        if history.shape != (batch, channels, k - 1):
            raise ValueError(f"past_state shape {list(history.shape)} should be "
                             f"{[batch, channels, k - 1]} (the last k-1 inputs)")
    padded = np.concatenate([history.astype(x.dtype, copy=False), x], axis=2)
    acc = _wide(x.dtype)
    padded_wide = padded.astype(acc, copy=False)
    taps = w[:, 0, :].astype(acc)
    # Depthwise and causal: output t sees inputs t-k+1 .. t of its own channel.
    out = np.zeros((batch, channels, length), dtype=acc)
    for j in range(k):
        out += taps[None, :, j, None] * padded_wide[:, :, j:j + length]
    if bias is not None:
        out += np.asarray(bias).astype(acc)[None, :, None]
    # Round the convolution to the input type before the activation, as the
    # reference does: for float16 the two roundings give different bits.
    out = out.astype(x.dtype).astype(acc)
    if activation in ("silu", "swish"):
        out = out / (1.0 + np.exp(-out))
    present = padded[:, :, padded.shape[2] - (k - 1):]
    return out.astype(x.dtype), np.ascontiguousarray(present)


def _heads(x, heads, what):
    """(B, T, H*D) -> (B, H, T, D)."""
    b, t, packed = x.shape
    if packed % heads:
        raise ValueError(f"{what}: last dimension {packed} is not a multiple of {heads} heads")
    return x.reshape(b, t, heads, packed // heads).transpose(0, 2, 1, 3)


_RULES = {"linear": (False, False), "gated": (True, False),
          "delta": (False, True), "gated_delta": (True, True)}


def _decay_per_step(decay, b, t, kv_heads, d_k, acc):
    """Log-space decay as (B, H_kv, T, 1) per head or (B, H_kv, T, d_k) per key dim."""
    decay = np.asarray(decay)
    if decay.ndim != 3 or decay.shape[:2] != (b, t):
        raise ValueError(f"decay must be (B, T, H_kv) or (B, T, H_kv*d_k), got {list(decay.shape)}")
    if decay.shape[2] == kv_heads:
        return decay.reshape(b, t, kv_heads, 1).transpose(0, 2, 1, 3).astype(acc)
    if decay.shape[2] == kv_heads * d_k:
        return _heads(decay, kv_heads, "decay").astype(acc)
    raise ValueError(f"decay last dimension {decay.shape[2]} must be kv_num_heads ({kv_heads}) "
                     f"or kv_num_heads*d_k ({kv_heads * d_k})")


def _beta_per_step(beta, b, t, kv_heads, acc):
    beta = np.asarray(beta)
    if beta.ndim != 3 or beta.shape[:2] != (b, t) or beta.shape[2] not in (kv_heads, 1):
        raise ValueError(f"beta must be (B, T, H_kv) or (B, T, 1), got {list(beta.shape)}")
    return beta.transpose(0, 2, 1)[..., None].astype(acc)      # (B, H_kv|1, T, 1)


@kernel("LinearAttention", since=27)
def linear_attention(query, key, value, past_state=None, decay=None, beta=None, chunk_size=64,
                     kv_num_heads=None, q_num_heads=None, scale=0.0, update_rule="gated_delta"):
    # chunk_size only tunes chunk-parallel implementations; the sequential
    # recurrence below is the definition, so it is ignored here.
    if update_rule not in _RULES:
        raise ValueError(f"update_rule must be one of {sorted(_RULES)}, got {update_rule!r}")
    if not q_num_heads or not kv_num_heads or q_num_heads % kv_num_heads:
        raise ValueError(f"q_num_heads ({q_num_heads}) must be a positive multiple of "
                         f"kv_num_heads ({kv_num_heads})")
    gated, delta = _RULES[update_rule]
    for name, given, needed in (("decay", decay, gated), ("beta", beta, delta)):
        if (given is not None) != needed:
            raise ValueError(f"update_rule {update_rule!r} {'needs' if needed else 'takes no'} {name} input")
    query, key, value = np.asarray(query), np.asarray(key), np.asarray(value)
    for name, x in (("query", query), ("key", key), ("value", value)):
        if x.ndim != 3:
            raise ValueError(f"{name} must be (B, T, H*D), got {list(x.shape)}")
    acc = _wide(query.dtype)
    b, t, _ = query.shape
    q = _heads(query, q_num_heads, "query").astype(acc)
    k = _heads(key, kv_num_heads, "key").astype(acc)
    v = _heads(value, kv_num_heads, "value").astype(acc)
    d_k, d_v = q.shape[-1], v.shape[-1]
    if k.shape[-1] != d_k:
        raise ValueError(f"query head size {d_k} differs from key head size {k.shape[-1]}")
    group = q_num_heads // kv_num_heads
    g = _decay_per_step(decay, b, t, kv_num_heads, d_k, acc) if gated else None
    rate = _beta_per_step(beta, b, t, kv_num_heads, acc) if delta else None
    if past_state is None:
        state, state_dtype = np.zeros((b, kv_num_heads, d_k, d_v), acc), query.dtype
    else:
        past_state = np.asarray(past_state)
        if past_state.shape != (b, kv_num_heads, d_k, d_v):
            raise ValueError(f"past_state shape {list(past_state.shape)} should be {[b, kv_num_heads, d_k, d_v]}")
        state, state_dtype = past_state.astype(acc), past_state.dtype
    scale = float(scale) if scale else 1.0 / np.sqrt(d_k)
    out = np.empty((b, q_num_heads, t, d_v), acc)
    for i in range(t):
        k_i, v_i = k[:, :, i], v[:, :, i]
        if gated:
            state = state * np.exp(g[:, :, i])[..., None]
        if delta:
            # Replace what the state already recalls for k_i by v_i, at rate beta.
            recalled = np.einsum("bhkv,bhk->bhv", state, k_i)
            v_i = rate[:, :, i] * (v_i - recalled)
        state = state + k_i[..., :, None] * v_i[..., None, :]
        # Query head h reads the state of KV head h // group (GQA/MQA).
        q_i = q[:, :, i].reshape(b, kv_num_heads, group, d_k)
        out[:, :, i] = scale * np.einsum("bhgk,bhkv->bhgv", q_i, state).reshape(b, q_num_heads, d_v)
    output = out.transpose(0, 2, 1, 3).reshape(b, t, q_num_heads * d_v).astype(query.dtype)
    return output, state.astype(state_dtype)
