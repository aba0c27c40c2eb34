"""Element-wise operators: unary maps, broadcasting binaries, variadics."""
from __future__ import annotations

from ..ir.dtypes import DataType
from ..ir.types import TensorType
from .context import rule, tensor
from .dims import broadcast_shapes, dim_add, dim_floordiv, dim_mul, dim_sub
from . import findings
from .findings import broadcast_conflict

BOOL = DataType.BOOL

# Output has the type and shape of input 0.
SAME_AS_INPUT = (
    "Abs", "Acos", "Acosh", "Asin", "Asinh", "Atan", "Atanh", "Ceil", "Celu", "Cos",
    "Cosh", "Elu", "Erf", "Exp", "Floor", "Gelu", "HardSigmoid", "HardSwish",
    "Identity", "LeakyRelu", "Log", "Mish", "Neg", "Reciprocal", "Relu",
    "Round", "Selu", "Shrink", "Sigmoid", "Sign", "Sin", "Sinh", "Softplus",
    "Softsign", "Sqrt", "Swish", "Tan", "Tanh", "ThresholdedRelu", "BitwiseNot", "Not",
    "Clip", "MeanVarianceNormalization", "LRN",
    "Trilu", "ReverseSequence", "RandomNormalLike",
    "RandomUniformLike", "GroupNormalization",
)


@rule(*SAME_AS_INPUT)
def same_as_input(ctx):
    t = ctx.type(0)
    if ctx.op_type in ("Identity",) and t is not None:
        syms = ctx.sym(0)
        if syms is not None and ctx.const(0) is None:
            ctx.out_syms[0] = syms
        return [t]
    if ctx.op_type in ("RandomNormalLike", "RandomUniformLike") and "dtype" in ctx.attrs:
        return [tensor(ctx.attrs["dtype"], ctx.shape(0))]
    return [t]


@rule("Softmax", "LogSoftmax", "Hardmax", "LpNormalization")
def same_as_input_along_axis(ctx):
    """Same type as the input; `axis` must lie inside its rank."""
    t = ctx.type(0)
    shape = ctx.shape(0)
    if shape is not None:
        default = 1 if ctx.opset < 13 and ctx.op_type != "LpNormalization" else -1
        findings.axis(ctx, ctx.attr("axis", default), len(shape))
    return [t]


@rule("CumSum", "CumProd")
def cumulative(ctx):
    shape, axis = ctx.shape(0), ctx.ints(1)
    if shape is not None and axis is not None and len(axis) == 1:
        findings.axis(ctx, axis[0], len(shape), "input 1 (axis)")
    return [ctx.type(0)]


@rule("IsInf", "IsNaN")
def bool_same_shape(ctx):
    return [tensor(BOOL, ctx.shape(0))]


def _broadcast(ctx, n=None):
    idx = [i for i in range(ctx.num_inputs if n is None else n) if ctx.has_input(i)]
    if ctx.opset < 7 and ctx.op_type in _LEGACY_BROADCAST:
        return ctx.shape(0)          # before opset 7 B was broadcast onto A
    return _checked_broadcast(ctx, idx)


def _checked_broadcast(ctx, indices):
    """The broadcast of inputs `indices`; two known dims that cannot
    broadcast are reported (and come out unknown, None, unless a third
    input's dim decided the axis)."""
    shape = broadcast_shapes([ctx.shape(i) for i in indices])
    # With three or more inputs a later one can hide a conflict of two
    # earlier ones (2 against 0 gives ?, and ? against 2 gives 2), so
    # their dims are compared whatever the broadcast came out as.
    if shape is not None and (None in shape or len(indices) > 2):
        broadcast_conflict(ctx, indices)
    return shape


_LEGACY_BROADCAST = {"Add", "Sub", "Mul", "Div", "Pow", "And", "Or", "Xor",
                     "Equal", "Greater", "Less", "PRelu"}

_SHAPE_INTS = frozenset({DataType.INT64, DataType.INT32})
_SYM_ARITH = {"Add": dim_add, "Sub": dim_sub, "Mul": dim_mul, "Div": dim_floordiv}


@rule("Add", "Sub", "Mul", "Div", "Pow", "Mod", "BitShift", "BitwiseAnd", "BitwiseOr",
      "BitwiseXor", "PRelu", "Max", "Min", "Mean", "Sum")
def broadcast_same_type(ctx):
    types = ctx.types
    if len(types) == 2 and ctx.opset >= 7:
        # The common case (a binary op on two tensors) without the general
        # machinery: it is a quarter of the nodes of a typical model.
        a, b = types
        if type(a) is TensorType and type(b) is TensorType:
            sa, sb = a.shape, b.shape
            shape = sa if sa == sb else broadcast_shapes((sa, sb))
            if shape is not sa and shape is not None and None in shape:
                broadcast_conflict(ctx, (0, 1))
            elem = a.elem_type if ctx.op_type == "Pow" else (a.elem_type or b.elem_type)
            if elem in _SHAPE_INTS and ctx.knows_values:
                fn = _SYM_ARITH.get(ctx.op_type)
                if fn is not None:
                    _symbolic_arith(ctx, fn)
            if shape is sa and elem == a.elem_type and not a.denotation and a.dim_denotations is None:
                return [a]          # equal to the type built below: no new object
            return [TensorType(elem, shape)]
    elem = ctx.elem(0)
    if not elem:
        elem = next((ctx.elem(i) for i in range(ctx.num_inputs) if ctx.elem(i)), 0)
    if ctx.op_type == "Pow":
        elem = ctx.elem(0)
    shape = _broadcast(ctx)
    fn = _SYM_ARITH.get(ctx.op_type)
    if fn is not None and elem in (DataType.INT64, DataType.INT32):
        _symbolic_arith(ctx, fn)
    return [tensor(elem, shape)]


def _symbolic_arith(ctx, fn):
    """Arithmetic on shape tensors whose entries are partly symbolic."""
    if ctx.const(0) is not None and ctx.const(1) is not None:
        return                      # fully constant: the driver folds it with a kernel
    a, b = ctx.sym(0), ctx.sym(1)
    if a is None or b is None:
        return
    if len(a) == len(b):
        ctx.out_syms[0] = tuple(fn(x, y) for x, y in zip(a, b))
    elif len(b) == 1:
        ctx.out_syms[0] = tuple(fn(x, b[0]) for x in a)
    elif len(a) == 1:
        ctx.out_syms[0] = tuple(fn(a[0], y) for y in b)


@rule("And", "Or", "Xor", "Equal", "Greater", "Less", "GreaterOrEqual", "LessOrEqual")
def broadcast_bool(ctx):
    if ctx.op_type == "Equal" and ctx.num_inputs == 2 and (ctx.const(0) is None or ctx.const(1) is None):
        pairs = _paired(ctx.sym(0), ctx.sym(1))
        if pairs is not None:
            eq = tuple(_dims_equal(a, b) for a, b in pairs)
            if None not in eq:
                ctx.out_syms[0] = eq
    return [tensor(BOOL, _broadcast(ctx))]


def _paired(a, b):
    """Entries of two 1-D symbolic values side by side (length-1 broadcasts)."""
    if a is None or b is None:
        return None
    if len(a) == len(b):
        return list(zip(a, b))
    if len(b) == 1:
        return [(x, b[0]) for x in a]
    if len(a) == 1:
        return [(a[0], y) for y in b]
    return None


def _dims_equal(a, b):
    """Whether two dims are equal: True/False when decidable, else None."""
    if a is None or b is None:
        return None
    if a == b:
        return True
    if isinstance(a, int) and isinstance(b, int):
        return False
    # A dim is never negative, so a symbol never equals the -1 of "infer this".
    other = b if isinstance(a, str) else a
    if isinstance(other, int) and other < 0:
        return False
    return None


@rule("Where")
def where(ctx):
    cond = ctx.sym(0)
    if cond is not None and all(isinstance(c, bool) for c in cond) and not (
            ctx.const(1) is not None and ctx.const(2) is not None):
        x, y = ctx.sym(1), ctx.sym(2)
        if x is not None and y is not None:
            n = max(len(cond), len(x), len(y))
            pick = [x[i if len(x) > 1 else 0] if cond[i if len(cond) > 1 else 0] else y[i if len(y) > 1 else 0]
                    for i in range(n)]
            if all(len(v) in (1, n) for v in (cond, x, y)):
                ctx.out_syms[0] = tuple(pick)
    return [tensor(ctx.elem(1) or ctx.elem(2), _checked_broadcast(ctx, (0, 1, 2)))]


@rule("CastLike")
def cast_like(ctx):
    return [tensor(ctx.elem(1), ctx.shape(0))]


@rule("Cast")
def cast(ctx):
    to = ctx.attr("to", 0)
    if isinstance(to, str):         # opset 1 spelled the type as a string
        to = getattr(DataType, to.upper(), 0)
    syms = ctx.sym(0)
    if syms is not None and ctx.const(0) is None and to in (DataType.INT64, DataType.INT32):
        ctx.out_syms[0] = syms
    return [tensor(to, ctx.shape(0))]


@rule("Dropout")
def dropout(ctx):
    if ctx.opset >= 12:
        # ratio and training_mode are inputs from opset 12 on, each one value.
        findings.require_rank(ctx, 1, 0, "the ratio is one value")
        findings.require_rank(ctx, 2, 0, "training_mode is one value")
    t = ctx.type(0)
    # Before opset 10 the mask had the data's element type.
    return [t, tensor(BOOL if ctx.opset >= 10 else ctx.elem(0), ctx.shape(0))]


@rule("BatchNormalization")
def batch_norm(ctx):
    if ctx.opset >= 14:
        _outputs_fit_training_mode(ctx)
    out = [ctx.type(0)]
    if ctx.opset >= 9:              # (before, `spatial=0` gave per-element statistics)
        _per_channel_inputs_fit(ctx)
    # Training-mode extra outputs are per-channel statistics.
    shape = ctx.shape(0)
    chan = None if shape is None or len(shape) < 2 else (shape[1],)
    stat = tensor(ctx.elem(3) or ctx.elem(0), chan)
    return out + [stat] * (ctx.num_outputs - 1)


def _outputs_fit_training_mode(ctx) -> None:
    """From opset 14 BatchNormalization gives Y alone in inference mode and
    Y, running_mean and running_var with training_mode=1; onnx and
    onnxruntime refuse the other of the two counts the signature allows
    (the checker's arity rule says what is wrong with any other count).
    Trailing empty outputs are not counted: an error here must be one they
    would also give."""
    outputs = ctx.node.outputs if ctx.node is not None else ()
    given = len(outputs)
    while given and outputs[given - 1] is None:
        given -= 1
    training = ctx.attr("training_mode", 0)
    if given not in (1, 3) or not isinstance(training, int):
        return
    if training and given == 1:
        ctx.error("node.output-count", f"BatchNormalization with training_mode=1 gives 3 outputs (Y, running_mean, "
                                       f"running_var); this node has {given}")
    elif not training and given == 3:
        ctx.error("node.output-count", f"BatchNormalization without training_mode gives one output (Y); this node "
                                       f"has {given}: remove the others or set training_mode=1")


def _per_channel_inputs_fit(ctx) -> None:
    """scale, B (and BatchNormalization's mean and var): one value per
    channel of X (its dim 1)."""
    x = ctx.shape(0)
    channels = x[1] if x is not None and len(x) >= 2 else None
    for i in range(1, min(ctx.num_inputs, 5)):
        if not findings.require_rank(ctx, i, 1, "one value per channel"):
            return
        s = ctx.shape(i)
        if s is not None and findings.dims_differ(s[0], channels):
            ctx.error(findings.DIM, f"{findings.input_label(ctx, i)} has {s[0]} values but "
                                    f"{findings.input_label(ctx, 0)} {findings.show(x)} has {channels} channels")
            return


@rule("InstanceNormalization")
def instance_norm(ctx):
    _per_channel_inputs_fit(ctx)
    return [ctx.type(0)]


@rule("LayerNormalization")
def layer_norm(ctx):
    shape = ctx.shape(0)
    axis = ctx.attr("axis", -1)
    stats_elem = ctx.attr("stash_type", 1)
    a = None if shape is None else findings.axis(ctx, axis, len(shape))
    if a is None:
        stat_shape = None
    else:
        stat_shape = tuple(shape[:a]) + (1,) * (len(shape) - a)
    return [ctx.type(0), tensor(stats_elem, stat_shape), tensor(stats_elem, stat_shape)]


@rule("RMSNormalization")
def rms_norm(ctx):
    shape = ctx.shape(0)
    if shape is not None:
        findings.axis(ctx, ctx.attr("axis", -1), len(shape))
    return [ctx.type(0)]


@rule("EyeLike")
def eye_like(ctx):
    return [tensor(ctx.attr("dtype", ctx.elem(0)), ctx.shape(0))]


@rule("Bernoulli")
def bernoulli(ctx):
    return [tensor(ctx.attr("dtype", ctx.elem(0)), ctx.shape(0))]
