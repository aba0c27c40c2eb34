"""Rules for one AttributeProto on its own (no operator signature needed):
name, type field, the one-value-field rule, ref_attr_name placement."""
from __future__ import annotations

from ..proto import onnx_pb2 as pb
from .paths import shown
from .text_rules import damaged_text, ref_label

A = pb.AttributeProto
# (field, attribute type it implies, is repeated)
_VALUE_FIELDS = (
    ("f", A.FLOAT, False), ("i", A.INT, False), ("s", A.STRING, False),
    ("t", A.TENSOR, False), ("g", A.GRAPH, False), ("sparse_tensor", A.SPARSE_TENSOR, False),
    ("tp", A.TYPE_PROTO, False),
    ("floats", A.FLOATS, True), ("ints", A.INTS, True), ("strings", A.STRINGS, True),
    ("tensors", A.TENSORS, True), ("graphs", A.GRAPHS, True),
    ("sparse_tensors", A.SPARSE_TENSORS, True), ("type_protos", A.TYPE_PROTOS, True),
)
LIST_TYPES = frozenset({A.FLOATS, A.INTS, A.STRINGS, A.TENSORS, A.GRAPHS, A.SPARSE_TENSORS, A.TYPE_PROTOS})
TYPE_NAMES = {v: k for k, v in A.AttributeType.items()}


_IMPLIED = {fname: implied for fname, implied, _ in _VALUE_FIELDS}
# The same by field descriptor (what ListFields hands back; scan.py reads these).
IMPLIED_BY_FIELD = {A.DESCRIPTOR.fields_by_name[fname]: implied for fname, implied, _ in _VALUE_FIELDS}
# Types whose value may be absent without a finding: empty lists are legal,
# and proto3 writers drop 0 / 0.0 / "" scalars; a message-valued attribute
# without its message has no value at all.
MAY_BE_EMPTY = LIST_TYPES | {A.FLOAT, A.INT, A.STRING}
_REF_FIELD = A.DESCRIPTOR.fields_by_name["ref_attr_name"]
# The value field of each type, where it sits between name (1) and type (20).
_FIELD_OF_TYPE = {implied: fd for fd, implied in IMPLIED_BY_FIELD.items()
                 if fd.number < A.DESCRIPTOR.fields_by_name["type"].number}


def set_fields(attr: pb.AttributeProto) -> list:
    """(field, implied type) for every value field that carries a value."""
    # ListFields reports set optionals and non-empty repeated fields in one call.
    found = []
    for fd, _ in attr.ListFields():
        implied = _IMPLIED.get(fd.name)
        if implied is not None:
            found.append((fd.name, implied))
    return found


def check_attribute(attr: pb.AttributeProto, path: str, ctx, out) -> list:
    """Check one attribute on its own; returns its set value fields
    (as `set_fields`) so callers need not list them again."""
    if not attr.name:
        out.add("attr.name-missing", path, "the attribute has no name")
    fields = set_fields(attr)
    if attr.ref_attr_name:
        if attr.ref_attr_name.__class__ is bytes:
            # Told here, at the attribute, for a loaded model too: the file
            # form written from the IR keeps an unedited attribute's message.
            damaged_text(path, [ref_label(attr.ref_attr_name)], out, kept=True)
        if not ctx.in_function:
            out.add("attr.ref-outside-function", path,
                    f"refers to attribute {shown(attr.ref_attr_name)} of a caller, but is not inside a function body")
        else:
            if attr.ref_attr_name not in ctx.function_attrs:
                out.add("attr.ref-unknown", path,
                        f"refers to {shown(attr.ref_attr_name)}, which the function does not declare as an "
                        "attribute")
            if fields:
                out.add("attr.ref-with-value", path,
                        "an attribute that refers to the caller's must not also carry a value")
        return fields
    if ctx.ir_version >= 2 and not attr.type:
        out.add("attr.type-missing", path, "the attribute's type field is not set (required since IR version 2)")
    if len(fields) > 1:
        names = ", ".join(f for f, _ in fields)
        out.add("attr.multiple-values", path, f"several value fields are set ({names}); keep only one")
        return fields
    if fields:
        fname, implied = fields[0]
        if attr.type and attr.type != implied:
            out.add("attr.type-field-mismatch", path,
                    f"type says {TYPE_NAMES.get(attr.type, attr.type)} but the value is in field {fname!r}")
    elif attr.type and attr.type not in MAY_BE_EMPTY:
        out.add("attr.no-value", path, f"a {TYPE_NAMES.get(attr.type, attr.type)} attribute with no value")
    return fields


def lone_value(a, atype):
    """check_attribute's value rules in their fast form, for the lean pass
    (scan.py): the attribute's one value (True when it legally has none),
    or None when its fields call for check_attribute (several values, a
    value that does not fit the type, ref_attr_name, a missing message).
    A change to the rules above changes this too; test_check_scan.py holds
    the two equal on every model it finds."""
    fields = a.ListFields()
    if len(fields) == 3 and fields[1][0] is _FIELD_OF_TYPE.get(atype):
        # name, the value, type (fields come in number order): the usual form.
        return fields[1][1]
    value = None
    for fd, v in fields:
        implied = IMPLIED_BY_FIELD.get(fd)
        if implied is not None:
            if value is not None or implied != atype:
                return None
            value = v
        elif fd is _REF_FIELD:
            return None
    if value is None:
        return True if atype in MAY_BE_EMPTY else None
    return value
