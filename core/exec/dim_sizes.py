"""Sizes for the free dims of a run's inputs, as `onnxstudio run --dim`
asks for them, turned into the table random_value and fill_dims read
(feeds.py): {symbol: size} and {"input[axis]": size}.

    resolve_dim_sizes(inputs, [("batch", "2"), ("input_ids[1]", "32")])

Two forms of request:
- `SYMBOL=SIZE` sizes a symbolic dim wherever it appears (every input
  sharing `batch` gets 2);
- `INPUT[AXIS]=SIZE` sizes one axis of one input. When that axis is a
  symbolic dim, the size goes to the symbol, so every input sharing it
  agrees (input_ids and attention_mask both [batch, seq]: input_ids[1]=32
  makes both 32 long); an unnamed or unknown axis is sized on its own.

A size is read with the shared dims grammar (core/dims_text.py
parse_size). A request that would change nothing is refused, never
ignored: a symbol no input has (the message lists those there are), an
input that is not one of the run's, an axis beyond its rank, and two
requests giving one symbol different sizes. DimSizeError says which.
"""
from __future__ import annotations

import re
from typing import Iterable

from ..dims_text import DimsTextError, parse_size
from ..ir.types import OptionalType, SequenceType, TensorType
from .values import ANONYMOUS_DIMS

_AXIS = re.compile(r"(?P<input>.+)\[(?P<axis>[0-9]+)\]\Z")
_SHOWN = 12          # symbols or inputs listed in a message before "..."


class DimSizeError(ValueError):
    """A request that names no dim, or a size that is not one. The message
    starts with the request as given (`seq=abc: ...`)."""


def _shape(value):
    t = value.type
    while isinstance(t, (OptionalType, SequenceType)):
        t = t.elem
    return t.shape if isinstance(t, TensorType) else None


def _is_symbol(d) -> bool:
    return isinstance(d, str) and d not in ANONYMOUS_DIMS


def symbols_of(inputs) -> list:
    """The symbolic dims of `inputs`' shapes, in order of first appearance."""
    found: dict = {}
    for v in inputs:
        for d in _shape(v) or ():
            if _is_symbol(d):
                found.setdefault(d, None)
    return list(found)


def _listed(names) -> str:
    names = list(names)
    shown = ", ".join(names[:_SHOWN])
    return shown + (f" and {len(names) - _SHOWN} more" if len(names) > _SHOWN else "")


def resolve_dim_sizes(inputs, requests: Iterable[tuple]) -> dict:
    """{symbol or "input[axis]": size} for `requests` ((key, size text)
    pairs, in the order given) against the run's `inputs` (IR Values with
    their types). DimSizeError for a request that names no dim or whose size
    is not one."""
    inputs = list(inputs)
    by_name = {v.name: v for v in inputs}
    symbols = symbols_of(inputs)
    sizes: dict = {}
    given_by: dict = {}          # key -> the request that set it, for conflicts
    for key, text in requests:
        request = f"{key}={text}"
        try:
            size = parse_size(text)
        except DimsTextError:
            raise DimSizeError(f"{request}: the size must be a whole number, 0 or more "
                               f"(at most 2**63-1)") from None
        target = _target(key, request, by_name, symbols)
        if target in sizes and sizes[target] != size:
            raise DimSizeError(f"{request}: {_what(key, target)} is already sized {sizes[target]} "
                               f"by {given_by[target]}")
        sizes[target] = size
        given_by.setdefault(target, request)
    return sizes


def _what(key: str, target: str) -> str:
    return target if key == target else f"{key} is the dim {target}, which"


def _target(key: str, request: str, by_name: dict, symbols: list) -> str:
    """The table key `key` sizes: a symbol, or "input[axis]" for an axis with no symbol."""
    m = _AXIS.match(key)
    if m is None:
        if key in symbols:
            return key
        if not symbols:
            raise DimSizeError(f"{request}: the inputs have no symbolic dims; size one axis with "
                               f"INPUT[AXIS]=SIZE (inputs: {_listed(by_name)})")
        raise DimSizeError(f"{request}: no input has a dim named {key}; the symbolic dims are "
                           f"{_listed(symbols)} (or size one axis with INPUT[AXIS]=SIZE)")
    name, axis = m.group("input"), int(m.group("axis"))
    value = by_name.get(name)
    if value is None:
        raise DimSizeError(f"{request}: no input named {name}; the inputs are {_listed(by_name)}")
    shape = _shape(value)
    if shape is None:
        raise DimSizeError(f"{request}: the rank of {name} is not declared; give it with --input")
    if axis >= len(shape):
        raise DimSizeError(f"{request}: {name} has rank {len(shape)}"
                           + (f" (axes 0 to {len(shape) - 1})" if shape else " (a scalar)"))
    d = shape[axis]
    return d if _is_symbol(d) else f"{name}[{axis}]"


__all__ = ["DimSizeError", "resolve_dim_sizes", "symbols_of"]
