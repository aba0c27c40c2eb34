"""IR types <-> TypeProto messages (the IR's types know nothing of protobuf)."""
from __future__ import annotations

from typing import Optional

from ..ir.text import as_text
from ..ir.types import (MapType, OpaqueType, OptionalType, SequenceType, Shape, SparseTensorType, TensorType, Type,
                        UndefinedType)
from ..proto import onnx_pb2 as pb


def _shape_from_proto(msg, lost: Optional[list]) -> tuple[Shape, Optional[tuple]]:
    dims = []
    notes = []
    for d in msg.dim:
        which = d.WhichOneof("value")
        dims.append(d.dim_value if which == "dim_value" else as_text(d.dim_param) if which == "dim_param" else None)
        note = d.denotation
        notes.append(as_text(note))
        if lost is not None and not note and d.HasField("denotation"):
            lost.append("dim denotation")
    return tuple(dims), (tuple(notes) if any(notes) else None)


_INT64_MIN, _INT64_MAX = -(1 << 63), (1 << 63) - 1
_INT32_MIN, _INT32_MAX = -(1 << 31), (1 << 31) - 1


def _shape_to_proto(shape: Shape, notes: Optional[tuple], msg) -> None:
    for i, d in enumerate(shape):
        dim = msg.dim.add()
        if isinstance(d, int):
            # Only inference on damaged sizes gives a dim past int64: the
            # file format cannot hold it, so it is written as unknown.
            if _INT64_MIN <= d <= _INT64_MAX:
                dim.dim_value = d
        elif isinstance(d, str):
            dim.dim_param = d
        if notes and notes[i]:
            dim.denotation = notes[i]


def type_from_proto(tp: pb.TypeProto) -> Type:
    return _read(tp, None)


def type_from_proto_exact(tp: pb.TypeProto) -> tuple[Type, bool]:
    """type_from_proto, and whether type_to_proto gives `tp` back from it.
    It does not where the file set a field to its default explicitly (an
    `elem_type: 0`, an empty denotation: proto2 tells them from absent
    ones, the IR's types do not) or holds a kind of type this schema does
    not know. The reader keeps such a declaration's message to write it as
    read (convert.py). Text that is not UTF-8 does not count: a save writes
    it with U+FFFD on purpose (tests/serde/test_damaged_text.py)."""
    lost: list = []
    return _read(tp, lost), not lost


def _read(tp: pb.TypeProto, lost: Optional[list]) -> Type:
    """The IR type of `tp`; when `lost` is a list, each field the IR's type
    cannot tell from its absence is named in it (the same walk: checked
    apart, it cost as much as reading the type)."""
    which = tp.WhichOneof("value")
    den = tp.denotation
    if lost is not None and not den and tp.HasField("denotation"):
        lost.append("denotation")
    if which == "tensor_type" or which == "sparse_tensor_type":
        t = tp.tensor_type if which == "tensor_type" else tp.sparse_tensor_type
        shape, notes = _shape_from_proto(t.shape, lost) if t.HasField("shape") else (None, None)
        cls = TensorType if which == "tensor_type" else SparseTensorType
        elem = t.elem_type
        if lost is not None and not elem and t.HasField("elem_type"):
            lost.append("elem_type")
        return cls(elem, shape, den, notes)
    if which == "sequence_type" or which == "optional_type":
        t = tp.sequence_type if which == "sequence_type" else tp.optional_type
        cls = SequenceType if which == "sequence_type" else OptionalType
        return cls(_read(t.elem_type, lost) if t.HasField("elem_type") else None, den)
    if which == "map_type":
        m = tp.map_type
        if lost is not None and not m.key_type and m.HasField("key_type"):
            lost.append("key_type")
        return MapType(m.key_type, _read(m.value_type, lost) if m.HasField("value_type") else None, den)
    if which == "opaque_type":
        o = tp.opaque_type
        if lost is not None and ((not o.domain and o.HasField("domain")) or (not o.name and o.HasField("name"))):
            lost.append("opaque")
        return OpaqueType(o.domain, o.name, den)
    if lost is not None and tp.ByteSize() != pb.TypeProto(denotation=den).ByteSize():
        lost.append("unknown kind")     # a newer ONNX's kind of type: written without it
    return UndefinedType(den)


def type_to_proto(t: Type, out: Optional[pb.TypeProto] = None) -> pb.TypeProto:
    tp = pb.TypeProto() if out is None else out
    tp.SetInParent()   # an empty TypeProto is still a present field
    if isinstance(t, (TensorType, SparseTensorType)):
        msg = tp.tensor_type if isinstance(t, TensorType) else tp.sparse_tensor_type
        msg.SetInParent()
        if t.elem_type and _INT32_MIN <= t.elem_type <= _INT32_MAX:   # else: an inferred type from a damaged attribute
            msg.elem_type = t.elem_type
        if t.shape is not None:
            msg.shape.SetInParent()
            _shape_to_proto(t.shape, t.dim_denotations, msg.shape)
    elif isinstance(t, (SequenceType, OptionalType)):
        msg = tp.sequence_type if isinstance(t, SequenceType) else tp.optional_type
        msg.SetInParent()
        if t.elem is not None:
            type_to_proto(t.elem, msg.elem_type)
    elif isinstance(t, MapType):
        tp.map_type.SetInParent()
        if t.key_type:
            tp.map_type.key_type = t.key_type
        if t.value is not None:
            type_to_proto(t.value, tp.map_type.value_type)
    elif isinstance(t, OpaqueType):
        tp.opaque_type.SetInParent()
        if t.domain:
            tp.opaque_type.domain = t.domain
        if t.name:
            tp.opaque_type.name = t.name
    if t.denotation:
        tp.denotation = t.denotation
    return tp
