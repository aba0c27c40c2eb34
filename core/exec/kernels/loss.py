"""NegativeLogLikelihoodLoss (opset 12/13/22) and SoftmaxCrossEntropyLoss
(opset 12/13).

Both pick, for every sample n and spatial position d, the input entry of
the target class, x[n, target[n, d], d], and weight it by weight[target].
Positions whose target equals `ignore_index` get weight 0, so they neither
add to the loss nor count in the "mean" denominator (the mean is the weighted
sum divided by the sum of the weights actually used, not by N*D).
"""
from __future__ import annotations

import numpy as np

from ..registry import kernel


def _picked_loss(x, target, weight, ignore_index, reduction):
    x = np.asarray(x)
    target = np.asarray(target).astype(np.int64, copy=False)
    if x.ndim < 2:
        raise ValueError(f"input must be (N, C) or (N, C, d1, ...), got shape {list(x.shape)}")
    classes = x.shape[1]
    expected_target = (x.shape[0],) + x.shape[2:]
    if target.shape != expected_target:
        raise ValueError(f"target shape {list(target.shape)} does not match input {list(x.shape)}: "
                         f"expected {list(expected_target)}")
    ignored = (target == ignore_index) if ignore_index is not None else np.zeros(target.shape, bool)
    # Ignored positions may hold any value (often -100 or >= C): index with a
    # safe class so the gather cannot go out of range; their weight is 0 anyway.
    safe = np.where(ignored, 0, target)
    if ((safe < 0) | (safe >= classes)).any():
        bad = target[~ignored & ((target < 0) | (target >= classes))].reshape(-1)[0]
        raise ValueError(f"target value {int(bad)} is outside [0, {classes}) and is not ignore_index")
    picked = np.take_along_axis(x, np.expand_dims(safe, 1), axis=1)[:, 0]
    if weight is None:
        w = np.ones(target.shape, dtype=x.dtype)
    else:
        w = np.asarray(weight)[safe].astype(x.dtype, copy=False)
    w = np.where(ignored, x.dtype.type(0), w)
    loss = -picked * w
    if reduction == "none":
        return loss.astype(x.dtype, copy=False)
    # Accumulate in at least float32 so float16 sums keep their precision.
    acc = np.promote_types(x.dtype, np.float32)
    total = loss.sum(dtype=acc)
    if reduction == "sum":
        return np.asarray(total, dtype=x.dtype)
    if reduction == "mean":
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.asarray(total / w.sum(dtype=acc), dtype=x.dtype)
    raise ValueError(f"reduction must be 'none', 'sum' or 'mean', got {reduction!r}")


@kernel("NegativeLogLikelihoodLoss", since=12)
def negative_log_likelihood_loss(input, target, weight=None, ignore_index=None, reduction="mean"):  # noqa: A002
    return _picked_loss(input, target, weight, ignore_index, reduction)


def _log_softmax_classes(x):
    # Along the class axis (1), shifted by the maximum to avoid overflow.
    shifted = x - np.max(x, axis=1, keepdims=True)
    return shifted - np.log(np.sum(np.exp(shifted), axis=1, keepdims=True))


@kernel("SoftmaxCrossEntropyLoss", since=12, context=True)
def softmax_cross_entropy_loss(ctx, scores, labels, weights=None, ignore_index=None, reduction="mean"):
    scores = np.asarray(scores)
    acc = np.promote_types(scores.dtype, np.float32)
    log_prob = _log_softmax_classes(scores.astype(acc, copy=False))
    loss = _picked_loss(log_prob, labels, None if weights is None else np.asarray(weights).astype(acc),
                        ignore_index, reduction).astype(scores.dtype)
    if ctx.num_outputs > 1:
        return loss, log_prob.astype(scores.dtype)
    return loss
