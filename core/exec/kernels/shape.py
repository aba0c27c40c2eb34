"""Kernels that rearrange a tensor without computing on its values:
Identity, Reshape, Transpose, Concat, Split, Squeeze, Unsqueeze, Flatten,
Shape, Size, Expand, Tile, DepthToSpace, SpaceToDepth."""
from __future__ import annotations

import math

import numpy as np

from ..errors import KernelInputError
from ..registry import VARIES, kernel
from ._tensor_util import ints, norm_axes, norm_axis, scalar


@kernel("Identity", since=1)
def identity(x):
    # Also used for sequences and optionals: the value is passed through as is.
    return x


def _reshape(data, shape, allowzero=0):
    # the usual target, a 1-D int64 tensor, in one call (ints() costs ~1 us more)
    target = shape.tolist() if type(shape) is np.ndarray and shape.dtype == np.int64 and shape.ndim == 1 \
        else ints(shape)
    if not allowzero and 0 in target:
        # A 0 means "keep this dimension of the input" unless allowzero is set.
        if max(i for i, d in enumerate(target) if d == 0) >= data.ndim:
            raise KernelInputError(f"shape {target} copies (0) an axis the input of rank {data.ndim} does not have")
        target = [data.shape[i] if d == 0 else d for i, d in enumerate(target)]
    _check_target(target)
    return data.reshape(target)     # two -1s: numpy's words, put in a user's by failures.py


def _check_target(target) -> None:
    # numpy takes any negative size as "the rest"; ONNX only -1
    if target and min(target) < -1:
        raise KernelInputError(f"shape {target} has a size below -1: sizes are 0 or more, or -1 for what is left")


@kernel("Reshape", since=1)
def reshape_v1(data, shape=(), consumed_inputs=None):
    return _reshape(data, shape)


def _prepare_reshape(consts, attrs):
    """A constant target is decoded once. One computed at run time (shape
    arithmetic) is often the very read-only array of the last run (shape
    blocks hand it out again): its decoded form is kept for that array."""
    if len(consts) != 2 or consts[0] is not VARIES:
        return None
    # Only 1 keeps a 0 as a size: onnxruntime copies the input's dim for any
    # other value (2 too), and so does core.infer.
    allowzero = attrs.get("allowzero", 0) == 1
    if consts[1] is not VARIES:
        if consts[1] is None:
            return None
        fixed = ints(consts[1])
        if not allowzero and 0 in fixed:
            return None
        _check_target(fixed)
        return lambda data, _shape: data.reshape(fixed)
    last = [None, None]         # the target array, its decoded list (no 0 in it)

    def reshaped(data, shape):
        if shape is last[0]:
            return data.reshape(last[1])
        if type(shape) is np.ndarray and not shape.flags.writeable and shape.base is None \
                and shape.dtype == np.int64 and shape.ndim == 1:
            target = shape.tolist()
            if (allowzero or 0 not in target) and (not target or min(target) >= -1):
                last[0], last[1] = shape, target
                return data.reshape(target)
        return _reshape(data, shape, allowzero)
    return reshaped


@kernel("Reshape", since=5, prepare=_prepare_reshape)
def reshape(data, shape, allowzero=0):
    return _reshape(data, shape, allowzero == 1)


def _prepare_transpose(consts, attrs):
    """The permutation decoded once."""
    perm = attrs.get("perm")
    perm = None if perm is None else tuple(ints(perm))
    return lambda data: data.transpose(perm)


@kernel("Transpose", since=1, prepare=_prepare_transpose)
def transpose(data, perm=None):
    return np.transpose(data, None if perm is None else ints(perm))


@kernel("Concat", since=1)
def concat_v1(*inputs, axis=1):
    # Opset 1 made axis optional with 1 as its default.
    return concat(*inputs, axis=axis)


@kernel("Concat", since=4)
def concat(*inputs, axis):
    arrays = [np.asarray(a) for a in inputs]
    return np.concatenate(arrays, axis=norm_axis(axis, arrays[0].ndim))


def _split_by_sizes(x, axis, sizes):
    if sum(sizes) != x.shape[axis] or any(s < 0 for s in sizes):
        raise KernelInputError(f"split sizes {sizes} do not add up to the length {x.shape[axis]} of axis {axis}"
                               " (each size 0 or more)")
    # basic slices (views, as np.split gives) at a fraction of np.split's
    # Python cost (~12 us a call: a transformer's per-token QKV split)
    lead = (slice(None),) * axis
    parts, start = [], 0
    for size in sizes:
        parts.append(x[lead + (slice(start, start + size),)])
        start += size
    return tuple(parts)


def _split_equal(x, axis, parts):
    n = x.shape[axis]
    if n % parts:
        raise KernelInputError(f"axis {axis} of length {n} cannot be split into {parts} equal parts")
    return _split_by_sizes(x, axis, [n // parts] * parts)


@kernel("Split", since=1, context=True)
def split_v1(ctx, x, split=None, axis=0):
    # Opset 1 takes the sizes from the second input or from the attribute of
    # the same name: either way they arrive as `split`.
    sizes = ints(split)
    axis = norm_axis(axis, x.ndim)
    return _split_by_sizes(x, axis, sizes) if sizes else _split_equal(x, axis, ctx.num_outputs)


@kernel("Split", since=2, context=True)
def split_v2(ctx, x, axis=0, split=None):
    axis = norm_axis(axis, x.ndim)
    return _split_by_sizes(x, axis, ints(split)) if split else _split_equal(x, axis, ctx.num_outputs)


@kernel("Split", since=13, context=True)
def split_v13(ctx, x, split=None, axis=0):
    axis = norm_axis(axis, x.ndim)
    if split is not None and np.asarray(split).size:
        return _split_by_sizes(x, axis, ints(split))
    return _split_equal(x, axis, ctx.num_outputs)


@kernel("Split", since=18, context=True)
def split_v18(ctx, x, split=None, axis=0, num_outputs=None):
    axis = norm_axis(axis, x.ndim)
    if split is not None and np.asarray(split).size:
        return _split_by_sizes(x, axis, ints(split))
    parts = num_outputs if num_outputs is not None else ctx.num_outputs
    n = x.shape[axis]
    # Uneven splits are allowed from opset 18: every chunk has ceil(n/parts)
    # elements except the last, which takes what is left.
    chunk = -(-n // parts)
    sizes = [min(chunk, max(n - i * chunk, 0)) for i in range(parts)]
    return _split_by_sizes(x, axis, sizes)


def _squeeze(data, axes):
    if axes is None or len(ints(axes)) == 0:
        return np.squeeze(data) if data.ndim else data
    return np.squeeze(data, axis=tuple(norm_axes(axes, data.ndim)))


def _prepare_squeeze(consts, attrs):
    """Constant, non-empty axes: normalised once per input rank."""
    if len(consts) != 2 or consts[0] is not VARIES or consts[1] is VARIES or consts[1] is None:
        return None
    axes = ints(consts[1])
    if not axes:
        return None
    by_rank: dict = {}

    def squeezed(data, _axes):
        chosen = by_rank.get(data.ndim)
        if chosen is None:
            chosen = by_rank[data.ndim] = tuple(norm_axes(axes, data.ndim))
        return data.squeeze(axis=chosen)
    return squeezed


@kernel("Squeeze", since=1)
def squeeze_v1(data, axes=None):
    return _squeeze(data, axes)


@kernel("Squeeze", since=13, prepare=_prepare_squeeze)
def squeeze(data, axes=None):
    return _squeeze(data, axes)


def _unsqueeze_positions(axes, rank: int) -> list[int]:
    """Where the new axes go in the result (of rank `rank`), ascending."""
    axes = sorted(norm_axes(axes, rank))
    if len(set(axes)) != len(axes):
        raise KernelInputError(f"axes {axes} name an axis twice (after counting negative axes from the end)")
    return axes


def _insert_ones(data, positions):
    shape = list(data.shape)
    for a in positions:
        shape.insert(a, 1)
    return data.reshape(shape)


def _unsqueeze(data, axes):
    axes = ints(axes)
    return _insert_ones(data, _unsqueeze_positions(axes, data.ndim + len(axes)))


def _prepare_unsqueeze(consts, attrs):
    """Constant axes: the result's shape is worked out once per input shape
    (a handful in practice; the table is bounded)."""
    if len(consts) != 2 or consts[0] is not VARIES or consts[1] is VARIES:
        return None
    axes = ints(consts[1])
    by_shape: dict = {}

    def unsqueezed(data, _axes):
        target = by_shape.get(data.shape)
        if target is None:
            if len(by_shape) >= 64:
                by_shape.clear()
            target = _insert_ones(data, _unsqueeze_positions(axes, data.ndim + len(axes))).shape
            by_shape[data.shape] = target
        return data.reshape(target)
    return unsqueezed


@kernel("Unsqueeze", since=1)
def unsqueeze_v1(data, axes):
    return _unsqueeze(data, axes)


@kernel("Unsqueeze", since=13, prepare=_prepare_unsqueeze)
def unsqueeze(data, axes):
    return _unsqueeze(data, axes)


@kernel("Flatten", since=1)
def flatten(x, axis=1):
    given, axis = axis, axis + x.ndim if axis < 0 else axis
    if not 0 <= axis <= x.ndim:
        raise KernelInputError(f"axis {given} is out of range for Flatten of a rank-{x.ndim} tensor "
                               f"(valid: {-x.ndim} to {x.ndim})")
    return x.reshape(math.prod(x.shape[:axis]), math.prod(x.shape[axis:]))


@kernel("Shape", since=1)
def shape(data, start=0, end=None):
    # start/end arrived in opset 15; out-of-range values are clamped.
    dims = data.shape
    return np.array(dims[slice(start, end)], dtype=np.int64)


@kernel("Size", since=1)
def size(data):
    return np.array(np.size(data), dtype=np.int64)


@kernel("Expand", since=8)
def expand(x, shape):
    target = np.broadcast_shapes(x.shape, tuple(ints(shape)))
    return np.broadcast_to(x, target)


@kernel("Tile", since=1)
def tile_v1(x, tiles, axis):
    reps = [1] * x.ndim
    reps[norm_axis(scalar(axis), x.ndim)] = int(scalar(tiles))
    return np.tile(x, reps)


@kernel("Tile", since=6)
def tile(x, repeats):
    reps = ints(repeats)
    if len(reps) != x.ndim or any(r < 0 for r in reps):
        # numpy would add axes for a longer list and take a shorter one as the last axes'
        raise KernelInputError(f"repeats {reps}: one count of 0 or more for each of the input's {x.ndim} axes")
    return np.tile(x, reps)


def _check_blocks(x, blocksize) -> None:
    if x.ndim != 4 or blocksize < 1:
        raise KernelInputError(f"needs a rank-4 input [N, C, H, W] and a blocksize of 1 or more; got rank {x.ndim}, "
                               f"blocksize {blocksize}")


@kernel("DepthToSpace", since=1)
def depth_to_space(x, blocksize, mode="DCR"):
    _check_blocks(x, blocksize)
    b, c, h, w = x.shape
    bs = blocksize
    if c % (bs * bs):
        raise KernelInputError(f"{c} channels cannot be spread over {bs}x{bs} blocks: the channel count must be a "
                               f"multiple of {bs * bs}")
    if mode == "DCR":
        t = x.reshape(b, bs, bs, c // (bs * bs), h, w).transpose(0, 3, 4, 1, 5, 2)
    elif mode == "CRD":
        t = x.reshape(b, c // (bs * bs), bs, bs, h, w).transpose(0, 1, 4, 2, 5, 3)
    else:
        raise ValueError(f"unknown DepthToSpace mode {mode!r}")
    return t.reshape(b, c // (bs * bs), h * bs, w * bs)


@kernel("SpaceToDepth", since=1)
def space_to_depth(x, blocksize, mode="DCR"):
    # Opset 28 added CRD; before it every model meant DCR.
    _check_blocks(x, blocksize)
    b, c, h, w = x.shape
    bs = blocksize
    if h % bs or w % bs:
        raise KernelInputError(f"a {h}x{w} image cannot be cut into {bs}x{bs} blocks: height and width must be "
                               f"multiples of {bs}")
    t = x.reshape(b, c, h // bs, bs, w // bs, bs)
    if mode == "DCR":
        t = t.transpose(0, 3, 5, 1, 2, 4)
    elif mode == "CRD":
        t = t.transpose(0, 1, 3, 5, 2, 4)
    else:
        raise ValueError(f"unknown SpaceToDepth mode {mode!r}")
    return t.reshape(b, c * bs * bs, h // bs, w // bs)
