"""Random generators and Dropout.

Every draw comes from the session's seeded generator (`ctx.rng`) so runs are
reproducible; a node's own `seed` attribute gives it a private generator
seeded with that value instead. Unseeded values are ours alone (no runtime
matches another's random stream), so tests check distributions there.
"""
from __future__ import annotations

import numpy as np

from ..registry import kernel
from ._math_util import onnx_dtype


def _generator(ctx, seed):
    if seed is None:
        return ctx.rng
    # An explicit seed gets numpy's classic generator seeded with it: that is
    # how the ONNX test data was produced, so seeded nodes match it exactly.
    # (Only .uniform and .standard_normal are used: both APIs have them.)
    return np.random.RandomState(int(seed) % 2**32)


def _normal(ctx, shape, dtype, mean, scale, seed):
    values = _generator(ctx, seed).standard_normal(size=tuple(shape))
    return (values * scale + mean).astype(dtype)


def _uniform(ctx, shape, dtype, low, high, seed):
    values = _generator(ctx, seed).uniform(0.0, 1.0, size=tuple(shape))
    return (values * (high - low) + low).astype(dtype)


def _like_dtype(input, dtype):  # noqa: A002
    return onnx_dtype(dtype) if dtype is not None else input.dtype


@kernel("RandomNormal", since=1, context=True)
def random_normal(ctx, shape, dtype=1, mean=0.0, scale=1.0, seed=None):
    return _normal(ctx, shape, onnx_dtype(dtype), mean, scale, seed)


@kernel("RandomUniform", since=1, context=True)
def random_uniform(ctx, shape, dtype=1, high=1.0, low=0.0, seed=None):
    return _uniform(ctx, shape, onnx_dtype(dtype), low, high, seed)


@kernel("RandomNormalLike", since=1, context=True)
def random_normal_like(ctx, input, dtype=None, mean=0.0, scale=1.0, seed=None):  # noqa: A002
    return _normal(ctx, input.shape, _like_dtype(input, dtype), mean, scale, seed)


@kernel("RandomUniformLike", since=1, context=True)
def random_uniform_like(ctx, input, dtype=None, high=1.0, low=0.0, seed=None):  # noqa: A002
    return _uniform(ctx, input.shape, _like_dtype(input, dtype), low, high, seed)


@kernel("Bernoulli", since=15, context=True)
def bernoulli(ctx, input, dtype=None, seed=None):  # noqa: A002
    draws = _generator(ctx, seed).uniform(0.0, 1.0, size=input.shape)
    return (draws < input).astype(_like_dtype(input, dtype))


@kernel("Multinomial", since=7, context=True)
def multinomial(ctx, input, dtype=6, sample_size=1, seed=None):  # noqa: A002
    """input[b] holds unnormalized log-probabilities; draw `sample_size`
    class indices per batch row by inverting the cumulative distribution."""
    logits = input.astype(np.float64)
    probabilities = np.exp(logits - logits.max(axis=1, keepdims=True))
    cumulative = np.cumsum(probabilities, axis=1)
    cumulative /= cumulative[:, -1:]
    draws = _generator(ctx, seed).uniform(0.0, 1.0, size=(input.shape[0], sample_size))
    # per row (not per element): the first class whose cumulative probability
    # exceeds the draw, found by binary search
    indices = np.empty(draws.shape, dtype=np.int64)
    for row in range(input.shape[0]):
        indices[row] = np.searchsorted(cumulative[row], draws[row], side="right")
    return np.minimum(indices, input.shape[1] - 1).astype(onnx_dtype(dtype))


# ---- Dropout ---------------------------------------------------------------

def _dropout(ctx, data, ratio, training, seed, mask_dtype):
    """Inference (or ratio 0) is the identity with an all-true mask; training
    zeroes each element with probability `ratio` and scales the rest by
    1/(1-ratio) so the expected value is unchanged."""
    want_mask = ctx.num_outputs > 1
    if not training or ratio == 0:
        out = data.copy()
        return (out, np.ones(data.shape, dtype=mask_dtype)) if want_mask else out
    keep = _generator(ctx, seed).uniform(0.0, 1.0, size=data.shape) >= ratio
    scale = data.dtype.type(1 / (1 - ratio)) if data.dtype.kind == "f" else 1 / (1 - ratio)
    out = (data * keep * scale).astype(data.dtype, copy=False)
    return (out, keep.astype(mask_dtype)) if want_mask else out


@kernel("Dropout", since=1, context=True)
def dropout_is_test(ctx, data, ratio=0.5, is_test=0, consumed_inputs=None):
    # An executor computes outputs, it does not train: the opsets with
    # `is_test` behave as in test mode (identity), as runtimes do.
    return _dropout(ctx, data, ratio, False, None, data.dtype)


@kernel("Dropout", since=7, context=True)
def dropout_v7(ctx, data, ratio=0.5):
    return _dropout(ctx, data, ratio, False, None, data.dtype)


@kernel("Dropout", since=10, context=True)
def dropout_v10(ctx, data, ratio=0.5):
    return _dropout(ctx, data, ratio, False, None, np.bool_)


@kernel("Dropout", since=12, context=True)
def dropout(ctx, data, ratio=None, training_mode=None, seed=None):
    ratio = 0.5 if ratio is None else float(np.asarray(ratio))
    training = bool(np.asarray(training_mode)) if training_mode is not None else False
    return _dropout(ctx, data, ratio, training, seed, np.bool_)
