"""Support vector machines (ai.onnx.ml): SVMClassifier and SVMRegressor.
Kernel values for all rows against all support vectors come from one matrix
product; the one-vs-one pairs and the probability coupling loop over classes,
vectorised over rows."""
from __future__ import annotations

import numpy as np

from ..registry import kernel
from ._ml_util import as_2d_float, labels_array, logistic, probit, softmax, softmax_zero
from ._ml_util import post_transform as apply_transform

ML = "ai.onnx.ml"


def _kernel_matrix(x, vectors, kernel_type, params):
    gamma, coef0, degree = (list(params or []) + [0.0, 0.0, 0.0])[:3]
    kind = kernel_type.upper()
    if kind == "RBF":
        # |x - v|^2 expanded so the cross term is a BLAS product.
        sq = (x * x).sum(1)[:, None] + (vectors * vectors).sum(1)[None, :] - 2.0 * (x @ vectors.T)
        return np.exp(-gamma * np.maximum(sq, 0.0))
    dot = x @ vectors.T
    if kind == "LINEAR":
        return dot
    if kind == "POLY":
        return (gamma * dot + coef0) ** int(degree)
    if kind == "SIGMOID":
        return np.tanh(gamma * dot + coef0)
    raise ValueError(f"unknown kernel_type {kernel_type!r}")


def _couple(pairwise, k, rows):
    """Class probabilities from pairwise ones (Wu, Lin & Weng's second method),
    iterated for all rows at once; a row stops changing once it converged."""
    q = np.zeros((rows, k, k))
    for t in range(k):
        q[:, t, t] = (pairwise[:, :t, t] ** 2).sum(1) + (pairwise[:, t + 1:, t] ** 2).sum(1)
        for j in range(k):
            if j != t:
                q[:, t, j] = -pairwise[:, j, t] * pairwise[:, t, j]
    p = np.full((rows, k), 1.0 / k)
    live = np.ones(rows, dtype=bool)
    for _ in range(max(100, k)):
        qp = np.einsum("rij,rj->ri", q, p)
        pqp = (p * qp).sum(1)
        live &= np.abs(qp - pqp[:, None]).max(1) >= 0.005 / k
        if not live.any():
            break
        for t in range(k):
            diff = np.where(live, (pqp - qp[:, t]) / q[:, t, t], 0.0)
            p[:, t] += diff
            pqp = (pqp + diff * (diff * q[:, t, t] + 2 * qp[:, t])) / (1 + diff) ** 2
            p /= (1 + diff)[:, None]
            qp = (qp + diff[:, None] * q[:, t, :]) / (1 + diff)[:, None]
    return p


def _one_vs_one(kmat, coefs, rho, counts):
    k = len(counts)
    starts = np.concatenate([[0], np.cumsum(counts)[:-1]]).astype(int)
    votes = np.zeros((kmat.shape[0], k))
    decisions = []
    for i in range(k):
        si = slice(starts[i], starts[i] + counts[i])
        for j in range(i + 1, k):
            sj = slice(starts[j], starts[j] + counts[j])
            d = rho[len(decisions)] + kmat[:, si] @ coefs[j - 1, si] + kmat[:, sj] @ coefs[i, sj]
            votes[:, i] += d > 0
            votes[:, j] += d <= 0
            decisions.append(d)
    return votes, np.stack(decisions, axis=1)


def _binary_scores(s, post, add_second):
    """Scores when the model produced one value per row."""
    if post == "PROBIT":
        return probit(s)
    if add_second:
        both = np.concatenate([-s, s], axis=1)
        return {"LOGISTIC": logistic, "SOFTMAX": softmax, "SOFTMAX_ZERO": softmax_zero}.get(
            post, lambda v: v)(both)
    return s


@kernel("SVMClassifier", since=1, domain=ML)
def svm_classifier(X, classlabels_ints=None, classlabels_strings=None, coefficients=None,
                   kernel_params=None, kernel_type="LINEAR", post_transform="NONE", prob_a=None,
                   prob_b=None, rho=None, support_vectors=None, vectors_per_class=None):
    x = as_2d_float(X).astype(np.float64)
    labels = list(classlabels_strings) if classlabels_strings else [int(v) for v in classlabels_ints or []]
    k = max(len(labels), 1)
    counts = [int(c) for c in vectors_per_class or []]
    coef = np.asarray(coefficients, dtype=np.float64)
    rho = np.asarray(rho if rho is not None else [0.0], dtype=np.float64)
    if sum(counts) > 0:
        sv = np.asarray(support_vectors, dtype=np.float64).reshape(sum(counts), -1)
        kmat = _kernel_matrix(x, sv, kernel_type, kernel_params)
        votes, scores = _one_vs_one(kmat, coef.reshape(-1, sum(counts)), rho, counts)
    else:
        # Linear mode: one weight vector per class and a shared offset.
        votes, scores = None, x @ coef.reshape(k, -1).T + rho[0]
    has_proba = prob_a is not None and len(prob_a) > 0 and votes is not None
    if has_proba:
        val = scores * np.asarray(prob_a) + np.asarray(prob_b)
        pair = np.clip(1.0 - logistic(val), 1e-7, 1 - 1e-7)
        r = np.zeros((x.shape[0], k, k))
        iu, ju = np.triu_indices(k, 1)
        r[:, iu, ju] = pair
        r[:, ju, iu] = 1 - pair
        scores = _couple(r, k, x.shape[0])
    # The label follows the one-vs-one votes (even when probabilities are
    # reported), or the scores in linear mode: what onnxruntime does.
    ranking = votes if votes is not None else scores
    best = np.argmax(ranking, axis=1)
    if rho.size == 1 and scores.shape[1] == 1:
        picked = labels_array(labels, best) if len(labels) == 2 else \
            np.where(scores[:, 0] > 0, 1, 0).astype(np.int64)
        out = _binary_scores(scores, post_transform, len(labels) == 2)
        return picked, out.astype(np.float32)
    if votes is None and rho.size == 1 and len(labels) == 2:
        # Linear two-class models: onnxruntime picks the second class when
        # the top score is positive (>= 0.5 if all weights are positive).
        top = scores[np.arange(x.shape[0]), best]
        best = np.where(top >= 0.5 if coef.min(initial=0) >= 0 else top > 0, 1, best)
    return labels_array(labels, best), apply_transform(scores, post_transform).astype(np.float32)


@kernel("SVMRegressor", since=1, domain=ML)
def svm_regressor(X, coefficients=None, kernel_params=None, kernel_type="LINEAR", n_supports=0,
                  one_class=0, post_transform="NONE", rho=None, support_vectors=None):
    x = as_2d_float(X).astype(np.float64)
    coef = np.asarray(coefficients, dtype=np.float64)
    offset = float(np.asarray(rho if rho is not None else [0.0]).reshape(-1)[0])
    if n_supports > 0:
        sv = np.asarray(support_vectors, dtype=np.float64).reshape(n_supports, -1)
        s = _kernel_matrix(x, sv, kernel_type, kernel_params) @ coef + offset
    else:
        s = x @ coef + offset
    if one_class:
        s = np.where(s > 0, 1.0, -1.0)
    return s.reshape(-1, 1).astype(np.float32)
