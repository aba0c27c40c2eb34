"""Constants, resizing, quantization, random generators, signal and string ops,
and the attention family."""
from __future__ import annotations

import fractions

import numpy as np

from ..ir.dtypes import DataType, from_numpy_dtype, itemsize_bits, type_name
from . import findings
from .context import rule, tensor
from .dims import dim_add, dim_floordiv, dim_mul, dim_sub
from .findings import RANK, dims_differ, input_label, known, require_rank, show

INT64, FLOAT, BOOL, STRING, UINT8, INT32 = (DataType.INT64, DataType.FLOAT, DataType.BOOL,
                                           DataType.STRING, DataType.UINT8, DataType.INT32)

# Constants larger than this stay type-only: folding them buys nothing.
MAX_CONST_ELEMENTS = 4096


@rule("Constant")
def constant(ctx):
    a = ctx.attrs
    if "value" in a:
        t = a["value"]
        shape = t.shape
        if len(shape) <= 1 and (not shape or shape[0] <= MAX_CONST_ELEMENTS):
            ctx.out_consts[0] = t.numpy()
        return [tensor(int(t.dtype), shape)]
    if "sparse_value" in a:
        sp = a["sparse_value"]
        dims = getattr(sp, "dims", None) or getattr(sp, "shape", None)
        elem = getattr(sp, "dtype", None)
        if elem is None and getattr(sp, "values", None) is not None:
            elem = sp.values.dtype
        return [tensor(int(elem) if elem is not None else 0, tuple(dims) if dims is not None else None)]
    scalar = {"value_float": (FLOAT, ()), "value_int": (INT64, ()), "value_string": (STRING, ())}
    lists = {"value_floats": FLOAT, "value_ints": INT64, "value_strings": STRING}
    for name, (elem, shape) in scalar.items():
        if name in a:
            if elem == INT64:
                ctx.out_consts[0] = np.array(a[name], dtype=np.int64)
            return [tensor(elem, shape)]
    for name, elem in lists.items():
        if name in a:
            if elem == INT64:
                ctx.out_consts[0] = np.array(a[name], dtype=np.int64)
            return [tensor(elem, (len(a[name]),))]
    return [None]


def _resize_scales_shape(shape, scales):
    # A symbolic dim scaled by a whole number stays exact: "2*H".
    return tuple(int(np.floor(d * s)) if isinstance(d, int) else _scaled_symbol(d, s)
                 for d, s in zip(shape, scales))


def _scaled_symbol(d, s):
    # floor(d * p/q) for a scale that is exactly p/q with a small q (0.5,
    # 0.25, 1.5 ...): `floor(H/2)`. Others would need the float rounding.
    if d is None or not s > 0:
        return None
    f = fractions.Fraction(float(s))
    if f.denominator > 64:
        return None
    return dim_floordiv(dim_mul(d, f.numerator), f.denominator)


@rule("Resize")
def resize(ctx):
    elem, shape = ctx.elem(0), ctx.shape(0)
    if shape is None:
        return [tensor(elem, None)]
    r = len(shape)
    axes = ctx.attr("axes")
    if ctx.opset < 11:
        scales, sizes = ctx.const(1), None
    else:
        scales = ctx.const(2) if ctx.has_input(2) else None
        sizes = ctx.sym(3) if ctx.has_input(3) else None
        if scales is not None and scales.size == 0:
            scales = None
    if axes:
        axes = findings.axes(ctx, axes, r)
        if axes is None:
            return [tensor(elem, (None,) * r)]
    else:
        axes = list(range(r))
    if ctx.opset >= 11 and not (_resize_sizes_1d(ctx) and _resize_lists_fit(ctx, len(axes), "axes" in ctx.attrs)):
        return [tensor(elem, (None,) * r)]
    if sizes is None and scales is None:
        return [tensor(elem, tuple(None if i in axes else d for i, d in enumerate(shape)))]
    out = list(shape)
    if sizes is not None:
        policy = ctx.attr("keep_aspect_ratio_policy", "stretch")
        if policy != "stretch":
            known = [(shape[a], s) for a, s in zip(axes, sizes)]
            if all(isinstance(d, int) and isinstance(s, int) for d, s in known):
                ratios = [s / d for d, s in known]
                k = min(ratios) if policy == "not_larger" else max(ratios)
                for a in axes:
                    out[a] = int(np.floor(shape[a] * k + 0.5))
            else:
                for a in axes:
                    out[a] = None
            return [tensor(elem, out)]
        for a, s in zip(axes, sizes):
            out[a] = s
        return [tensor(elem, out)]
    sc = [float(x) for x in scales.reshape(-1)]
    for a, s in zip(axes, sc):
        out[a] = _resize_scales_shape((shape[a],), (s,))[0]
    return [tensor(elem, out)]


def _resize_sizes_1d(ctx) -> bool:
    """sizes is 1-D (its page). onnx and onnxruntime read the numbers of a
    constant whatever its rank, and refuse a computed one of another rank:
    only that is an error here."""
    s = ctx.shape(3) if ctx.has_input(3) else None
    if s is None or len(s) == 1 or ctx.const(3) is not None:
        return True
    ctx.error(RANK, f"{input_label(ctx, 3)} has rank {len(s)} {show(s)} but Resize's sizes is 1-D: one size per "
                    "resized axis")
    return False


def _empty_list(shape) -> bool:
    return shape is not None and len(shape) == 1 and shape[0] == 0 and type(shape[0]) is int


def _may_be_empty(shape) -> bool:
    """False only for a 1-D list known to hold entries."""
    return shape is None or len(shape) != 1 or type(shape[0]) is not int or shape[0] == 0


def _resize_lists_fit(ctx, n: int, by_axes: bool) -> bool:
    """scales and sizes hold one entry per resized axis: the input's rank,
    or the length of `axes` (onnx and onnxruntime refuse others). An empty
    one stands for 'not given' (opset 11-12 need an input there), so one of
    them must hold entries."""
    given = [i for i in (2, 3) if ctx.has_input(i)]
    if given and all(_empty_list(ctx.shape(i)) for i in given):
        ctx.error("node.inputs-exclusive", f"{' and '.join(input_label(ctx, i) for i in given)} "
                                           f"{'are' if len(given) > 1 else 'is'} empty: Resize needs scales or sizes, "
                                           "one entry per resized axis")
        return False
    if len(given) == 2 and not any(_may_be_empty(ctx.shape(i)) for i in given):
        # Both named is the rule at opsets 11-12 (scales is required, and
        # exporters give an empty one beside sizes): only two lists that
        # both hold entries are refused (onnxruntime at every opset, onnx from 13).
        ctx.error("node.inputs-exclusive", f"{input_label(ctx, 2)} and {input_label(ctx, 3)} both hold entries: "
                                           "Resize takes either scales or sizes; leave scales empty (an empty "
                                           "tensor at opsets 11-12, \"\" from opset 13) or sizes out")
        return False
    for i in (2, 3):
        s = ctx.shape(i) if ctx.has_input(i) else None
        if s is None or len(s) != 1 or not known(s[0]) or s[0] in (0, n):
            continue
        against = f"attribute 'axes' lists {n}" if by_axes else f"input 0 has rank {n}"
        ctx.error("shape.dim-mismatch", f"{input_label(ctx, i)} has {s[0]} entries but {against}: Resize takes "
                                        f"one {'scale' if i == 2 else 'size'} per resized axis")
        return False
    return True


@rule("Upsample")
def upsample(ctx):
    elem, shape = ctx.elem(0), ctx.shape(0)
    scales = ctx.attr("scales")
    if scales is None and "height_scale" in ctx.attrs:      # opset 1: NCHW only
        scales = [1.0, 1.0, ctx.attrs["height_scale"], ctx.attr("width_scale", 1.0)]
    if scales is None and ctx.const(1) is not None:
        scales = [float(x) for x in ctx.const(1).reshape(-1)]
    if shape is None:
        return [tensor(elem, None)]
    if scales is None:
        return [tensor(elem, (None,) * len(shape))]
    return [tensor(elem, _resize_scales_shape(shape, scales))]


@rule("QuantizeLinear")
def quantize(ctx):
    elem = ctx.attr("output_dtype", 0) or ctx.elem(2) or UINT8
    return [tensor(elem, ctx.shape(0))]


@rule("DequantizeLinear")
def dequantize(ctx):
    elem = ctx.attr("output_dtype", 0) or ctx.elem(1) or FLOAT
    return [tensor(elem, ctx.shape(0))]


@rule("DynamicQuantizeLinear")
def dynamic_quantize(ctx):
    return [tensor(UINT8, ctx.shape(0)), tensor(FLOAT, ()), tensor(UINT8, ())]


@rule("BitCast")
def bit_cast(ctx):
    to = ctx.attr("to", 0)
    _same_bit_width(ctx, to)
    return [tensor(to, ctx.shape(0))]


def _same_bit_width(ctx, to) -> None:
    """BitCast reinterprets each element's bits: the input's element type
    and `to` must be equally wide (onnx and onnxruntime refuse others)."""
    elem = ctx.elem(0)
    have, want = itemsize_bits(elem), itemsize_bits(to) if type(to) is int else 0
    if have and want and have != want:
        ctx.error("node.input-type", f"{input_label(ctx, 0)} is {type_name(elem)} ({have} bits) but to = "
                                     f"{type_name(to)} has {want}: BitCast keeps each element's bits, so both "
                                     "types must be equally wide")


@rule("RandomNormal", "RandomUniform")
def random_fill(ctx):
    return [tensor(ctx.attr("dtype", FLOAT), tuple(ctx.attr("shape", ())))]


@rule("Multinomial")
def multinomial(ctx):
    x = ctx.shape(0)
    return [tensor(ctx.attr("dtype", INT32), (x[0] if x else None, ctx.attr("sample_size", 1)))]


@rule("HannWindow", "HammingWindow", "BlackmanWindow")
def window(ctx):
    size = ctx.sym(0)
    return [tensor(ctx.attr("output_datatype", FLOAT), (size[0] if size else None,))]


@rule("MelWeightMatrix")
def mel_weight_matrix(ctx):
    dft, bins = ctx.sym(1), ctx.sym(0)
    rows = dim_add(dim_floordiv(dft[0], 2), 1) if dft else None
    return [tensor(ctx.attr("output_datatype", FLOAT), (rows, bins[0] if bins else None))]


@rule("DFT")
def dft(ctx):
    elem, shape = ctx.elem(0), ctx.shape(0)
    if shape is None:
        return [tensor(elem, None)]
    r = len(shape)
    inverse, onesided = ctx.attr("inverse", 0), ctx.attr("onesided", 0)
    # An inverse one-sided transform gives a real signal; everything else complex.
    last = 1 if inverse and onesided else 2
    _dft_input_fits(ctx, shape, inverse, onesided)
    if ctx.opset < 20:
        axis = ctx.attr("axis", 1)
    elif ctx.has_input(2):
        ax = ctx.ints(2)
        axis = ax[0] if ax else None
    else:
        axis = -2
    if axis is not None and not _dft_axis_fits(ctx, axis, r):
        return [tensor(elem, (None,) * r)]
    length = None
    if ctx.has_input(1):
        sym = ctx.sym(1)
        length = sym[0] if sym else None
    if axis is None:
        if not ctx.has_input(1) and not onesided:
            return [tensor(elem, shape[:-1] + (last,))]
        return [tensor(elem, (None,) * (r - 1) + (last,))]
    axis = axis + r if axis < 0 else axis
    n = length if ctx.has_input(1) else shape[axis]
    if onesided and inverse:
        n = length if ctx.has_input(1) else dim_mul(2, dim_add(shape[axis], -1))
    elif onesided:
        n = dim_add(dim_floordiv(n, 2), 1)
    out = list(shape)
    out[axis] = n
    out[-1] = last
    return [tensor(elem, out)]


def _dft_input_fits(ctx, shape, inverse, onesided) -> None:
    """The input's last dim holds a real signal (1) or the real and
    imaginary parts (2): onnxruntime fails to run any other. A one-sided
    transform takes a real signal, its inverse the complex half spectrum:
    onnx and onnxruntime refuse either other at load."""
    have = shape[-1] if shape else None
    if not known(have):
        return
    start = f"{input_label(ctx, 0)} {show(shape)} has a last dim of {have}, but"
    if onesided == 1 and inverse == 0 and have != 1:
        ctx.error("shape.dim-mismatch", f"{start} a one-sided DFT (onesided=1) transforms a real signal, a last "
                                        "dim of 1: give it a real signal, or set onesided=0 for a complex one")
    elif onesided == 1 and inverse == 1 and have != 2:
        ctx.error("shape.dim-mismatch", f"{start} an inverse one-sided DFT (inverse=1, onesided=1) takes the "
                                        "complex half spectrum, a last dim of 2: give it real and imaginary "
                                        "parts, or set onesided=0")
    elif have not in (1, 2):
        ctx.error("shape.dim-mismatch", f"{start} DFT reads its last dim as a real signal (1) or its real and "
                                        "imaginary parts (2): give it a last dim of 1 or 2")


def _dft_axis_fits(ctx, axis, r) -> bool:
    """The transformed axis is a signal axis: not the last one, which holds
    the real and imaginary parts (onnx and onnxruntime refuse it)."""
    if type(axis) is not int or -r <= axis <= r - 2 and axis != -1:
        return True
    where = "attribute 'axis'" if ctx.opset < 20 else "input 2 (axis)"
    ctx.error("attr.axis-out-of-range", f"{where} is {axis} but the input has rank {r}, its last dim the real and "
                                        f"imaginary parts: it must lie in [{-r}, -2] or [0, {r - 2}]")
    return False


@rule("STFT")
def stft(ctx):
    elem, shape = ctx.elem(0), ctx.shape(0)
    step = ctx.sym(1)
    win = ctx.shape(2) if ctx.has_input(2) else None
    length = ctx.sym(3) if ctx.has_input(3) else None
    flen = length[0] if length else (win[0] if win else None)
    batch = shape[0] if shape else None
    sig = shape[1] if shape and len(shape) > 1 else None
    frames = None
    if sig is not None and flen is not None and step and type(step[0]) is int and step[0] > 0:
        frames = dim_add(dim_floordiv(dim_sub(sig, flen), step[0]), 1)
    bins = flen
    if ctx.attr("onesided", 1):
        # Half the spectrum for a symbolic frame length too: it was left as
        # the whole length (a window of `w` gave w bins, not floor(w/2)+1).
        bins = dim_add(dim_floordiv(flen, 2), 1) if flen is not None else None
    return [tensor(elem, (batch, frames, bins, 2))]


@rule("NonMaxSuppression")
def nms(ctx):
    return [tensor(INT64, (None, 3))]


@rule("StringNormalizer")
def string_normalizer(ctx):
    shape = ctx.shape(0)
    # Its page takes [C] or [1, C] (onnx and onnxruntime refuse other ranks
    # and a known first dim other than 1; a symbol may be 1).
    if shape is not None and len(shape) not in (1, 2):
        ctx.error(RANK, f"{input_label(ctx, 0)} has rank {len(shape)} {show(shape)} but StringNormalizer takes "
                        "[C] or [1, C]")
    elif shape is not None and len(shape) == 2 and dims_differ(shape[0], 1):
        ctx.error("shape.dim-mismatch", f"{input_label(ctx, 0)} {show(shape)} has {shape[0]} rows but "
                                        "StringNormalizer takes [C] or [1, C]: one row")
    if shape is not None and len(shape) == 2:
        return [tensor(STRING, (shape[0], None))]
    return [tensor(STRING, (None,) if shape is not None else None)]


@rule("StringConcat")
def string_concat(ctx):
    from .dims import broadcast_shapes
    return [tensor(STRING, broadcast_shapes([ctx.shape(0), ctx.shape(1)]))]


@rule("RegexFullMatch")
def regex_full_match(ctx):
    return [tensor(BOOL, ctx.shape(0))]


@rule("StringSplit")
def string_split(ctx):
    shape = ctx.shape(0)
    return [tensor(STRING, None if shape is None else shape + (None,)), tensor(INT64, shape)]


@rule("TfIdfVectorizer")
def tfidf(ctx):
    shape = ctx.shape(0)
    if shape is not None and len(shape) not in (1, 2):
        ctx.error(RANK, f"{input_label(ctx, 0)} has rank {len(shape)} {show(shape)} but TfIdfVectorizer takes "
                        "one sequence of tokens (rank 1) or a batch of them (rank 2)")
        return [tensor(FLOAT, None)]
    width = max(ctx.attr("ngram_indexes", [-1])) + 1
    if shape is None:
        return [tensor(FLOAT, None)]
    return [tensor(FLOAT, (width,) if len(shape) == 1 else (shape[0], width))]


@rule("ImageDecoder")
def image_decoder(ctx):
    require_rank(ctx, 0, 1, "the encoded bytes of one image")
    return [tensor(UINT8, (None, None, None))]


@rule("RotaryEmbedding")
def rotary_embedding(ctx):
    # A 3-D input packs the heads into its last dim: num_heads says how to
    # split it (its page: must be provided; onnx and onnxruntime refuse it
    # missing). One given by reference outside a function is the checker's.
    on_node = ctx.node.attributes if ctx.node is not None else ctx.attrs
    if ctx.rank(0) == 3 and "num_heads" not in on_node:
        ctx.error("attr.required-missing", f"{input_label(ctx, 0)} is 3-D {show(ctx.shape(0))}: RotaryEmbedding needs "
                                           "num_heads to split the hidden size into heads; give num_heads")
    return [ctx.type(0)]


@rule("SwiGLU")
def swiglu(ctx):
    # The gate and the value are multiplied element by element without
    # broadcasting: one shape (onnx and onnxruntime refuse others).
    a, b = ctx.shape(0), ctx.shape(1)
    if a is not None and b is not None:
        if len(a) != len(b):
            ctx.error(RANK, f"{input_label(ctx, 1)} has rank {len(b)} {show(b)} but {input_label(ctx, 0)} has rank "
                            f"{len(a)} {show(a)}: SwiGLU takes the gate and the value of one shape (no broadcasting)")
        else:
            axis = next((i for i, (x, y) in enumerate(zip(a, b)) if dims_differ(x, y)), None)
            if axis is not None:
                ctx.error("shape.dim-mismatch", f"{input_label(ctx, 0)} {show(a)} and {input_label(ctx, 1)} {show(b)} "
                                                f"differ at axis {axis} ({a[axis]} and {b[axis]}): SwiGLU takes the "
                                                "gate and the value of one shape (no broadcasting)")
    return [ctx.type(0)]


@rule("CausalConvWithState")
def causal_conv(ctx):
    if ctx.has_input(2):
        require_rank(ctx, 2, 1, "one bias per channel")
    for i, why in ((0, "batch, channels, length"), (1, "channels, 1, kernel size"),
                   (3, "batch, channels, kernel size - 1")):
        if ctx.has_input(i):
            require_rank(ctx, i, 3, why)
    x, w = ctx.shape(0), ctx.shape(1)
    state = None
    if x is not None and len(x) == 3:
        k = w[2] if w is not None and len(w) == 3 else None
        state = (x[0], x[1], k - 1 if isinstance(k, int) else None)
    return [ctx.type(0), tensor(ctx.elem(0), state)]


@rule("Attention")
def attention(ctx):
    _attention_inputs_fit(ctx)
    elem, q, k, v = ctx.elem(0), ctx.shape(0), ctx.shape(1), ctx.shape(2)
    y = present_k = present_v = qk = None
    past = ctx.shape(4) if ctx.has_input(4) else None
    if q is not None and len(q) == 4:
        v_head = v[3] if v is not None and len(v) == 4 else None
        y = (q[0], q[1], q[2], v_head)
        if k is not None and len(k) == 4:
            total = dim_add(past[2], k[2]) if past is not None else k[2]
            present_k = (k[0], k[1], total, k[3])
            present_v = (v[0], v[1], total, v_head) if v is not None else None
            qk = (q[0], q[1], q[2], total)
    elif q is not None and len(q) == 3:
        qh, kvh = ctx.attr("q_num_heads"), ctx.attr("kv_num_heads")
        v_hidden = v[2] if v is not None and len(v) == 3 else None
        width = None
        if isinstance(v_hidden, int) and qh and kvh:
            width = v_hidden // kvh * qh
        y = (q[0], q[1], width)
        if k is not None and len(k) == 3 and kvh:
            total = dim_add(past[2], k[1]) if past is not None else k[1]
            present_k = (k[0], kvh, total, dim_floordiv(k[2], kvh))
            present_v = (v[0], kvh, total, dim_floordiv(v_hidden, kvh)) if v is not None else None
            qk = (q[0], qh, q[1], total)
    return [tensor(elem, y), tensor(elem, present_k), tensor(elem, present_v), tensor(elem, qk)]


_ATTENTION_LAYOUTS = "3-D (batch, sequence, heads * head size) or 4-D (batch, heads, sequence, head size)"


def _attention_inputs_fit(ctx) -> None:
    """What onnx's inference and onnxruntime refuse of Attention's inputs,
    as its page states them: Q, K and V of rank 3 or 4; with a 3-D query
    q_num_heads and kv_num_heads say how to split the hidden size (both
    needed, and positive when the value is 3-D too); from opset 25 a 4-D
    query, whose dim 1 holds the heads, takes neither; past_key and
    past_value come together (onnxruntime fails to run one alone) and
    (read when the present outputs are given) are 4-D."""
    for i, what in ((0, "query"), (1, "key"), (2, "value")):
        s = ctx.shape(i)
        if s is not None and len(s) not in (3, 4):
            ctx.error(RANK, f"{input_label(ctx, i)} has rank {len(s)} {show(s)} but Attention takes the {what} "
                            f"{_ATTENTION_LAYOUTS}")
    q_rank, v_rank = ctx.rank(0), ctx.rank(2)
    heads = [n for n in ("q_num_heads", "kv_num_heads") if n in ctx.attrs]
    if q_rank == 3:
        # An attribute given by reference (ref_attr_name) outside a function
        # is the checker's finding, not a missing one.
        on_node = ctx.node.attributes if ctx.node is not None else ctx.attrs
        missing = [n for n in ("q_num_heads", "kv_num_heads") if n not in on_node]
        if missing:
            ctx.error("attr.required-missing", f"{input_label(ctx, 0)} is 3-D {show(ctx.shape(0))}: Attention "
                                               f"needs q_num_heads and kv_num_heads to split the hidden size into "
                                               f"heads; give {' and '.join(missing)}")
        elif v_rank == 3:
            for n in heads:
                value = ctx.attrs[n]
                if type(value) is int and value < 1:
                    ctx.error("attr.value-out-of-range", f"{n} is {value} but must be a number of heads "
                                                         "(1 or more)")
    elif q_rank == 4 and heads and ctx.opset >= 25:
        ctx.error(RANK, f"{input_label(ctx, 0)} is 4-D {show(ctx.shape(0))} (its dim 1 holds the heads) but the "
                        f"node gives {' and '.join(heads)}, which Attention takes only with 3-D inputs: remove "
                        f"{'them' if len(heads) > 1 else 'it'} or pass 3-D inputs")
    _keys_and_values_pair(ctx)
    if ctx.has_input(4) != ctx.has_input(5):
        given, empty = ("past_key", "past_value") if ctx.has_input(4) else ("past_value", "past_key")
        label = input_label(ctx, 4 if given == "past_key" else 5)
        ctx.error("node.required-input-empty", f"{given} ({label}) is given but {empty} (input "
                                               f"{5 if empty == 'past_value' else 4}) is not: Attention takes the "
                                               "past keys and values together, or neither")
    if _output_given(ctx, 1) and _output_given(ctx, 2) and ctx.has_input(4) and ctx.has_input(5):
        require_rank(ctx, 4, 4, "the past keys: batch, heads, past sequence, head size")
        require_rank(ctx, 5, 4, "the past values: batch, heads, past sequence, head size")
    if ctx.has_input(4) and ctx.has_input(5):
        _past_fits(ctx)


def _keys_and_values_pair(ctx) -> None:
    """Each key has its value: K and V of one batch, number of heads (4-D)
    and sequence length, and Q of their batch (the page names the dims
    alike; onnxruntime fails to run any other, onnx refuses where the
    present value is declared from K's length: seed 42's
    node/test_attention_local_window_with_past:42004025)."""
    shapes = {i: ctx.shape(i) for i in (0, 1, 2)}
    if any(s is None or len(s) not in (3, 4) for s in shapes.values()):
        return
    k, v = shapes[1], shapes[2]
    pairs = [(0, 1, 0, "batch")]
    if len(k) == len(v):
        seq = 2 if len(k) == 4 else 1
        pairs += [(1, 2, 0, "batch"), (1, 2, seq, "sequence length")] + ([(1, 2, 1, "number of heads")]
                                                                        if len(k) == 4 else [])
    for i, j, axis, name in pairs:
        a, b = shapes[i], shapes[j]
        if dims_differ(a[axis], b[axis]):
            ctx.error("shape.dim-mismatch", f"{input_label(ctx, i)} {show(a)} and {input_label(ctx, j)} {show(b)} "
                                            f"differ in the {name} ({a[axis]} and {b[axis]}, axis {axis}): each "
                                            "query meets every key of its batch, and each key has its value; "
                                            f"give them one {name}")
            return


def _past_fits(ctx) -> None:
    """The past keys and values are the caches K and V are appended to
    along the sequence axis: (batch, kv heads, past sequence, head size)
    with K's batch, heads and head size (V's for the values), one past
    length for both (the page names the dims alike; onnxruntime fails to
    run any other, onnx refuses where the present outputs are declared
    from K and V)."""
    past = {i: ctx.shape(i) for i in (4, 5)}
    if any(s is None or len(s) != 4 for s in past.values()):
        return
    kvh = ctx.attr("kv_num_heads")
    for i, j, what in ((4, 1, "key"), (5, 2, "value")):
        s, p = ctx.shape(j), past[i]
        if s is None or len(s) not in (3, 4):
            continue
        if len(s) == 4:
            wanted = ((0, s[0], "batch"), (1, s[1], "number of heads"), (3, s[3], "head size"))
        else:
            head = s[2] // kvh if known(s[2]) and type(kvh) is int and kvh > 0 and s[2] % kvh == 0 else None
            wanted = ((0, s[0], "batch"), (1, kvh if type(kvh) is int else None, "number of heads (kv_num_heads)"),
                      (3, head, "head size"))
        for axis, d, name in wanted:
            if dims_differ(p[axis], d):
                ctx.error("shape.dim-mismatch", f"{input_label(ctx, i)} {show(p)} has {p[axis]} at axis {axis} but "
                                                f"the {what}s {input_label(ctx, j)} {show(s)} give a {name} of {d}: "
                                                f"the past {what}s are the cache the {what}s are appended to")
                return
    if dims_differ(past[4][2], past[5][2]):
        ctx.error("shape.dim-mismatch", f"{input_label(ctx, 4)} {show(past[4])} and {input_label(ctx, 5)} "
                                        f"{show(past[5])} hold {past[4][2]} and {past[5][2]} past positions: "
                                        "the caches of keys and values are equally long")


def _output_given(ctx, i: int) -> bool:
    outputs = ctx.node.outputs if ctx.node is not None else ()
    return i < len(outputs) and outputs[i] is not None


# LinearAttention's update rules and the inputs each reads beside Q, K, V.
_LINEAR_ATTENTION_NEEDS = {"linear": (), "gated": ((4, "decay"),), "delta": ((5, "beta"),),
                           "gated_delta": ((4, "decay"), (5, "beta"))}


@rule("LinearAttention")
def linear_attention(ctx):
    rule_name = ctx.attr("update_rule", "gated_delta")
    if isinstance(rule_name, bytes):
        rule_name = rule_name.decode(errors="replace")
    # An update rule it does not have is operator_rules' finding.
    for i, name in _LINEAR_ATTENTION_NEEDS.get(rule_name, ()):
        if not ctx.has_input(i):
            ctx.error("node.required-input-empty", f"update_rule {rule_name!r} reads {name} (input {i}), which the "
                                                   "node does not give")
    for i in range(3):
        require_rank(ctx, i, 3, "batch, sequence, heads * head size")
    for i, why in ((4, "batch, sequence, heads or heads * head size"), (5, "batch, sequence, heads or 1")):
        if ctx.has_input(i):
            require_rank(ctx, i, 3, why)
    q, v = ctx.shape(0), ctx.shape(2)
    qh, kvh = ctx.attr("q_num_heads"), ctx.attr("kv_num_heads")
    for name, value in (("q_num_heads", qh), ("kv_num_heads", kvh)):
        if type(value) is int and value < 1:
            ctx.error("attr.value-out-of-range", f"{name} is {value} but must be a number of heads (1 or more)")
            qh = kvh = None
    if type(qh) is int and type(kvh) is int:
        _linear_attention_heads_fit(ctx, qh, kvh)
    y = None
    if q is not None and len(q) == 3 and v is not None and len(v) == 3:
        y = (q[0], q[1], dim_mul(dim_floordiv(v[2], kvh), qh) if qh and kvh else None)
    state = ctx.shape(3) if ctx.has_input(3) else None
    k = ctx.shape(1)
    if state is None and kvh and k is not None and len(k) == 3 and v is not None and len(v) == 3:
        state = (k[0], kvh, dim_floordiv(k[2], kvh), dim_floordiv(v[2], kvh))
    return [tensor(ctx.elem(0), y), tensor(ctx.elem(3) or ctx.elem(0), state)]


def _linear_attention_heads_fit(ctx, qh: int, kvh: int) -> None:
    """Q, K and V pack their heads into the last dim (H_q * d_k, H_kv * d_k
    and H_kv * d_v), and each key/value head serves an equal group of query
    heads: onnx and onnxruntime refuse at load a q_num_heads that is no
    multiple of kv_num_heads, a last dim its head count does not divide,
    and Q and K of different head sizes d_k. Only numeric dims are judged."""
    if qh % kvh:
        ctx.error("attr.value-out-of-range", f"q_num_heads {qh} is not a multiple of kv_num_heads {kvh}: each key "
                                             "and value head serves an equal group of query heads; give a "
                                             f"q_num_heads that {kvh} divides")
        return
    head_sizes = {}
    for i, heads, name in ((0, qh, "q_num_heads"), (1, kvh, "kv_num_heads"), (2, kvh, "kv_num_heads")):
        s = ctx.shape(i)
        if s is None or len(s) != 3 or type(s[2]) is not int:
            continue
        if s[2] % heads:
            ctx.error("shape.dim-mismatch", f"{input_label(ctx, i)} {show(s)} packs {heads} heads ({name}) into its "
                                            f"last dim, {s[2]}, which {heads} does not divide: give a last dim of "
                                            f"{heads} times the head size, or change {name}")
            return
        head_sizes[i] = s[2] // heads
    if 0 in head_sizes and 1 in head_sizes and head_sizes[0] != head_sizes[1]:
        q, k = ctx.shape(0), ctx.shape(1)
        ctx.error("shape.dim-mismatch", f"{input_label(ctx, 0)} {show(q)} gives a head size d_k of {head_sizes[0]} "
                                        f"({q[2]} over q_num_heads {qh}) but {input_label(ctx, 1)} {show(k)} one "
                                        f"of {head_sizes[1]} ({k[2]} over kv_num_heads {kvh}): queries and keys "
                                        "have one head size")


def numpy_elem(arr) -> int:
    return int(from_numpy_dtype(arr.dtype))


# ai.onnx.preview.training optimizers: inputs R, T, then groups of tensors
# (X, G, H) / (X, G, V) / (X, G, V, H); the outputs are the updated groups
# without the gradients, each shaped like its input.
_OPTIMIZER_GROUPS = {"Adagrad": 3, "Momentum": 3, "Adam": 4}


@rule("Adagrad", "Momentum", "Adam", domain="ai.onnx.preview.training")
def optimizer(ctx):
    k = _OPTIMIZER_GROUPS[ctx.op_type]
    n = (ctx.num_inputs - 2) // k
    groups = [ctx.types[2 + j * n: 2 + (j + 1) * n] for j in range(k)]
    return [t for j, g in enumerate(groups) if j != 1 for t in g]


@rule("FlexAttention", domain="ai.onnx.preview")
def flex_attention(ctx):
    for i in range(3):
        require_rank(ctx, i, 4, "Q, K and V are batch, heads, sequence, head size")
    q, k, v = ctx.shape(0), ctx.shape(1), ctx.shape(2)
    if k is not None and v is not None and len(k) == len(v) == 4:
        for axis, what in ((1, "head counts"), (2, "sequence lengths")):
            if dims_differ(k[axis], v[axis]):
                ctx.error("shape.dim-mismatch", f"{input_label(ctx, 1)} {show(k)} and {input_label(ctx, 2)} "
                                                f"{show(v)} have {what} {k[axis]} and {v[axis]} (dim {axis}): "
                                                "FlexAttention pairs each key with a value")
    if q is None or len(q) != 4:
        return [tensor(ctx.elem(0), None)]
    return [tensor(ctx.elem(0), q[:3] + (v[3] if v is not None and len(v) == 4 else None,))]


@rule("Gradient", domain="ai.onnx.preview.training")
def gradient(ctx):
    # One gradient per name in `xs`, shaped like that value.
    graph = ctx.node.graph if ctx.node is not None else None
    out = []
    for name in ctx.attr("xs", []):
        v = graph.lookup(name) if graph is not None else None
        out.append(ctx.driver.type_of(v) if v is not None and ctx.driver is not None else None)
    return out
