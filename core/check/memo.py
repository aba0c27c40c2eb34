"""Signature keys for memoising per-node rules.

Real models repeat a handful of node shapes (a Conv net has a few distinct
Conv/Add/Relu signatures), and the node rules read only the node's own
fields, the element types of its actuals and the run's Context. A key that
holds all of those lets a check run remember "this signature is clean" and
skip the rules for every later node with the same key.

What the key leaves out must not matter to any rule: node, input and output
names only appear in diagnostics' paths and messages, and a cached entry
only ever means "no diagnostics" (a node with findings is always checked in
full, so its paths and messages are its own). Nodes whose rules read more
than their own fields get no key (None):
  - graph attributes: subgraph checks depend on the enclosing scope;
  - sparse tensors, tensor lists and external data: not worth the key, and
    external data depends on the file system, which can change between
    re-checks of one session.
"""
from __future__ import annotations

from ..proto import onnx_pb2 as pb

_A = pb.AttributeProto.DESCRIPTOR.fields_by_name
_T = pb.TensorProto.DESCRIPTOR.fields_by_name
_ATTR_TENSOR = _A["t"].number
# Attribute fields whose content makes a node's result depend on more than
# the node itself (or would make the key as costly as the check).
_ATTR_UNKEYED = frozenset(_A[f].number for f in ("g", "graphs", "tensors", "sparse_tensor", "sparse_tensors"))
# The tensor rules read only these, for tensors stored in the file (data
# fields by their lengths; names and contents never).
_T_DATA = frozenset(_T[f].number for f in ("float_data", "int32_data", "string_data", "int64_data",
                                           "double_data", "uint64_data", "raw_data"))
_T_EXTERNAL_DATA = _T["external_data"].number
_EXTERNAL = pb.TensorProto.EXTERNAL


def tensor_key(t):
    """What `tensor_rules.check_tensor` reads of an in-file tensor, or None
    for external data."""
    if t.data_location == _EXTERNAL:
        return None
    parts = [t.data_type, t.data_location, tuple(t.dims)]
    for fd, value in t.ListFields():
        number = fd.number
        if number in _T_DATA:
            parts.append((number, len(value)))
        elif number == _T_EXTERNAL_DATA:
            return None
    return tuple(parts)


def attribute_key(a):
    """A hashable stand-in for everything the rules read of one attribute,
    or None when the attribute's checks must not be memoised."""
    fields = a.ListFields()
    tensor = None
    for fd, value in fields:
        number = fd.number
        if number == _ATTR_TENSOR:
            tensor = value
        elif number in _ATTR_UNKEYED:
            return None
    if tensor is None:
        # Small scalars and lists: the bytes are the cheapest exact key.
        return a.SerializeToString()
    tkey = tensor_key(tensor)
    if tkey is None:
        return None
    # Everything but the tensor exactly, the tensor by what is checked of it
    # (Constant tensors carry unique names and data, which no rule reads).
    return (tkey, *((fd.number, _hashable(value)) for fd, value in fields if fd.number != _ATTR_TENSOR))


def _hashable(value):
    if isinstance(value, (int, float, str, bytes)):
        return value
    if hasattr(value, "SerializeToString"):
        return value.SerializeToString()
    return tuple(_hashable(v) for v in value)     # a repeated field


def node_key(node, ins: tuple, outs: tuple):
    """Key for the node rules of `node`, or None when they must run.

    `ins` / `outs` are the element types the rules see for the actuals
    (None: unknown, "": an empty actual)."""
    if len(node.attribute):
        attrs = []
        for a in node.attribute:
            k = attribute_key(a)
            if k is None:
                return None
            attrs.append(k)
        attrs = tuple(attrs)
    else:
        attrs = ()
    return (node.op_type, node.domain, node.overload, len(node.metadata_props),
            len(node.device_configurations), attrs, ins, outs)
