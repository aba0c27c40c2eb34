"""Reductions: Reduce*, ArgMax/ArgMin."""
from __future__ import annotations

from ..ir.dtypes import DataType
from .context import rule, tensor
from . import findings

REDUCE_OPS = ("ReduceL1", "ReduceL2", "ReduceLogSum", "ReduceLogSumExp", "ReduceMax",
              "ReduceMean", "ReduceMin", "ReduceProd", "ReduceSum", "ReduceSumSquare")


def _reduced(shape, axes, keepdims):
    r = len(shape)
    drop = set()
    for a in axes:
        a = a + r if a < 0 else a
        if not 0 <= a < r:
            return None
        drop.add(a)
    if keepdims:
        return tuple(1 if i in drop else d for i, d in enumerate(shape))
    return tuple(d for i, d in enumerate(shape) if i not in drop)


@rule(*REDUCE_OPS)
def reduce(ctx):
    elem, shape = ctx.elem(0), ctx.shape(0)
    keepdims = ctx.attr("keepdims", 1) == 1     # any other value is 0 (onnx, onnxruntime)
    if "axes" in ctx.attrs:
        axes = list(ctx.attrs["axes"])
    elif ctx.has_input(1):
        axes = ctx.ints(1)
        if axes is None:
            # Which axes is unknown; with keepdims the rank survives.
            return [tensor(elem, (None,) * len(shape) if shape is not None and keepdims else None)]
    else:
        axes = []
    if shape is None:
        return [tensor(elem, None)]
    if not axes:
        # Only 1 makes it a no-op: onnxruntime reduces everything for any
        # other value (onnx's inference reads 2 as 1; the run decides).
        if ctx.attr("noop_with_empty_axes", 0) == 1:
            return [tensor(elem, shape)]
        axes = list(range(len(shape)))
    elif findings.axes(ctx, axes, len(shape), findings.list_source(ctx, "axes", 1)) is None:
        return [tensor(elem, None)]
    return [tensor(elem, _reduced(shape, axes, keepdims))]


@rule("ArgMax", "ArgMin")
def arg_reduce(ctx):
    shape = ctx.shape(0)
    if shape is None:
        return [tensor(DataType.INT64, None)]
    axis = ctx.attr("axis", 0)
    if findings.axis(ctx, axis, len(shape)) is None:
        return [tensor(DataType.INT64, None)]
    return [tensor(DataType.INT64, _reduced(shape, [axis], ctx.attr("keepdims", 1) == 1))]
