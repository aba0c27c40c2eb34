"""Dimension arithmetic for inference.

A dim is an `int` (known), a `str` (symbolic) or `None` (unknown).

Decision on arithmetic with symbolic dims: we build small expression strings
("2*seq", "seq-1", "batch*seq") instead of giving up, because a shape such as
`[batch, 2*seq]` tells a user more than `[batch, ?]`. Expressions are kept as
polynomials (symexpr) and printed canonically, so `seq+seq` is `2*seq` and
broadcasts match dims computed along different paths. Division by a symbol
is kept only when exact for every value of the symbols (`(2*seq)/2` is
`seq`); division by a positive number rounds down and says so
(`floor((H+1)/2)`, which `compact_dim` shows as `⌈H/2⌉`). Anything involving
an unknown dim is unknown; the engine then names it with a fresh symbol
(fresh.py) so that equal unknowns stay equal.
"""
from __future__ import annotations

import functools
import math
import re
from typing import Optional

from .fresh import is_fresh
from .symexpr import add, compact, exact_div, floor_div, mul, poly_of, to_dim

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
    """a // b: exact when it divides for every value of the symbols, rounded
    down (a floor atom) for a positive number, else unknown."""
    if a is None or b is None:
        return None
    if type(a) is int and type(b) is int:
        return a // b if b else None
    if b == 1:
        return a
    return _symbolic("/", a, b)


def compact_dim(d) -> str:
    """How a dim reads on the canvas and in panels: `?` for unknown, and for
    a size inference made up a name for (`?41` reads like a typo on screen;
    the name stays in the type, shown in tooltips), also inside an
    expression (`⌈?/2⌉`), rounding divisions as `⌈H/2⌉` / `⌊H/2⌋`,
    everything else as stored."""
    if is_fresh(d):
        return "?"
    text = compact(d)
    # A made-up name inside an expression reads "?" too: ⌈?/2⌉, not ⌈?3/2⌉.
    return _FRESH_NAME.sub("?", text) if isinstance(text, str) and "?" in text else text


_FRESH_NAME = re.compile(r"\?\d+")


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
    if q is None and type(b) is int and b > 0:
        q = floor_div(pa, b)
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
        a, b = tuple(out), tuple(s)
        # A lower-rank side equal to the other's trailing dims (a bias over
        # [batch, seq, hidden], MatMul's batch dims against none) gives the
        # other side as it is: what the pairing below would build.
        if len(b) < len(a) and a[len(a) - len(b):] == b:
            out = a
            continue
        if len(a) < len(b) and b[len(b) - len(a):] == a:
            out = b
            continue
        # Missing leading dims behave as 1, which broadcasts to anything.
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
        # An unknown dim may be 1, so only a partner that cannot be 1 decides.
        other = b if a is None else a
        return other if isinstance(other, int) or _never_one(other) else None
    if isinstance(a, int):
        return a
    if isinstance(b, int):
        return b
    # Two different symbolic dims: in a valid model they are equal or one is
    # 1, so a side that can never be 1 (`2*floor((H+31)/32)`) is the result.
    a_big, b_big = _never_one(a), _never_one(b)
    if a_big or b_big:
        return a if a_big else b
    return None


def _never_one(d) -> bool:
    """True for an expression that is a multiple of some k >= 2."""
    p = poly_of(d)                         # a plain symbol: {(d,): 1}, may be 1
    return bool(p) and math.gcd(*p.values()) >= 2


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
    # A fresh name only says "some size": any known dim says as much. A
    # number where the other side has a symbol is more precise.
    return is_fresh(theirs) or isinstance(ours, int) and isinstance(theirs, str)


def axis_index(a, rank):
    """A possibly negative axis as an index into `rank` dims; None if invalid."""
    if a is None or rank is None:
        return None
    a = int(a)
    if a < 0:
        a += rank
    return a if 0 <= a < rank else None
