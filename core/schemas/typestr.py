"""Type strings as operator type constraints spell them, and matching against
`ir.types` values.

Constraints say "tensor(float)", "seq(tensor(int64))", "optional(seq(...))",
"sparse_tensor(float)" and, in ai.onnx.ml, "map(string, float)" where the map
value is written as a bare element type. We normalise every spelling into one
canonical form (no spaces, map values always wrapped as tensors) so a match is
a set-membership test on strings, which keeps per-node checks cheap.
"""
from __future__ import annotations

from functools import lru_cache
from typing import Optional

from ..ir import types as T
from ..ir.dtypes import type_name

_KINDS = ("tensor", "sparse_tensor", "seq", "optional", "map")


def _split_top(text: str) -> list[str]:
    """Split "a, b(c, d)" at top-level commas."""
    parts, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        elif ch == "," and depth == 0:
            parts.append(text[start:i])
            start = i + 1
    parts.append(text[start:])
    return [p.strip() for p in parts]


@lru_cache(maxsize=None)
def normalize(type_str: str) -> str:
    """Canonical spelling of a constraint type string; ValueError if malformed."""
    s = type_str.replace(" ", "")
    if "(" not in s:
        # A bare element type only occurs as a map value: it means a tensor.
        return f"tensor({s})"
    kind, _, rest = s.partition("(")
    if kind not in _KINDS or not rest.endswith(")"):
        raise ValueError(f"not a type string: {type_str!r}")
    inner = rest[:-1]
    if kind in ("tensor", "sparse_tensor"):
        return f"{kind}({inner})"
    if kind == "map":
        key, value = _split_top(inner)
        return f"map({key},{normalize(value)})"
    return f"{kind}({normalize(inner)})"


def type_string(t) -> Optional[str]:
    """Canonical type string of an `ir.types` value; None when any part is unknown."""
    if isinstance(t, T.TensorType):
        return f"tensor({type_name(t.elem_type)})" if t.elem_type else None
    if isinstance(t, T.SparseTensorType):
        return f"sparse_tensor({type_name(t.elem_type)})" if t.elem_type else None
    if isinstance(t, T.SequenceType):
        inner = type_string(t.elem) if t.elem is not None else None
        return f"seq({inner})" if inner else None
    if isinstance(t, T.OptionalType):
        inner = type_string(t.elem) if t.elem is not None else None
        return f"optional({inner})" if inner else None
    if isinstance(t, T.MapType):
        inner = type_string(t.value) if t.value is not None else None
        if not t.key_type or not inner:
            return None
        return f"map({type_name(t.key_type)},{inner})"
    return None


def type_matches(t, type_str: str) -> bool:
    """Whether type `t` is the type `type_str` names.

    A type with unknown parts (elem_type 0, missing element type) matches:
    the checker only reports what it knows to be wrong.
    """
    actual = type_string(t)
    return actual is None or actual == normalize(type_str)


def allowed_set(type_strs) -> frozenset:
    """Normalised set for fast repeated matching (see `matches_any`)."""
    return frozenset(normalize(s) for s in type_strs)


def matches_any(t, allowed: frozenset) -> bool:
    actual = type_string(t)
    return actual is None or actual in allowed
