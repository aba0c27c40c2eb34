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

A main-graph input's "any size" dim is different: it is one size the caller
chooses, fixed by the file (input and axis), not by the order of a walk. It
is named `<input>.<axis>` (`x.2` for input x, axis 2), and what is computed
from it is an expression over that name (`floor((x.2+1)/2)` after a stride-2
Conv). Unlike `?N` these names are written to files (Inference.write,
`onnxstudio infer`, set-shape's re-derived declarations) as dim_param
strings: they mean the same in the next run, which names the dim the same.
Why they cannot be mistaken for another size:
- `<input>.<digits>` is one-to-one: the axis has no dot, so the name tells
  input and axis apart, and two inputs never get one name;
- a name some graph input of the file declares (where a file introduces a
  size of its own, e.g. `p2o.DynamicDimension.0`) is never taken: the dim
  becomes `x.2#2` (#3 ...) instead;
- they never look like `?N` (no leading ?), nor like an any-size spelling.
A value_info or output declaration that uses the name is read as saying
that value has that input's size: it is what our own written copies say,
so a written copy infers as it was written.
"""
from __future__ import annotations

import re

from ..ir.types import OptionalType, SequenceType, TensorType

PREFIX = "?"
_ANY_SIZE_NAMES = frozenset({"?", "", "-1"})
# `?N` as a whole symbol inside an expression we print (`floor((?3+1)/2)`):
# delimited by the operators and brackets symexpr writes, so a name that
# merely holds a "?" (an input called "a?1" gives `a?1.0`) is not one.
_FRESH_IN_TEXT = re.compile(r"(?:^|[-+*/( ])\?\d+(?=$|[-+*/) ])")


def is_fresh(d) -> bool:
    """True for a name made here (`?3`); expressions over one are not."""
    return isinstance(d, str) and d.startswith(PREFIX) and d[1:].isdigit()


def mentions_fresh(d) -> bool:
    """True for a fresh name or an expression built on one (`?3+1`)."""
    return isinstance(d, str) and PREFIX in d and _FRESH_IN_TEXT.search(d) is not None


def as_written(t):
    """`t` as a file gets it: our `?N` names (and expressions over them) mean
    something only within one inference, so they become unknown dims
    (another reader, or our next run, would take such a name for a declared
    symbol and could meet it elsewhere). Input-dim names (`x.2`) stay."""
    shape = getattr(t, "shape", None)
    if type(t) is not TensorType or not shape or not any(mentions_fresh(d) for d in shape):
        return t
    return TensorType(t.elem_type, tuple(None if mentions_fresh(d) else d for d in shape),
                      t.denotation, t.dim_denotations)


def declared_names(graph) -> tuple[set, set]:
    """(every dim name the file's declarations use, the names its graph
    inputs declare), over the graph and all its bodies."""
    names, introduced = set(), set()
    for g in graph.walk():
        for vals, into in ((g.inputs, introduced), (g.outputs, None), (g.value_info, None)):
            for v in vals:
                shape = getattr(v.type, "shape", None)
                if shape:
                    for d in shape:
                        if type(d) is str:
                            names.add(d)
                            if into is not None:
                                into.add(d)
    return names, introduced


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
    """Hands out `?N` per (value, axis) and `<input>.<axis>` per main-graph
    input dim, stable across re-inference."""

    def __init__(self):
        self._names: dict = {}
        self._next = 1
        self._taken: frozenset = frozenset()
        self._introduced: frozenset = frozenset()
        self._input_dims: dict = {}     # name -> its key, for the names of input dims

    def avoid(self, names, introduced=()) -> None:
        """`names`: every dim name the file uses (a `?N` there, from a copy
        we wrote earlier, is never reused); `introduced`: the names its graph
        inputs declare (never given to an input dim of ours)."""
        self._taken = frozenset(n for n in names if is_fresh(n))
        self._introduced = frozenset(introduced)
        if (self._taken or self._introduced) and self._names:
            # A name handed out before the file came to use it is given up.
            self._names = {k: n for k, n in self._names.items()
                           if n not in self._taken and n not in self._introduced}
            self._input_dims = {n: k for n, k in self._input_dims.items() if n not in self._introduced}

    def declares_new(self, t, is_input=False) -> bool:
        """Whether a declared type uses a name of our form (`?N`) that `avoid`
        was not told about, or (`is_input`) an input declares a name we gave
        an input dim: then names already handed out may clash."""
        shape = getattr(t, "shape", None)
        if type(t) is not TensorType or not shape:
            return False
        given = self._input_dims if is_input else ()
        return any(type(d) is str and (is_fresh(d) and d not in self._taken or d in given) for d in shape)

    def fill(self, key, t, input_name=None):
        """`t` with every unknown dim of a known rank named; `key` is the
        value. With `input_name` (a main-graph input) the names are
        `<input_name>.<axis>`, else `?N`."""
        if type(t) is TensorType:
            shape = t.shape
            if shape is None or None not in shape:
                return t
            if input_name is not None:
                return TensorType(t.elem_type, tuple(self._input_dim(key, input_name, i) if d is None else d
                                                     for i, d in enumerate(shape)),
                                  t.denotation, t.dim_denotations)
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

    def _input_dim(self, key, input_name, axis) -> str:
        # Keyed by the name too: a renamed input names its dims anew.
        k = (key, input_name, axis)
        name = self._names.get(k)
        if name is None:
            base = name = f"{input_name}.{axis}"
            n = 1
            while name in self._introduced or self._input_dims.get(name, k) != k:
                n += 1
                name = f"{base}#{n}"
            self._names[k] = name
            self._input_dims[name] = k
        return name
