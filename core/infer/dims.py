"""Dimension arithmetic for inference.

A dim is an `int` (known), a `str` (symbolic) or `None` (unknown).

Decision on arithmetic with symbolic dims: we build small expression strings
("2*seq", "seq+1", "a*b") instead of giving up, because a shape such as
`[batch, 2*seq]` tells a user more than `[batch, ?]` and two values computed
the same way get the same string, so later broadcasts can still match them.
We never try to simplify beyond constants (no algebra): `seq+seq` stays
`seq+seq` and does not equal `2*seq`. Division of a symbol gives unknown unless
the divisor is 1, since ONNX integer division rounds and the string would
mislead. Anything involving an unknown dim is unknown.
"""
from __future__ import annotations

from typing import Optional

Dim = "int | str | None"


def _wrap(d) -> str:
    s = str(d)
    return f"({s})" if ("+" in s or "-" in s[1:]) else s


def dim_add(a, b):
    if a is None or b is None:
        return None
    if isinstance(a, int) and isinstance(b, int):
        return a + b
    if a == 0:
        return b
    if b == 0:
        return a
    if isinstance(b, int) and b < 0:
        return f"{a}-{-b}"
    return f"{a}+{b}"


def dim_sub(a, b):
    if a is None or b is None:
        return None
    if isinstance(a, int) and isinstance(b, int):
        return a - b
    if b == 0:
        return a
    if a == b:
        return 0
    if isinstance(b, int) and b < 0:
        return f"{a}+{-b}"
    return f"{a}-{_wrap(b)}"


def dim_mul(a, b):
    if a is None or b is None:
        return None
    if isinstance(a, int) and isinstance(b, int):
        return a * b
    if a == 0 or b == 0:
        return 0
    if a == 1:
        return b
    if b == 1:
        return a
    if isinstance(b, int):          # constants first: "2*seq"
        a, b = b, a
    return f"{_wrap(a)}*{_wrap(b)}"


def dim_floordiv(a, b):
    if a is None or b is None:
        return None
    if isinstance(a, int) and isinstance(b, int):
        return a // b if b else None
    if b == 1:
        return a
    if a == b:
        return 1
    return None


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
