"""Fresh symbols for dims nobody can work out, and what "unknown" looks like
in real files.

Where a rule cannot tell a dim (data-dependent sizes, two unrelated symbols
meeting in a broadcast, an input declared without a size) the engine names
it `?1`, `?2` ... instead of leaving it blank, and the name travels with the
value: a Conv's output, the BatchNorm, the Add and the activation after it
all show the same `?7`, so equal unknowns stay visibly equal. One name
stands for one size within a run (tests/infer/test_exec_shapes.py checks
that against the executor).

A name is tied to (value, axis) for the life of an `Inference`, so
re-inferring after an edit gives the same names and propagation stops where
nothing changed. Values inside model-local function bodies get none: a body
is inferred once per call, and a name shared by two calls would claim their
sizes equal; the call's outputs are named at the call instead.

Real files say "any size" in several ways: no dim at all, `dim_param` "?"
or "" (some converters), and `dim_value` -1 (Paddle). `any_size()` reads them
all as unknown, so -1 never takes part in arithmetic and two "?" are not one
symbol.
"""
from __future__ import annotations

from ..ir.types import OptionalType, SequenceType, TensorType

PREFIX = "?"
_ANY_SIZE_NAMES = frozenset({"?", "", "-1"})


def is_fresh(d) -> bool:
    """True for a name made here (`?3`); expressions over one are not."""
    return isinstance(d, str) and d.startswith(PREFIX) and d[1:].isdigit()


def mentions_fresh(d) -> bool:
    """True for a fresh name or an expression built on one (`?3+1`)."""
    return isinstance(d, str) and PREFIX in d


def any_size(t):
    """A declared type with the file's spellings of "any size" made unknown."""
    if type(t) is TensorType:
        shape = t.shape
        if shape is None:
            return t
        for d in shape:
            if d is None or (type(d) is int and d >= 0) or (type(d) is str and d not in _ANY_SIZE_NAMES):
                continue
            return TensorType(t.elem_type, tuple(_dim(x) for x in shape), t.denotation, t.dim_denotations)
        return t
    if isinstance(t, SequenceType):
        elem = any_size(t.elem)
        return t if elem is t.elem else SequenceType(elem, t.denotation)
    if isinstance(t, OptionalType):
        elem = any_size(t.elem)
        return t if elem is t.elem else OptionalType(elem, t.denotation)
    return t


def _dim(d):
    if type(d) is int:
        return d if d >= 0 else None
    if type(d) is str and d in _ANY_SIZE_NAMES:
        return None
    return d


class FreshSymbols:
    """Hands out `?N` per (value, axis), stable across re-inference."""

    def __init__(self):
        self._names: dict = {}
        self._next = 1
        self._taken: frozenset = frozenset()

    def avoid(self, names) -> None:
        """Names a file already uses (a copy we wrote earlier): never reuse."""
        self._taken = frozenset(n for n in names if is_fresh(n))
        if self._taken and self._names:
            # A name handed out before the file came to use it is given up.
            self._names = {k: n for k, n in self._names.items() if n not in self._taken}

    def declares_new(self, t) -> bool:
        """Whether a declared type uses a name of our form (`?N`) that `avoid`
        was not told about (then names already handed out may clash)."""
        shape = getattr(t, "shape", None)
        if type(t) is not TensorType or not shape:
            return False
        return any(is_fresh(d) and d not in self._taken for d in shape)

    def fill(self, key, t):
        """`t` with every unknown dim of a known rank named; `key` is the value."""
        if type(t) is TensorType:
            shape = t.shape
            if shape is None or None not in shape:
                return t
            return TensorType(t.elem_type, tuple(self._name(key, i) if d is None else d
                                                 for i, d in enumerate(shape)),
                              t.denotation, t.dim_denotations)
        if isinstance(t, SequenceType):
            elem = self.fill((key, "elem"), t.elem)
            return t if elem is t.elem else SequenceType(elem, t.denotation)
        if isinstance(t, OptionalType):
            elem = self.fill((key, "elem"), t.elem)
            return t if elem is t.elem else OptionalType(elem, t.denotation)
        return t

    def _name(self, key, axis) -> str:
        k = (key, axis)
        name = self._names.get(k)
        if name is None:
            name = f"{PREFIX}{self._next}"
            self._next += 1
            while name in self._taken:
                name = f"{PREFIX}{self._next}"
                self._next += 1
            self._names[k] = name
        return name
