"""Helpers shared by the nn / image kernels (conv, pool, resize ...)."""
from __future__ import annotations

import numpy as np

from ..errors import KernelInputError

# numpy has no BLAS for half precision (and ml_dtypes types have none at all):
# such tensors are computed in float32 and cast back at the end.
_BLAS_KINDS = (np.dtype(np.float32), np.dtype(np.float64),
               np.dtype(np.complex64), np.dtype(np.complex128))


def compute_dtype(dtype) -> np.dtype:
    dtype = np.dtype(dtype)
    if dtype in _BLAS_KINDS:
        return dtype
    if dtype.kind in "iub":
        return np.dtype(np.float64)     # exact for int products of realistic size
    return np.dtype(np.float32)


def as_compute(x: np.ndarray) -> np.ndarray:
    dt = compute_dtype(x.dtype)
    return x if x.dtype == dt else x.astype(dt)


def check_conv_shapes(x_shape, w_shape, group) -> None:
    """Conv's X [N, C, ...] and W [M, C/group, ...]: numpy would fail
    later with a reshape's words, or not at all."""
    if len(x_shape) < 3 or len(x_shape) != len(w_shape):
        raise KernelInputError(f"X {list(x_shape)} and W {list(w_shape)} must have the same rank, 3 or more "
                               "([N, C, spatial...] and [M, C/group, kernel...])")
    if group < 1 or w_shape[0] % group:
        raise KernelInputError(f"group {group}: W {list(w_shape)} has {w_shape[0]} output channels, which must be "
                               "a multiple of group (1 or more)")
    if x_shape[1] != w_shape[1] * group:
        raise KernelInputError(f"X has {x_shape[1]} channels but W {list(w_shape)} with group {group} takes "
                               f"{w_shape[1] * group} (W's second axis times group)")


def check_conv_output(in_shape, kernel, geometry) -> None:
    """A convolution whose window is longer than its padded input has no
    output there: onnxruntime refuses it rather than give an empty tensor."""
    begin, end, out, _strides, dilations = geometry
    for i, o in enumerate(out):
        if o <= 0 and in_shape[i] > 0:
            span = (kernel[i] - 1) * dilations[i] + 1
            raise KernelInputError(f"spatial axis {i} is {in_shape[i]} long ({in_shape[i] + begin[i] + end[i]} "
                                   f"padded), shorter than the kernel's span of {span}: no output position fits")


def spatial_pads(in_shape, kernel, strides, dilations, pads, auto_pad, ceil_mode=False, pooling=False):
    """Resolve auto_pad / explicit pads into (begin, end, out_shape) per spatial axis.
    `pooling`: a window wider than the padded input gives one output when
    the division rounds toward zero (onnxruntime's pools, onnx's inference:
    a 2x2 MaxPool of a 1x1 input is 1x1); the caller pads past the end."""
    n = len(in_shape)
    strides = list(strides) if strides else [1] * n
    dilations = list(dilations) if dilations else [1] * n
    begin, end, out = [], [], []
    for i in range(n):
        size, k, s, d = in_shape[i], kernel[i], strides[i], dilations[i]
        span = (k - 1) * d + 1
        if auto_pad in ("SAME_UPPER", "SAME_LOWER"):
            o = -(-size // s)
            total = max(0, (o - 1) * s + span - size)
            small, big = total // 2, total - total // 2
            b, e = (small, big) if auto_pad == "SAME_UPPER" else (big, small)
        elif auto_pad == "VALID":
            b = e = 0
            avail = size - span
            o = (1 if pooling and -s < avail < 0 else avail // s + 1)
        else:
            b, e = (pads[i], pads[i + n]) if pads else (0, 0)
            avail = size + b + e - span
            o = (-(-avail // s) if ceil_mode else avail // s) + 1
            if pooling and -s < avail < 0:
                o = 1
            # ceil_mode must not start a window entirely inside the end padding
            if ceil_mode and (o - 1) * s >= size + b:
                o -= 1
        begin.append(b)
        end.append(e)
        out.append(max(o, 0))
    return begin, end, out, strides, dilations


def pad_spatial(x: np.ndarray, begin, end, value=0.0) -> np.ndarray:
    if not any(begin) and not any(end):
        return x
    if any(b < 0 for b in begin) or any(e < 0 for e in end):
        width = [(0, 0)] * (x.ndim - len(begin)) + list(zip(begin, end))
        return np.pad(x, width, constant_values=value)
    # A filled buffer and one slice assignment: np.pad's generic machinery
    # costs ~15 us a call, which dominates small convolutions.
    lead = x.ndim - len(begin)
    shape = x.shape[:lead] + tuple(d + b + e for d, b, e in zip(x.shape[lead:], begin, end))
    out = np.full(shape, value, dtype=x.dtype) if value else np.zeros(shape, dtype=x.dtype)
    out[(slice(None),) * lead + tuple(slice(b, b + d) for b, d in zip(begin, x.shape[lead:]))] = x
    return out


def windows(xp: np.ndarray, kernel, strides, dilations, out_shape) -> np.ndarray:
    """Read-only view (*lead, *kernel, *out) of the sliding windows of the
    last len(kernel) axes of `xp` (already padded)."""
    n = len(kernel)
    lead = xp.shape[:-n]
    st = xp.strides[-n:]
    shape = lead + tuple(kernel) + tuple(out_shape)
    strides = (xp.strides[:-n] + tuple(s * d for s, d in zip(st, dilations))
               + tuple(s * k for s, k in zip(st, strides)))
    if xp.flags.c_contiguous:
        # np.ndarray over the buffer costs ~1 us; as_strided's generic path ~5 us,
        # which matters for the many small convolutions of audio/RNN models
        view = np.ndarray(shape, xp.dtype, buffer=xp, strides=strides)
        view.flags.writeable = False
        return view
    return np.lib.stride_tricks.as_strided(xp, shape, strides, writeable=False)


def offset_slices(offset, dilations, strides, out_shape):
    """Slices selecting, for one kernel offset, the input element under each output."""
    return tuple(slice(k * d, k * d + (o - 1) * s + 1, s)
                 for k, d, s, o in zip(offset, dilations, strides, out_shape))
