"""Sequence and optional kernels. A sequence is a Python list of tensors
(never mutated: every kernel returns a new list), an empty optional is None."""
from __future__ import annotations

import numpy as np

from ..registry import kernel
from ._tensor_util import ints, norm_axis, scalar


def _position(seq, position, *, inserting=False):
    n = len(seq)
    p = int(scalar(position))
    # Insert accepts n itself (append); the others need an existing element.
    upper = n if inserting else n - 1
    if not -n <= p <= upper:
        raise IndexError(f"position {p} out of range for a sequence of {n}")
    return p + n if p < 0 else p


@kernel("SequenceConstruct", since=11)
def sequence_construct(*inputs):
    return list(inputs)


@kernel("SequenceEmpty", since=11)
def sequence_empty(dtype=1):
    return []


@kernel("SequenceInsert", since=11)
def sequence_insert(input_sequence, tensor, position=None):
    out = list(input_sequence)
    if position is None:
        out.append(tensor)
    else:
        out.insert(_position(out, position, inserting=True), tensor)
    return out


@kernel("SequenceAt", since=11)
def sequence_at(input_sequence, position):
    return input_sequence[_position(input_sequence, position)]


@kernel("SequenceErase", since=11)
def sequence_erase(input_sequence, position=None):
    out = list(input_sequence)
    del out[-1 if position is None else _position(out, position)]
    return out


@kernel("SequenceLength", since=11)
def sequence_length(input_sequence):
    return np.array(len(input_sequence), dtype=np.int64)


@kernel("SplitToSequence", since=11)
def split_to_sequence(input, split=None, axis=0, keepdims=1):  # noqa: A002
    axis = norm_axis(axis, input.ndim)
    n = input.shape[axis]
    if split is None:
        # One element per slice; keepdims decides whether the axis stays.
        parts = np.split(input, n, axis=axis) if n else []
        return parts if keepdims else [np.squeeze(p, axis=axis) for p in parts]
    split = np.asarray(split)
    if split.ndim == 0:
        chunk = int(split)
        bounds = list(range(chunk, n, chunk))
    else:
        sizes = ints(split)
        if sum(sizes) != n:
            raise ValueError(f"split sizes {sizes} do not add up to dimension {n}")
        bounds = list(np.cumsum(sizes)[:-1])
    return np.split(input, bounds, axis=axis)


@kernel("ConcatFromSequence", since=11)
def concat_from_sequence(input_sequence, axis, new_axis=0):
    if not input_sequence:
        raise ValueError("ConcatFromSequence of an empty sequence")
    rank = input_sequence[0].ndim
    if new_axis:
        return np.stack(input_sequence, axis=norm_axis(axis, rank + 1))
    return np.concatenate(input_sequence, axis=norm_axis(axis, rank))


@kernel("SequenceMap", since=17, context=True)
def sequence_map(ctx, input_sequence, *additional_inputs, body):
    n_out = ctx.num_outputs or len(body.outputs)
    results = [[] for _ in range(n_out)]
    for extra in additional_inputs:
        if isinstance(extra, list) and len(extra) != len(input_sequence):
            raise ValueError(f"sequence inputs differ in length: {len(input_sequence)} and {len(extra)}")
    # Sequences are taken element by element, tensors are passed whole.
    for i, item in enumerate(input_sequence):
        args = [item] + [e[i] if isinstance(e, list) else e for e in additional_inputs]
        for column, value in zip(results, ctx.run_subgraph(body, args)):
            column.append(value)
    return tuple(results)


@kernel("Optional", since=15)
def optional(input=None, type=None):  # noqa: A002  (operator's own names)
    return input


@kernel("OptionalHasElement", since=15)
def optional_has_element(input=None):  # noqa: A002
    return np.array(input is not None)


@kernel("OptionalGetElement", since=15)
def optional_get_element(input):  # noqa: A002
    if input is None:
        raise ValueError("OptionalGetElement on an empty optional")
    return input
