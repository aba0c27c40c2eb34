"""Neural-network operators: convolutions, pools, matrix products, RNNs."""
from __future__ import annotations

from ..ir.dtypes import DataType
from .context import rule, tensor
from .dims import broadcast_shapes, dim_add, dim_floordiv, dim_mul
from .findings import (DIM, LENGTH, RANK, broadcast_conflict, dims_differ, input_label, int_list, known, length,
                       require_min_rank, require_rank, show, warn_symbol_fixed)

INT32, INT64, FLOAT = DataType.INT32, DataType.INT64, DataType.FLOAT


def _window_out(size, k, stride, dil, pad_b, pad_e, auto_pad, ceil_mode=False, pooling=False):
    """Output length of a sliding window. A symbolic input length gives an
    expression (`floor((H+1)/2)` for a 3-wide window, stride 2, pads 1);
    None only where the length is truly unknown. `pooling`: a window wider
    than the padded input still gives one output when the division rounds
    toward zero, as onnx's inference and onnxruntime's pools count it (a
    2x2 MaxPool of a 1x1 input gives 1x1, the max of what the window holds;
    onnxruntime refuses such a convolution at run instead)."""
    if size is None:
        return None
    if auto_pad in ("SAME_UPPER", "SAME_LOWER"):
        return _ceil_div(size, stride)
    if k is None:
        return None
    span = (k - 1) * dil + 1
    if auto_pad == "VALID":
        pad_b = pad_e = 0
    if isinstance(size, int):
        num = size + pad_b + pad_e - span
        if ceil_mode:
            out = -(-num // stride) + 1
            # The last window must start inside the (left-padded) input.
            if (out - 1) * stride >= size + pad_b:
                out -= 1
            return out
        if pooling and num < 0:
            return 1 if -num < stride else 0
        return num // stride + 1
    num = dim_add(size, pad_b + pad_e - span)
    if not ceil_mode:
        return dim_add(dim_floordiv(num, stride), 1)
    # ceil(num/stride)*stride lies in [num, num+stride-1], so the last window
    # starts inside the input whenever pad_e + stride <= span; otherwise it
    # depends on the size: unknown.
    if pad_e + stride > span:
        return None
    return dim_add(_ceil_div(num, stride), 1)


def _ceil_div(size, stride):
    return dim_floordiv(dim_add(size, stride - 1), stride)


def rounds_up(ctx) -> bool:
    """Whether a pool's output sizes round up: for ceil_mode 1 only. onnx's
    inference and onnxruntime round down for any other value (2 or -1; the
    checker does not flag them); reading it as a truth value said a 4x4 input pooled
    3x3 by 2 with ceil_mode 2 gives 2x2, where the run gives 1x1."""
    return ctx.attr("ceil_mode", 0) == 1


def window_output_dims(ctx, x_shape, kernel, ceil_mode=False, pooling=False):
    """The spatial dims a convolution or pooling window gives (strides,
    dilations, pads, auto_pad and ceil_mode from the node's attributes)."""
    n = len(x_shape) - 2
    strides = ctx.attr("strides") or [1] * n
    dils = ctx.attr("dilations") or [1] * n
    pads = ctx.attr("pads") or [0] * (2 * n)
    auto_pad = ctx.attr("auto_pad", "NOTSET")
    if isinstance(auto_pad, bytes):
        auto_pad = auto_pad.decode()
    return tuple(_window_out(x_shape[2 + i], kernel[i] if kernel else None, strides[i], dils[i],
                             pads[i], pads[i + n], auto_pad, ceil_mode, pooling) for i in range(n))


def conv_output_type(ctx, x_idx, w_idx, elem):
    """The output type of a Conv-like node: (N, M, spatial...) from input
    `x_idx` and weight `w_idx`; unknown dims where the shapes do not fit."""
    x, w = ctx.shape(x_idx), ctx.shape(w_idx)
    if x is None or len(x) < 2 or not _conv_fits(ctx, x_idx, w_idx, x, w):
        if x is not None:
            require_min_rank(ctx, x_idx, 2, "batch and channel dims")
        rank = len(w) if w is not None else None
        return tensor(elem, None if rank is None else (None,) * rank)
    kernel = ctx.attr("kernel_shape") or (list(w[2:]) if w is not None else None)
    if kernel is not None and any(not isinstance(k, int) for k in kernel):
        kernel = None
    m = w[0] if w is not None else None
    return tensor(elem, (x[0], m) + window_output_dims(ctx, x, kernel))


def _conv_fits(ctx, x_idx, w_idx, x, w) -> bool:
    """Whether X (rank >= 2), the weights and the per-axis attributes
    agree; reports the first contradiction (the rest follow from it)."""
    if w is not None and len(w) != len(x):
        ctx.error(RANK, f"{input_label(ctx, x_idx)} has rank {len(x)} {show(x)} but the weight "
                        f"{input_label(ctx, w_idx)} has rank {len(w)} {show(w)}: {ctx.op_type} needs them equal "
                        "(batch, channels and one dim per spatial axis)")
        return False
    if not _window_attrs_fit(ctx, len(x) - 2):
        return False
    if w is not None:
        kernel = ctx.attr("kernel_shape")
        if int_list(kernel) and any(dims_differ(k, d) for k, d in zip(kernel, w[2:])):
            ctx.error(DIM, f"attribute 'kernel_shape' is {list(kernel)} but the weight {input_label(ctx, w_idx)} "
                           f"has spatial dims {show(w[2:])}")
            return False
        group = ctx.attr("group", 1)
        if ctx.op_type == "ConvTranspose":
            if dims_differ(x[1], w[0]):
                ctx.error(DIM, f"{input_label(ctx, x_idx)} has {x[1]} channels {show(x)} but the weight "
                               f"{input_label(ctx, w_idx)} {show(w)} expects {w[0]} (its dim 0): W's dim 0 "
                               f"is X's channels, so give W a dim 0 of {x[1]}, or give X {_channels(w[0])}")
                return False
        elif type(group) is int and type(w[1]) is int and dims_differ(x[1], w[1] * group):
            ctx.error(DIM, f"{input_label(ctx, x_idx)} has {x[1]} channels {show(x)} but the weight "
                           f"{input_label(ctx, w_idx)} {show(w)} with group {group} expects "
                           f"{w[1]} x {group} = {w[1] * group}: " + _conv_channel_fixes(x[1], w, group))
            return False
    return True


def _conv_channel_fixes(channels: int, w, group: int) -> str:
    """What would make a Conv's X channels, W (M, C/group, k...) and group
    agree: W's dim 1, a group that divides both X's channels and W's M (as
    onnxruntime needs), or X's channels."""
    fixes = []
    if group > 0 and channels % group == 0:
        fixes.append(f"give W a dim 1 of {channels // group}")
    fits = channels // w[1] if w[1] > 0 and channels > 0 and channels % w[1] == 0 else None
    if fits and type(w[0]) is int and w[0] % fits == 0:
        fixes.append(f"set group to {fits}")
    if group > 0:
        fixes.append(f"give X {_channels(w[1] * group)}")
    return "W's dim 1 is X's channels over group, so " + ", or ".join(fixes) if fixes else "group must be at least 1"


def _channels(n) -> str:
    return f"{n} channel" if n == 1 else f"{n} channels"


def _window_attrs_fit(ctx, n) -> bool:
    """kernel_shape, strides, dilations: one entry per spatial axis; pads:
    a begin and an end per axis."""
    what = f"an input with {n} spatial axes"
    return (length(ctx, "kernel_shape", ctx.attr("kernel_shape"), n, what)
            and length(ctx, "strides", ctx.attr("strides"), n, what)
            and length(ctx, "dilations", ctx.attr("dilations"), n, what)
            and length(ctx, "pads", ctx.attr("pads"), 2 * n, what))


@rule("Conv")
def conv(ctx):
    return [conv_output_type(ctx, 0, 1, ctx.elem(0))]


@rule("DeformConv")
def deform_conv(ctx):
    return [conv_output_type(ctx, 0, 1, ctx.elem(0))]


@rule("ConvInteger")
def conv_integer(ctx):
    return [conv_output_type(ctx, 0, 1, INT32)]


@rule("QLinearConv")
def qlinear_conv(ctx):
    return [conv_output_type(ctx, 0, 3, ctx.elem(7) or ctx.elem(0))]


@rule("ConvTranspose")
def conv_transpose(ctx):
    elem, x, w = ctx.elem(0), ctx.shape(0), ctx.shape(1)
    if x is None or len(x) < 2 or not _conv_fits(ctx, 0, 1, x, w) or not length(
            ctx, "output_padding", ctx.attr("output_padding"), len(x) - 2, f"an input with {len(x) - 2} spatial axes"):
        if x is not None:
            require_min_rank(ctx, 0, 2, "batch and channel dims")
        return [tensor(elem, None)]
    n = len(x) - 2
    group = ctx.attr("group", 1)
    m = dim_mul(w[1], group) if w is not None else None
    out_shape = ctx.attr("output_shape")
    if out_shape:
        return [tensor(elem, (x[0], m) + tuple(out_shape[-n:]))]
    kernel = ctx.attr("kernel_shape") or (list(w[2:]) if w is not None else [None] * n)
    strides = ctx.attr("strides") or [1] * n
    dils = ctx.attr("dilations") or [1] * n
    pads = ctx.attr("pads") or [0] * (2 * n)
    opad = ctx.attr("output_padding") or [0] * n
    auto_pad = ctx.attr("auto_pad", "NOTSET")
    spatial = []
    for i in range(n):
        size, k = x[2 + i], kernel[i]
        if size is None or not isinstance(k, int):
            spatial.append(None)
        elif auto_pad in ("SAME_UPPER", "SAME_LOWER"):
            spatial.append(dim_mul(size, strides[i]))
        else:
            # stride*(size-1) + output_padding + (k-1)*dilation + 1 - pads
            spatial.append(dim_add(dim_mul(dim_add(size, -1), strides[i]),
                                   opad[i] + (k - 1) * dils[i] + 1 - pads[i] - pads[i + n]))
    return [tensor(elem, (x[0], m) + tuple(spatial))]


@rule("MaxPool", "AveragePool", "LpPool")
def pool(ctx):
    elem, x = ctx.elem(0), ctx.shape(0)
    if x is None or len(x) < 2 or not _window_attrs_fit(ctx, len(x) - 2):
        if x is not None:
            require_min_rank(ctx, 0, 2, "batch and channel dims")
        return [tensor(elem, None), tensor(INT64, None)]
    spatial = window_output_dims(ctx, x, ctx.attr("kernel_shape"), rounds_up(ctx), pooling=True)
    out = tensor(elem, (x[0], x[1]) + spatial)
    return [out, tensor(INT64, out.shape)]


@rule("GlobalAveragePool", "GlobalMaxPool", "GlobalLpPool")
def global_pool(ctx):
    x = ctx.shape(0)
    return [tensor(ctx.elem(0), None if x is None or len(x) < 2 else (x[0], x[1]) + (1,) * (len(x) - 2))]


@rule("MaxRoiPool")
def max_roi_pool(ctx):
    x, rois = ctx.shape(0), ctx.shape(1)
    ph, pw = ctx.attr("pooled_shape", [None, None])
    return [tensor(ctx.elem(0), (rois[0] if rois else None, x[1] if x else None, ph, pw))]


@rule("RoiAlign")
def roi_align(ctx):
    _roi_align_inputs_fit(ctx)
    x, rois = ctx.shape(0), ctx.shape(1)
    return [tensor(ctx.elem(0), (rois[0] if rois else None, x[1] if x and len(x) > 1 else None,
                                 ctx.attr("output_height", 1), ctx.attr("output_width", 1)))]


def _roi_align_inputs_fit(ctx) -> None:
    """X is (N, C, H, W), rois (num_rois, 4) (x1, y1, x2, y2 per region) and
    batch_indices (num_rois): onnx and onnxruntime refuse other ranks and a
    num_rois the two disagree on; onnxruntime fails to run rois with
    another second dim (onnx refuses it from opset 22)."""
    fits = [require_rank(ctx, 0, 4, "N, C, H, W"),
            require_rank(ctx, 1, 2, "one row of x1, y1, x2, y2 per region"),
            require_rank(ctx, 2, 1, "the batch index of each region")]
    if not all(fits):
        return
    rois, indices = ctx.shape(1), ctx.shape(2)
    if rois is not None and dims_differ(rois[1], 4):
        ctx.error(DIM, f"{input_label(ctx, 1)} {show(rois)} has {rois[1]} numbers per region; RoiAlign reads 4 "
                       "(x1, y1, x2, y2)")
    elif rois is not None and indices is not None and dims_differ(rois[0], indices[0]):
        ctx.error(DIM, f"{input_label(ctx, 1)} {show(rois)} lists {rois[0]} regions but {input_label(ctx, 2)} "
                       f"{show(indices)} gives {indices[0]} batch indices: one per region")


@rule("MaxUnpool")
def max_unpool(ctx):
    elem, x = ctx.elem(0), ctx.shape(0)
    # X has batch and channel dims, and kernel_shape, strides and pads fit
    # its spatial axes, with output_shape given too: onnx and onnxruntime
    # refuse anything else at load.
    attrs_fit = x is None or (require_min_rank(ctx, 0, 2, "batch and channel dims")
                              and _window_attrs_fit(ctx, len(x) - 2))
    if ctx.has_input(2):
        dims = ctx.sym(2)
        n = ctx.shape(2)
        if dims is None:
            return [tensor(elem, None if n is None or not isinstance(n[0], int) else (None,) * n[0])]
        return [tensor(elem, dims)]
    if x is None:
        return [tensor(elem, None)]
    n = len(x) - 2
    kernel = ctx.attr("kernel_shape")
    if not attrs_fit:
        return [tensor(elem, None if n < 0 else (x[0], x[1]) + (None,) * n)]
    strides = ctx.attr("strides") or [1] * n
    pads = ctx.attr("pads") or [0] * (2 * n)
    sp = tuple(dim_add(dim_mul(dim_add(x[2 + i], -1), strides[i]), kernel[i] - pads[i] - pads[i + n])
               for i in range(n))
    return [tensor(elem, (x[0], x[1]) + sp)]


@rule("Gemm")
def gemm(ctx):
    a, b = ctx.shape(0), ctx.shape(1)
    a_ok = require_rank(ctx, 0, 2, "a matrix")
    b_ok = require_rank(ctx, 1, 2, "a matrix")
    trans_a, trans_b = ctx.attr("transA", 0), ctx.attr("transB", 0)
    m = (a[1] if trans_a else a[0]) if a is not None and a_ok else None
    n = (b[0] if trans_b else b[1]) if b is not None and b_ok else None
    if a is not None and b is not None and a_ok and b_ok:
        k_a, k_b = (a[0] if trans_a else a[1]), (b[1] if trans_b else b[0])
        if dims_differ(k_a, k_b):
            ctx.error(DIM, f"{input_label(ctx, 0)} of shape {show(a)}{' (transposed)' if trans_a else ''} and "
                           f"{input_label(ctx, 1)} of shape {show(b)}{' (transposed)' if trans_b else ''} cannot be "
                           f"multiplied: inner dims {k_a} and {k_b} differ")
        else:
            warn_symbol_fixed(ctx, k_a, k_b, f"the inner dims of {input_label(ctx, 0)} {show(a)} and "
                                             f"{input_label(ctx, 1)} {show(b)}")
            if ctx.opset >= 7 and ctx.has_input(2):
                _gemm_bias_fits(ctx, (m, n))
    return [tensor(ctx.elem(0), (m, n))]


def _gemm_bias_fits(ctx, target) -> None:
    """C broadcasts one way, onto (M, N)."""
    c = ctx.shape(2)
    if c is None:
        return
    if len(c) > 2:
        ctx.error(RANK, f"{input_label(ctx, 2)} has rank {len(c)} {show(c)} but Gemm's C must broadcast to "
                        f"(M, N) {show(target)}")
        return
    for d, t in zip(reversed(c), reversed(target)):
        if d != 1 and dims_differ(d, t):
            ctx.error(DIM, f"{input_label(ctx, 2)} of shape {show(c)} cannot broadcast to the product's shape "
                           f"{show(target)}: dim {d} against {t}")
            return


def matmul_shape(a, b, ctx=None, ia=0, ib=1):
    """The product's shape; with `ctx`, contradictions are reported."""
    if a is None or b is None:
        return None
    if not a or not b:
        if ctx is not None:
            i = ia if not a else ib
            ctx.error(RANK, f"{input_label(ctx, i)} is a scalar: {ctx.op_type} needs rank 1 or more")
        return None
    a1, b1 = len(a) == 1, len(b) == 1
    a = (1,) + a if a1 else a
    b = b + (1,) if b1 else b
    if ctx is not None and dims_differ(a[-1], b[-2]):
        ctx.error(DIM, f"{input_label(ctx, ia)} of shape {show(ctx.shape(ia))} and {input_label(ctx, ib)} of shape "
                       f"{show(ctx.shape(ib))} cannot be multiplied: inner dims {a[-1]} and {b[-2]} differ")
    elif ctx is not None:
        warn_symbol_fixed(ctx, a[-1], b[-2], f"the inner dims of {input_label(ctx, ia)} {show(ctx.shape(ia))} "
                                             f"and {input_label(ctx, ib)} {show(ctx.shape(ib))}")
    batch = broadcast_shapes([a[:-2], b[:-2]])
    if ctx is not None and None in batch:
        broadcast_conflict(ctx, (ia, ib), (a[:-2], b[:-2]))
    out = batch + (a[-2], b[-1])
    if a1:
        out = out[:-2] + out[-1:]
    if b1:
        out = out[:-1]
    return out


@rule("MatMul")
def matmul(ctx):
    return [tensor(ctx.elem(0), matmul_shape(ctx.shape(0), ctx.shape(1), ctx))]


@rule("MatMulInteger")
def matmul_integer(ctx):
    return [tensor(INT32, matmul_shape(ctx.shape(0), ctx.shape(1), ctx))]


@rule("QLinearMatMul")
def qlinear_matmul(ctx):
    return [tensor(ctx.elem(7) or ctx.elem(0), matmul_shape(ctx.shape(0), ctx.shape(3), ctx, 0, 3))]


@rule("LSTM", "GRU", "RNN")
def recurrent(ctx):
    elem, x = ctx.elem(0), ctx.shape(0)
    for i, why in ((0, "sequence, batch, features"), (1, "directions, gates x hidden, features"),
                   (2, "directions, gates x hidden, hidden")):
        require_rank(ctx, i, 3, why)
    direction = ctx.attr("direction", "forward")
    if isinstance(direction, bytes):
        direction = direction.decode()
    nd = 2 if direction == "bidirectional" else 1
    hidden = ctx.attr("hidden_size")
    if hidden is None:
        r = ctx.shape(2)
        hidden = r[2] if r is not None and len(r) == 3 else None
    layout = ctx.attr("layout", 0)
    seq = batch = None
    if x is not None and len(x) == 3:
        seq, batch = (x[1], x[0]) if layout else (x[0], x[1])
    if layout:
        y, yh = (batch, seq, nd, hidden), (batch, nd, hidden)
    else:
        y, yh = (seq, nd, batch, hidden), (nd, batch, hidden)
    return [tensor(elem, y), tensor(elem, yh), tensor(elem, yh)]


@rule("Einsum")
def einsum(ctx):
    eq = ctx.attr("equation", "")
    if isinstance(eq, bytes):
        eq = eq.decode()
    elem = ctx.elem(0)
    eq = eq.replace(" ", "")
    lhs, _, rhs = eq.partition("->")
    terms = lhs.split(",")
    sizes: dict[str, object] = {}
    ell = None
    for i, term in enumerate(terms):
        shape = ctx.shape(i)
        if shape is None:
            return [tensor(elem, None)]
        n_ell = len(shape) - len(term.replace("...", ""))
        if n_ell < 0 or n_ell > 0 and "..." not in term:
            ctx.error(RANK, f"{input_label(ctx, i)} has rank {len(shape)} {show(shape)} but its term {term!r} "
                            f"in the equation {eq!r} names {len(term.replace('...', ''))} axes"
                            + (" and more through '...'" if "..." in term else ""))
            return [tensor(elem, None)]
        pos = 0
        for part in term.split("...")[:1]:
            for ch in part:
                _bind(sizes, ch, shape[pos])
                pos += 1
        if "..." in term:
            ell_dims = shape[pos:pos + n_ell]
            ell = ell_dims if ell is None else broadcast_shapes([ell, ell_dims])
            pos += n_ell
            for ch in term.split("...")[1]:
                _bind(sizes, ch, shape[pos])
                pos += 1
    if "->" not in eq:
        counts = {}
        for ch in lhs.replace(",", "").replace(".", ""):
            counts[ch] = counts.get(ch, 0) + 1
        rhs = ("..." if "..." in lhs else "") + "".join(sorted(c for c, k in counts.items() if k == 1))
    out = []
    for j, part in enumerate(rhs.split("...")):
        if j == 1:
            out.extend(ell or ())
        out.extend(sizes.get(ch) for ch in part)
    return [tensor(elem, out)]


def _bind(sizes, ch, d):
    old = sizes.get(ch)
    if old is None or old == 1 or (isinstance(d, int) and not isinstance(old, int)):
        sizes[ch] = d


@rule("SoftmaxCrossEntropyLoss", "NegativeLogLikelihoodLoss")
def loss(ctx):
    _loss_inputs_fit(ctx)
    red = ctx.attr("reduction", "mean")
    if isinstance(red, bytes):
        # A damaged file's bytes still reduce (onnx and onnxruntime read
        # anything but "none" so): the rule must not fail on them.
        red = red.decode(errors="replace")
    elem = ctx.elem(0)
    target = ctx.shape(1)
    out = tensor(elem, target if red == "none" else ())
    return [out, tensor(elem, ctx.shape(0))]


def _loss_inputs_fit(ctx) -> None:
    """Scores (N, C, d1..dk) against targets (N, d1..dk): one rank less; a
    weight per class, 1-D (onnxruntime refuses others at load; onnx too,
    but for SoftmaxCrossEntropyLoss's ranks, which its function body meets
    only when run)."""
    x, t = ctx.shape(0), ctx.shape(1)
    if x is not None and t is not None and len(t) != len(x) - 1:
        ctx.error(RANK, f"{input_label(ctx, 1)} has rank {len(t)} {show(t)} but {input_label(ctx, 0)} has rank "
                        f"{len(x)} {show(x)}: the targets are one rank less than the scores (N, C, d1..dk "
                        "against N, d1..dk)")
    if ctx.has_input(2):
        require_rank(ctx, 2, 1, "one weight per class")


@rule("GridSample")
def grid_sample(ctx):
    x, g = ctx.shape(0), ctx.shape(1)
    if x is None or g is None:
        return [tensor(ctx.elem(0), None)]
    if not _grid_fits(ctx, x, g):
        return [tensor(ctx.elem(0), None)]
    return [tensor(ctx.elem(0), (x[0], x[1]) + g[1:-1])]


def _grid_fits(ctx, x, g) -> bool:
    """X is (N, C, D1..Dr) and the grid (N, D1_out..Dr_out, r): the same rank,
    and a known last grid dim equal to r (onnx and onnxruntime refuse others)."""
    if len(x) != len(g):
        ctx.error(RANK, f"{input_label(ctx, 1)} has rank {len(g)} {show(g)} but {input_label(ctx, 0)} has rank "
                        f"{len(x)} {show(x)}: GridSample needs them equal (the grid is N, the output's spatial "
                        "dims, then one coordinate per spatial dim)")
        return False
    spatial = len(x) - 2
    if g and dims_differ(g[-1], spatial):
        ctx.error(DIM, f"the last dim of {input_label(ctx, 1)} {show(g)} is {g[-1]} but {input_label(ctx, 0)} "
                       f"{show(x)} has {spatial} spatial dims: the grid gives one coordinate per spatial dim")
        return False
    return True


def _col2im_lists_fit(ctx) -> bool:
    """image_shape and block_shape are 1-D, one entry per spatial dim, and
    dilations, strides (one per spatial dim) and pads (two) agree with them
    and each other (onnx and onnxruntime refuse others)."""
    counts = []
    for i, what in ((1, "image_shape"), (2, "block_shape")):
        if not require_rank(ctx, i, 1, f"{what} lists one size per spatial dim"):
            return False
        s = ctx.shape(i)
        if s is not None and known(s[0]):
            counts.append((s[0], f"{input_label(ctx, i)} has {s[0]}"))
    for name, per_dim in (("dilations", 1), ("strides", 1), ("pads", 2)):
        values = ctx.attr(name)
        if int_list(values):
            counts.append((len(values) / per_dim, f"{name} {list(values)} gives {len(values) / per_dim:g}"))
    if len({n for n, _ in counts}) > 1:
        ctx.error(LENGTH, f"Col2Im's spatial dims do not agree: {'; '.join(what for _, what in counts)} "
                          "(image_shape, block_shape, dilations and strides need one entry per spatial dim, "
                          "pads two)")
        return False
    return True


@rule("AffineGrid")
def affine_grid(ctx):
    size = ctx.sym(1)
    if size is None:
        n = ctx.shape(1)
        rank = n[0] if n and isinstance(n[0], int) else None
        return [tensor(ctx.elem(0), None if rank is None else (None,) * (rank - 1) + (rank - 2,))]
    n, _c, *sp = size
    return [tensor(ctx.elem(0), (n, *sp, len(sp)))]


@rule("Col2Im")
def col2im(ctx):
    if not require_rank(ctx, 0, 3, "N, C * the block's size, the number of blocks") or not _col2im_lists_fit(ctx):
        return [tensor(ctx.elem(0), None)]
    x, image, block = ctx.shape(0), ctx.sym(1), ctx.ints(2)
    if image is None:
        n = ctx.shape(1)
        image = (None,) * n[0] if n and isinstance(n[0], int) else None
    if x is None or image is None:
        return [tensor(ctx.elem(0), None if image is None else (None, None) + image)]
    c = None
    if block is not None and isinstance(x[1], int):
        prod = 1
        for b in block:
            prod *= b
        c = x[1] // prod if prod else None
    return [tensor(ctx.elem(0), (x[0], c) + tuple(image))]
