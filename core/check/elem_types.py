"""Element types of values the file does not declare, derived from operator
signatures alone (no shapes): enough to check type constraints on graphs
without value_info.

Only sound steps are taken: an output whose type parameter is fixed by the
node's inputs has that type; a constraint allowing one type fixes it; Cast,
Constant and ConstantOfShape say their output type in an attribute. Anything
else stays unknown (None) and is not checked. Types here are canonical type
strings as `schemas.type_string` writes them.
"""
from __future__ import annotations

from .. import schemas
from ..ir.dtypes import ELEMENT_TYPES, type_name
from ..proto import onnx_pb2 as pb

A = pb.AttributeProto
_CONSTANT_ATTR_TYPES = {
    "value_float": "tensor(float)", "value_floats": "tensor(float)",
    "value_int": "tensor(int64)", "value_ints": "tensor(int64)",
    "value_string": "tensor(string)", "value_strings": "tensor(string)",
}


def _tensor(dtype: int):
    # A number that is no element type claims nothing (attr.dtype-invalid
    # or tensor.dtype-unknown says what is wrong).
    return f"tensor({type_name(dtype)})" if dtype in ELEMENT_TYPES else None


# Operators (default domain) whose output element type an attribute gives.
ATTRIBUTE_TYPED = frozenset({"Cast", "Constant", "ConstantOfShape"})


def type_from_attributes(node):
    """Output type fixed by an attribute (ATTRIBUTE_TYPED ops), or None."""
    op = node.op_type
    if op == "Cast":
        for a in node.attribute:
            if a.name == "to" and a.HasField("i"):
                return _tensor(a.i)
        return None
    if op == "Constant":
        for a in node.attribute:
            if a.name == "value" and a.HasField("t"):
                return _tensor(a.t.data_type)
            if a.name == "sparse_value" and a.HasField("sparse_tensor"):
                return _tensor(a.sparse_tensor.values.data_type)
            if a.name in _CONSTANT_ATTR_TYPES:
                return _CONSTANT_ATTR_TYPES[a.name]
        return None
    if op == "ConstantOfShape":
        for a in node.attribute:
            if a.name == "value":
                if a.HasField("t"):
                    return _tensor(a.t.data_type)
                if a.ref_attr_name:
                    return None     # the caller's value (inside a function): its type is not known here
        return "tensor(float)"
    return None


def output_types(node, schema, input_type) -> list:
    """Type strings of the node's outputs (None where unknown).

    `input_type(name) -> str | None` gives the type string of an input.
    """
    outs = [None] * len(node.output)
    if schema is None:
        return outs
    if node.domain in ("", "ai.onnx") and node.op_type in ATTRIBUTE_TYPED:
        t = type_from_attributes(node)
        return [t] + [None] * (len(outs) - 1) if outs else outs
    bound = {}
    for i, name in enumerate(node.input):
        if not name:
            continue
        formal = schema.input_formal(i)
        if formal is None or (formal.is_variadic and not formal.homogeneous):
            continue
        if formal.type_str not in schema.type_constraints:
            continue
        t = input_type(name)
        if t is None:
            continue
        prior = bound.setdefault(formal.type_str, t)
        if prior != t:
            bound[formal.type_str] = None     # inconsistent: reported elsewhere; claim nothing
    for k in range(len(outs)):
        formal = schema.output_formal(k)
        if formal is None or (formal.is_variadic and not formal.homogeneous):
            continue
        t = bound.get(formal.type_str)
        if t is None:
            allowed = schema.type_constraints.get(formal.type_str, (formal.type_str,))
            if len(allowed) == 1:
                t = schemas.normalize(allowed[0])
        outs[k] = t
    return outs
