"""Linear ai.onnx.ml kernels: LinearClassifier, LinearRegressor, Normalizer,
Scaler, Binarizer."""
from __future__ import annotations

import numpy as np

from ..registry import kernel
from ._ml_util import as_2d_float, labels_array
from ._ml_util import post_transform as apply_transform

ML = "ai.onnx.ml"


def _class_labels(classlabels_ints, classlabels_strings):
    return list(classlabels_strings) if classlabels_strings else [int(v) for v in classlabels_ints or []]


def _linear_scores(x, coefficients, intercepts):
    coef = np.asarray(coefficients, dtype=np.float32).reshape(-1, x.shape[1])
    scores = x.astype(np.float32, copy=False) @ coef.T      # BLAS
    if intercepts is not None and len(intercepts):
        scores = scores + np.asarray(intercepts, dtype=np.float32)
    return scores


@kernel("LinearClassifier", since=1, domain=ML)
def linear_classifier(X, coefficients, classlabels_ints=None, classlabels_strings=None,
                      intercepts=None, multi_class=0, post_transform="NONE"):
    x = as_2d_float(X)
    labels = _class_labels(classlabels_ints, classlabels_strings)
    scores = _linear_scores(x, coefficients, intercepts)
    if scores.shape[1] == 1 and len(labels) == 2:
        # One weight row for two classes is a margin for the second class.
        # onnxruntime reports [1 - p, p] with p the logistic of the margin
        # under LOGISTIC and the raw margin otherwise; the label is the
        # margin's sign.
        margin = scores[:, 0]
        p = apply_transform(margin, "LOGISTIC") if post_transform == "LOGISTIC" else margin
        both = np.stack([1 - p, p], axis=1).astype(np.float32)
        return labels_array(labels, (margin > 0).astype(np.int64)), both
    scores = apply_transform(scores, post_transform).astype(np.float32)
    if scores.shape[1] == 1:
        # A single class: rows above the threshold get it, others label 0/"".
        threshold = 0.0 if post_transform == "NONE" else 0.5
        hit = scores[:, 0] >= threshold
        if labels and isinstance(labels[0], str):
            return labels_array(labels + [""], np.where(hit, 0, 1)), scores
        first = labels[0] if labels else 1
        return np.where(hit, first, 0).astype(np.int64), scores
    return labels_array(labels, np.argmax(scores, axis=1)), scores


@kernel("LinearRegressor", since=1, domain=ML)
def linear_regressor(X, coefficients=None, intercepts=None, post_transform="NONE", targets=1):
    x = as_2d_float(X)
    scores = _linear_scores(x, coefficients, intercepts)
    return apply_transform(scores, post_transform).astype(np.float32)


@kernel("Normalizer", since=1, domain=ML)
def normalizer(X, norm="MAX"):
    x = as_2d_float(X)
    if norm == "MAX":
        # onnxruntime divides by the (signed) row maximum, not by max |x|.
        div = x.max(axis=1, keepdims=True)
    elif norm == "L1":
        div = np.abs(x).sum(axis=1, keepdims=True)
    elif norm == "L2":
        div = np.sqrt(np.square(x).sum(axis=1, keepdims=True))
    else:
        raise ValueError(f"unknown norm {norm!r}")
    # Guard all-zero rows against a division by zero.
    return (x / (np.maximum(div, 1e-30) if norm != "MAX" else div)).astype(np.float32).reshape(np.shape(X))


@kernel("Scaler", since=1, domain=ML)
def scaler(X, offset=None, scale=None):
    x = np.asarray(X).astype(np.float32, copy=False)
    off = np.asarray(offset if offset is not None else [0.0], dtype=np.float32)
    sc = np.asarray(scale if scale is not None else [1.0], dtype=np.float32)
    return ((x - off) * sc).astype(np.float32, copy=False)


@kernel("Binarizer", since=1, domain=ML)
def binarizer(X, threshold=0.0):
    return (X > threshold).astype(X.dtype)
