"""Helpers shared by the ai.onnx.ml kernels: score post-transforms, label
lists and attributes given either as lists or as tensors."""
from __future__ import annotations

import numpy as np

from ._tensor_util import str_array

SQRT2 = 1.4142135623730951


def _erfinv(y):
    # Winitzki's closed-form approximation (a = 0.147), the one the ONNX
    # runtimes use for PROBIT; numpy has no erfinv and core avoids scipy.
    a = 0.147
    ln = np.log((1.0 - y) * (1.0 + y))
    first = 2.0 / (np.pi * a) + 0.5 * ln
    return np.sign(y) * np.sqrt(np.sqrt(first * first - ln / a) - first)


def logistic(x):
    return 1.0 / (1.0 + np.exp(-x))


def softmax(x):
    e = np.exp(x - x.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def softmax_zero(x):
    # Like softmax, but entries that are exactly (nearly) zero stay zero.
    zero = np.abs(x) <= 1e-7
    m = x.max(axis=1, keepdims=True)
    e = np.where(zero, 0.0, np.exp(x - m))
    s = e.sum(axis=1, keepdims=True)
    return np.where(s == 0, 0.5, e / np.where(s == 0, 1, s))


def probit(x):
    return SQRT2 * _erfinv(2.0 * x - 1.0)


POST_TRANSFORMS = {"NONE": lambda x: x, "LOGISTIC": logistic, "SOFTMAX": softmax,
                   "SOFTMAX_ZERO": softmax_zero, "PROBIT": probit}
# TreeEnsemble (ml opset 5) encodes post_transform as an int.
POST_TRANSFORM_CODES = ["NONE", "SOFTMAX", "LOGISTIC", "SOFTMAX_ZERO", "PROBIT"]


def post_transform(scores, name):
    if name not in POST_TRANSFORMS:
        raise ValueError(f"unknown post_transform {name!r}")
    return POST_TRANSFORMS[name](scores)


def floats(values, as_tensor=None):
    """An attribute given as a float list or (from ml opset 3) as a tensor."""
    if as_tensor is not None:
        return np.asarray(as_tensor).reshape(-1)
    if values is None:
        return None
    return np.asarray(values, dtype=np.float32).reshape(-1)


def labels_array(labels, picks):
    """labels[picks] as int64 or string tensor, whichever labels hold."""
    if labels and isinstance(labels[0], str):
        return str_array([labels[i] for i in picks.reshape(-1)], picks.shape)
    return np.asarray(labels, dtype=np.int64)[picks]


def as_2d_float(x):
    """Rows of features; integer inputs are scored as float32."""
    x = np.asarray(x)
    if x.dtype not in (np.float32, np.float64):
        x = x.astype(np.float32)
    return x.reshape(1, -1) if x.ndim == 1 else x.reshape(x.shape[0], -1)
