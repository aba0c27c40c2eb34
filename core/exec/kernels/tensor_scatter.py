"""TensorScatter (opset 24): write `update` into a KV cache along `axis`,
at a per-batch start position, as one step of an in-place cache update."""
from __future__ import annotations

import numpy as np

from ..registry import kernel


@kernel("TensorScatter", since=24)
def tensor_scatter(past_cache, update, write_indices=None, axis=-2, mode="linear"):
    past_cache, update = np.asarray(past_cache), np.asarray(update)
    rank = past_cache.ndim
    if update.ndim != rank:
        raise ValueError(f"update has rank {update.ndim}, the cache has rank {rank}")
    axis = axis % rank
    if axis == 0:
        raise ValueError("axis must not be the batch axis 0")
    for i, (c, u) in enumerate(zip(past_cache.shape, update.shape)):
        if (i == axis and u > c) or (i != axis and u != c):
            raise ValueError(f"update shape {list(update.shape)} does not fit the cache shape "
                             f"{list(past_cache.shape)} (axis {axis})")
    if mode not in ("linear", "circular"):
        raise ValueError(f"mode must be 'linear' or 'circular', got {mode!r}")
    batch, max_len, length = past_cache.shape[0], past_cache.shape[axis], update.shape[axis]
    starts = (np.zeros(batch, np.int64) if write_indices is None
              else np.asarray(write_indices, dtype=np.int64).reshape(-1))
    if starts.shape[0] != batch:
        raise ValueError(f"write_indices has {starts.shape[0]} entries for a batch of {batch}")
    present = past_cache.copy()
    # Move the sequence axis next to the batch axis so one fancy index per
    # batch entry writes the whole run of positions.
    cache_view = np.moveaxis(present, axis, 1)
    update_view = np.moveaxis(update, axis, 1)
    for b in range(batch):
        positions = starts[b] + np.arange(length)
        if mode == "circular":
            positions %= max_len
        elif length and (starts[b] < 0 or positions[-1] >= max_len):
            raise ValueError(f"batch {b}: writing {length} entries from index {starts[b]} overruns "
                             f"the cache length {max_len} (use mode='circular' to wrap)")
        cache_view[b, positions] = update_view[b]
    return present
