"""onnxruntime's MultiHeadAttention and Attention (com.microsoft) against
onnxruntime itself: input packings, projection bias, the mask forms,
attention bias, past/present caches and unidirectional attention."""
import numpy as np
import pytest

pytest.importorskip("onnxruntime")

from contrib_models import assert_close, check, one_node, ort_run, rand  # noqa: E402

from onnxstudio import core  # noqa: E402
from onnxstudio.core.exec import run  # noqa: E402

B, S, N, H = 2, 4, 2, 8
D = N * H


def _mask(rng, form, total, seq=S):
    """A mask of `form` that leaves every row at least one key."""
    if form == "lengths":
        return np.array([total, 2], np.int32)
    if form == "ends_starts":
        return np.array([total, 3, 0, 1], np.int32)
    if form == "raw":
        m = (rng.random((B, total)) > 0.3).astype(np.int32)
        m[:, 0] = 1
        return m
    if form == "raw3d":
        m = (rng.random((B, seq, total)) > 0.3).astype(np.int32)
        m[:, :, 0] = 1
        return m
    return None


# ---- MultiHeadAttention --------------------------------------------------------------

@pytest.mark.parametrize("form,with_bias,mask,attrs", [
    ("separate", False, None, {}),
    ("separate", True, None, {"scale": 0.2}),
    ("separate", True, "lengths", {}),
    ("separate", False, "raw", {"mask_filter_value": -1000.0}),
    ("separate", False, "raw3d", {}),
    ("separate", True, None, {"unidirectional": 1}),
    ("bnsh_kv", False, None, {}),
    ("bnsh_kv", False, "raw", {}),
    ("bnsh_kv", True, None, {}),           # projected K/V take no bias: only Q's part applies
])
def test_multi_head_attention(form, with_bias, mask, attrs):
    rng = np.random.default_rng(len(form) * 10 + len(str(attrs)) + with_bias)
    kv_len = S if attrs.get("unidirectional") else 6
    q = rand(rng, B, S, D)
    if form == "separate":
        k, v = rand(rng, B, kv_len, D), rand(rng, B, kv_len, D)
    else:
        k, v = rand(rng, B, N, kv_len, H), rand(rng, B, N, kv_len, H)
    bias = rand(rng, 3 * D) if with_bias else None
    check("MultiHeadAttention", [("xq", q), ("xk", k), ("xv", v), ("bias", bias),
                                 ("xmask", _mask(rng, mask, kv_len))], {"num_heads": N, **attrs},
          rtol=1e-4, atol=1e-5)


def _mha_model_and_feeds(inputs, attrs):
    model = one_node("MultiHeadAttention", inputs, {"num_heads": N, **attrs})
    return model, {n: v for n, v in inputs if v is not None and n.startswith("x")}


@pytest.mark.parametrize("packing,with_bias,mask,attrs", [
    ("qkv", False, None, {}),
    ("qkv", True, None, {"unidirectional": 1}),
    ("qkv", True, "lengths", {"scale": 0.3}),
    ("kv", False, None, {}),
    ("kv", True, "raw", {}),
])
def test_multi_head_attention_packed(packing, with_bias, mask, attrs):
    """onnxruntime's CPU kernel has no packed QKV (B, L, N, 3, H) or packed
    KV (B, L, N, 2, H): we compare with its run of the same data unpacked."""
    rng = np.random.default_rng(40 + len(packing) + with_bias + len(str(attrs)))
    kv_len = S if packing == "qkv" else 6
    bias = rand(rng, 3 * D) if with_bias else None
    key_mask = _mask(rng, mask, kv_len)
    if packing == "qkv":
        packed = rand(rng, B, S, N, 3, H)
        q, k, v = (packed[:, :, :, i].reshape(B, S, D) for i in range(3))
        ours_inputs = [("xq", packed), ("xk", None), ("xv", None)]
    else:
        q, packed = rand(rng, B, S, D), rand(rng, B, kv_len, N, 2, H)
        k, v = (packed[:, :, :, i].reshape(B, kv_len, D) for i in range(2))
        ours_inputs = [("xq", q), ("xk", packed), ("xv", None)]
    tail = [("bias", bias), ("xmask", key_mask)]
    model, feeds = _mha_model_and_feeds([("xq", q), ("xk", k), ("xv", v)] + tail, attrs)
    theirs = ort_run(model, feeds, ["y"])["y"]
    model, feeds = _mha_model_and_feeds(ours_inputs + tail, attrs)
    ours = run(core.load_bytes(model.SerializeToString()), feeds)["y"]
    assert_close(ours, theirs, "packed MultiHeadAttention", 1e-4, 1e-5)


@pytest.mark.parametrize("attrs", [{}, {"unidirectional": 1}])
def test_multi_head_attention_with_past(attrs):
    rng = np.random.default_rng(3)
    past = 5
    inputs = [("xq", rand(rng, B, S, D)), ("xk", rand(rng, B, S, D)), ("xv", rand(rng, B, S, D)),
              ("bias", rand(rng, 3 * D)), ("xmask", None), ("xab", rand(rng, 1, N, S, past + S)),
              ("xpk", rand(rng, B, N, past, H)), ("xpv", rand(rng, B, N, past, H))]
    check("MultiHeadAttention", inputs, {"num_heads": N, **attrs}, outputs=("y", "present_key", "present_value"),
          rtol=1e-4, atol=1e-5)


def test_multi_head_attention_float16():
    rng = np.random.default_rng(4)
    dt = np.float16
    check("MultiHeadAttention", [("xq", rand(rng, B, S, D, dtype=dt)), ("xk", rand(rng, B, 6, D, dtype=dt)),
                                 ("xv", rand(rng, B, 6, D, dtype=dt)), ("bias", rand(rng, 3 * D, dtype=dt))],
          {"num_heads": N}, rtol=5e-3, atol=5e-3)


# ---- Attention ----------------------------------------------------------------------

@pytest.mark.parametrize("mask,attrs", [
    (None, {}),
    ("lengths", {}),
    ("ends_starts", {}),
    ("raw", {}),
    ("raw3d", {"mask_filter_value": -500.0}),
    (None, {"unidirectional": 1, "scale": 0.5}),
    ("raw", {"unidirectional": 1}),
])
def test_attention(mask, attrs):
    rng = np.random.default_rng(20 + len(str(mask)) + len(str(attrs)))
    d_in = 12
    check("Attention", [("xin", rand(rng, B, S, d_in)), ("w", rand(rng, d_in, 3 * D) * 0.3),
                        ("bias", rand(rng, 3 * D)), ("xmask", _mask(rng, mask, S))], {"num_heads": N, **attrs},
          rtol=1e-4, atol=1e-5)


def test_attention_with_value_size_of_its_own():
    rng = np.random.default_rng(30)
    sizes = [D, D, 2 * D]
    check("Attention", [("xin", rand(rng, B, S, 12)), ("w", rand(rng, 12, sum(sizes)) * 0.3),
                        ("bias", rand(rng, sum(sizes)))], {"num_heads": N, "qkv_hidden_sizes": sizes},
          rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("seq,with_mask", [(1, True), (1, False), (3, True)])
def test_attention_with_past_gpt2_style(seq, with_mask):
    # (onnxruntime refuses past together with attention_bias)
    rng = np.random.default_rng(31 + seq)
    past = 5
    total = past + seq
    mask = np.ones((B, total), np.int32)
    mask[1, :2] = 0                                   # left padding in the second entry
    inputs = [("xin", rand(rng, B, seq, 12)), ("w", rand(rng, 12, 3 * D) * 0.3), ("bias", rand(rng, 3 * D)),
              ("xmask", mask if with_mask else None), ("xpast", rand(rng, 2, B, N, past, H))]
    check("Attention", inputs, {"num_heads": N, "unidirectional": 1}, outputs=("y", "present"),
          rtol=1e-4, atol=1e-5)


def test_attention_float16():
    rng = np.random.default_rng(32)
    dt = np.float16
    check("Attention", [("xin", rand(rng, B, S, 12, dtype=dt)), ("w", (rand(rng, 12, 3 * D) * 0.3).astype(dt)),
                        ("bias", rand(rng, 3 * D, dtype=dt)), ("xmask", np.array([4, 3], np.int32))],
          {"num_heads": N}, rtol=5e-3, atol=5e-3)


@pytest.mark.parametrize("op", ["MultiHeadAttention", "Attention"])
def test_row_with_every_key_masked_attends_evenly(op):
    """A masked key gets mask_filter_value added, not -inf: a row whose
    keys are all masked averages the values, as onnxruntime does."""
    rng = np.random.default_rng(50)
    mask = np.ones((B, S), np.int32)
    mask[1] = 0
    if op == "Attention":
        inputs = [("xin", rand(rng, B, S, 12)), ("w", rand(rng, 12, 3 * D) * 0.3), ("bias", rand(rng, 3 * D)),
                  ("xmask", mask)]
    else:
        inputs = [("xq", rand(rng, B, S, D)), ("xk", rand(rng, B, S, D)), ("xv", rand(rng, B, S, D)),
                  ("bias", None), ("xmask", mask)]
    check(op, inputs, {"num_heads": N}, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("past,seq,attrs", [(4, 1, {}), (0, 3, {"unidirectional": 1}), (5, 2, {"unidirectional": 1})])
def test_multi_head_attention_shared_buffer(past, seq, attrs):
    """past_sequence_length: past_key/past_value are fixed 8-row buffers
    holding `past` rows; the new rows go in after them, the rest stays."""
    rng = np.random.default_rng(70 + past + seq)
    inputs = [("xq", rand(rng, B, seq, D)), ("xk", rand(rng, B, seq, D)), ("xv", rand(rng, B, seq, D)),
              ("bias", rand(rng, 3 * D)), ("xmask", None), ("xab", None),
              ("xpk", rand(rng, B, N, 8, H)), ("xpv", rand(rng, B, N, 8, H)), ("xpast", np.array([past], np.int32))]
    check("MultiHeadAttention", inputs, {"num_heads": N, **attrs}, outputs=("y", "present_key", "present_value"),
          rtol=1e-4, atol=1e-5)
