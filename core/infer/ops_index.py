"""Indexing and selection: Slice, Gather*, Scatter*, TopK, NonZero, Compress,
Unique, OneHot. Slice and Gather also carry the symbolic entries of shape
tensors (see ops_shape)."""
from __future__ import annotations

from ..ir.dtypes import DataType
from .context import rule, tensor
from .dims import axis_index, dim_add, dim_prod, dim_sub
from . import findings
from .findings import INDEX, input_label, known, show

INT64 = DataType.INT64


def _slice_dim(d, start, end, step):
    if isinstance(d, int):
        if step > 0:
            s = min(max(start + d if start < 0 else start, 0), d)
            e = min(max(end + d if end < 0 else end, 0), d)
            return max(0, -(-(e - s) // step))
        s = min(max(start + d if start < 0 else start, -1), d - 1)
        e = min(max(end + d if end < 0 else end, -1), d - 1)
        return max(0, -(-(s - e) // -step))
    # Symbolic length: decide the common "x[k:]" / "x[:-k]" / "x[:]" forms.
    big = end >= 2 ** 31 - 1
    if step == 1 and d is not None:
        if start == 0 and big:
            return d
        if start >= 0 and big:
            return dim_sub(d, start)
        if start == 0 and end < 0:
            return dim_add(d, end)
    if step == -1 and d is not None and start == -1 and end <= -(2 ** 31):
        return d
    return None


@rule("Slice")
def slice_op(ctx):
    elem, shape = ctx.elem(0), ctx.shape(0)
    if ctx.opset < 10:
        starts, ends, axes, steps = ctx.attr("starts"), ctx.attr("ends"), ctx.attr("axes"), None
        if not _slice_attributes_fit(ctx, starts, ends, axes):
            return [tensor(elem, None if shape is None else (None,) * len(shape))]
    else:
        if not _slice_lists_fit(ctx):
            return [tensor(elem, None if shape is None else (None,) * len(shape))]
        starts, ends = ctx.ints(1), ctx.ints(2)
        if ends is None and starts is not None:
            ends = _symbolic_ends(ctx.sym(2))
        axes = ctx.ints(3) if ctx.has_input(3) else None
        steps = ctx.ints(4) if ctx.has_input(4) else None
        if ctx.has_input(3) and axes is None or ctx.has_input(4) and steps is None:
            starts = None
    if shape is None:
        return [tensor(elem, None)]
    if starts is None or ends is None:
        # Only the sliced axes become unknown, and we do not know which.
        if ctx.has_input(3) and axes is not None:
            out = list(shape)
            for a in axes:
                a = axis_index(a, len(shape))
                if a is not None:
                    out[a] = None
            return [tensor(elem, out)]
        return [tensor(elem, (None,) * len(shape))]
    axes_name = "axes" if ctx.opset < 10 else "input 3 (axes)"
    if axes is not None and findings.axes(ctx, axes, len(shape), axes_name) is None:
        return [tensor(elem, (None,) * len(shape))]
    axes = axes if axes is not None else list(range(len(starts)))
    steps = steps if steps is not None else [1] * len(starts)
    out = list(shape)
    for st, en, ax, sp in zip(starts, ends, axes, steps):
        a = axis_index(ax, len(shape))
        if a is None or sp == 0:
            return [tensor(elem, (None,) * len(shape))]
        if isinstance(en, int):
            out[a] = _slice_dim(shape[a], st, en, sp)
        else:
            # x[0:seq] with a symbolic end: assume the slice lies inside x (a
            # model where it does not fails downstream anyway) so it has `seq`.
            out[a] = en if (st == 0 and sp == 1 and en is not None) else None
    src = ctx.sym(0)
    if src is not None and len(shape) == 1 and ctx.const(0) is None and all(
            isinstance(x, int) for x in (starts[0], ends[0], steps[0])):
        n = len(src)
        st, en, sp = starts[0], ends[0], steps[0]
        if sp > 0:
            ctx.out_syms[0] = src[slice(max(-n - 1, min(st, n)), max(-n - 1, min(en, n)), sp)]
        else:
            ctx.out_syms[0] = src[slice(st, None if en < -n else en, sp)]
    return [tensor(elem, out)]


def _slice_lists_fit(ctx) -> bool:
    """starts, ends and the optional axes and steps hold one entry per
    sliced axis: known lengths that differ are refused (by onnx and
    onnxruntime's load for constants, by onnxruntime's run for others)."""
    first = None
    for i in range(1, 5):
        s = ctx.shape(i) if ctx.has_input(i) else None
        if s is None or len(s) != 1 or not known(s[0]):
            continue
        if first is None:
            first = (i, s[0])
        elif s[0] != first[1]:
            j, n = first
            ctx.error(findings.DIM, f"{input_label(ctx, j)} has {_entries(n)} but {input_label(ctx, i)} has "
                                    f"{_entries(s[0])}: Slice takes one start, end, axis and step per sliced axis")
            return False
    return True


def _slice_attributes_fit(ctx, starts, ends, axes) -> bool:
    """Slice-1's starts, ends and axes attributes, one entry per sliced axis
    (onnx and onnxruntime refuse others)."""
    lists = [(name, v) for name, v in (("starts", starts), ("ends", ends), ("axes", axes)) if findings.int_list(v)]
    if len({len(v) for _, v in lists}) < 2:
        return True
    ctx.error(findings.LENGTH, "Slice takes one start, end and axis per sliced axis: "
                               + ", ".join(f"attribute {name!r} has {_entries(len(v))}" for name, v in lists))
    return False


def _entries(n: int) -> str:
    return "1 entry" if n == 1 else f"{n} entries"


def _symbolic_ends(ends):
    """Ends known partly symbolically: symbols stay, unknowns make it unknown."""
    if ends is None or any(e is None for e in ends):
        return None
    return list(ends)


@rule("Gather")
def gather(ctx):
    elem, shape, ishape = ctx.elem(0), ctx.shape(0), ctx.shape(1)
    if shape is None or ishape is None:
        return [tensor(elem, None)]
    axis = findings.axis(ctx, ctx.attr("axis", 0), len(shape))
    if axis is None:
        return [tensor(elem, None)]
    _indices_in_range(ctx, shape, axis)
    src, idx = ctx.sym(0), ctx.ints(1)
    if src is not None and idx is not None and len(shape) == 1 and ctx.const(0) is None:
        try:
            ctx.out_syms[0] = tuple(src[i] for i in idx)
        except IndexError:
            pass
    return [tensor(elem, shape[:axis] + ishape + shape[axis + 1:])]


def _indices_in_range(ctx, shape, axis) -> None:
    """Constant indices must lie in [-s, s-1] for a known axis size s."""
    size, idx = shape[axis], ctx.const(1)
    if not known(size) or idx is None or idx.size == 0 or idx.dtype.kind not in "iu":
        return
    low, high = int(idx.min()), int(idx.max())
    bad = high if high >= size else low if low < -size else None
    if bad is not None:
        ctx.error(INDEX, f"index {bad} in {input_label(ctx, 1)} is out of range for axis {axis} of "
                         f"{input_label(ctx, 0)} {show(shape)}, whose size is {size} (valid: {-size}..{size - 1})")


@rule("GatherElements")
def gather_elements(ctx):
    shape, ishape = ctx.shape(0), ctx.shape(1)
    if shape is not None:
        findings.axis(ctx, ctx.attr("axis", 0), len(shape))
        if ishape is not None and len(ishape) != len(shape):
            ctx.error(findings.RANK, f"{input_label(ctx, 1)} has rank {len(ishape)} {show(ishape)} but "
                                     f"{input_label(ctx, 0)} has rank {len(shape)} {show(shape)}: "
                                     "GatherElements needs them equal")
    return [tensor(ctx.elem(0), ishape)]


@rule("GatherND")
def gather_nd(ctx):
    elem, data, idx = ctx.elem(0), ctx.shape(0), ctx.shape(1)
    b = ctx.attr("batch_dims", 0)
    if data is None or idx is None or not idx or not isinstance(idx[-1], int):
        return [tensor(elem, None)]
    return [tensor(elem, idx[:-1] + data[b + idx[-1]:])]


@rule("ScatterElements", "ScatterND", "Scatter", "TensorScatter")
def scatter(ctx):
    if ctx.op_type in ("ScatterElements", "Scatter"):
        shape = ctx.shape(0)
        if shape is not None:
            findings.axis(ctx, ctx.attr("axis", 0), len(shape))
    elif ctx.op_type == "TensorScatter":
        _cache_update_fits(ctx)
    return [ctx.type(0)]


def _cache_update_fits(ctx) -> None:
    """TensorScatter writes `update` into `past_cache` along the sequence
    axis: an axis of the cache other than the batch's (0), and the update
    of the cache's rank, shaped like it off that axis (onnx and
    onnxruntime refuse others)."""
    cache, update = ctx.shape(0), ctx.shape(1)
    if cache is None:
        return
    r = len(cache)
    value = ctx.attr("axis", -2)
    axis = findings.axis(ctx, value, r, what="past_cache")
    if axis is None:
        return
    if axis == 0:
        ctx.error(findings.AXIS, f"attribute 'axis' is {value}, the batch axis of past_cache {show(cache)}: "
                                 f"TensorScatter writes along the sequence axis, one of 1..{r - 1} "
                                 f"(or {-r + 1}..-1)")
        return
    if ctx.has_input(2) and findings.require_rank(ctx, 2, 1, "one write position per batch entry"):
        w = ctx.shape(2)
        if w is not None and r and findings.dims_differ(w[0], cache[0]):
            ctx.error(findings.DIM, f"{input_label(ctx, 2)} {show(w)} holds {w[0]} positions but "
                                    f"{input_label(ctx, 0)} {show(cache)} has a batch of {cache[0]}: one write "
                                    "position per batch entry")
    if update is None:
        return
    if len(update) != r:
        ctx.error(findings.RANK, f"{input_label(ctx, 1)} has rank {len(update)} {show(update)} but "
                                 f"{input_label(ctx, 0)} {show(cache)} has rank {r}: the update has the cache's "
                                 f"shape except along axis {axis}")
        return
    off = next((i for i in range(r) if i != axis and findings.dims_differ(cache[i], update[i])), None)
    if off is not None:
        ctx.error(findings.DIM, f"{input_label(ctx, 1)} {show(update)} and {input_label(ctx, 0)} {show(cache)} "
                                f"differ at axis {off} ({update[off]} and {cache[off]}): the update has the "
                                f"cache's shape except along axis {axis}")


@rule("OneHot")
def one_hot(ctx):
    elem, ishape = ctx.elem(2), ctx.shape(0)
    _one_depth(ctx)
    findings.require_rank(ctx, 2, 1, "the off and on values")
    if ishape is None:
        return [tensor(elem, None)]
    depth = ctx.const(1)
    d = int(depth.reshape(-1)[0]) if depth is not None else None
    r = len(ishape) + 1
    axis = findings.axis(ctx, ctx.attr("axis", -1), r, what="the output")
    if axis is None:
        return [tensor(elem, (None,) * r)]
    out = list(ishape)
    out.insert(axis, d)
    return [tensor(elem, out)]


def _one_depth(ctx) -> None:
    """depth is one number: a scalar or a 1-D tensor of one element (onnx
    and onnxruntime refuse a higher rank or a known length above 1)."""
    s = ctx.shape(1)
    if s is None:
        return
    if len(s) > 1:
        ctx.error(findings.RANK, f"{input_label(ctx, 1)} has rank {len(s)} {show(s)} but OneHot's depth is one "
                                 "number: a scalar or a 1-D tensor of one element")
    elif s and known(s[0]) and s[0] > 1:
        ctx.error(findings.DIM, f"{input_label(ctx, 1)} holds {s[0]} numbers {show(s)} but OneHot's depth is one "
                                "number: a scalar or a 1-D tensor of one element")


@rule("TopK")
def top_k(ctx):
    elem, shape = ctx.elem(0), ctx.shape(0)
    if shape is None:
        return [tensor(elem, None), tensor(INT64, None)]
    axis = findings.axis(ctx, ctx.attr("axis", -1), len(shape))
    k = ctx.attr("k") if ctx.opset < 10 else (ctx.sym(1) or (None,))[0]
    out = list(shape)
    if axis is not None:
        out[axis] = k
    return [tensor(elem, out), tensor(INT64, out)]


@rule("NonZero")
def non_zero(ctx):
    r = ctx.rank(0)
    return [tensor(INT64, (r, None))]


@rule("Compress")
def compress(ctx):
    elem, shape = ctx.elem(0), ctx.shape(0)
    axis = ctx.attr("axis")
    if axis is None or shape is None:
        return [tensor(elem, (None,))]
    a = findings.axis(ctx, axis, len(shape))
    out = list(shape)
    if a is not None:
        out[a] = None
    return [tensor(elem, out)]


@rule("Unique")
def unique(ctx):
    elem, shape = ctx.elem(0), ctx.shape(0)
    axis = ctx.attr("axis")
    if axis is None or shape is None:
        n = dim_prod(shape) if shape is not None else None
        y = (None,)
        inv = (n,)
    else:
        a = findings.axis(ctx, axis, len(shape))
        y = tuple(None if i == a else d for i, d in enumerate(shape))
        inv = (shape[a] if a is not None else None,)
    return [tensor(elem, y), tensor(INT64, (None,)), tensor(INT64, inv), tensor(INT64, (None,))]
