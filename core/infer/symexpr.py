"""Symbolic dim expressions as polynomials with integer coefficients.

A dim string we build ("2*seq", "batch*seq", "T-1") is remembered with its
polynomial, so later arithmetic works on the polynomial and the result is
printed in one canonical spelling: `seq+seq` and `2*seq` are the same dim, and
`(seq-1)+1` is `seq` again. A string we did not build (a name from the file,
even one like "batch-size") is always one opaque symbol: we never parse user
names.

A polynomial is a dict {monomial: coefficient}; a monomial is a sorted tuple
of symbol names (the empty tuple is the constant term).

Rounding division by a positive constant (window counts of strided Conv and
Pool, `Div` on shape tensors) makes a *floor atom*, `floor((H+1)/2)`: a
symbol of its own whose numerator polynomial and divisor we remember, so
that it simplifies when it meets more division. Two identities, true for all
integers, keep atoms short and canonical:
  floor((c*Q + R)/c) = Q + floor(R/c)      (R's coefficients taken in [0, c))
  floor((floor(P/a) + k)/c) = floor((P + k*a)/(a*c))
so four stride-2 convolutions of H give `floor((H+15)/16)`, i.e. ceil(H/16),
which `compact()` prints as `⌈H/16⌉`.
"""
from __future__ import annotations

from typing import Optional

# Strings this module produced -> their polynomial. Bounded: expressions come
# from shapes of the models inferred in this process.
_KNOWN: dict[str, dict] = {}
_MAX_KNOWN = 100_000
_MAX_TERMS = 8          # beyond this an expression helps nobody: give up
# Floor atoms this module produced -> (numerator polynomial, divisor).
_FLOORS: dict[str, tuple[dict, int]] = {}


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


def _format(p: dict, atom=None) -> str:
    # Highest degree first, then by name; the constant last. `atom` prints
    # floor atoms another way (compact()).
    terms = sorted(p.items(), key=lambda mc: (-len(mc[0]), mc[0]))
    out = []
    for i, (mono, coeff) in enumerate(terms):
        sign = "-" if coeff < 0 else "+"
        mag = abs(coeff)
        if mono:
            body = "*".join((atom(n) if atom else n) if n in _FLOORS
                            else n if not any(ch in n for ch in "+-*/() ") else f"({n})" for n in mono)
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


def floor_div(p: dict, c: int) -> Optional[dict]:
    """floor(p / c) for a positive int c, as a polynomial that may hold a
    floor atom; None when the atom would be too long to help anyone."""
    if c <= 0:
        return None
    if c == 1:
        return dict(p)
    quot, rest = {}, {}
    for m, k in p.items():
        q, r = divmod(k, c)
        if q:
            quot[m] = q
        if r:
            rest[m] = r
    if not rest or list(rest) == [()]:
        return quot                        # 0 <= constant < c adds nothing
    k = rest.get((), 0)
    inner = [m for m in rest if m]
    if len(inner) == 1 and len(inner[0]) == 1 and rest[inner[0]] == 1 and inner[0][0] in _FLOORS:
        num, a = _FLOORS[inner[0][0]]
        nested = floor_div(add(num, {(): k * a}), a * c)
        return None if nested is None else add(quot, nested)
    if len(rest) > _MAX_TERMS:
        return None
    atom = _floor_name(rest, c)
    if atom is None:
        return None
    return add(quot, {(atom,): 1})


def _floor_name(num: dict, c: int) -> Optional[str]:
    text = _format(num)
    single = len(num) == 1 and next(iter(num.values())) == 1
    name = f"floor({text}/{c})" if single else f"floor(({text})/{c})"
    known = _FLOORS.get(name)
    if known is None:
        if len(_FLOORS) >= _MAX_KNOWN:
            return None
        _FLOORS[name] = (dict(num), c)
    elif known != (num, c):
        return None                        # a file's name spelled like ours: stay unknown
    return name


def compact(d) -> str:
    """A dim as a user reads it on the canvas: ? for unknown, and rounding
    divisions as ceil/floor brackets (`floor((H+1)/2)+1` reads `⌈H/2⌉+1`)."""
    if d is None:
        return "?"
    if isinstance(d, int):
        return str(d)
    if d in _FLOORS:
        return _compact_atom(d)
    p = _KNOWN.get(d)
    if p is None:
        return d
    return _format(p, _compact_atom)


def _compact_atom(name: str) -> str:
    num, c = _FLOORS[name]
    k = num.get((), 0)
    if k == c - 1:                         # floor((X + c-1)/c) is ceil(X/c)
        rest = {m: v for m, v in num.items() if m}
        return f"⌈{_inner(rest)}/{c}⌉"
    return f"⌊{_inner(num)}/{c}⌋"


def _inner(p: dict) -> str:
    text = _format(p, _compact_atom)
    return text if len(p) == 1 and next(iter(p.values())) == 1 else f"({text})"
