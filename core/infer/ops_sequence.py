"""Sequence and optional operators."""
from __future__ import annotations

from ..ir.dtypes import DataType, is_known, type_name
from ..ir.types import OptionalType, SequenceType, TensorType
from .context import rule, tensor
from .findings import axis as axis_in_rank
from .findings import input_label


def join_types(a, b):
    """The most precise type both a and b are instances of (used for branches,
    sequence elements): equal dims stay, different dims become unknown."""
    if a is None or b is None:
        return a if b is None else b
    if isinstance(a, TensorType) and isinstance(b, TensorType):
        elem = a.elem_type if a.elem_type == b.elem_type else (a.elem_type or b.elem_type)
        if a.shape is None or b.shape is None or len(a.shape) != len(b.shape):
            return TensorType(elem, None)
        return TensorType(elem, tuple(x if x == y else None for x, y in zip(a.shape, b.shape)))
    if isinstance(a, SequenceType) and isinstance(b, SequenceType):
        return SequenceType(join_types(a.elem, b.elem))
    if isinstance(a, OptionalType) and isinstance(b, OptionalType):
        return OptionalType(join_types(a.elem, b.elem))
    return a


@rule("SequenceEmpty")
def sequence_empty(ctx):
    return [SequenceType(tensor(ctx.attr("dtype", DataType.FLOAT), None))]


@rule("SequenceConstruct")
def sequence_construct(ctx):
    elem = None
    for t in ctx.types:
        elem = join_types(elem, t)
    return [SequenceType(elem)]


@rule("SequenceInsert")
def sequence_insert(ctx):
    seq = ctx.type(0)
    old = seq.elem if isinstance(seq, SequenceType) else None
    _inserted_of_the_sequences_type(ctx, old)
    # An empty sequence's element shape says nothing; the tensor decides.
    if isinstance(old, TensorType) and old.shape is None:
        return [SequenceType(TensorType(old.elem_type or ctx.elem(1), None))]
    return [SequenceType(join_types(old, ctx.type(1)))]


def _inserted_of_the_sequences_type(ctx, elem) -> None:
    """A sequence's tensors share one element type, so the tensor inserted
    is of the sequence's (onnx and onnxruntime refuse another at load; a
    SequenceEmpty without dtype makes a sequence of float). A dtype that
    is no element type is the checker's finding alone."""
    have = elem.elem_type if isinstance(elem, TensorType) else 0
    given = ctx.elem(1)
    if have and given and have != given and is_known(have) and is_known(given):
        ctx.error("node.type-mismatch", f"{input_label(ctx, 1)} is {type_name(given)}, but {input_label(ctx, 0)} is "
                                        f"a sequence of {type_name(have)}: a sequence's tensors have one element "
                                        f"type; Cast the tensor to {type_name(have)}, or make the sequence one of "
                                        f"{type_name(given)} (SequenceEmpty's dtype)")


@rule("SequenceErase")
def sequence_erase(ctx):
    return [ctx.type(0)]


@rule("SequenceAt")
def sequence_at(ctx):
    seq = ctx.type(0)
    return [seq.elem if isinstance(seq, SequenceType) else None]


@rule("SequenceLength")
def sequence_length(ctx):
    return [tensor(DataType.INT64, ())]


@rule("SplitToSequence")
def split_to_sequence(ctx):
    elem, shape = ctx.elem(0), ctx.shape(0)
    if shape is None:
        return [SequenceType(tensor(elem, None))]
    r = len(shape)
    axis = axis_in_rank(ctx, ctx.attr("axis", 0), r)
    if axis is None:
        return [SequenceType(tensor(elem, None))]
    out = list(shape)
    if ctx.has_input(1):
        split = ctx.const(1)
        if split is not None and split.ndim == 0:
            d = shape[axis]
            s = int(split)
            out[axis] = s if isinstance(d, int) and d % s == 0 else None
        else:
            out[axis] = None
    elif ctx.attr("keepdims", 1):
        out[axis] = 1
    else:
        del out[axis]
    return [SequenceType(tensor(elem, out))]


@rule("ConcatFromSequence")
def concat_from_sequence(ctx):
    seq = ctx.type(0)
    el = seq.elem if isinstance(seq, SequenceType) else None
    if not isinstance(el, TensorType):
        return [tensor(0, None)]
    if el.shape is None:
        return [tensor(el.elem_type, None)]
    new_axis = ctx.attr("new_axis", 0)
    r = len(el.shape) + (1 if new_axis else 0)
    # With new_axis the tensors are stacked along an axis of the output,
    # one rank above theirs.
    axis = axis_in_rank(ctx, ctx.attr("axis", 0), r,
                        what="the output (each tensor of the sequence, one more with new_axis)" if new_axis
                        else "each tensor of the sequence")
    if axis is None:
        return [tensor(el.elem_type, (None,) * r)]
    out = list(el.shape)
    if new_axis:
        out.insert(axis, None)
    elif 0 <= axis < len(out):
        out[axis] = None
    return [tensor(el.elem_type, out)]


@rule("SequenceMap")
def sequence_map(ctx):
    body = ctx.attr("body")
    ins = []
    for t in ctx.types:
        ins.append(t.elem if isinstance(t, SequenceType) else t)
    outs = ctx.driver.infer_subgraph(body, ins) if ctx.driver and body is not None else []
    return [SequenceType(o) for o in outs]


@rule("Optional")
def optional(ctx):
    if "type" in ctx.attrs:
        return [OptionalType(ctx.attrs["type"])]
    return [OptionalType(ctx.type(0))]


@rule("OptionalGetElement")
def optional_get_element(ctx):
    t = ctx.type(0)
    return [t.elem if isinstance(t, OptionalType) else t]


@rule("OptionalHasElement")
def optional_has_element(ctx):
    return [tensor(DataType.BOOL, ())]
