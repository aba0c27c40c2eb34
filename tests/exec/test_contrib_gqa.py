"""onnxruntime's GroupQueryAttention against onnxruntime itself: prompts and
decode steps, KV caches exactly past + new or in a longer shared buffer,
ragged batches, packed QKV, rotary embedding, local windows, softcap,
smooth softmax and attention bias."""
import numpy as np
import pytest

pytest.importorskip("onnxruntime")

from contrib_models import assert_close, model_of, one_node, ort_run, rand  # noqa: E402
from test_contrib_llm import rope_caches  # noqa: E402

from onnxstudio import core  # noqa: E402
from onnxstudio.core.exec import run  # noqa: E402

OUTPUTS = ("y", "present_key", "present_value")


def gqa_inputs(rng, *, batch=2, seq=4, past=0, buffer=None, seqlens=None, nq=4, nkv=2, head=16, packed=False,
               rotary=False, rot_dim=None, position_ids=None, attention_bias=False, head_sink=False,
               dtype=np.float32):
    """Inputs of one GroupQueryAttention call. past: cached tokens per entry
    (0 = first prompt); buffer: length of a shared cache buffer (default
    exactly `past`); seqlens: tokens in the cache after the call per entry."""
    totals = np.array(seqlens if seqlens is not None else [past + seq] * batch)
    total = int(totals.max()) if past else seq
    if packed:
        q, k, v = rand(rng, batch, seq, (nq + 2 * nkv) * head, dtype=dtype), None, None
    else:
        q = rand(rng, batch, seq, nq * head, dtype=dtype)
        k, v = rand(rng, batch, seq, nkv * head, dtype=dtype), rand(rng, batch, seq, nkv * head, dtype=dtype)
    length = buffer if buffer is not None else past
    past_k = rand(rng, batch, nkv, length, head, dtype=dtype) if length else None
    past_v = rand(rng, batch, nkv, length, head, dtype=dtype) if length else None
    cos = sin = None
    if rotary:
        cos, sin = rope_caches(32, rot_dim or head, dtype)
    bias = rand(rng, 1, nq, seq, total, dtype=dtype) if attention_bias else None
    sink = rand(rng, nq, dtype=dtype) if head_sink else None
    return [("xq", q), ("xk", k), ("xv", v), ("xpk", past_k), ("xpv", past_v),
            ("xseqlens", (totals - 1).astype(np.int32)), ("xtotal", np.array(total, np.int32)),
            ("cos", cos), ("sin", sin), ("xpos", position_ids), ("xbias", bias), ("sink", sink)]


def check_gqa(inputs, attrs, rtol=1e-5, atol=1e-5, valid_rows=None, valid_cache=None):
    """Compare every output with onnxruntime. valid_rows[b]: output rows of
    entry b that are defined (padding rows are not); valid_cache[b]: cache
    rows that are (a shared buffer's tail is whatever the caller had)."""
    model = one_node("GroupQueryAttention", inputs, attrs, OUTPUTS)
    feeds = {n: v for n, v in inputs if v is not None and n.startswith("x")}
    theirs = ort_run(model, feeds, list(OUTPUTS))
    ours = run(core.load_bytes(model.SerializeToString()), feeds)
    for name in OUTPUTS:
        a, b = np.asarray(ours[name]), theirs[name]
        limits = valid_rows if name == "y" else valid_cache
        if limits is not None:
            assert a.shape == b.shape, name
            for i, count in enumerate(limits):
                rows = (slice(None), slice(0, count)) if name != "y" else (slice(0, count),)
                assert_close(a[i][rows], b[i][rows], f"{name}[{i}]", rtol, atol)
        else:
            assert_close(a, b, name, rtol, atol)
    return ours


BASE = {"num_heads": 4, "kv_num_heads": 2}


@pytest.mark.parametrize("case,attrs", [
    ({}, {}),
    ({"packed": True}, {}),
    ({"nkv": 4}, {"kv_num_heads": 4}),                         # plain multi-head
    ({"nkv": 1}, {"kv_num_heads": 1}),                         # multi-query
    ({}, {"scale": 0.3}),
    ({}, {"softcap": 2.0}),
    ({"seq": 6}, {"local_window_size": 2}),
    ({}, {"smooth_softmax": 1}),
    ({"head_sink": True}, {"smooth_softmax": 1}),
    ({"head_sink": True}, {}),                                # a head sink counts without smooth_softmax
    ({"attention_bias": True}, {}),
    ({"rotary": True}, {"do_rotary": 1}),
    ({"rotary": True}, {"do_rotary": 1, "rotary_interleaved": 1}),
    ({}, {"causal": 0}),
    ({"rotary": True, "rot_dim": 16, "head": 32}, {"do_rotary": 1}),
])
def test_prompt(case, attrs):
    rng = np.random.default_rng(len(str(case)) + len(str(attrs)))
    check_gqa(gqa_inputs(rng, **case), {**BASE, **attrs}, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("case,attrs", [
    ({"seq": 1, "past": 5}, {}),                                              # decode, cache = past + new
    ({"seq": 1, "past": 5, "rotary": True}, {"do_rotary": 1}),
    ({"seq": 1, "past": 5, "rotary": True}, {"do_rotary": 1, "rotary_interleaved": 1}),
    ({"seq": 1, "past": 6, "packed": True}, {"softcap": 3.0}),
    ({"seq": 1, "past": 7}, {"local_window_size": 3}),
    ({"seq": 1, "past": 4, "attention_bias": True}, {}),
    ({"seq": 1, "past": 4, "attention_bias": True}, {"softcap": 1.5}),
    ({"batch": 1, "seq": 3, "past": 4}, {}),                                  # a later prompt chunk
    ({"batch": 1, "seq": 3, "past": 4, "rotary": True}, {"do_rotary": 1, "local_window_size": 4}),
])
def test_with_past(case, attrs):
    rng = np.random.default_rng(7 + len(str(case)) + len(str(attrs)))
    check_gqa(gqa_inputs(rng, **case), {**BASE, **attrs}, rtol=1e-4, atol=1e-5)


def test_decode_in_shared_buffer_with_ragged_batch():
    """A fixed buffer of 10 rows holding 5 and 3 cached tokens: the new token
    goes right after each entry's own tokens."""
    rng = np.random.default_rng(11)
    inputs = gqa_inputs(rng, seq=1, past=5, buffer=10, seqlens=[6, 4], rotary=True)
    check_gqa(inputs, {**BASE, "do_rotary": 1}, rtol=1e-4, atol=1e-5, valid_cache=[6, 4])


def test_first_prompt_in_shared_buffer_right_padded():
    """The first prompt of a batch whose second entry has 2 real tokens and
    2 padding tokens on the right, written into a 8-row buffer."""
    rng = np.random.default_rng(12)
    inputs = gqa_inputs(rng, seq=4, past=0, buffer=8, seqlens=[4, 2])
    check_gqa(inputs, BASE, rtol=1e-4, atol=1e-5, valid_rows=[4, 2], valid_cache=[4, 2])


def test_float16():
    rng = np.random.default_rng(13)
    inputs = gqa_inputs(rng, seq=1, past=5, rotary=True, dtype=np.float16)
    check_gqa(inputs, {**BASE, "do_rotary": 1}, rtol=5e-3, atol=5e-3)


@pytest.mark.parametrize("case,pos", [
    ({"seq": 1, "past": 5}, [[9], [4]]),
    ({"batch": 1, "seq": 3, "past": 4}, [[9, 1, 3]]),
    # the first prompt: onnxruntime counts on from the first element only
    ({"seq": 4}, [[5, 0, 9, 1], [2, 2, 2, 2]]),
])
def test_position_ids_given(case, pos):
    rng = np.random.default_rng(14 + len(pos[0]))
    inputs = gqa_inputs(rng, rotary=True, position_ids=np.array(pos, np.int64), **case)
    check_gqa(inputs, {**BASE, "do_rotary": 1}, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("case,attrs", [
    ({}, {"qk_output": 1}),
    ({}, {"qk_output": 2}),
    ({"seq": 1, "past": 5}, {"qk_output": 1, "softcap": 2.0}),
    ({"seq": 1, "past": 5, "attention_bias": True}, {"qk_output": 1}),
    ({"seq": 1, "past": 5, "attention_bias": True}, {"qk_output": 1, "softcap": 1.5}),
    ({"seq": 1, "past": 5, "attention_bias": True}, {"qk_output": 2, "smooth_softmax": 1}),
    ({"seq": 1, "past": 5, "buffer": 9, "seqlens": [6, 4]}, {"qk_output": 2, "local_window_size": 3}),
])
def test_output_qk(case, attrs):
    """The scores before softmax (1) or the probabilities (2), blocked keys
    as zeros."""
    rng = np.random.default_rng(15 + len(str(case)) + len(str(attrs)))
    inputs = gqa_inputs(rng, **case)
    model = one_node("GroupQueryAttention", inputs, {**BASE, **attrs}, OUTPUTS + ("qk",))
    feeds = {n: v for n, v in inputs if v is not None and n.startswith("x")}
    theirs = ort_run(model, feeds, ["y", "qk"])
    ours = run(core.load_bytes(model.SerializeToString()), feeds)
    for name in ("y", "qk"):
        assert_close(ours[name], theirs[name], name, 1e-4, 1e-5)


@pytest.mark.parametrize("valid,seqlens,total", [
    ([2, 3], [6, 6], 6),          # entry 0: 4 cached + 2 real rows of 3; entry 1: 3 cached + 3
    ([1, 3], [5, 3], 8),          # total_sequence_length only an upper bound
    ([0, 2], [4, 2], 8),          # entry 0 idle: its cache stays as it was
])
def test_right_padded_query_chunks(valid, seqlens, total):
    """query_seqlens: only the first query_seqlens[b] rows of the chunk are
    real; they follow the entry's seqlens_k + 1 - query_seqlens cached tokens."""
    rng = np.random.default_rng(16 + sum(valid))
    inputs = dict(gqa_inputs(rng, seq=3, past=1, buffer=10, seqlens=seqlens, rotary=True))
    inputs["xtotal"] = np.array(total, np.int32)
    inputs["xqlens"] = np.array(valid, np.int32)
    names = ["xq", "xk", "xv", "xpk", "xpv", "xseqlens", "xtotal", "cos", "sin", "xpos", "xbias", "sink",
             "kscale", "vscale", "qnorm", "knorm", "xqlens"]
    check_gqa([(n, inputs.get(n)) for n in names], {**BASE, "do_rotary": 1}, rtol=1e-4, atol=1e-5,
              valid_rows=valid, valid_cache=seqlens)


@pytest.mark.parametrize("quant,past,seq,bits", [
    ("PER_TENSOR", 5, 1, 8),
    ("PER_CHANNEL", 5, 1, 8),
    ("PER_TENSOR", 0, 4, 8),                  # a prompt into an 8-row buffer
    ("PER_CHANNEL", 4, 3, 8),
    ("PER_TENSOR", 5, 1, 4),
    ("PER_CHANNEL", 4, 3, 4),
    ("PER_CHANNEL", 0, 4, 4),
])
def test_quantized_kv_cache(quant, past, seq, bits):
    """An int8 cache, or a 4-bit one (two values per uint8), times k_scale /
    v_scale (one, or one per kv head and channel): new keys and values are
    stored quantized, and attention reads them back as stored."""
    rng = np.random.default_rng(17 + past + len(quant) + bits)
    inputs = dict(gqa_inputs(rng, batch=1 if seq > 1 and past else 2, seq=seq, past=past,
                             buffer=None if past else 8, rotary=True))
    for name in ("xpk", "xpv"):
        shape = inputs[name].shape
        inputs[name] = (rng.integers(-120, 120, size=shape).astype(np.int8) if bits == 8
                        else rng.integers(0, 256, size=shape[:-1] + (shape[-1] // 2,)).astype(np.uint8))
    scale_shape = (1,) if quant == "PER_TENSOR" else (1, 2, 1, 16)
    step = 0.015 if bits == 8 else 0.25
    inputs["kscale"] = (rng.random(scale_shape) * step + step).astype(np.float32)
    inputs["vscale"] = (rng.random(scale_shape) * step + step).astype(np.float32)
    names = ["xq", "xk", "xv", "xpk", "xpv", "xseqlens", "xtotal", "cos", "sin", "xpos", "xbias", "sink",
             "kscale", "vscale"]
    attrs = {**BASE, "do_rotary": 1, "k_quant_type": quant, "v_quant_type": quant, "kv_cache_bit_width": bits}
    # (a prompt's buffer rows past its tokens are whatever the caller had)
    valid = None if past else [seq] * 2
    ours = check_gqa([(n, inputs.get(n)) for n in names], attrs, rtol=1e-4, atol=1e-5, valid_rows=valid,
                     valid_cache=valid)
    assert ours["present_key"].dtype == (np.int8 if bits == 8 else np.uint8)


def _window_step(rng, session_inputs, attrs, past_k, past_v, seq, before, batch=1):
    """Inputs of one step on a window cache: `before` tokens seen per entry."""
    befores = np.broadcast_to(np.asarray(before), (batch,))
    totals = befores + seq
    inputs = dict(gqa_inputs(rng, batch=batch, seq=seq, past=1, buffer=past_k.shape[2], seqlens=totals.tolist(),
                             rotary=True))
    inputs["xpk"], inputs["xpv"] = past_k, past_v
    inputs["xtotal"] = np.array(totals.max(), np.int32)
    return [(n, inputs.get(n)) for n in session_inputs], totals


WINDOW_NAMES = ["xq", "xk", "xv", "xpk", "xpv", "xseqlens", "xtotal", "cos", "sin"]


def test_window_cache_generation_across_evictions():
    """A prompt, single tokens past the capacity (6 rows, window 4: three
    positions evicted at once), then a 4-token step; each side keeps
    feeding its own caches back. Rows past L(T) are unspecified."""
    from onnxstudio.core.exec.kernels._windowed_kv_cache import resident_count
    rng = np.random.default_rng(18)
    capacity, window = 6, 4
    attrs = {**BASE, "do_rotary": 1, "local_window_size": window, "sliding_window_cache": 1}
    empty = np.zeros((1, 2, capacity, 16), np.float32)
    ours_k = ours_v = theirs_k = theirs_v = empty
    before = 0
    for seq in (3, 1, 1, 1, 1, 1, 1, 4):
        inputs, totals = _window_step(rng, WINDOW_NAMES, attrs, ours_k, ours_v, seq, before)
        model = one_node("GroupQueryAttention", inputs, attrs, OUTPUTS)
        feeds = {n: v for n, v in inputs if v is not None and n.startswith("x")}
        ours = run(core.load_bytes(model.SerializeToString()), feeds)
        theirs = ort_run(model, {**feeds, "xpk": theirs_k, "xpv": theirs_v}, list(OUTPUTS))
        kept = resident_count(int(totals[0]), capacity, window)
        assert_close(ours["y"], theirs["y"], f"y after {totals[0]}", 1e-4, 1e-5)
        for name in ("present_key", "present_value"):
            assert_close(ours[name][:, :, :kept], theirs[name][:, :, :kept], f"{name} after {totals[0]}",
                         1e-4, 1e-5)
        ours_k, ours_v = ours["present_key"], ours["present_value"]
        theirs_k, theirs_v = theirs["present_key"], theirs["present_value"]
        before = int(totals[0])


def test_window_cache_ragged_decode():
    rng = np.random.default_rng(19)
    capacity, window = 6, 3
    attrs = {**BASE, "do_rotary": 1, "local_window_size": window, "sliding_window_cache": 1}
    past = rand(rng, 2, 2, capacity, 16)
    inputs, totals = _window_step(rng, WINDOW_NAMES, attrs, past, rand(rng, 2, 2, capacity, 16), 1, [9, 2],
                                  batch=2)
    from onnxstudio.core.exec.kernels._windowed_kv_cache import resident_count
    kept = [resident_count(int(t), capacity, window) for t in totals]
    check_gqa(inputs, attrs, rtol=1e-4, atol=1e-5, valid_cache=kept)


@pytest.mark.parametrize("case,attrs", [
    ({"seq": 4, "rotary": True}, {"do_rotary": 1}),
    ({"seq": 1, "past": 5, "rotary": True}, {"do_rotary": 1, "qk_norm_epsilon": 1e-3}),
    ({"seq": 1, "past": 5, "packed": True}, {"q_norm_epsilon": 1e-2, "k_norm_epsilon": 1e-4}),
])
def test_qk_norm_like_the_graph_it_fuses(case, attrs):
    """q_norm_weight/k_norm_weight (Qwen3): onnxruntime's CPU kernel refuses
    them, so we compare with onnxruntime running the pattern they fold:
    Reshape -> SimplifiedLayerNormalization -> Reshape on Q and K."""
    from onnx import TensorProto, helper, numpy_helper
    rng = np.random.default_rng(60 + len(str(case)) + len(str(attrs)))
    inputs = dict(gqa_inputs(rng, **case))
    q_weight, k_weight = (1 + 0.2 * rand(rng, 16)), (1 + 0.2 * rand(rng, 16))
    names = ["xq", "xk", "xv", "xpk", "xpv", "xseqlens", "xtotal", "cos", "sin"]
    fused_inputs = [(n, inputs.get(n)) for n in names] + [
        ("xpos", None), ("xbias", None), ("sink", None), ("ks", None), ("vs", None),
        ("qnorm", q_weight), ("knorm", k_weight)]
    fused = one_node("GroupQueryAttention", fused_inputs, {**BASE, **attrs}, OUTPUTS)
    feeds = {n: v for n, v in fused_inputs if v is not None and n.startswith("x")}
    ours = run(core.load_bytes(fused.SerializeToString()), feeds)

    # the same attention with the norms as separate nodes
    eps = attrs.get("qk_norm_epsilon", 1e-6)
    q_eps, k_eps = attrs.get("q_norm_epsilon", eps), attrs.get("k_norm_epsilon", eps)
    nodes, inits = [], [numpy_helper.from_array(q_weight, "qnorm"), numpy_helper.from_array(k_weight, "knorm")]
    q_src, k_src, v_src = "xq", "xk", "xv"
    if inputs["xk"] is None:                    # packed QKV: split it first
        nodes.append(helper.make_node("Split", ["xq", "split"], ["q_part", "k_part", "v_part"], axis=-1))
        inits.append(numpy_helper.from_array(np.array([64, 32, 32], np.int64), "split"))
        q_src, k_src, v_src = "q_part", "k_part", "v_part"
    for src, heads, weight, epsilon in ((q_src, 4, "qnorm", q_eps), (k_src, 2, "knorm", k_eps)):
        inits += [numpy_helper.from_array(np.array([0, 0, heads, 16], np.int64), f"{src}_heads"),
                  numpy_helper.from_array(np.array([0, 0, heads * 16], np.int64), f"{src}_flat")]
        nodes += [helper.make_node("Reshape", [src, f"{src}_heads"], [f"{src}_4d"]),
                  helper.make_node("SimplifiedLayerNormalization", [f"{src}_4d", weight], [f"{src}_normed"],
                                   epsilon=epsilon),
                  helper.make_node("Reshape", [f"{src}_normed", f"{src}_flat"], [f"{src}_n"])]
    gqa_inputs_names = [f"{q_src}_n", f"{k_src}_n", v_src] + [n if inputs.get(n) is not None else ""
                                                               for n in names[3:]]
    for name in ("cos", "sin"):
        if inputs.get(name) is not None:
            inits.append(numpy_helper.from_array(inputs[name], name))
    nodes.append(helper.make_node("GroupQueryAttention", gqa_inputs_names, list(OUTPUTS), domain="com.microsoft",
                                  **BASE, **{k: v for k, v in attrs.items() if "norm" not in k}))
    graph_inputs = [helper.make_tensor_value_info(n, TensorProto.FLOAT if v.dtype == np.float32
                                                  else TensorProto.INT32, v.shape) for n, v in feeds.items()]
    graph = helper.make_graph(nodes, "unfused", graph_inputs,
                              [helper.make_empty_tensor_value_info(o) for o in OUTPUTS], initializer=inits)
    theirs = ort_run(model_of(graph), feeds, list(OUTPUTS))
    for name in OUTPUTS:
        assert_close(ours[name], theirs[name], name, 1e-4, 1e-5)
