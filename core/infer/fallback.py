"""Element types from the operator signature table, for outputs a rule could
not type (the rule failed on a malformed node, or left an output empty).

An output whose type constraint is shared with an input takes that input's
element type; a constraint (or literal) allowing exactly one tensor type
gives that type. Shapes stay unknown. Only the failure path pays for this.
"""
from __future__ import annotations

from typing import Optional

from ..ir.dtypes import from_type_name
from ..ir.types import TensorType


def _single_tensor_type(allowed) -> int:
    if len(allowed) != 1:
        return 0
    (s,) = tuple(allowed)
    if s.startswith("tensor(") and s.endswith(")"):
        try:
            return int(from_type_name(s[7:-1]))
        except KeyError:
            return 0
    return 0


def schema_output_types(domain: str, op_type: str, opset: int, input_types: list,
                        num_outputs: int) -> Optional[list]:
    from .. import schemas
    try:
        schema = schemas.bind_version(domain, op_type, opset)
    except Exception:  # noqa: BLE001 - table missing or unreadable: no fallback
        return None
    if schema is None:
        return None
    by_constraint: dict = {}
    for i, t in enumerate(input_types):
        formal = schema.input_formal(i)
        if formal is not None and isinstance(t, TensorType) and t.elem_type:
            by_constraint.setdefault(formal.type_str, t.elem_type)
    out = []
    for j in range(num_outputs):
        formal = schema.output_formal(j)
        if formal is None:
            out.append(None)
            continue
        elem = by_constraint.get(formal.type_str) or _single_tensor_type(
            schema.type_constraints.get(formal.type_str, (formal.type_str,)))
        out.append(TensorType(elem, None) if elem else None)
    return out
