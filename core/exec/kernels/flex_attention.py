"""ai.onnx.preview FlexAttention (opset 1): scaled dot-product attention over
rank-4 Q/K/V whose scores and probabilities pass through optional user
subgraphs (score_mod before the softmax, prob_mod after it), the ONNX form of
PyTorch's flex_attention."""
from __future__ import annotations

import numpy as np

from ...ir.dtypes import to_numpy_dtype
from ..registry import kernel


def _softmax_dtype(input_dtype, softmax_precision):
    if softmax_precision is not None:
        return to_numpy_dtype(softmax_precision)
    # Half-precision inputs are promoted: exp/sum in float16 lose too much.
    return np.promote_types(input_dtype, np.float32)


def _modified(ctx, graph, tensor, what):
    outs = ctx.run_subgraph(graph, [tensor])
    if len(outs) != 1:
        raise ValueError(f"{what} subgraph must have exactly one output, it has {len(outs)}")
    out = np.asarray(outs[0])
    if out.shape != tensor.shape:
        raise ValueError(f"{what} subgraph changed the shape {list(tensor.shape)} to {list(out.shape)}")
    return out.astype(tensor.dtype, copy=False)


def _softmax_last(scores):
    top = np.max(scores, axis=-1, keepdims=True)
    # A row masked entirely (all -inf) has no finite maximum: shift it by 0
    # so the exps are 0 and the row comes out 0/0 = nan, as in the ONNX
    # reference, without numpy warnings along the way.
    top = np.where(np.isfinite(top), top, 0)
    e = np.exp(scores - top)
    total = np.sum(e, axis=-1, keepdims=True)
    with np.errstate(invalid="ignore", divide="ignore"):
        return e / total


@kernel("FlexAttention", since=1, domain="ai.onnx.preview", context=True)
def flex_attention(ctx, q, k, v, prob_mod=None, score_mod=None, softmax_precision=None, scale=None):
    q, k, v = np.asarray(q), np.asarray(k), np.asarray(v)
    if q.ndim != 4 or k.ndim != 4 or v.ndim != 4:
        raise ValueError(f"Q, K and V must be rank 4, got {list(q.shape)}, {list(k.shape)}, {list(v.shape)}")
    batch, q_heads, _, head_size = q.shape
    kv_heads = k.shape[1]
    if k.shape[3] != head_size:
        raise ValueError(f"Q head size {head_size} differs from K head size {k.shape[3]}")
    if v.shape[1] != kv_heads or v.shape[2] != k.shape[2]:
        raise ValueError(f"K {list(k.shape)} and V {list(v.shape)} disagree on heads or sequence length")
    if q_heads % kv_heads:
        raise ValueError(f"{q_heads} query heads are not a multiple of {kv_heads} key/value heads")
    if scale is None:
        scale = 1.0 / np.sqrt(head_size)
    dt = _softmax_dtype(q.dtype, softmax_precision)
    group = q_heads // kv_heads
    # Query head h uses K/V head h // group: repeating each K/V head `group`
    # times in place gives exactly that order.
    k_all = np.repeat(k, group, axis=1).astype(dt)
    v_all = np.repeat(v, group, axis=1).astype(dt)
    scores = (q.astype(dt) @ np.swapaxes(k_all, -1, -2)) * dt.type(scale)
    if score_mod is not None:
        scores = _modified(ctx, score_mod, scores, "score_mod")
    probs = _softmax_last(scores)
    if prob_mod is not None:
        probs = _modified(ctx, prob_mod, probs, "prob_mod")
    return (probs @ v_all).astype(v.dtype)
