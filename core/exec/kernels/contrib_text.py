"""onnxruntime's text operator (domain com.microsoft) that skl2onnx writes
for scikit-learn's CountVectorizer and TfidfVectorizer: Tokenizer.

It has no ONNX reference; onnxruntime's CPU kernel defines it, and this
follows what that kernel was measured to do (2026-11-28): the pieces
between matches of the `separators` (regular expressions; [""] splits into
characters) or, without separators, the matches of `tokenexp`; empty
pieces and pieces of fewer than `mincharnum` characters dropped; with
`mark`, "\\x02" before and "\\x03" after each string's tokens; every row
padded with `pad_value` to the longest. When no string has a token the
last axis has length 0 (and no marks)."""
from __future__ import annotations

import re

import numpy as np

from ..errors import KernelInputError
from ..registry import kernel

_START, _END = "\x02", "\x03"


def _tokens(text: str, split, find, mincharnum: int) -> list:
    pieces = split(text) if split is not None else find(text)
    return [p for p in pieces if p and len(p) >= mincharnum]


@kernel("Tokenizer", since=1, domain="com.microsoft")
def tokenizer(x, mark, mincharnum, pad_value, separators=None, tokenexp=None):
    x = np.asarray(x, dtype=object)
    if x.ndim not in (1, 2):
        raise KernelInputError(f"the input has rank {x.ndim}; Tokenizer takes strings of shape [C] or [N, C]")
    split = find = None
    if separators is not None and len(separators):
        if list(separators) == [""]:
            split = list
        else:
            split = re.compile("|".join(f"(?:{s})" for s in separators)).split
    elif tokenexp:
        find = re.compile(tokenexp).findall
    else:
        raise KernelInputError("neither separators nor tokenexp is set: give the one that says what a token is")
    rows = [_tokens(s, split, find, int(mincharnum)) for s in x.reshape(-1)]
    longest = max((len(r) for r in rows), default=0)
    if longest == 0:
        return np.empty(x.shape + (0,), dtype=object)
    if mark:
        rows = [[_START, *r, _END] for r in rows]
        longest += 2
    y = np.full((len(rows), longest), pad_value, dtype=object)
    for i, r in enumerate(rows):
        y[i, :len(r)] = r
    return y.reshape(x.shape + (longest,))
