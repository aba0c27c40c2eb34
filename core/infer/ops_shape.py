"""Operators that rearrange data: Shape, Reshape, Concat, Slice, Gather, ...

These also carry the symbolic values of shape tensors (`ctx.out_syms`) so the
Shape -> Gather -> Concat -> Reshape chains of exported transformers give
outputs with dims such as `batch` and `seq`.
"""
from __future__ import annotations

from ..ir.dtypes import DataType
from .context import rule, tensor
from .dims import axis_index, broadcast_shapes, dim_add, dim_floordiv, dim_mul, dim_prod

INT64 = DataType.INT64


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
    if not allowzero and 0 in out:
        for i, d in enumerate(out):
            if d == 0:
                out[i] = in_shape[i] if in_shape is not None and i < len(in_shape) else None
    if -1 in out:
        k = out.index(-1)
        out[k] = None
        if in_shape is not None:
            out[k] = _remaining(list(in_shape), out[:k] + out[k + 1:])
    return tuple([None if isinstance(d, int) and d < 0 else d for d in out])


def _remaining(num, den):
    """prod(num) / prod(den) when the division is exact (symbols cancel)."""
    if None in num or None in den:      # (dims are ints, strings or None)
        return None
    return dim_floordiv(dim_prod(num), dim_prod(den))


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
    n = ctx.num_inputs
    elem = 0
    for i in range(n):
        elem = ctx.elem(i)
        if elem:
            break
    present = [i for i in range(n) if ctx.has_input(i)]
    shapes = [ctx.shape(i) for i in present]
    syms = []
    for i in present:
        s = ctx.sym(i)
        if s is None:
            break               # a data input: no shape-tensor entries to carry
        syms.append(s)
    else:
        if not all(ctx.const(i) is not None for i in range(n)):
            ctx.out_syms[0] = tuple([d for s in syms for d in s])
    if all(s is None for s in shapes):
        return [tensor(elem, None)]
    return [tensor(elem, concat_shape(shapes, ctx.attr("axis", 1 if ctx.opset < 4 else None)))]


def concat_shape(shapes, axis) -> tuple:
    """The shape of the concatenation of `shapes` (None: unknown; at least one
    known) along `axis`: the axis dims summed, the others taken from the
    inputs that know them (numbers before symbols)."""
    known = [s for s in shapes if s is not None]
    rank = len(known[0])
    axis = axis_index(axis, rank)
    if axis is None or any(len(s) != rank for s in known):
        return (None,) * rank
    out = []
    for i in range(rank):
        if i == axis:
            d = 0
            for s in shapes:
                d = dim_add(d, s[i]) if s is not None else None
        else:
            d = None                # the first number, else the first symbol
            for s in known:
                x = s[i]
                if isinstance(x, int):
                    d = x
                    break
                if d is None:
                    d = x
        out.append(d)
    return tuple(out)


@rule("Split")
def split(ctx):
    elem, shape = ctx.elem(0), ctx.shape(0)
    n = ctx.num_outputs
    if shape is None:
        return [tensor(elem, None)] * n
    axis = axis_index(ctx.attr("axis", 0), len(shape))
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
            # n equal parts of a symbolic dim: exact only when it divides.
            sizes = [dim_floordiv(total, n)] * n
    return [tensor(elem, shape[:axis] + (s,) + shape[axis + 1:]) for s in sizes[:n]]


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
    drop = {axis_index(a, len(shape)) for a in axes}
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
    ins = {axis_index(a, r) for a in axes}
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
    axes = [axis_index(a, r) for a in axes] if axes is not None else list(range(r))
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
        a = axis_index(a, len(shape))
        if a is not None:
            out[a] = d
    return [tensor(elem, out)]
