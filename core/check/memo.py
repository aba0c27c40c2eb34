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
  - attributes over MAX_KEY_BYTES serialised;
  - sparse tensors, tensor lists and external data: not worth the key, and
    external data depends on the file system, which can change between
    re-checks of one session.
"""
from __future__ import annotations

import re

from .. import schemas
from ..proto import onnx_pb2 as pb
from .elem_types import output_types

_A = pb.AttributeProto.DESCRIPTOR.fields_by_name
_ATTR_TENSOR = _A["t"].number
_NAME_FIELD, _TYPE_FIELD = _A["name"], _A["type"]
# Attribute fields whose content makes a node's result depend on more than
# the node itself (or would make the key as costly as the check).
_ATTR_UNKEYED = frozenset(_A[f].number for f in ("g", "graphs", "tensors", "sparse_tensor", "sparse_tensors"))
_EXTERNAL = pb.TensorProto.EXTERNAL


def _tag(number: int) -> bytes:
    """Wire tag of a length-delimited field, as a serialised message has it."""
    value, out = (number << 3) | 2, bytearray()
    while True:
        byte, value = value & 0x7F, value >> 7
        out.append(byte | (0x80 if value else 0))
        if not value:
            return bytes(out)


# Any tag byte of a tensor or graph field in an attribute's bytes sends it
# down the exact (slower) path; a false alarm inside a value only costs time.
_PAYLOAD_TAG = re.compile(b"|".join(re.escape(_tag(n)) for n in sorted(_ATTR_UNKEYED | {_ATTR_TENSOR})))
# Attributes longer than this (tree ensembles, big lookup tables) are not
# memoised: such nodes rarely repeat, and keying them costs more than
# checking them.
MAX_KEY_BYTES = 512
# Ops whose derived output type comes from an attribute (elem_types).
ATTRIBUTE_TYPED_OPS = frozenset({"Cast", "Constant", "ConstantOfShape"})


def tensor_key(t):
    """What `tensor_rules.check_tensor` reads of an in-file tensor (element
    type, dims, the length of each data field), or None for external data."""
    if t.data_location == _EXTERNAL:
        return None
    # Explicit reads beat ListFields here: it would copy raw_data whole.
    return (t.data_type, tuple(t.dims), len(t.raw_data), len(t.float_data), len(t.int32_data),
            len(t.string_data), len(t.int64_data), len(t.double_data), len(t.uint64_data))


def attribute_key(a):
    """A hashable stand-in for everything the rules read of one attribute,
    or None when the attribute's checks must not be memoised."""
    data = None
    if not a.HasField("t"):
        data = a.SerializeToString()
        if len(data) > MAX_KEY_BYTES:
            return None
        if _PAYLOAD_TAG.search(data) is None:
            return data         # small scalars and lists: the bytes are an exact key
    fields = a.ListFields()
    tensor = None
    for fd, value in fields:
        number = fd.number
        if number == _ATTR_TENSOR:
            tensor = value
        elif number in _ATTR_UNKEYED:
            return None
    if tensor is None:
        return data if data is not None else a.SerializeToString()
    tkey = tensor_key(tensor)
    if tkey is None:
        return None
    if len(fields) == 3 and fields[0][0] is _NAME_FIELD and fields[2][0] is _TYPE_FIELD:
        # The usual form (name, t, type): nothing else is set.
        return (tkey, fields[0][1], fields[2][1])
    # Everything but the tensor exactly, the tensor by what is checked of it
    # (Constant tensors carry unique names and data, which no rule reads).
    return (tkey, *((fd.number, _hashable(value)) for fd, value in fields if fd.number != _ATTR_TENSOR))


def _hashable(value):
    if isinstance(value, (int, float, str, bytes)):
        return value
    if hasattr(value, "SerializeToString"):
        return value.SerializeToString()
    return tuple(_hashable(v) for v in value)     # a repeated field


def attributes_key(node):
    """attribute_key of every attribute of the node in order, or None."""
    if not len(node.attribute):
        return ()
    attrs = []
    for a in node.attribute:
        k = attribute_key(a)
        if k is None:
            return None
        attrs.append(k)
    return tuple(attrs)


def node_key(node, ins: tuple, outs: tuple, attrs=False):
    """Key for the node rules of `node`, or None when they must run.

    `ins` / `outs` are the element types the rules see for the actuals
    (None: unknown, "": an empty actual); `attrs` is attributes_key(node)
    when the caller has it."""
    if attrs is False:
        attrs = attributes_key(node)
    if attrs is None:
        return None
    return (node.op_type, node.domain, node.overload, len(node.metadata_props),
            len(node.device_configurations), attrs, ins, outs)


_UNSEEN = object()


def derive_and_key(g, scope, ctx) -> list:
    """Derive element types through graph `g` in node order (as
    graph_rules.infer_elem_types does, recording them in scope.inferred) and
    return each node's memo key as graph_rules.check_node_at would compute
    it. The full check's hot loop: one pass, each actual's type looked up
    once, derived types once per signature, no per-node scope objects."""
    types = scope.types
    types_get = types.get
    inferred = scope.inferred
    defs = scope.defs
    defs_get = defs.get
    parent = scope.parent
    lookup = ctx.type_lookup
    gpath = scope.graph_path
    schema_for = ctx.schema_for
    derived = ctx.derived_types
    has_field = pb.AttributeProto.HasField
    serialize = pb.AttributeProto.SerializeToString
    search_payload = _PAYLOAD_TAG.search
    own_unknown = lookup is None

    def type_at(name, i):
        # Scope.type_str at position i, spelled out for the common cases.
        t = types_get(name)
        if t is not None:
            return t
        t = inferred.get(name)
        if t is not None and defs_get(name, -3) < i:
            return t
        if parent is not None and name not in defs:
            return scope.at(i).type_str(name, ctx)
        if lookup is None:
            return None
        t = lookup(gpath, name)
        return schemas.type_string(t) if t is not None else None

    def record(outputs, outs, i):
        for k, name in enumerate(outputs):
            if not name or name in types or defs_get(name) != i:
                continue
            t = None if outs is None else outs[k]
            if t is None:
                inferred.pop(name, None)
            else:
                inferred[name] = t

    keys = []
    append = keys.append
    schema_cache = ctx.schema_cache
    for i, node in enumerate(g.node):
        op = node.op_type
        domain = node.domain
        schema = schema_cache.get((domain, op), _UNSEEN)
        if schema is _UNSEEN:
            schema = schema_for(node)
        outputs = list(node.output)
        derive = False
        for o in outputs:
            if o and o not in types:
                derive = True
                break
        if schema is None:
            if derive:
                record(outputs, None, i)
            append(None)
            continue
        inputs = node.input
        ins = tuple([type_at(n, i) if n else "" for n in inputs])
        # attributes_key, with its common case (no tensor, no graph) inline.
        attrs = []
        for a in node.attribute:
            if has_field(a, "t"):
                k = attribute_key(a)
            else:
                k = serialize(a)
                if len(k) > MAX_KEY_BYTES:
                    k = None
                elif search_payload(k) is not None:
                    k = attribute_key(a)
            if k is None:
                attrs = None
                break
            attrs.append(k)
        if attrs is not None:
            attrs = tuple(attrs)
        if derive:
            if op not in ATTRIBUTE_TYPED_OPS:
                sig = (op, domain, len(outputs), ins)
            elif attrs is not None:
                # The attribute key holds all _from_attributes reads
                # (Cast's "to", the tensor's data_type).
                sig = (op, domain, len(outputs), ins, attrs)
            else:
                sig = None
            outs = None if sig is None else derived.get(sig)
            if outs is None:
                known = dict(zip(inputs, ins))
                outs = output_types(node, schema, known.get)
                if sig is not None:
                    derived[sig] = outs
            record(outputs, outs, i)
        if attrs is None:
            append(None)
        else:
            # A node's own derived outputs are not visible at its position,
            # so these are the types its check sees (an undeclared output
            # defined here is unknown unless type_lookup knows it).
            out_types = tuple([(types_get(o) or (None if own_unknown and defs_get(o) == i else type_at(o, i)))
                               if o else "" for o in outputs])
            append((op, domain, node.overload, len(node.metadata_props), len(node.device_configurations),
                    attrs, ins, out_types))
    return keys
