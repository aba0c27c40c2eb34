"""Symbolic dim expressions as polynomials with integer coefficients.

A dim string we build ("2*seq", "batch*seq", "T-1") is remembered with its
polynomial, so later arithmetic works on the polynomial and the result is
printed in one canonical spelling: `seq+seq` and `2*seq` are the same dim, and
`(seq-1)+1` is `seq` again. A string we did not build (a name from the file,
even one like "batch-size") is always one opaque symbol: we never parse user
names.

A polynomial is a dict {monomial: coefficient}; a monomial is a sorted tuple
of symbol names (the empty tuple is the constant term).
"""
from __future__ import annotations

from typing import Optional

# Strings this module produced -> their polynomial. Bounded: expressions come
# from shapes of the models inferred in this process.
_KNOWN: dict[str, dict] = {}
_MAX_KNOWN = 100_000
_MAX_TERMS = 8          # beyond this an expression helps nobody: give up


def poly_of(d) -> Optional[dict]:
    if isinstance(d, bool) or d is None:
        return None
    if isinstance(d, int):
        return {(): d} if d else {}
    p = _KNOWN.get(d)
    return dict(p) if p is not None else {(d,): 1}


def to_dim(p: dict):
    """The int or canonical string for polynomial p."""
    p = {m: c for m, c in p.items() if c}
    if not p:
        return 0
    if len(p) == 1 and () in p:
        return p[()]
    if len(p) == 1:
        ((mono, coeff),) = p.items()
        if coeff == 1 and len(mono) == 1:
            return mono[0]               # a plain symbol stays itself
    if len(p) > _MAX_TERMS:
        return None
    text = _format(p)
    if len(_KNOWN) < _MAX_KNOWN:
        _KNOWN[text] = p
    elif text not in _KNOWN:
        return None
    return text


def _format(p: dict) -> str:
    # Highest degree first, then by name; the constant last.
    terms = sorted(p.items(), key=lambda mc: (-len(mc[0]), mc[0]))
    out = []
    for i, (mono, coeff) in enumerate(terms):
        sign = "-" if coeff < 0 else "+"
        mag = abs(coeff)
        if mono:
            body = "*".join(f"({n})" if any(ch in n for ch in "+-*/() ") else n for n in mono)
            body = body if mag == 1 else f"{mag}*{body}"
        else:
            body = str(mag)
        out.append(body if i == 0 and sign == "+" else (f"-{body}" if i == 0 else f"{sign}{body}"))
    return "".join(out)


def add(a: dict, b: dict, sign: int = 1) -> dict:
    out = dict(a)
    for m, c in b.items():
        out[m] = out.get(m, 0) + sign * c
    return {m: c for m, c in out.items() if c}


def mul(a: dict, b: dict) -> dict:
    out: dict = {}
    for ma, ca in a.items():
        for mb, cb in b.items():
            m = tuple(sorted(ma + mb))
            out[m] = out.get(m, 0) + ca * cb
    return {m: c for m, c in out.items() if c}


def exact_div(a: dict, b: dict) -> Optional[dict]:
    """a / b when b is one term dividing every term of a exactly, else None."""
    if len(b) != 1:
        return None
    ((mb, cb),) = b.items()
    out = {}
    for ma, ca in a.items():
        rest = list(ma)
        for s in mb:
            if s not in rest:
                return None
            rest.remove(s)
        if ca % cb:
            return None
        out[tuple(rest)] = ca // cb
    return out
