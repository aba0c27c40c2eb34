"""onnxruntime's quantized operators (domain com.microsoft), which its
quantizer writes into int8 models (QOperator format) and the ONNX model zoo's
int8 models use. Each output is quantized to the type of its zero point
input, else of the data input, as onnxruntime does."""
from __future__ import annotations

from ..ir.dtypes import DataType
from .context import rule, tensor
from .dims import broadcast_shapes
from .ops_nn import rounds_up, window_output_dims
from .ops_shape import concat_shape

MS = "com.microsoft"


def _quantized(ctx, zero_point: int, data: int = 0) -> int:
    return ctx.elem(zero_point) or ctx.elem(data)


@rule("QLinearAdd", "QLinearMul", domain=MS)
def qlinear_binary(ctx):
    # A, A_scale, A_zero_point, B, B_scale, B_zero_point, C_scale, C_zero_point
    return [tensor(_quantized(ctx, 7), broadcast_shapes([ctx.shape(0), ctx.shape(3)]))]


@rule("QLinearWhere", domain=MS)
def qlinear_where(ctx):
    # condition, X, x_scale, x_zero_point, Y, y_scale, y_zero_point, z_scale, z_zero_point
    return [tensor(_quantized(ctx, 8, 1), broadcast_shapes([ctx.shape(0), ctx.shape(1), ctx.shape(4)]))]


@rule("QLinearSigmoid", "QLinearLeakyRelu", "QLinearSoftmax", domain=MS)
def qlinear_unary(ctx):
    # X, X_scale, X_zero_point, Y_scale, Y_zero_point
    return [tensor(_quantized(ctx, 4), ctx.shape(0))]


def _channels_first(shape):
    return (shape[0], shape[-1]) + tuple(shape[1:-1])


def _channels_last(shape):
    return (shape[0],) + tuple(shape[2:]) + (shape[1],)


@rule("QLinearGlobalAveragePool", "QLinearAveragePool", domain=MS)
def qlinear_pool(ctx):
    x = ctx.shape(0)
    elem = _quantized(ctx, 4)
    if x is None or len(x) < 2:
        return [tensor(elem, None)]
    last = bool(ctx.attr("channels_last", 0))
    nchw = _channels_first(x) if last else x
    if ctx.op_type == "QLinearGlobalAveragePool":
        spatial = (1,) * (len(x) - 2)
    else:
        spatial = window_output_dims(ctx, nchw, ctx.attr("kernel_shape"), rounds_up(ctx))
    out = (nchw[0], nchw[1]) + spatial
    return [tensor(elem, _channels_last(out) if last else out)]


@rule("QLinearConcat", domain=MS)
def qlinear_concat(ctx):
    # Y_scale, Y_zero_point, then (X, X_scale, X_zero_point) for each input
    elem = _quantized(ctx, 1, 2)
    shapes = [ctx.shape(i) for i in range(2, ctx.num_inputs, 3)]
    if all(s is None for s in shapes):
        return [tensor(elem, None)]
    return [tensor(elem, concat_shape(shapes, ctx.attr("axis")))]


@rule("QGemm", domain=MS)
def qgemm(ctx):
    # A, a_scale, a_zero_point, B, b_scale, b_zero_point, C, y_scale, y_zero_point
    a, b = ctx.shape(0), ctx.shape(3)
    m = (a[1] if ctx.attr("transA", 0) else a[0]) if a is not None and len(a) == 2 else None
    n = (b[0] if ctx.attr("transB", 0) else b[1]) if b is not None and len(b) == 2 else None
    # Without y_scale the result stays float.
    elem = _quantized(ctx, 8, 0) if ctx.has_input(7) else DataType.FLOAT
    return [tensor(elem, (m, n))]


@rule("Tokenizer", domain=MS)
def tokenizer(ctx):
    # strings of shape [C] or [N, C] -> one more axis, as long as the most tokens any string has
    shape = ctx.shape(0)
    return [tensor(DataType.STRING, None if shape is None else shape + (None,))]
