"""String kernels: StringNormalizer, StringConcat, StringSplit,
RegexFullMatch, TfIdfVectorizer. String tensors are object arrays of str;
these ops are not hot, so per-string Python is acceptable here."""
from __future__ import annotations

import operator
import re

import numpy as np

from ..registry import kernel
from ._tensor_util import ints, str_array


def _map_strings(fn, x, otype=object):
    x = np.asarray(x, dtype=object)
    out = np.empty(x.shape, dtype=otype)
    flat = out.reshape(-1)
    for i, s in enumerate(x.reshape(-1)):
        flat[i] = fn(s)
    return out


@kernel("StringNormalizer", since=10)
def string_normalizer(x, case_change_action="NONE", is_case_sensitive=0, locale="", stopwords=None):
    words = list(x.reshape(-1))
    if stopwords:
        if is_case_sensitive:
            stop = set(stopwords)
            words = [w for w in words if w not in stop]
        else:
            stop = {s.casefold() for s in stopwords}
            words = [w for w in words if w.casefold() not in stop]
    change = {"LOWER": str.lower, "UPPER": str.upper, "NONE": None}[case_change_action]
    if change:
        words = [change(w) for w in words]
    if not words:
        # Everything filtered out still yields one empty string, per the spec.
        words = [""]
    out = str_array(words)
    return out.reshape(1, -1) if x.ndim == 2 else out


_concat = np.frompyfunc(operator.add, 2, 1)


@kernel("StringConcat", since=20)
def string_concat(x, y):
    return np.asarray(_concat(x, y), dtype=object)


@kernel("StringSplit", since=20)
def string_split(x, delimiter=None, maxsplit=None):
    # No delimiter (or an empty one) splits on runs of whitespace and drops
    # empty pieces, which is what str.split(None) does.
    sep = delimiter or None
    limit = -1 if maxsplit is None else maxsplit
    pieces = [s.split(sep, limit) for s in x.reshape(-1)]
    width = max((len(p) for p in pieces), default=0)
    y = np.full((len(pieces), width), "", dtype=object)
    for i, p in enumerate(pieces):
        y[i, :len(p)] = p
    counts = np.array([len(p) for p in pieces], dtype=np.int64)
    return y.reshape(x.shape + (width,)), counts.reshape(x.shape)


@kernel("RegexFullMatch", since=20)
def regex_full_match(x, pattern=""):
    # ONNX specifies RE2; Python's re agrees on the common subset (no
    # backreferences in RE2, no \C or \pN shorthand in re).
    compiled = re.compile(pattern)
    return _map_strings(lambda s: compiled.fullmatch(s) is not None, x, bool)


def _tfidf_table(pool, ngram_counts, ngram_indexes):
    """{n-gram tuple: output column}, n-gram lengths counted from 1."""
    starts = ints(ngram_counts) + [len(pool)]
    table, j = {}, 0
    for n in range(1, len(starts)):
        for k in range(starts[n - 1], starts[n], n):
            table[tuple(pool[k:k + n])] = ngram_indexes[j]
            j += 1
    return table


@kernel("TfIdfVectorizer", since=9)
def tfidf_vectorizer(x, max_gram_length, max_skip_count, min_gram_length, mode, ngram_counts,
                     ngram_indexes, pool_int64s=None, pool_strings=None, weights=None):
    pool = list(pool_strings) if pool_strings is not None else ints(pool_int64s)
    indexes = ints(ngram_indexes)
    table = _tfidf_table(pool, ngram_counts, indexes)
    width = max(indexes) + 1 if indexes else 0
    rows = x.reshape(1, -1) if x.ndim == 1 else x
    counts = np.zeros((rows.shape[0], width), dtype=np.float32)
    for r, row in enumerate(rows):
        items = [s if isinstance(s, str) else int(s) for s in row]
        for n in range(min_gram_length, max_gram_length + 1):
            # Unigrams have nothing to skip over: count them once.
            for skip in range(max_skip_count + 1 if n > 1 else 1):
                step = skip + 1
                for start in range(len(items) - (n - 1) * step):
                    col = table.get(tuple(items[start:start + (n - 1) * step + 1:step]))
                    if col is not None:
                        counts[r, col] += 1
    if mode == "TF":
        out = counts
    else:
        w = np.ones(width, dtype=np.float32) if weights is None else np.asarray(weights, np.float32)
        out = (counts > 0) * w if mode == "IDF" else counts * w
        out = out.astype(np.float32)
    return out.reshape(-1) if x.ndim == 1 else out
