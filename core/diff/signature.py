"""What two nodes or two weights must share to be taken for the same thing.

Attribute signatures are plain tuples (hashable, cheap to compare); tensor
contents are hashed only when asked, so a weight that is never a candidate
for a content match is never read from its external file."""
from __future__ import annotations

import hashlib
from typing import Optional

import numpy as np

from ..errors import ExternalDataError
from ..ir import AttrType, Node, Tensor, Value
from ..ir.dtypes import FLOAT_TYPES, INTEGER_TYPES
from ..ir.tensor import NAMELESS
from ..schemas import type_string
from ..serde import codec


def tensor_key(t) -> tuple:
    """(dtype, shape): what a content match must agree on before any byte is read."""
    return (t.dtype, tuple(t.shape))


def _element_family(dtype: int) -> str:
    return "float" if dtype in FLOAT_TYPES else "integer" if dtype in INTEGER_TYPES else str(dtype)


def may_be_one_weight(ta, tb) -> bool:
    """Whether two weights of one name may be one weight, changed: unless
    both the kind of element (float or integer) and the rank differ. A
    float32 weight made float16 or int8 keeps its rank; dynamo's counter
    names (val_63) are not evidence that an int64 shape [3] and a float
    [64, 64] matrix are one weight."""
    return _element_family(ta.dtype) == _element_family(tb.dtype) or len(ta.shape) == len(tb.shape)


def unreadable_reason(t) -> Optional[str]:
    """Why a tensor's data cannot be read (a reference serde could not
    follow, a data file missing or too short), or None when it can. Only
    an external tensor is tried, and that maps its file without copying:
    the diff asks before comparing or hashing values, so one such weight
    leaves the rest of the comparison standing."""
    if not isinstance(t, Tensor):
        return None
    if t.unreadable is not None:
        return t.unreadable
    if not t.is_external:
        return None
    try:
        t.raw_bytes()
    except (ExternalDataError, codec.TensorDataError) as e:
        return _without_place(t, str(e))
    return None


def _without_place(t, text: str) -> str:
    """serde's words without the place they start with (the tensor's name,
    or for an attribute's tensor the node attribute holding it): the diff's
    rows name the place themselves."""
    own = f"tensor {t.name!r}: "
    if text.startswith(own):
        return text[len(own):]
    place, sep, rest = text.partition(": ")
    if not t.name and sep and ("/attribute " in place or place == NAMELESS):
        return rest
    return text


def tensor_digest(t) -> Optional[str]:
    """A hash of the tensor's bytes, or for a large tensor of 256 evenly
    spaced 256-byte pieces of them: enough to tell weights apart, and it
    reads 64 KB of a weight rather than all of it. Two weights with the
    same digest are paired; whether they are equal is decided by
    `changes.weight_change`, which compares every byte of that pair.
    None when the data cannot be read: such a weight pairs by what is known
    of it (name, dtype, shape), never by content."""
    if not isinstance(t, Tensor):
        return hashlib.sha1(t.to_dense().tobytes()).hexdigest()
    if unreadable_reason(t) is not None:
        return None
    raw = np.frombuffer(t.raw_bytes(), np.uint8)
    if raw.size > _WHOLE:
        step = raw.size // _PIECES
        raw = np.ascontiguousarray(raw[:step * _PIECES].reshape(_PIECES, step)[:, :_PIECE])
    return hashlib.sha1(raw).hexdigest()


_PIECES, _PIECE = 256, 256
_WHOLE = 2 * _PIECES * _PIECE


def attr_value_key(attr) -> object:
    """A hashable stand-in for one attribute's value."""
    t = attr.type
    v = attr.value
    if attr.ref_attr_name:
        return ("ref", attr.ref_attr_name)
    if t == AttrType.TENSOR and v is not None:
        return ("tensor", tensor_key(v), tensor_digest(v))
    if t == AttrType.TENSORS:
        return ("tensors", tuple((tensor_key(x), tensor_digest(x)) for x in v or ()))
    if t == AttrType.GRAPH:
        return ("graph", len(v.nodes) if v is not None else 0)
    if t == AttrType.GRAPHS:
        return ("graphs", tuple(len(g.nodes) for g in v or ()))
    if t in (AttrType.SPARSE_TENSOR, AttrType.SPARSE_TENSORS, AttrType.TYPE_PROTO, AttrType.TYPE_PROTOS):
        return (int(t), repr(v))
    if isinstance(v, (list, tuple)):
        return tuple(v)
    return v


def attr_signature(node: Node) -> tuple:
    return tuple(sorted((name, attr_value_key(a)) for name, a in node.attributes.items()))


def op_key(node: Node) -> tuple:
    return (node.domain or "", node.op_type, node.overload)


def value_kind(v: Optional[Value]) -> tuple:
    """What produces a value, for pairing the inputs of paired nodes: an
    initializer is only ever paired with an initializer, a Conv's output
    with a Conv's output."""
    if v is None:
        return ("none",)
    if v.producer is not None:
        return ("node",) + op_key(v.producer)
    if v.const is not None:
        return ("const",)
    return ("input",)


def types_agree(va: Value, vb: Value) -> bool:
    """Whether two graph inputs or outputs may be one renamed: the same
    kind and element types (dims may differ: an input made dynamic is the
    same input); a type not known in full agrees with anything."""
    ta, tb = type_string(va.type), type_string(vb.type)
    return ta is None or tb is None or ta == tb
