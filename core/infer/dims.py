"""Dimension arithmetic for inference.

A dim is an `int` (known), a `str` (symbolic) or `None` (unknown).

Decision on arithmetic with symbolic dims: we build small expression strings
("2*seq", "seq-1", "batch*seq") instead of giving up, because a shape such as
`[batch, 2*seq]` tells a user more than `[batch, ?]`. Expressions are kept as
polynomials (symexpr) and printed canonically, so `seq+seq` is `2*seq` and
broadcasts match dims computed along different paths. Division is kept only
when exact for every value of the symbols (`(2*seq)/2` is `seq`); otherwise
the dim is unknown, as ONNX integer division rounds. Anything involving an
unknown dim is unknown.
"""
from __future__ import annotations

import functools
from typing import Optional

from .symexpr import add, exact_div, mul, poly_of, to_dim

Dim = "int | str | None"


def dim_add(a, b):
    if a is None or b is None:
        return None
    if type(a) is int and type(b) is int:
        return a + b
    if a == 0:
        return b
    if b == 0:
        return a
    return _symbolic("+", a, b)


def dim_sub(a, b):
    if a is None or b is None:
        return None
    if type(a) is int and type(b) is int:
        return a - b
    if b == 0:
        return a
    return _symbolic("-", a, b)


def dim_mul(a, b):
    if a is None or b is None:
        return None
    if type(a) is int and type(b) is int:
        return a * b
    if a == 1:
        return b
    if b == 1:
        return a
    return _symbolic("*", a, b)


def dim_floordiv(a, b):
    """a // b when it is exact for every value of the symbols, else unknown."""
    if a is None or b is None:
        return None
    if type(a) is int and type(b) is int:
        return a // b if b else None
    if b == 1:
        return a
    return _symbolic("/", a, b)


@functools.lru_cache(maxsize=1 << 16)
def _symbolic(op, a, b):
    # Pure in (op, a, b): the same shapes recur in every layer of a model.
    pa, pb = poly_of(a), poly_of(b)
    if op == "+":
        return to_dim(add(pa, pb))
    if op == "-":
        return to_dim(add(pa, pb, -1))
    if op == "*":
        return to_dim(mul(pa, pb))
    q = exact_div(pa, pb)
    return None if q is None else to_dim(q)


def dim_prod(dims):
    out = 1
    for d in dims:
        out = dim_mul(out, d)
    return out


def broadcast_shapes(shapes) -> Optional[tuple]:
    """Broadcast shapes right-aligned; None if any rank is unknown."""
    if not shapes:
        return ()
    out = shapes[0]
    if out is None:
        return None
    for s in shapes[1:]:
        if s is None:
            return None
        if s == out:
            continue
        # Missing leading dims behave as 1, which broadcasts to anything.
        a, b = tuple(out), tuple(s)
        if len(a) < len(b):
            a = (1,) * (len(b) - len(a)) + a
        elif len(b) < len(a):
            b = (1,) * (len(a) - len(b)) + b
        out = tuple([_broadcast_pair(x, y) for x, y in zip(a, b)])
    return tuple(out)


def _broadcast_pair(a, b):
    if a == b:
        return a
    if a == 1:
        return b
    if b == 1:
        return a
    if isinstance(a, int) and isinstance(b, int):
        return None
    if a is None or b is None:
        # An unknown dim may be 1, so only a concrete non-1 partner decides.
        other = b if a is None else a
        return other if isinstance(other, int) else None
    if isinstance(a, int):
        return a
    if isinstance(b, int):
        return b
    return None                           # two different symbols


def merge_dim(inferred, stored):
    """Refine an inferred dim with a declared one; returns (dim, conflict)."""
    if inferred is None:
        return stored, False
    if stored is None or inferred == stored:
        return inferred, False
    if isinstance(inferred, int) and isinstance(stored, int):
        return inferred, True
    # A number beats a symbol. Between two symbols the file's own name wins
    # (as in onnx), so names a user gave their outputs survive inference.
    if isinstance(inferred, int):
        return inferred, False
    return stored, False


def more_or_equally_precise(ours, theirs) -> bool:
    """True when dim `ours` says at least as much as `theirs` and agrees."""
    if theirs is None:
        return True
    if ours is None:
        return False
    if ours == theirs:
        return True
    # A number where the other side has a symbol is more precise.
    return isinstance(ours, int) and isinstance(theirs, str)


def axis_index(a, rank):
    """A possibly negative axis as an index into `rank` dims; None if invalid."""
    if a is None or rank is None:
        return None
    a = int(a)
    if a < 0:
        a += rank
    return a if 0 <= a < rank else None
