"""Types of early ONNX's experimental operators that onnxruntime still runs
(see core/exec/kernels/experimental.py): the element-wise ones keep their
input's type, Crop cuts H and W, DynamicSlice keeps the rank."""
from __future__ import annotations

from .context import rule, tensor
from .ops_elementwise import same_as_input


@rule("Affine", "Scale", "ScaledTanh", "ParametricSoftplus", "ImageScaler")
def elementwise(ctx):
    return same_as_input(ctx)


@rule("Crop")
def crop(ctx):
    elem, shape = ctx.elem(0), ctx.shape(0)
    border, scale = ctx.attr("border"), ctx.attr("scale")
    if shape is None or len(shape) != 4 or border is None or len(border) != 4:
        return [tensor(elem, None if shape is None else (None,) * len(shape))]
    left, top, right, bottom = border
    if scale:
        height, width = (scale[0], scale[1]) if len(scale) == 2 else (None, None)
    else:
        height = shape[2] - top - bottom if isinstance(shape[2], int) else None
        width = shape[3] - left - right if isinstance(shape[3], int) else None
    return [tensor(elem, (shape[0], shape[1], height, width))]


@rule("DynamicSlice")
def dynamic_slice(ctx):
    shape = ctx.shape(0)
    return [tensor(ctx.elem(0), None if shape is None else (None,) * len(shape))]
