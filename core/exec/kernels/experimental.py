"""Operators of early ONNX's experimental set that the standard dropped
(schemas.EXPERIMENTAL_OPS) and onnxruntime still runs: Affine, Crop,
DynamicSlice, ImageScaler, ParametricSoftplus, Scale, ScaledTanh. Older
model-zoo models hold them (Tiny YOLOv2 starts with an ImageScaler). There
is no signature to follow, so each does what onnxruntime's kernel was
measured to do (2026-11-28), its attribute defaults and refusals included."""
from __future__ import annotations

import numpy as np

from ..errors import KernelInputError
from ..registry import kernel
from .indexing import slice_v1


def _required(value, name: str, op: str):
    if value is None:
        raise KernelInputError(f"{op} needs the attribute {name} (onnxruntime refuses the node without it)")
    return value


@kernel("Affine", since=1)
def affine(x, alpha=1.0, beta=0.0):
    t = x.dtype.type
    return t(alpha) * x + t(beta)


@kernel("Scale", since=1)
def scale(x, scale=1.0):
    return x * x.dtype.type(scale)


@kernel("ScaledTanh", since=1)
def scaled_tanh(x, alpha=None, beta=None):
    t = x.dtype.type
    return t(_required(alpha, "alpha", "ScaledTanh")) * np.tanh(t(_required(beta, "beta", "ScaledTanh")) * x)


@kernel("ParametricSoftplus", since=1)
def parametric_softplus(x, alpha=None, beta=None):
    t = x.dtype.type
    alpha, beta = t(_required(alpha, "alpha", "ParametricSoftplus")), t(_required(beta, "beta", "ParametricSoftplus"))
    return alpha * np.logaddexp(t(0), beta * x)        # alpha * ln(1 + e^(beta x)), without overflow


@kernel("ImageScaler", since=1)
def image_scaler(x, bias=None, scale=1.0):
    """scale * x plus one bias per channel of an [N, C, H, W] image."""
    bias = _required(bias, "bias", "ImageScaler")
    if x.ndim != 4:
        raise KernelInputError(f"ImageScaler takes an image [N, C, H, W]; the input has rank {x.ndim}")
    if len(bias) != x.shape[1]:
        raise KernelInputError(f"ImageScaler's bias holds {len(bias)} values for {x.shape[1]} channels")
    t = x.dtype.type
    return t(scale) * x + np.asarray(bias, dtype=x.dtype).reshape(1, -1, 1, 1)


@kernel("Crop", since=1)
def crop(x, border=None, scale=None):
    """border is [left, top, right, bottom]; `scale`, when given, is the
    [height, width] kept from the top left corner the border leaves."""
    border = list(_required(border, "border", "Crop"))
    if len(border) != 4:
        raise KernelInputError(f"Crop's border needs four values (left, top, right, bottom), not {len(border)}")
    if x.ndim != 4:
        raise KernelInputError(f"Crop takes an image [N, C, H, W]; the input has rank {x.ndim}")
    left, top, right, bottom = border
    height, width = x.shape[2:]
    if scale:
        if len(scale) != 2:
            raise KernelInputError(f"Crop's scale needs two values (height, width), not {len(scale)}")
        bottom_end, right_end = top + scale[0], left + scale[1]
    else:
        bottom_end, right_end = height - bottom, width - right
    if not (0 <= top < bottom_end <= height and 0 <= left < right_end <= width):
        raise KernelInputError(f"Crop's border {border}" + (f" and scale {list(scale)}" if scale else "")
                               + f" leave nothing of an image of {height}x{width}")
    return x[:, :, top:bottom_end, left:right_end]


@kernel("DynamicSlice", since=1)
def dynamic_slice(data, starts, ends, axes=None):
    """Slice-1 with its starts, ends and axes given as inputs."""
    return slice_v1(data, starts, ends, axes)
