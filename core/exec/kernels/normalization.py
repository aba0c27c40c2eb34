"""Normalization ops: BatchNormalization (every version), LayerNormalization,
GroupNormalization, InstanceNormalization, RMSNormalization, LpNormalization,
MeanVarianceNormalization and LRN.

Statistics are computed in float32 at least (`stash_type` 1), in float64 for
float64 inputs, and the result is cast back to the input's type.
"""
from __future__ import annotations

import numpy as np

from ..errors import KernelInputError
from ..registry import VARIES, kernel
from ._math_util import compute_dtype, last_axis_mean, normalize_axes, normalize_axis, onnx_dtype


def _channel_view(param: np.ndarray, rank: int) -> np.ndarray:
    """A per-channel vector shaped to broadcast over (N, C, D1, ...)."""
    return param.reshape((1, -1) + (1,) * (rank - 2)) if rank > 2 else param.reshape(1, -1)


def _stat_dtype(x: np.ndarray, stash_type: int = 1) -> np.dtype:
    if x.dtype == np.float64 or stash_type == 11:
        return np.dtype(np.float64)
    return np.dtype(np.float32)


# ---- BatchNormalization -----------------------------------------------------

def _batch_norm_inference(x, scale, bias, mean, var, epsilon, spatial=1):
    """y = x * a + b with a = scale/sqrt(var+eps), b = bias - mean*a folded per
    channel first, so the big tensor is touched by one multiply and one add."""
    work = compute_dtype(x.dtype)
    # fold the per-channel factors in float64 (tiny vectors), apply in x's type
    a = scale.astype(np.float64) / np.sqrt(var.astype(np.float64) + epsilon)
    b = (bias.astype(np.float64) - mean.astype(np.float64) * a).astype(work)
    a = a.astype(work)
    # spatial=0 with per-channel (C,) parameters is how some old exporters
    # wrote plain batch norm: treat it as spatial, as runtimes do
    if spatial or a.size == x.shape[1]:
        a, b = _channel_view(a, x.ndim), _channel_view(b, x.ndim)
    else:
        # spatial=0 (opset < 9): parameters cover every (C, D1, ...) position
        a, b = a.reshape(x.shape[1:]), b.reshape(x.shape[1:])
    xs = x if x.dtype == work else x.astype(work)
    y = xs * a
    y += b
    return y.astype(x.dtype, copy=False)


@kernel("BatchNormalization", since=1)
def batch_norm_legacy(x, scale, b, mean, var, epsilon=1e-5, momentum=0.9, spatial=1,
                      is_test=0, consumed_inputs=None):
    # The old training outputs (saved mean/var) only fed a training graph;
    # the executor runs inference, so only Y is produced here.
    return _batch_norm_inference(x, scale, b, mean, var, epsilon, spatial)


@kernel("BatchNormalization", since=9)
def batch_norm_v9(x, scale, b, mean, var, epsilon=1e-5, momentum=0.9):
    return _batch_norm_inference(x, scale, b, mean, var, epsilon)


@kernel("BatchNormalization", since=14)
def batch_norm(x, scale, b, input_mean, input_var, epsilon=1e-5, momentum=0.9,
               training_mode=0):
    if not training_mode:
        return _batch_norm_inference(x, scale, b, input_mean, input_var, epsilon)
    # Training: normalize with this batch's statistics and update the running
    # ones: running = input * momentum + current * (1 - momentum).
    axes = (0,) + tuple(range(2, x.ndim))
    work = compute_dtype(x.dtype)
    xs = x.astype(work, copy=False)
    current_mean = xs.mean(axis=axes)
    current_var = xs.var(axis=axes)
    y = _batch_norm_inference(x, scale, b, current_mean, current_var, epsilon)
    running_mean = input_mean * momentum + current_mean.astype(input_mean.dtype) * (1 - momentum)
    running_var = input_var * momentum + current_var.astype(input_var.dtype) * (1 - momentum)
    return (y, running_mean.astype(input_mean.dtype, copy=False),
            running_var.astype(input_var.dtype, copy=False))


# ---- layer / group / instance / RMS ---------------------------------------

def _scale_shift_in_place(y, scale, bias):
    """y * scale + bias reusing y's buffer (y is a temporary of ours) when the
    parameters broadcast into it; otherwise let numpy grow the result."""
    fits = all(np.broadcast_shapes(y.shape, p.shape) == y.shape for p in (scale, bias) if p is not None)
    if not fits:
        y = y * scale
        return y if bias is None else y + bias
    y *= scale
    if bias is not None:
        y += bias
    return y


def normalized_rows(xs, ones, eps):
    """LayerNormalization's statistics over the last axis of a float32 or
    float64 `xs`: ((xs - mean) / sqrt(var + eps), mean, 1/std), the last two
    with the axis kept. `ones` is a vector of xs.shape[-1] ones of xs's type:
    a row sum is a product with it (BLAS sums ~3x faster than np.sum). The
    kernel, its prepared form and the merged unit of fusion.py all compute
    through here, so they give the same bits."""
    n = xs.shape[-1]
    mean = np.matmul(xs, ones)[..., None]
    mean /= n
    centered = xs - mean
    var = np.matmul(np.square(centered), ones)[..., None]
    var /= n
    var += eps
    inv_std = np.reciprocal(np.sqrt(var, out=var), out=var)
    centered *= inv_std
    return centered, mean, inv_std


def _prepare_layer_norm(consts, attrs):
    """Constant scale and bias (what every exporter writes): the parameters
    in the statistics' type, the ones vector of the row sums and the shapes
    are worked out once per input shape. A decoder's per-token LayerNorm is
    one row of a few hundred values, where that set-up was most of the 15 us.
    The arithmetic is layer_norm's, step for step."""
    if len(consts) < 2 or consts[1] is VARIES or (len(consts) > 2 and consts[2] is VARIES):
        return None
    scale, bias = consts[1], consts[2] if len(consts) > 2 else None
    if not isinstance(scale, np.ndarray) or not (bias is None or isinstance(bias, np.ndarray)):
        return None
    axis, epsilon, stash_type = attrs.get("axis", -1), attrs.get("epsilon", 1e-5), attrs.get("stash_type", 1)
    stat = onnx_dtype(stash_type)
    plans: dict = {}     # (dtype, shape) -> what one call needs, or None: take the kernel

    def plan_for(x):
        a = normalize_axis(axis, x.ndim)
        work = _stat_dtype(x, stash_type)
        flat = x.shape[:a] + (int(np.prod(x.shape[a:], dtype=np.int64)),)
        keep = x.shape[:a] + (1,) * (x.ndim - a)
        fits = all(np.broadcast_shapes(x.shape, q.shape) == x.shape for q in (scale, bias) if q is not None)
        if not fits or flat[-1] == 0 or work not in (np.float32, np.float64):
            return None
        return (work, flat, keep, np.ones(flat[-1], dtype=work), work.type(epsilon),
                scale.astype(work, copy=False), None if bias is None else bias.astype(work, copy=False))

    def run(x, *_params):
        key = (x.dtype, x.shape)
        if key not in plans:
            if len(plans) >= 16:     # shapes that keep changing: bound the memory
                plans.clear()
            plans[key] = plan_for(x)
        p = plans[key]
        if p is None:
            return layer_norm(x, scale, bias, axis=axis, epsilon=epsilon, stash_type=stash_type)
        work, flat, keep, ones, eps, scale_w, bias_w = p
        centered, mean, inv_std = normalized_rows(x.astype(work, copy=False).reshape(flat), ones, eps)
        y = centered.reshape(x.shape)
        y *= scale_w
        if bias_w is not None:
            y += bias_w
        return (y.astype(x.dtype, copy=False), mean.reshape(keep).astype(stat, copy=False),
                inv_std.reshape(keep).astype(stat, copy=False))
    return run


@kernel("LayerNormalization", since=17, prepare=_prepare_layer_norm)
def layer_norm(x, scale, b=None, axis=-1, epsilon=1e-5, stash_type=1):
    axis = normalize_axis(axis, x.ndim)
    work = _stat_dtype(x, stash_type)
    # statistics over the trailing axes, seen as one flattened last axis
    xs = x.astype(work, copy=False).reshape(x.shape[:axis] + (-1,))
    centered, mean, inv_std = normalized_rows(xs, np.ones(xs.shape[-1], work), work.type(epsilon))
    centered = centered.reshape(x.shape)
    keep_shape = x.shape[:axis] + (1,) * (x.ndim - axis)
    mean, inv_std = mean.reshape(keep_shape), inv_std.reshape(keep_shape)
    y = _scale_shift_in_place(centered, scale.astype(work, copy=False),
                              None if b is None else b.astype(work, copy=False))
    stat = onnx_dtype(stash_type)
    return y.astype(x.dtype, copy=False), mean.astype(stat), inv_std.astype(stat)


@kernel("RMSNormalization", since=23)
def rms_norm(x, scale, axis=-1, epsilon=1e-5, stash_type=1):
    axis = normalize_axis(axis, x.ndim)
    work = _stat_dtype(x, stash_type)
    xs = x.astype(work, copy=False).reshape(x.shape[:axis] + (-1,))
    mean_square = last_axis_mean(np.square(xs))
    mean_square += work.type(epsilon)
    y = xs * np.reciprocal(np.sqrt(mean_square, out=mean_square), out=mean_square)
    y = y.reshape(x.shape)
    y *= scale.astype(work, copy=False)
    return y.astype(x.dtype, copy=False)


def _group_stats_normalize(x, num_groups, epsilon, work):
    n = x.shape[0]
    grouped = x.astype(work, copy=False).reshape(n, num_groups, -1)
    mean = grouped.mean(axis=2, keepdims=True)
    centered = grouped - mean
    var = np.mean(np.square(centered), axis=2, keepdims=True)
    centered *= 1 / np.sqrt(var + work.type(epsilon))
    return centered.reshape(x.shape)


@kernel("GroupNormalization", since=18)
def group_norm_v18(x, scale, bias, num_groups, epsilon=1e-5):
    # opset 18: scale and bias hold one value per *group*
    work = _stat_dtype(x)
    y = _group_stats_normalize(x, num_groups, epsilon, work)
    per_channel = x.shape[1] // num_groups
    s = np.repeat(scale.astype(work), per_channel)
    b = np.repeat(bias.astype(work), per_channel)
    return (y * _channel_view(s, x.ndim) + _channel_view(b, x.ndim)).astype(x.dtype, copy=False)


@kernel("GroupNormalization", since=21)
def group_norm(x, scale, bias, num_groups, epsilon=1e-5, stash_type=1):
    # opset 21: scale and bias hold one value per *channel*
    work = _stat_dtype(x, stash_type)
    y = _group_stats_normalize(x, num_groups, epsilon, work)
    y = y * _channel_view(scale.astype(work), x.ndim) + _channel_view(bias.astype(work), x.ndim)
    return y.astype(x.dtype, copy=False)


@kernel("InstanceNormalization", since=1)
def instance_norm(x, scale, b, epsilon=1e-5, consumed_inputs=None):
    if x.ndim < 2 or scale.size != x.shape[1] or b.size != x.shape[1]:
        raise KernelInputError(f"scale ({scale.size} values) and B ({b.size}) need one value per channel of X "
                               f"{list(x.shape)} (its second axis)")
    work = _stat_dtype(x)
    y = _group_stats_normalize(x, x.shape[1], epsilon, work)
    y = y * _channel_view(scale.astype(work), x.ndim) + _channel_view(b.astype(work), x.ndim)
    return y.astype(x.dtype, copy=False)


# ---- Lp / MVN / LRN ---------------------------------------------------------

@kernel("LpNormalization", since=1)
def lp_norm(x, axis=-1, p=2):
    axis = normalize_axis(axis, x.ndim)
    if p == 1:
        norm = np.sum(np.abs(x), axis=axis, keepdims=True)
    elif p == 2:
        norm = np.sqrt(np.sum(np.square(x), axis=axis, keepdims=True))
    else:
        raise ValueError(f"p must be 1 or 2, got {p}")
    # a zero vector stays zero instead of becoming NaN (0 / 1); the select
    # runs on the small reduced array, not on x
    norm = np.where(norm == 0, 1, norm).astype(x.dtype, copy=False)
    return (x / norm).astype(x.dtype, copy=False)


@kernel("MeanVarianceNormalization", since=9)
def mean_variance_norm(x, axes=(0, 2, 3)):
    axes = normalize_axes(axes, x.ndim)
    work = _stat_dtype(x)
    xs = x.astype(work, copy=False)
    mean = xs.mean(axis=axes, keepdims=True)
    # the operator's definition: sqrt(E[x²] - E[x]²), plus 1e-9 against 0
    variance = np.mean(np.square(xs), axis=axes, keepdims=True) - np.square(mean)
    std = np.sqrt(np.maximum(variance, 0)) + work.type(1e-9)
    return ((xs - mean) / std).astype(x.dtype, copy=False)


@kernel("LRN", since=1)
def lrn(x, size, alpha=1e-4, beta=0.75, bias=1.0):
    """Each channel is divided by (bias + alpha/size * sum of squares over the
    `size` neighbouring channels)^beta; the window sum is a cumsum difference."""
    work = _stat_dtype(x)
    squares = np.square(x.astype(work, copy=False))
    before, after = (size - 1) // 2, size - 1 - (size - 1) // 2
    pad = [(0, 0)] * x.ndim
    pad[1] = (before + 1, after)
    cumulative = np.cumsum(np.pad(squares, pad), axis=1)
    channels = x.shape[1]
    window = cumulative[:, size:size + channels] - cumulative[:, :channels]
    denominator = (work.type(bias) + work.type(alpha / size) * window) ** work.type(beta)
    return (x / denominator).astype(x.dtype, copy=False)
