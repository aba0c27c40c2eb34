"""Pieces shared by onnxruntime's attention operators (contrib_attention.py,
contrib_mha.py): head layouts and scaled dot-product attention in float32."""
from __future__ import annotations

import numpy as np


def heads_first(x, heads):
    """(B, S, heads * H) -> (B, heads, S, H)."""
    b, s, hidden = x.shape
    return x.reshape(b, s, heads, hidden // heads).transpose(0, 2, 1, 3)


def heads_merged(x):
    """(B, heads, S, H) -> (B, S, heads * H)."""
    b, n, s, h = x.shape
    return x.transpose(0, 2, 1, 3).reshape(b, s, n * h)


def as_float32(x):
    return None if x is None else x.astype(np.float32, copy=False)


def attend(q, k, v, logit_bias=None, *, scale, softcap=0.0, sink=None):
    """softmax(scale * Q K^T, capped, + logit_bias) V in float32.

    q (B, Nq, S, H); k, v (B, Nkv, T, H) with Nq a multiple of Nkv: each kv
    head serves Nq / Nkv consecutive query heads (grouped-query attention).
    logit_bias broadcasts to (B, Nq, S, T) and may hold -inf for blocked
    keys; a row with every key blocked gives zeros. sink (Nq,) or a scalar
    adds exp(sink) to each row's denominator (onnxruntime's smooth softmax).
    Returns the output (B, Nq, S, Hv), the scores before the bias (scaled,
    capped) and the probabilities."""
    b, nq, s, h = q.shape
    nkv, t = k.shape[1], k.shape[2]
    group = nq // nkv
    # fold the query heads sharing one kv head into the row axis instead of
    # repeating K and V
    logits = np.matmul(q.reshape(b, nkv, group * s, h), k.transpose(0, 1, 3, 2)).reshape(b, nq, s, t)
    logits *= np.float32(scale)
    if softcap > 0:
        logits = np.float32(softcap) * np.tanh(logits / np.float32(softcap))
    scores = logits
    if logit_bias is not None:
        logits = logits + logit_bias
    top = np.max(logits, axis=-1, keepdims=True)
    if sink is not None:
        sink = np.broadcast_to(np.asarray(sink, np.float32).reshape(-1, 1, 1), (nq, 1, 1))
        top = np.maximum(top, sink)
    top = np.where(np.isneginf(top), np.float32(0), top)
    e = np.exp(logits - top)
    total = np.sum(e, axis=-1, keepdims=True)
    if sink is not None:
        total += np.exp(sink - top)
    probs = np.divide(e, total, out=np.zeros_like(e), where=total > 0)
    out = np.matmul(probs.reshape(b, nkv, group * s, t), v).reshape(b, nq, s, v.shape[-1])
    return out, scores, probs
