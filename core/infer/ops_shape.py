"""Operators that rearrange data: Shape, Reshape, Concat, Slice, Gather, ...

These also carry the symbolic values of shape tensors (`ctx.out_syms`) so the
Shape -> Gather -> Concat -> Reshape chains of exported transformers give
outputs with dims such as `batch` and `seq`.
"""
from __future__ import annotations

from ..ir.dtypes import DataType
from .context import rule, tensor
from .dims import axis_index, broadcast_shapes, dim_add, dim_floordiv, dim_mul, dim_prod, dim_sub
from . import findings
from .findings import DIM, FIXED, RANK, RESHAPE, broadcast_conflict, input_label, known, one_symbol, show

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
    """prod(num) / prod(den) when the division is exact (symbols cancel).
    A symbolic dim both sides hold cancels first: [batch, 4, past+seq, 16]
    to [-1, past+seq, 16] gives 4*batch, where dividing the products would
    not (only a single term divides a polynomial here)."""
    if None in num or None in den:      # (dims are ints, strings or None)
        return None
    num, rest = list(num), []
    for d in den:
        if isinstance(d, str) and d in num:
            num.remove(d)
        else:
            rest.append(d)
    return dim_floordiv(dim_prod(num), dim_prod(rest))


@rule("Reshape")
def reshape(ctx):
    elem = ctx.elem(0)
    if ctx.opset < 5:
        target = ctx.attr("shape")
        target = tuple(target) if target is not None else None
    else:
        if not findings.require_rank(ctx, 1, 1, "the target shape is a list of dims"):
            return [tensor(elem, None)]
        target = ctx.sym(1)
    in_shape = ctx.shape(0)
    if target is None:
        n = ctx.shape(1)
        rank = n[0] if n is not None and len(n) == 1 and isinstance(n[0], int) else None
        return [tensor(elem, None if rank is None else (None,) * rank)]
    allowzero = ctx.attr("allowzero", 0) == 1   # onnxruntime copies a 0 for any other value
    if not _reshape_fits(ctx, in_shape, target, allowzero):
        return [tensor(elem, (None,) * len(target))]
    if in_shape is not None:
        _fixed_symbol(ctx, in_shape, target, allowzero)
    out = _reshape_dims(in_shape, target, allowzero)
    src = ctx.sym(0)
    if src is not None and ctx.const(0) is None and len(out) <= 1:
        ctx.out_syms[0] = src
    return [tensor(elem, out)]


def _fixed_symbol(ctx, in_shape, target, allowzero) -> None:
    """A warning when a target shape of fixed numbers leaves one symbolic dim
    of the input a single size: [batch, 128, 128] reshaped to [1, 128, 4, 32]
    runs only with batch 1 (an export traced at one size, or a dim made
    symbolic afterwards, e.g. by set-shape). Symbols the target shares with
    the input cancel out: torch's legacy exporter traces [seq, batch, 32]
    into [7, 4*batch, 8], which holds for seq 7 alone. Other sizes fail here
    at run; onnxruntime refuses them too. Said once per node, naming the
    size."""
    count, symbols = 1, []              # the input holds count * (product of symbols) elements
    for d in in_shape:
        if type(d) is int:
            count *= d
            continue
        one = one_symbol(d)
        if one is None:
            return
        symbols.append(one[0])
        count *= one[1]
    held = 1
    for i, d in enumerate(target):
        if type(d) is not int:
            # A symbol the input holds too (a Shape-built [7, 4*batch, 8]
            # keeps batch free) cancels out; any other leaves no fixed count.
            one = one_symbol(d)
            if one is None or one[0] not in symbols:
                return
            symbols.remove(one[0])
            held *= one[1]
            continue
        if d < 0:
            return                      # a -1 takes any size
        if d == 0 and not allowzero:
            copied = in_shape[i] if i < len(in_shape) else None
            if type(copied) is int:
                held *= copied
            elif copied in symbols:     # a plain symbol (a multiple is not in the list)
                symbols.remove(copied)  # copied to the output: it stays free
            else:
                return
        else:
            held *= d
    if len(symbols) != 1 or not count or not held or held % count:
        return
    ctx.warn(FIXED, f"{symbols[0]} can only be {held // count} here: {input_label(ctx, 0)} {show(in_shape)} fits "
                    f"the target shape {show(target)} for that size alone (any other fails at run)")


def _reshape_fits(ctx, in_shape, target, allowzero) -> bool:
    """The spec's rules for a target shape, and (when every dim the count
    needs is known) that it holds as many elements as the input."""
    # One pass for the common case: plain positive entries.
    minus_ones = zeros = 0
    product = 1                     # of the known entries other than -1 and 0
    fixed = True                    # every entry a number
    for d in target:
        if type(d) is not int:
            fixed = False
        elif d > 0:
            product *= d
        elif d == -1:
            minus_ones += 1
        elif d == 0:
            zeros += 1
        else:
            ctx.error(RESHAPE, f"the target shape {show(target)} has a negative dim other than -1")
            return False
    if minus_ones > 1:
        ctx.error(RESHAPE, f"the target shape {show(target)} has more than one -1")
        return False
    if zeros and allowzero and minus_ones:
        ctx.error(RESHAPE, f"the target shape {show(target)} has both 0 and -1, which allowzero=1 forbids "
                           "(the -1 could be any size)")
        return False
    if in_shape is None:
        return True
    if zeros and not allowzero:
        rank = len(in_shape)
        for i, d in enumerate(target):
            if d == 0 and type(d) is int:
                if i >= rank:
                    ctx.error(RESHAPE, f"the target shape {show(target)} has 0 (copy the input's dim) at position "
                                       f"{i}, but {input_label(ctx, 0)} {show(in_shape)} has rank {rank}")
                    return False
                copied = in_shape[i]
                if not known(copied):
                    return True
                product *= copied
    if not fixed:
        return True
    count = 1
    for d in in_shape:
        if not known(d):
            return True
        count *= d
    if zeros and allowzero:
        product = 0
    if minus_ones:
        fits = count % product == 0 if product else count == 0
    else:
        fits = product == count
    if not fits:
        ctx.error(RESHAPE, f"{input_label(ctx, 0)} of shape {show(in_shape)} has {count} elements, which the "
                           f"target shape {show(target)} cannot hold"
                           + (f" (the other dims make {product})" if minus_ones else f" ({product})"))
    return fits


@rule("Transpose")
def transpose(ctx):
    shape = ctx.shape(0)
    if shape is None:
        return [ctx.type(0)]
    perm = ctx.attr("perm")
    if perm is not None and not findings.perm(ctx, perm, len(shape)):
        return [tensor(ctx.elem(0), (None,) * len(shape))]
    perm = perm or list(reversed(range(len(shape))))
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
    axis = ctx.attr("axis", 1 if ctx.opset < 4 else None)
    if not _concat_fits(ctx, present, shapes, axis):
        known_shape = next(s for s in shapes if s is not None)
        return [tensor(elem, (None,) * len(known_shape))]
    return [tensor(elem, concat_shape(shapes, axis))]


def _concat_fits(ctx, present, shapes, axis) -> bool:
    """Equal ranks, the axis inside them, and equal known dims off the axis."""
    first = None
    for s in shapes:
        if s is not None:
            first = s
            break
    rank = len(first)
    same = True                     # every known shape equal to the first
    for s in shapes:
        if s is not None and s != first:
            same = False
            if len(s) != rank:
                return _concat_rank_error(ctx, present, shapes)
    a = findings.axis(ctx, axis, rank)
    if a is None:
        return type(axis) is not int
    if same or rank == 1:           # (1-D: the only axis is the one joined)
        return True
    for k in range(rank):
        if k != a and not _concat_dims_agree(ctx, present, shapes, k, a):
            return False
    return True


def _concat_rank_error(ctx, present, shapes) -> bool:
    ranked = [(i, s) for i, s in zip(present, shapes) if s is not None]
    i0, s0 = ranked[0]
    i, s = next((i, s) for i, s in ranked if len(s) != len(s0))
    ctx.error(RANK, f"{input_label(ctx, i0)} has rank {len(s0)} {show(s0)} but {input_label(ctx, i)} has "
                    f"rank {len(s)} {show(s)}: Concat needs equal ranks")
    return False


def _concat_dims_agree(ctx, present, shapes, k, axis) -> bool:
    first = None
    for i, s in zip(present, shapes):
        if s is None or not known(s[k]):
            continue
        if first is None:
            first = (i, s)
        elif s[k] != first[1][k]:
            ctx.error(DIM, f"{input_label(ctx, first[0])} of shape {show(first[1])} and {input_label(ctx, i)} "
                           f"of shape {show(s)} differ at axis {k} ({first[1][k]} and {s[k]}); Concat along "
                           f"axis {axis} needs every other dim equal")
            return False
    return True


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
    axis = findings.axis(ctx, ctx.attr("axis", 0), len(shape))
    if axis is None:
        return [tensor(elem, None)] * n
    sizes = ctx.attr("split")
    if sizes is None and ctx.has_input(1):
        sizes = ctx.ints(1)
        if sizes is None:
            return [tensor(elem, shape[:axis] + (None,) + shape[axis + 1:])] * n
    total = shape[axis]
    if sizes is not None and not _split_fits(ctx, sizes, total, axis, n):
        return [tensor(elem, shape[:axis] + (None,) + shape[axis + 1:])] * n
    if sizes is None:
        sizes = _parts(ctx, total, n)
    return [tensor(elem, shape[:axis] + (s,) + shape[axis + 1:]) for s in sizes[:n]]


def _parts(ctx, total, n) -> list:
    """Sizes of the n parts of `total` when no split sizes are given. With
    num_outputs (opset 18) each part is ceil(total/n) and the last takes
    what is left, so it may be smaller: 7 in 4 parts is 2, 2, 2, 1, and a
    symbolic `s` gives ceil(s/4) and s-3*ceil(s/4) (floor(s/4) was false
    whenever 4 does not divide s). Without it the parts are equal, which
    holds only when n divides the dim (onnxruntime refuses the rest). The
    parts are counted by the node's outputs, as onnxruntime does: a
    num_outputs that is not the output count is the checker's finding. A
    last part that would be negative is unknown, never -1."""
    if ctx.attr("num_outputs") is None and not isinstance(total, int):
        return [dim_floordiv(total, n)] * n
    chunk = dim_floordiv(dim_add(total, n - 1), n)
    last = dim_sub(total, dim_mul(n - 1, chunk))
    if isinstance(last, int) and last < 0:
        # 5 in 4 parts: onnxruntime refuses it at run. Not an error here: the
        # 2-D branch of onnx's own AffineGrid function splits a 3-D size like
        # this in the If branch that never runs.
        last = None
    return [chunk] * (n - 1) + [last]


def _split_fits(ctx, sizes, total, axis, n) -> bool:
    if not findings.int_list(sizes):
        return True
    sizes = list(sizes)
    if len(sizes) != n:
        ctx.error(findings.LENGTH, f"the split sizes {sizes} give {len(sizes)} parts but the node has {n} outputs")
        return False
    if known(total) and all(known(d) for d in sizes) and sum(sizes) != total:
        ctx.error(DIM, f"the split sizes {sizes} add up to {sum(sizes)} but {input_label(ctx, 0)} "
                       f"{show(ctx.shape(0))} has {total} at axis {axis}")
        return False
    return True


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
    drop = findings.axes(ctx, axes, len(shape), findings.list_source(ctx, "axes", 1))
    if drop is None:
        return [tensor(elem, None)]
    for a in drop:
        if known(shape[a]) and shape[a] != 1:
            ctx.error(DIM, f"Squeeze removes axis {a} of {input_label(ctx, 0)} {show(shape)}, whose size is "
                           f"{shape[a]}, not 1")
            return [tensor(elem, None)]
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
    ins = findings.axes(ctx, axes, r, findings.list_source(ctx, "axes", 1), what="the output",
                        unique=True)
    if ins is None:
        return [tensor(elem, (None,) * r)]
    it = iter(shape)
    return [tensor(elem, tuple(1 if i in ins else next(it, None) for i in range(r)))]


@rule("Flatten")
def flatten(ctx):
    elem, shape = ctx.elem(0), ctx.shape(0)
    if shape is None:
        return [tensor(elem, (None, None))]
    axis = findings.axis(ctx, ctx.attr("axis", 1), len(shape), end_ok=True)
    if axis is None:
        return [tensor(elem, (None, None))]
    return [tensor(elem, (dim_prod(shape[:axis]), dim_prod(shape[axis:])))]


@rule("Expand")
def expand(ctx):
    elem, shape = ctx.elem(0), ctx.shape(0)
    if not findings.require_rank(ctx, 1, 1, "the shape to expand to is a list of dims"):
        return [tensor(elem, None)]
    target = ctx.sym(1)
    if target is None:
        n = ctx.shape(1)
        if shape is None or n is None or not isinstance(n[0], int):
            return [tensor(elem, None)]
        target = (None,) * n[0]
    # Expand broadcasts both ways; a target entry of 1 keeps the input dim.
    out = broadcast_shapes([shape, tuple(target)])
    if out is not None and None in out:
        broadcast_conflict(ctx, (0, 1), (shape, tuple(target)))
    return [tensor(elem, out)]


@rule("Tile")
def tile(ctx):
    elem, shape = ctx.elem(0), ctx.shape(0)
    reps = ctx.sym(1)
    if shape is None:
        return [tensor(elem, None)]
    n = ctx.shape(1)
    if ctx.opset >= 6 and n is not None and len(n) == 1 and known(n[0]) and n[0] != len(shape):
        ctx.error(DIM, f"{input_label(ctx, 1)} holds {n[0]} repeats but {input_label(ctx, 0)} has rank "
                       f"{len(shape)} {show(shape)}: Tile takes one repeat per axis")
        return [tensor(elem, (None,) * len(shape))]
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
    if axes is not None and findings.axes(ctx, axes, r, "input 3 (axes)") is None:
        return [tensor(elem, (None,) * r)]
    n_axes = r if axes is None else len(axes)
    pads_name = "pads" if ctx.opset < 11 else "input 1 (pads)"
    if not findings.length(ctx, pads_name, pads, 2 * n_axes, f"padding {n_axes} axes (a begin and an end each)"):
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
    if not findings.require_rank(ctx, 0, 1, "the output's dims, one per axis"):
        return [tensor(elem, None)]
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
    if shape is None or not findings.require_rank(ctx, 0, 4, "N, C, H, W"):
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
    if shape is not None and not findings.require_min_rank(ctx, 0, 2, "square matrices in its last two dims"):
        return [tensor(ctx.elem(0), None)]
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
