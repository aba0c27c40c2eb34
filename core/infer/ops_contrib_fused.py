"""onnxruntime's fused float operators (domain com.microsoft) that its graph
optimizer writes into saved models, and SimplifiedLayerNormalization, which
onnxruntime registers in the default domain. Shapes follow what onnxruntime's
run produces (its own shape inference differs for SimplifiedLayerNormalization's
inv_std_var, where the run is what counts)."""
from __future__ import annotations

from ..ir.dtypes import DataType
from .context import rule, tensor
from .dims import axis_index, broadcast_shapes
from .ops_nn import conv_output_type, gemm, matmul_shape

MS = "com.microsoft"


@rule("Gelu", "FastGelu", "QuickGelu", domain=MS)
def gelu_like(ctx):
    # FastGelu's optional bias has the size of the last dimension
    return [ctx.type(0)]


@rule("BiasGelu", domain=MS)
def bias_gelu(ctx):
    return [tensor(ctx.elem(0), broadcast_shapes([ctx.shape(0), ctx.shape(1)]))]


def _fused_matmul_operand(shape, trans_batch, trans):
    """The operand's shape as FusedMatMul reads it (see the kernel):
    transBatch moves dimension 0 before the last one, trans swaps the last two."""
    if shape is None or len(shape) < 2:
        return shape
    shape = tuple(shape)
    if trans_batch:
        shape = shape[1:-1] + (shape[0], shape[-1])
    if trans:
        shape = shape[:-2] + (shape[-1], shape[-2])
    return shape


@rule("FusedMatMul", domain=MS)
def fused_matmul(ctx):
    a = _fused_matmul_operand(ctx.shape(0), ctx.attr("transBatchA", 0), ctx.attr("transA", 0))
    b = _fused_matmul_operand(ctx.shape(1), ctx.attr("transBatchB", 0), ctx.attr("transB", 0))
    return [tensor(ctx.elem(0), matmul_shape(a, b))]


@rule("FusedGemm", domain=MS)
def fused_gemm(ctx):
    # Gemm's shape; the activation keeps it
    return gemm(ctx)


@rule("FusedConv", domain=MS)
def fused_conv(ctx):
    # Conv's shape; Z (added before the activation) has the output's shape
    return [conv_output_type(ctx, 0, 1, ctx.elem(0))]


def _reduced(shape, axis):
    """The statistics' shape: the input's up to `axis`, then ones."""
    if shape is None:
        return None
    a = axis_index(axis, len(shape))
    if a is None:
        return (None,) * len(shape)
    return tuple(shape[:a]) + (1,) * (len(shape) - a)


@rule("SkipLayerNormalization", "SkipSimplifiedLayerNormalization", domain=MS)
def skip_layer_norm(ctx):
    # output, mean, inv_std_var (float whatever the input), input+skip+bias sum
    stat = tensor(DataType.FLOAT, _reduced(ctx.shape(0), -1))
    return [ctx.type(0), stat, stat, ctx.type(0)]


@rule("SimplifiedLayerNormalization")
def simplified_layer_norm(ctx):
    # Y has the scale's type (onnxruntime's V); inv_std_var the stash type's
    y_elem = ctx.elem(1) or ctx.elem(0)
    shape = ctx.shape(0)
    return [tensor(y_elem, shape),
            tensor(ctx.attr("stash_type", 1), _reduced(shape, ctx.attr("axis", -1)))]
