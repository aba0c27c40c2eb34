"""Combining an inferred type with a declared one, and comparing precision."""
from __future__ import annotations

from typing import Optional

from ..ir.types import OptionalType, SequenceType, SparseTensorType, TensorType, UndefinedType
from .dims import merge_dim, more_or_equally_precise


def merge_types(inferred, declared) -> tuple[object, Optional[str]]:
    """Refine `inferred` with what `declared` knows; returns (type, conflict).

    `conflict` is None or a short reason; on conflict the inferred type wins
    (it follows from the inputs) and the caller reports both.
    """
    if isinstance(declared, UndefinedType):
        declared = None
    if inferred is None:
        return declared, None
    if declared is None:
        return inferred, None
    if isinstance(inferred, TensorType) and isinstance(declared, (TensorType, SparseTensorType)):
        if isinstance(declared, SparseTensorType):
            return inferred, None
        elem = inferred.elem_type or declared.elem_type
        conflict = None
        if inferred.elem_type and declared.elem_type and inferred.elem_type != declared.elem_type:
            conflict = "element type"
        a, b = inferred.shape, declared.shape
        if a is None:
            shape = b
        elif b is None:
            shape = a
        elif len(a) != len(b):
            shape, conflict = a, conflict or "rank"
        else:
            dims = []
            for x, y in zip(a, b):
                d, bad = merge_dim(x, y)
                if bad:
                    conflict = conflict or "dimension"
                dims.append(d)
            shape = tuple(dims)
        if elem == inferred.elem_type and shape == a:
            return inferred, conflict
        return TensorType(elem, shape, declared.denotation, declared.dim_denotations
                          if shape is not None and declared.shape is not None
                          and len(shape) == len(declared.shape) else None), conflict
    if isinstance(inferred, SequenceType) and isinstance(declared, SequenceType):
        elem, conflict = merge_types(inferred.elem, declared.elem)
        return SequenceType(elem, declared.denotation), conflict
    if isinstance(inferred, OptionalType) and isinstance(declared, OptionalType):
        elem, conflict = merge_types(inferred.elem, declared.elem)
        return OptionalType(elem, declared.denotation), conflict
    if type(inferred) is not type(declared):
        return inferred, "kind"
    return inferred, None


def common_type(a, b):
    """What `a` and `b` both say: the element type if they share it (else
    unknown), the dims they agree on (else unknown), the rank if they share
    it (else rank unknown); None if either is unknown or their kinds differ.
    Unlike `ops_sequence.join_types` (a branch that says nothing leaves the
    other's type), nothing is taken from one side alone: this is for types
    that must hold for every one of several cases (the calls of a function)."""
    # Runs once per call for every value of a function body: the common
    # case (equal, or `a` already the more general) returns `a` unbuilt.
    if a is b:
        return a
    if a is None or b is None:
        return None
    if type(a) is TensorType and type(b) is TensorType:
        elem = a.elem_type if a.elem_type == b.elem_type else 0
        sa, sb = a.shape, b.shape
        if sa is None or sb is None or len(sa) != len(sb):
            shape = None
        elif sa == sb:
            shape = sa
        else:
            shape = tuple(x if x == y else None for x, y in zip(sa, sb))
        denotation = a.denotation if a.denotation == b.denotation else ""
        dim_denotations = a.dim_denotations if shape is not None and a.dim_denotations == b.dim_denotations else None
        if (elem == a.elem_type and shape == sa and denotation == a.denotation
                and dim_denotations == a.dim_denotations):
            return a
        return TensorType(elem, shape, denotation, dim_denotations)
    if type(a) is SequenceType and type(b) is SequenceType:
        return SequenceType(common_type(a.elem, b.elem))
    if type(a) is OptionalType and type(b) is OptionalType:
        return OptionalType(common_type(a.elem, b.elem))
    return a if a == b else None


def at_least_as_precise(ours, theirs) -> bool:
    """True when `ours` agrees with `theirs` and knows at least as much."""
    if theirs is None:
        return True
    if ours is None:
        return False
    if isinstance(theirs, TensorType):
        if not isinstance(ours, TensorType):
            return False
        if theirs.elem_type and ours.elem_type != theirs.elem_type:
            return False
        if theirs.shape is None:
            return True
        if ours.shape is None or len(ours.shape) != len(theirs.shape):
            return False
        return all(more_or_equally_precise(x, y) for x, y in zip(ours.shape, theirs.shape))
    if isinstance(theirs, (SequenceType, OptionalType)):
        return type(ours) is type(theirs) and at_least_as_precise(ours.elem, theirs.elem)
    return type(ours) is type(theirs)
