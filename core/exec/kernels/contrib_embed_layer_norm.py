"""onnxruntime's EmbedLayerNormalization (domain com.microsoft), what its
BERT optimizer fuses a model's embedding layer into: word, position and
segment embeddings summed, then layer-normalized, plus the mask's token
counts for the fused Attention nodes that follow."""
from __future__ import annotations

import numpy as np

from ..registry import kernel
from .normalization import layer_norm

MS = "com.microsoft"


def _lookup(table, ids, what):
    ids = np.asarray(ids, dtype=np.int64)
    if ids.size and (ids.min() < 0 or ids.max() >= table.shape[0]):
        raise ValueError(f"EmbedLayerNormalization: {what} ids must lie in [0, {table.shape[0]}), "
                         f"got {ids.min()}..{ids.max()}")
    return table[ids]


@kernel("EmbedLayerNormalization", since=1, domain=MS)
def embed_layer_norm(input_ids, segment_ids, word_embedding, position_embedding, segment_embedding=None,
                     gamma=None, beta=None, mask=None, position_ids=None, *, epsilon=1e-12, mask_index_type=1):
    batch, seq = input_ids.shape
    positions = (np.broadcast_to(np.asarray(position_ids), (batch, seq)) if position_ids is not None
                 else np.broadcast_to(np.arange(seq), (batch, seq)))
    work = np.promote_types(word_embedding.dtype, np.float32)
    total = _lookup(word_embedding, input_ids, "input").astype(work)
    total += _lookup(position_embedding, positions, "position")
    if segment_ids is not None and segment_embedding is not None:
        total += _lookup(segment_embedding, segment_ids, "segment")
    y, _, _ = layer_norm(total, gamma, beta, axis=-1, epsilon=epsilon)
    # the fused Attention reads the mask as each row's count of real tokens;
    # without a mask onnxruntime gives zeros
    mask_index = (np.sum(mask != 0, axis=-1, dtype=np.int32) if mask is not None
                  else np.zeros(batch, np.int32))
    dtype = word_embedding.dtype
    return y.astype(dtype), mask_index, total.astype(dtype)
