"""Operators that rearrange data: Shape, Reshape, Concat, Slice, Gather, ...

These also carry the symbolic values of shape tensors (`ctx.out_syms`) so the
Shape -> Gather -> Concat -> Reshape chains of exported transformers give
outputs with dims such as `batch` and `seq`.
"""
from __future__ import annotations

from ..ir.dtypes import DataType
from .context import rule, tensor
from .dims import broadcast_shapes, dim_add, dim_mul, dim_prod, dim_sub

INT64 = DataType.INT64


def _axis(a, rank):
    if a is None or rank is None:
        return None
    a = int(a)
    if a < 0:
        a += rank
    return a if 0 <= a < rank else None


@rule("Shape")
def shape_op(ctx):
    shape = ctx.shape(0)
    if shape is None:
        return [tensor(INT64, (None,))]
    r = len(shape)
    start, end = ctx.attr("start", 0), ctx.attr("end", r)
    start = min(max(start + r if start < 0 else start, 0), r)
    end = min(max(end + r if end < 0 else end, 0), r)
    dims = tuple(shape[start:end]) if end > start else ()
    ctx.out_syms[0] = dims
    return [tensor(INT64, (len(dims),))]


@rule("Size")
def size_op(ctx):
    shape = ctx.shape(0)
    if shape is not None:
        ctx.out_syms[0] = (dim_prod(shape),)
    return [tensor(INT64, ())]


def _reshape_dims(in_shape, target, allowzero):
    out = list(target)
    for i, d in enumerate(out):
        if d == 0 and not allowzero:
            out[i] = in_shape[i] if in_shape is not None and i < len(in_shape) else None
    if -1 in out:
        k = out.index(-1)
        out[k] = None
        if in_shape is not None:
            out[k] = _remaining(list(in_shape), [d for i, d in enumerate(out) if i != k])
    return tuple(None if isinstance(d, int) and d < 0 else d for d in out)


def _remaining(num, den):
    """prod(num) / prod(den) when it can be decided; symbols cancel by name."""
    if any(d is None for d in num) or any(d is None for d in den):
        return None
    num, rest = list(num), []
    for d in den:
        if isinstance(d, str) and d in num:
            num.remove(d)
        else:
            rest.append(d)
    if any(isinstance(d, str) for d in rest):
        return None
    n_int = 1
    syms = []
    for d in num:
        if isinstance(d, int):
            n_int *= d
        else:
            syms.append(d)
    d_int = 1
    for d in rest:
        d_int *= d
    if d_int == 0 or n_int % d_int:
        return None
    return dim_mul(n_int // d_int, dim_prod(syms)) if syms else n_int // d_int


@rule("Reshape")
def reshape(ctx):
    elem = ctx.elem(0)
    if ctx.opset < 5:
        target = ctx.attr("shape")
        target = tuple(target) if target is not None else None
    else:
        target = ctx.sym(1)
    in_shape = ctx.shape(0)
    if target is None:
        n = ctx.shape(1)
        rank = n[0] if n is not None and len(n) == 1 and isinstance(n[0], int) else None
        return [tensor(elem, None if rank is None else (None,) * rank)]
    out = _reshape_dims(in_shape, target, ctx.attr("allowzero", 0))
    src = ctx.sym(0)
    if src is not None and ctx.const(0) is None and len(out) <= 1:
        ctx.out_syms[0] = src
    return [tensor(elem, out)]


@rule("Transpose")
def transpose(ctx):
    shape = ctx.shape(0)
    if shape is None:
        return [ctx.type(0)]
    perm = ctx.attr("perm") or list(reversed(range(len(shape))))
    return [tensor(ctx.elem(0), tuple(shape[p] if 0 <= p < len(shape) else None for p in perm))]


@rule("Concat")
def concat(ctx):
    elem = next((ctx.elem(i) for i in range(ctx.num_inputs) if ctx.elem(i)), 0)
    shapes = [ctx.shape(i) for i in range(ctx.num_inputs) if ctx.has_input(i)]
    known = [s for s in shapes if s is not None]
    syms = [ctx.sym(i) for i in range(ctx.num_inputs) if ctx.has_input(i)]
    if all(s is not None for s in syms) and not all(ctx.const(i) is not None for i in range(ctx.num_inputs)):
        ctx.out_syms[0] = tuple(d for s in syms for d in s)
    if not known:
        return [tensor(elem, None)]
    rank = len(known[0])
    axis = _axis(ctx.attr("axis", 1 if ctx.opset < 4 else None), rank)
    if axis is None:
        return [tensor(elem, (None,) * rank)]
    out = []
    for i in range(rank):
        if i == axis:
            d = 0
            for s in shapes:
                d = dim_add(d, s[i]) if s is not None else None
            out.append(d)
        else:
            out.append(next((s[i] for s in known if s[i] is not None and isinstance(s[i], int)),
                            next((s[i] for s in known if s[i] is not None), None)))
    return [tensor(elem, out)]


@rule("Split")
def split(ctx):
    elem, shape = ctx.elem(0), ctx.shape(0)
    n = ctx.num_outputs
    if shape is None:
        return [tensor(elem, None)] * n
    axis = _axis(ctx.attr("axis", 0), len(shape))
    if axis is None:
        return [tensor(elem, None)] * n
    sizes = ctx.attr("split")
    if sizes is None and ctx.has_input(1):
        sizes = ctx.ints(1)
        if sizes is None:
            return [tensor(elem, shape[:axis] + (None,) + shape[axis + 1:])] * n
    total = shape[axis]
    if sizes is None:
        if isinstance(total, int):
            parts = ctx.attr("num_outputs", n)
            chunk = -(-total // parts)
            sizes = [chunk] * (total // chunk) + ([total % chunk] if total % chunk else [])
            if len(sizes) != n:
                sizes = [chunk] * (n - 1) + [total - chunk * (n - 1)]
        else:
            sizes = [None] * n
    return [tensor(elem, shape[:axis] + (s,) + shape[axis + 1:]) for s in sizes[:n]]


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
    else:
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
                a = _axis(a, len(shape))
                if a is not None:
                    out[a] = None
            return [tensor(elem, out)]
        return [tensor(elem, (None,) * len(shape))]
    axes = axes if axes is not None else list(range(len(starts)))
    steps = steps if steps is not None else [1] * len(starts)
    out = list(shape)
    for st, en, ax, sp in zip(starts, ends, axes, steps):
        a = _axis(ax, len(shape))
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
    axis = _axis(ctx.attr("axis", 0), len(shape))
    if axis is None:
        return [tensor(elem, None)]
    src, idx = ctx.sym(0), ctx.ints(1)
    if src is not None and idx is not None and len(shape) == 1 and ctx.const(0) is None:
        try:
            ctx.out_syms[0] = tuple(src[i] for i in idx)
        except IndexError:
            pass
    return [tensor(elem, shape[:axis] + ishape + shape[axis + 1:])]


@rule("GatherElements")
def gather_elements(ctx):
    return [tensor(ctx.elem(0), ctx.shape(1))]


@rule("GatherND")
def gather_nd(ctx):
    elem, data, idx = ctx.elem(0), ctx.shape(0), ctx.shape(1)
    b = ctx.attr("batch_dims", 0)
    if data is None or idx is None or not idx or not isinstance(idx[-1], int):
        return [tensor(elem, None)]
    return [tensor(elem, idx[:-1] + data[b + idx[-1]:])]


@rule("ScatterElements", "ScatterND", "Scatter", "TensorScatter")
def scatter(ctx):
    return [ctx.type(0)]


def _axes_list(ctx):
    axes = ctx.attr_or_input("axes", 1)
    return axes


@rule("Squeeze")
def squeeze(ctx):
    elem, shape = ctx.elem(0), ctx.shape(0)
    axes = _axes_list(ctx)
    if ctx.sym(0) is not None and ctx.const(0) is None:
        ctx.out_syms[0] = ctx.sym(0)
    if shape is None:
        return [tensor(elem, None)]
    if axes is None:
        if ctx.has_input(1) and "axes" not in ctx.attrs:
            return [tensor(elem, None)]
        if any(d is None or isinstance(d, str) for d in shape):
            return [tensor(elem, None)]
        return [tensor(elem, tuple(d for d in shape if d != 1))]
    drop = {_axis(a, len(shape)) for a in axes}
    return [tensor(elem, tuple(d for i, d in enumerate(shape) if i not in drop))]


@rule("Unsqueeze")
def unsqueeze(ctx):
    elem, shape = ctx.elem(0), ctx.shape(0)
    axes = _axes_list(ctx)
    if ctx.sym(0) is not None and ctx.const(0) is None:
        ctx.out_syms[0] = ctx.sym(0)
    if shape is None or axes is None:
        return [tensor(elem, None)]
    r = len(shape) + len(axes)
    ins = {_axis(a, r) for a in axes}
    it = iter(shape)
    return [tensor(elem, tuple(1 if i in ins else next(it, None) for i in range(r)))]


@rule("Flatten")
def flatten(ctx):
    elem, shape = ctx.elem(0), ctx.shape(0)
    if shape is None:
        return [tensor(elem, (None, None))]
    axis = ctx.attr("axis", 1)
    if axis < 0:
        axis += len(shape)
    return [tensor(elem, (dim_prod(shape[:axis]), dim_prod(shape[axis:])))]


@rule("Expand")
def expand(ctx):
    elem, shape = ctx.elem(0), ctx.shape(0)
    target = ctx.sym(1)
    if target is None:
        n = ctx.shape(1)
        if shape is None or n is None or not isinstance(n[0], int):
            return [tensor(elem, None)]
        target = (None,) * n[0]
    # Expand broadcasts both ways; a target entry of 1 keeps the input dim.
    return [tensor(elem, broadcast_shapes([shape, tuple(target)]))]


@rule("Tile")
def tile(ctx):
    elem, shape = ctx.elem(0), ctx.shape(0)
    reps = ctx.sym(1)
    if shape is None:
        return [tensor(elem, None)]
    if reps is None or len(reps) != len(shape):
        return [tensor(elem, (None,) * len(shape))]
    return [tensor(elem, tuple(dim_mul(d, r) for d, r in zip(shape, reps)))]


@rule("Pad")
def pad(ctx):
    elem, shape = ctx.elem(0), ctx.shape(0)
    if shape is None:
        return [tensor(elem, None)]
    r = len(shape)
    pads = ctx.attr("pads", ctx.attr("paddings")) if ctx.opset < 11 else ctx.ints(1)
    if pads is None:
        return [tensor(elem, (None,) * r)]
    axes = ctx.ints(3) if ctx.has_input(3) else None
    if ctx.has_input(3) and axes is None:
        return [tensor(elem, (None,) * r)]
    axes = [_axis(a, r) for a in axes] if axes is not None else list(range(r))
    out = list(shape)
    k = len(axes)
    for j, a in enumerate(axes):
        if a is not None and len(pads) == 2 * k:
            out[a] = dim_add(dim_add(shape[a], pads[j]), pads[j + k])
    return [tensor(elem, out)]


@rule("ConstantOfShape")
def constant_of_shape(ctx):
    value = ctx.attr("value")
    elem = int(value.dtype) if value is not None else DataType.FLOAT
    dims = ctx.sym(0)
    if dims is None:
        n = ctx.shape(0)
        return [tensor(elem, None if n is None or not isinstance(n[0], int) else (None,) * n[0])]
    return [tensor(elem, dims)]


@rule("Range")
def range_op(ctx):
    elem = ctx.elem(0) or ctx.elem(1)
    vals = [ctx.const(i) for i in range(3)]
    if all(v is not None for v in vals):
        start, limit, delta = (float(v.reshape(-1)[0]) for v in vals)
        if delta:
            import math
            return [tensor(elem, (max(int(math.ceil((limit - start) / delta)), 0),))]
    start, limit, delta = ctx.sym(0), ctx.sym(1), ctx.sym(2)
    if start and limit and delta and start[0] == 0 and delta[0] == 1:
        return [tensor(elem, (limit[0],))]
    return [tensor(elem, (None,))]


@rule("OneHot")
def one_hot(ctx):
    elem, ishape = ctx.elem(2), ctx.shape(0)
    if ishape is None:
        return [tensor(elem, None)]
    depth = ctx.const(1)
    d = int(depth.reshape(-1)[0]) if depth is not None else None
    r = len(ishape) + 1
    axis = ctx.attr("axis", -1)
    axis = axis + r if axis < 0 else axis
    out = list(ishape)
    out.insert(axis, d)
    return [tensor(elem, out)]


@rule("TopK")
def top_k(ctx):
    elem, shape = ctx.elem(0), ctx.shape(0)
    if shape is None:
        return [tensor(elem, None), tensor(INT64, None)]
    axis = _axis(ctx.attr("axis", -1), len(shape))
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
    a = _axis(axis, len(shape))
    out = list(shape)
    if a is not None:
        out[a] = None
    return [tensor(elem, out)]


@rule("DepthToSpace", "SpaceToDepth")
def depth_space(ctx):
    elem, shape = ctx.elem(0), ctx.shape(0)
    b = ctx.attr("blocksize", 1)
    if shape is None or len(shape) != 4:
        return [tensor(elem, (None,) * 4)]
    n, c, h, w = shape
    if ctx.op_type == "DepthToSpace":
        c = c // (b * b) if isinstance(c, int) else None
        return [tensor(elem, (n, c, dim_mul(h, b), dim_mul(w, b)))]
    h = h // b if isinstance(h, int) else None
    w = w // b if isinstance(w, int) else None
    return [tensor(elem, (n, dim_mul(c, b * b), h, w))]


@rule("Unique")
def unique(ctx):
    elem, shape = ctx.elem(0), ctx.shape(0)
    axis = ctx.attr("axis")
    if axis is None or shape is None:
        n = dim_prod(shape) if shape is not None else None
        y = (None,)
        inv = (n,)
    else:
        a = _axis(axis, len(shape))
        y = tuple(None if i == a else d for i, d in enumerate(shape))
        inv = (shape[a] if a is not None else None,)
    return [tensor(elem, y), tensor(INT64, (None,)), tensor(INT64, inv), tensor(INT64, (None,))]


@rule("Det")
def det(ctx):
    shape = ctx.shape(0)
    return [tensor(ctx.elem(0), None if shape is None else shape[:-2])]


@rule("CenterCropPad")
def center_crop_pad(ctx):
    elem, shape = ctx.elem(0), ctx.shape(0)
    target = ctx.sym(1)
    if shape is None or target is None:
        return [tensor(elem, None if shape is None else (None,) * len(shape))]
    axes = ctx.attr("axes") or list(range(len(shape)))
    out = list(shape)
    for a, d in zip(axes, target):
        a = _axis(a, len(shape))
        if a is not None:
            out[a] = d
    return [tensor(elem, out)]
