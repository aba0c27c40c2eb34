"""onnxruntime's EmbedLayerNormalization (com.microsoft) against onnxruntime."""
import numpy as np
import pytest

pytest.importorskip("onnxruntime")

from contrib_models import check, rand  # noqa: E402

B, S, D, VOCAB = 2, 5, 16, 30


@pytest.mark.parametrize("segments,mask,positions,dtype", [
    (True, True, None, np.float32),
    (False, False, None, np.float32),
    (True, "holes", "per_row", np.float32),
    (True, True, "shared", np.float32),
    (True, True, None, np.float16),
])
def test_embed_layer_norm(segments, mask, positions, dtype):
    rng = np.random.default_rng(80 + segments + len(str(mask)) + len(str(positions)))
    ids = rng.integers(0, VOCAB, size=(B, S)).astype(np.int32)
    seg = rng.integers(0, 2, size=(B, S)).astype(np.int32) if segments else None
    m = None
    if mask:
        m = np.ones((B, S), np.int32)
        m[1, 3:] = 0
        if mask == "holes":
            m[0, 1] = 0
    pos = None
    if positions == "per_row":
        pos = rng.integers(0, 8, size=(B, S)).astype(np.int32)
    elif positions == "shared":
        pos = rng.integers(0, 8, size=(1, S)).astype(np.int32)
    inputs = [("xids", ids), ("xseg", seg), ("word", rand(rng, VOCAB, D, dtype=dtype)),
              ("pos", rand(rng, 8, D, dtype=dtype)), ("segemb", rand(rng, 2, D, dtype=dtype) if segments else None),
              ("gamma", rand(rng, D, dtype=dtype)), ("beta", rand(rng, D, dtype=dtype)), ("xmask", m),
              ("xpos", pos)]
    tol = 5e-3 if dtype == np.float16 else 1e-5
    outputs = ("y", "mask_index", "embedding_sum")
    check("EmbedLayerNormalization", inputs, {"epsilon": 1e-5}, outputs=outputs, rtol=tol, atol=tol)
