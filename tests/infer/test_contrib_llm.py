"""Inference rules for onnxruntime's LLM operators (com.microsoft attention,
rotary embeddings, block-quantized weights, fused embeddings), checked against
the shapes and element types onnxruntime's own CPU run produces. Inputs may be
declared with symbolic dims: the inferred dims, evaluated with the sizes fed,
must equal the run's."""
from __future__ import annotations

import numpy as np
import pytest

from onnxstudio import core
from onnxstudio.core.infer import infer
from onnxstudio.core.infer.dims import dim_add
from onnxstudio.core.infer.symexpr import poly_of

from .helpers import helper, onnx

numpy_helper = onnx.numpy_helper
ort = pytest.importorskip("onnxruntime")

MS = "com.microsoft"
F, U8, I8, I32, I64, F16 = 1, 2, 3, 6, 7, 10       # TensorProto element types
_NUMPY = {F: np.float32, U8: np.uint8, I8: np.int8, I32: np.int32, I64: np.int64, F16: np.float16}
_ELEM = {np.dtype(v): k for k, v in _NUMPY.items()}
rng = np.random.default_rng(0)


def _value_of(dim, sizes):
    """A dim (int, symbol or expression we built) evaluated with `sizes`."""
    assert dim is not None
    total = 0
    for mono, coeff in poly_of(dim).items():
        term = coeff
        for sym in mono:
            term *= sizes[sym]
        total += term
    return total


def _model(op, names, values, outputs, attrs, consts, declared, output_elems=None):
    graph_inputs = [helper.make_tensor_value_info(n, _ELEM[values[n].dtype], declared.get(n, values[n].shape))
                    for n in dict.fromkeys(names) if n and n not in consts]
    graph = helper.make_graph(
        [helper.make_node(op, names, list(outputs), domain=MS, **attrs)], "g", graph_inputs,
        [helper.make_tensor_value_info(o, output_elems[o], None) if o in (output_elems or {})
         else helper.make_empty_tensor_value_info(o) for o in outputs if o],
        initializer=[numpy_helper.from_array(values[n], n) for n in consts])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid(MS, 1)])
    model.ir_version = 10
    return model.SerializeToString()


def _run_sharing(sess, feeds, wanted, shared):
    """Run with each output in `shared` written into its input's buffer, as
    kernels that update a KV cache in place require."""
    binding = sess.io_binding()
    buffers = {n: ort.OrtValue.ortvalue_from_numpy(a) for n, a in feeds.items()}
    for n, buf in buffers.items():
        binding.bind_ortvalue_input(n, buf)
    for o in wanted:
        if o in shared:
            binding.bind_ortvalue_output(o, buffers[shared[o]])
        else:
            binding.bind_output(o, "cpu")
    sess.run_with_iobinding(binding)
    return [v.numpy() for v in binding.get_outputs()]


def run_and_compare(op, names, values, outputs, attrs=None, consts=(), declared=None, sizes=None, shared=None,
                    output_elems=None):
    """One `op` node reading `names` (values: name -> array; consts become
    initializers, the rest graph inputs declared as `declared` says or with
    their array's shape). Every output's inferred shape and element type must
    equal what onnxruntime's run gives. `shared` maps outputs to the inputs
    whose buffer they are written into; `output_elems` declares the element
    type of outputs onnxruntime cannot type by itself. Returns the inferred types."""
    data = _model(op, names, values, outputs, attrs or {}, consts, declared or {}, output_elems)
    got = infer(core.load_bytes(data))
    so = ort.SessionOptions()
    so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    sess = ort.InferenceSession(data, so, providers=["CPUExecutionProvider"])
    feeds = {n: values[n] for n in dict.fromkeys(names) if n and n not in consts}
    wanted = [o for o in outputs if o]
    results = _run_sharing(sess, feeds, wanted, shared) if shared else sess.run(wanted, feeds)
    for name, value in zip(wanted, results):
        t = got[name]
        assert t.shape is not None, (name, t)
        assert [_value_of(d, sizes or {}) for d in t.shape] == list(value.shape), (name, t.shape, value.shape)
        assert np.dtype(_NUMPY[t.elem_type]) == value.dtype, (name, t.elem_type, value.dtype)
    return got


def infer_only(op, names, inputs, outputs, attrs=None):
    """Inferred types of one `op` node whose inputs are declared (elem, shape),
    for operators onnxruntime runs only on GPU."""
    graph = helper.make_graph(
        [helper.make_node(op, names, list(outputs), domain=MS, **(attrs or {}))], "g",
        [helper.make_tensor_value_info(n, e, s) for n, (e, s) in inputs.items()],
        [helper.make_empty_tensor_value_info(o) for o in outputs if o])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid(MS, 1)])
    model.ir_version = 10
    return infer(core.load_bytes(model.SerializeToString()))


def randn(*shape, dtype=np.float32):
    return rng.standard_normal(shape).astype(dtype)


def quantize_4bit(w, block):
    """(K, N) float weights as MatMulNBits stores them: per column n, blocks of
    `block` values along K, two 4-bit values a byte (low nibble first), with a
    float scale per block and the default zero point 8."""
    k, n = w.shape
    blocks = w.T.reshape(n, k // block, block)
    scales = np.abs(blocks).max(axis=-1) / 7 + 1e-6
    q = np.clip(np.round(blocks / scales[..., None]) + 8, 0, 15).astype(np.uint8)
    packed = q[..., 0::2] | (q[..., 1::2] << 4)
    return packed, scales.astype(np.float32)


# --- GroupQueryAttention -----------------------------------------------------------

def _gqa_values(batch, seq, past, packed=False, rotary=False):
    heads, kv_heads, head = 4, 2, 16           # rotary needs a head_size multiple of 16
    total = past + seq
    v = {"past_key": randn(batch, kv_heads, past, head), "past_value": randn(batch, kv_heads, past, head),
         "seqlens_k": np.full(batch, total - 1, np.int32), "total_sequence_length": np.array(total, np.int32),
         "cos": randn(total + 4, head // 2), "sin": randn(total + 4, head // 2)}
    if packed:
        v["query"] = randn(batch, seq, (heads + 2 * kv_heads) * head)
    else:
        v.update(query=randn(batch, seq, heads * head), key=randn(batch, seq, kv_heads * head),
                 value=randn(batch, seq, kv_heads * head))
    names = ["query", "" if packed else "key", "" if packed else "value", "past_key", "past_value",
             "seqlens_k", "total_sequence_length"] + (["cos", "sin"] if rotary else [])
    attrs = {"num_heads": heads, "kv_num_heads": kv_heads, "do_rotary": int(rotary)}
    return names, v, attrs


# onnxruntime's CPU kernel takes a cache with several new tokens only for batch 1
@pytest.mark.parametrize("batch,seq", [(1, 3), (2, 1)])
@pytest.mark.parametrize("packed", [False, True])
@pytest.mark.parametrize("rotary", [False, True])
def test_group_query_attention_grows_the_cache(batch, seq, packed, rotary):
    names, values, attrs = _gqa_values(batch, seq, 5, packed=packed, rotary=rotary)
    got = run_and_compare("GroupQueryAttention", names, values, ["y", "present_key", "present_value"], attrs)
    assert got["present_key"].shape == (batch, 2, 5 + seq, 16)


def test_group_query_attention_known_total_length():
    # total_sequence_length as an initializer: present is max(past, total) long
    names, values, attrs = _gqa_values(1, 4, 6)
    got = run_and_compare("GroupQueryAttention", names, values, ["y", "pk", "pv"], attrs,
                          consts=["total_sequence_length", "seqlens_k"])
    assert got["pv"].shape == (1, 2, 10, 16)


def test_group_query_attention_attention_scores():
    names, values, attrs = _gqa_values(1, 3, 5)
    got = run_and_compare("GroupQueryAttention", names, values, ["y", "pk", "pv", "qk"], {**attrs, "qk_output": 1})
    assert got["qk"].shape == (1, 4, 3, 8)


def test_group_query_attention_without_past():
    # the prompt: no cache comes in, present holds the sequence's keys
    names, values, attrs = _gqa_values(2, 5, 0)
    names[3] = names[4] = ""
    run_and_compare("GroupQueryAttention", names, values, ["y", "pk", "pv"], attrs)


def test_group_query_attention_symbolic_dims():
    names, values, attrs = _gqa_values(1, 3, 5)
    sizes = {"batch": 1, "seq": 3, "past": 5}
    declared = {"query": ["batch", "seq", 64], "key": ["batch", "seq", 32], "value": ["batch", "seq", 32],
                "past_key": ["batch", 2, "past", 16], "past_value": ["batch", 2, "past", 16],
                "seqlens_k": ["batch"]}
    got = run_and_compare("GroupQueryAttention", names, values, ["y", "pk", "pv"], attrs,
                          declared=declared, sizes=sizes)
    assert got["y"].shape == ("batch", "seq", 64)
    assert got["pk"].shape == got["pv"].shape == ("batch", 2, dim_add("past", "seq"), 16)


def test_group_query_attention_quantized_cache_keeps_its_type():
    names, values, attrs = _gqa_values(1, 3, 5)
    cache = values["past_key"].shape
    values.update(past_key=np.zeros(cache, np.int8), past_value=np.zeros(cache, np.int8),
                  ks=np.array([0.1], np.float32), vs=np.array([0.1], np.float32))
    got = run_and_compare("GroupQueryAttention", names + ["", "", "", "", "", "ks", "vs"], values, ["y", "pk", "pv"],
                          {**attrs, "k_quant_type": "PER_TENSOR", "v_quant_type": "PER_TENSOR",
                           "kv_cache_bit_width": 8})
    assert got["pk"].elem_type == I8 and got["pk"].shape == (1, 2, 8, 16) and got["y"].elem_type == F


def test_group_query_attention_window_cache_keeps_its_capacity():
    names, values, attrs = _gqa_values(1, 1, 4)
    got = run_and_compare("GroupQueryAttention", names, values, ["y", "pk", "pv"],
                          {**attrs, "sliding_window_cache": 1, "local_window_size": 4},
                          shared={"pk": "past_key", "pv": "past_value"})
    assert got["pk"].shape == (1, 2, 4, 16)


# --- MultiHeadAttention, DecoderMaskedMultiHeadAttention ---------------------------

def test_multi_head_attention_without_and_with_past():
    v = {"q": randn(2, 3, 8), "k": randn(2, 4, 8), "v": randn(2, 4, 8),
         "pk": randn(2, 2, 5, 4), "pv": randn(2, 2, 5, 4)}
    run_and_compare("MultiHeadAttention", ["q", "k", "v"], v, ["y", "pk_out", "pv_out"], {"num_heads": 2})
    got = run_and_compare("MultiHeadAttention", ["q", "k", "v", "", "", "", "pk", "pv"], v,
                          ["y", "pk_out", "pv_out"], {"num_heads": 2})
    assert got["pk_out"].shape == (2, 2, 9, 4)


@pytest.mark.parametrize("beam_search", [False, True])
def test_multi_head_attention_with_a_shared_buffer(beam_search):
    v = {"q": randn(2, 1, 8), "k": randn(2, 1, 8), "v": randn(2, 1, 8), "pk": randn(2, 2, 6, 4),
         "pv": randn(2, 2, 6, 4), "psl": np.array([3], np.int32), "ci": np.zeros((2, 1, 6), np.int32)}
    names = ["q", "k", "v", "", "", "", "pk", "pv", "psl"] + (["ci"] if beam_search else [])
    got = run_and_compare("MultiHeadAttention", names, v, ["y", "pko", "pvo"], {"num_heads": 2})
    assert got["pko"].shape == (2, 2, 6, 4)


def test_multi_head_attention_scores():
    # onnxruntime cannot tell qk's element type by itself: the graph declares it (its shape is ours)
    v = {"q": randn(2, 1, 8), "k": randn(2, 1, 8), "v": randn(2, 1, 8),
         "pk": randn(2, 2, 5, 4), "pv": randn(2, 2, 5, 4)}
    got = run_and_compare("MultiHeadAttention", ["q", "k", "v", "", "", "", "pk", "pv"], v,
                          ["y", "pko", "pvo", "qk"], {"num_heads": 2}, output_elems={"qk": F})
    assert got["qk"].shape == (2, 2, 1, 6)


def test_multi_head_attention_with_bias_and_value_of_another_width():
    v = {"q": randn(2, 3, 8), "k": randn(2, 4, 8), "v": randn(2, 4, 6), "b": randn(22)}
    got = run_and_compare("MultiHeadAttention", ["q", "k", "v", "b"], v, ["y", "pk", "pv"], {"num_heads": 2})
    assert got["y"].shape == (2, 3, 6) and got["pv"].shape == (2, 2, 4, 3)


def test_multi_head_attention_cross_attention_per_head():
    # key and value already split into heads (batch, heads, kv_seq, head_size)
    v = {"q": randn(2, 3, 8), "k": randn(2, 2, 6, 4), "v": randn(2, 2, 6, 4)}
    run_and_compare("MultiHeadAttention", ["q", "k", "v"], v, ["y"], {"num_heads": 2})


def test_multi_head_attention_symbolic():
    v = {"q": randn(2, 3, 8), "k": randn(2, 3, 8), "v": randn(2, 3, 8),
         "pk": randn(2, 2, 5, 4), "pv": randn(2, 2, 5, 4)}
    declared = {n: ["batch", "seq", 8] for n in "qkv"}
    declared.update(pk=["batch", 2, "past", 4], pv=["batch", 2, "past", 4])
    got = run_and_compare("MultiHeadAttention", ["q", "k", "v", "", "", "", "pk", "pv"], v,
                          ["y", "pko", "pvo"], {"num_heads": 2}, declared=declared,
                          sizes={"batch": 2, "seq": 3, "past": 5})
    assert got["pko"].shape == ("batch", 2, dim_add("past", "seq"), 4)


def test_multi_head_attention_packed_layouts():
    # hand-computed: onnxruntime runs packed Q/K/V layouts on GPU only
    got = infer_only("MultiHeadAttention", ["qkv"], {"qkv": (F16, ["batch", "seq", 4, 3, 16])}, ["y"],
                     {"num_heads": 4})
    assert got["y"].shape == ("batch", "seq", 64) and got["y"].elem_type == F16
    got = infer_only("MultiHeadAttention", ["q", "kv"],
                     {"q": (F16, ["batch", "seq", 64]), "kv": (F16, ["batch", "kv_seq", 4, 2, 16])},
                     ["y", "pk", "pv"], {"num_heads": 4})
    assert got["y"].shape == ("batch", "seq", 64)
    assert got["pk"].shape == ("batch", 4, "kv_seq", 16)


def test_decoder_masked_mha_shares_the_buffer():
    batch, heads, head, max_len, past = 2, 2, 4, 8, 3
    v = {"q": randn(batch, 1, heads * head), "k": randn(batch, 1, heads * head), "v": randn(batch, 1, heads * head),
         "pk": randn(batch, heads, max_len, head), "pv": randn(batch, heads, max_len, head),
         "psl": np.array([past], np.int32)}
    got = run_and_compare("DecoderMaskedMultiHeadAttention", ["q", "k", "v", "", "", "pk", "pv", "psl"], v,
                          ["y", "pko", "pvo"], {"num_heads": heads, "past_present_share_buffer": 1})
    assert got["pko"].shape == (batch, heads, max_len, head)


# --- Attention, QAttention ---------------------------------------------------------

@pytest.mark.parametrize("past", [None, 5])
def test_attention(past):
    v = {"x": randn(2, 3, 8), "w": randn(8, 24), "b": randn(24)}
    names = ["x", "w", "b"]
    if past is not None:
        v["past"] = randn(2, 2, 2, past, 4)
        names += ["", "past"]
    got = run_and_compare("Attention", names, v, ["y", "present"], {"num_heads": 2, "unidirectional": 1})
    assert got["present"].shape == (2, 2, 2, 3 + (past or 0), 4)


def test_decoder_masked_self_attention_shares_the_buffer():
    # hand-computed: onnxruntime runs it on GPU only; present is the past's buffer
    got = infer_only("DecoderMaskedSelfAttention", ["x", "w", "b", "", "past", "", "psl"],
                     {"x": (F16, ["batch", 1, 64]), "w": (F16, [64, 192]), "b": (F16, [192]),
                      "past": (F16, [2, "batch", 4, "max_len", 16]), "psl": (I32, [1])}, ["y", "present"],
                     {"num_heads": 4, "past_present_share_buffer": 1})
    assert got["y"].shape == ("batch", 1, 64) and got["present"].shape == (2, "batch", 4, "max_len", 16)


def test_attention_with_v_of_another_width():
    v = {"x": randn(2, 3, 8), "w": randn(8, 20), "b": randn(20)}
    got = run_and_compare("Attention", ["x", "w", "b"], v, ["y"], {"num_heads": 2, "qkv_hidden_sizes": [8, 8, 4]})
    assert got["y"].shape == (2, 3, 4)


def test_packed_attentions():
    # hand-computed: onnxruntime runs the padding-free attentions on GPU only
    common = {"off": (I32, ["batch", "seq"]), "cum": (I32, ["batch_plus_1"])}
    got = infer_only("PackedAttention", ["x", "w", "b", "off", "cum"],
                     {"x": (F16, ["tokens", 64]), "w": (F16, [64, 192]), "b": (F16, [192]), **common}, ["y"],
                     {"num_heads": 4})
    assert got["y"].shape == ("tokens", 64) and got["y"].elem_type == F16
    got = infer_only("PackedMultiHeadAttention", ["q", "k", "v", "", "off", "cum"],
                     {"q": (F16, ["tokens", 64]), "k": (F16, ["tokens", 64]), "v": (F16, ["tokens", 32]), **common},
                     ["y"], {"num_heads": 4})
    assert got["y"].shape == ("tokens", 32)
    got = infer_only("PackedMultiHeadAttention", ["qkv", "", "", "", "off", "cum"],
                     {"qkv": (F16, ["tokens", 4, 3, 16]), **common}, ["y"], {"num_heads": 4})
    assert got["y"].shape == ("tokens", 64)


def test_q_attention():
    v = {"x": rng.integers(0, 255, (2, 3, 8)).astype(np.uint8),
         "w": rng.integers(0, 255, (8, 24)).astype(np.uint8), "b": randn(24),
         "xs": np.array(0.02, np.float32), "ws": np.array(0.01, np.float32),
         "xz": np.array(128, np.uint8), "wz": np.array(128, np.uint8), "past": randn(2, 2, 2, 5, 4)}
    got = run_and_compare("QAttention", ["x", "w", "b", "xs", "ws", "", "xz", "wz", "past"], v,
                          ["y", "present"], {"num_heads": 2, "unidirectional": 1})
    assert got["y"].elem_type == F and got["present"].shape == (2, 2, 2, 8, 4)


# --- RotaryEmbedding, EmbedLayerNormalization ----------------------------------------

@pytest.mark.parametrize("shape", [(2, 3, 16), (2, 2, 3, 8)])
def test_rotary_embedding_keeps_the_shape(shape):
    v = {"x": randn(*shape), "pos": np.tile(np.arange(3, dtype=np.int64), (2, 1)),
         "cos": randn(8, 4), "sin": randn(8, 4)}
    run_and_compare("RotaryEmbedding", ["x", "pos", "cos", "sin"], v, ["y"],
                    {"num_heads": 2} if len(shape) == 3 else {})


def test_gemma_rotary_embedding():
    # hand-computed: onnxruntime runs it on GPU only; q and k keep their shapes
    q = (F16, ["batch", 8, "seq", 16])
    k = (F16, ["batch", 2, "seq", 16])
    got = infer_only("GemmaRotaryEmbedding", ["emb", "q", "q_rot", "k", "k_rot"],
                     {"emb": (F, ["batch", "seq", 16]), "q": q, "q_rot": q, "k": k, "k_rot": k}, ["qo", "ko"])
    assert got["qo"].shape == ("batch", 8, "seq", 16) and got["ko"].shape == ("batch", 2, "seq", 16)
    assert got["qo"].elem_type == got["ko"].elem_type == F16


def test_embed_layer_normalization():
    v = {"ids": rng.integers(0, 20, (2, 3)).astype(np.int32), "seg": rng.integers(0, 2, (2, 3)).astype(np.int32),
         "we": randn(20, 8), "pe": randn(16, 8), "se": randn(2, 8), "g": randn(8), "b": randn(8),
         "mask": np.ones((2, 3), np.int32)}
    got = run_and_compare("EmbedLayerNormalization", ["ids", "seg", "we", "pe", "se", "g", "b", "mask"], v,
                          ["y", "mask_index", "sum"], {"epsilon": 1e-5})
    assert got["mask_index"].shape == (2,) and got["mask_index"].elem_type == I32


# --- quantized and fused matrix products ----------------------------------------------

@pytest.mark.parametrize("extras", [(), ("zp",), ("zp", "", "bias")])
def test_matmul_n_bits(extras):
    k, n, block = 32, 6, 16
    packed, scales = quantize_4bit(randn(k, n), block)
    v = {"a": randn(2, 3, k), "w": packed, "s": scales.reshape(-1),
         "zp": np.full((n, 1), 0x88, np.uint8), "bias": randn(n)}
    got = run_and_compare("MatMulNBits", ["a", "w", "s", *extras], v, ["y"],
                          {"K": k, "N": n, "bits": 4, "block_size": block}, consts=["w", "s"])
    assert got["y"].shape == (2, 3, n)


def test_matmul_bnb4():
    k, n, block = 32, 6, 16
    v = {"a": randn(3, k), "w": rng.integers(0, 255, (k * n // 2,)).astype(np.uint8), "absmax": randn(k * n // block)}
    run_and_compare("MatMulBnb4", ["a", "w", "absmax"], v, ["y"], {"K": k, "N": n, "block_size": block,
                                                                   "quant_type": 1}, consts=["w", "absmax"])


@pytest.mark.parametrize("bits", [4, 8])
def test_gather_block_quantized(bits):
    rows, cols, block = 10, 32, 16
    data = rng.integers(0, 255, (rows, cols * bits // 8)).astype(np.uint8)
    v = {"data": data, "idx": rng.integers(0, rows, (2, 3)).astype(np.int64),
         "scales": randn(rows, cols // block)}
    got = run_and_compare("GatherBlockQuantized", ["data", "idx", "scales"], v, ["y"],
                          {"bits": bits, "block_size": block, "gather_axis": 0, "quantize_axis": 1},
                          consts=["data", "scales"])
    assert got["y"].shape == (2, 3, cols)


def test_gather_block_quantized_symbolic_indices():
    got = infer_only("GatherBlockQuantized", ["d", "i", "s"],
                     {"d": (U8, [100, 16]), "i": (I64, ["batch", "seq"]), "s": (F16, [100, 1])}, ["y"],
                     {"bits": 4, "block_size": 32})
    assert got["y"].shape == ("batch", "seq", 32) and got["y"].elem_type == F16


def test_dynamic_quantize_matmul():
    v = {"a": randn(2, 3, 8), "b": rng.integers(-128, 127, (8, 5)).astype(np.int8), "bs": np.array([0.1], np.float32)}
    run_and_compare("DynamicQuantizeMatMul", ["a", "b", "bs"], v, ["y"], consts=["b", "bs"])


def test_matmul_integer_to_float():
    v = {"a": rng.integers(0, 255, (2, 3, 8)).astype(np.uint8), "b": rng.integers(-128, 127, (8, 5)).astype(np.int8),
         "as": np.array(0.1, np.float32), "bs": np.array(0.2, np.float32)}
    run_and_compare("MatMulIntegerToFloat", ["a", "b", "as", "bs"], v, ["y"], consts=["b", "as", "bs"])


def test_gemm_fast_gelu():
    # hand-computed: onnxruntime runs GemmFastGelu on GPU only; it is MatMul's shape
    got = infer_only("GemmFastGelu", ["x", "w", "b"], {"x": (F16, ["batch", "seq", 8]), "w": (F16, [8, 5]),
                                                        "b": (F16, [5])}, ["y"])
    assert got["y"].shape == ("batch", "seq", 5) and got["y"].elem_type == F16


# --- mixtures of experts, sparse attention -----------------------------------------------

def test_moe_keeps_the_input_shape():
    rows, hidden, inter, experts = 6, 8, 16, 4
    v = {"x": randn(rows, hidden), "router": randn(rows, experts),
         "fc1": randn(experts, inter, hidden), "fc2": randn(experts, hidden, inter)}
    run_and_compare("MoE", ["x", "router", "fc1", "", "fc2"], v, ["y"], {"k": 2, "activation_type": "relu"},
                    consts=["fc1", "fc2"])


def test_sparse_attention_keeps_the_buffer():
    batch, heads, kv_heads, head, max_len, seq, block = 1, 2, 1, 8, 32, 4, 16
    v = {"q": randn(batch, seq, heads * head), "k": randn(batch, seq, kv_heads * head),
         "v": randn(batch, seq, kv_heads * head),
         "pk": randn(batch, kv_heads, max_len, head), "pv": randn(batch, kv_heads, max_len, head),
         "rows": np.array([[0, 1, 3]], np.int32), "cols": np.array([[0, 0, 1]], np.int32),
         "total": np.array([seq], np.int32), "kts": np.array([seq], np.int32)}
    got = run_and_compare("SparseAttention", ["q", "k", "v", "pk", "pv", "rows", "cols", "total", "kts"], v,
                          ["y", "pko", "pvo"], {"num_heads": heads, "kv_num_heads": kv_heads,
                                                "sparse_block_size": block}, shared={"pko": "pk", "pvo": "pv"})
    assert got["pko"].shape == (batch, kv_heads, max_len, head)


# --- GPU-only diffusion ops: hand-computed from the operator's definition ------------------

def test_diffusion_ops_on_gpu_only():
    x = {"x": (F16, ["batch", "hw", 64]), "b": (F16, [64]), "s": (F16, ["batch", "hw", 64])}
    assert infer_only("BiasAdd", ["x", "b", "s"], x, ["y"])["y"].shape == ("batch", "hw", 64)
    got = infer_only("BiasSplitGelu", ["x", "b"], x, ["y"])["y"]
    assert got.shape == ("batch", "hw", 32) and got.elem_type == F16
    nhwc = {"x": (F16, ["batch", 8, 8, 32]), "g": (F, [32]), "b": (F, [32]), "s": (F16, ["batch", 8, 8, 32])}
    got = infer_only("SkipGroupNorm", ["x", "g", "b", "s"], nhwc, ["y", "sum"], {"groups": 4, "epsilon": 1e-5})
    assert got["y"].shape == got["sum"].shape == ("batch", 8, 8, 32) and got["sum"].elem_type == F16
    got = infer_only("GroupNorm", ["x", "g", "b"], nhwc, ["y"], {"groups": 4, "epsilon": 1e-5, "activation": 0})
    assert got["y"].shape == ("batch", 8, 8, 32)


@pytest.mark.parametrize("bits", [4, 8])
def test_qmoe_keeps_the_input_shape(bits):
    rows, hidden, inter, experts = 4, 64, 32, 4
    v = {"x": randn(rows, hidden), "r": randn(rows, experts),
         "w1": rng.integers(0, 255, (experts, inter, hidden * bits // 8)).astype(np.uint8),
         "s1": randn(experts, inter),
         "w2": rng.integers(0, 255, (experts, hidden, inter * bits // 8)).astype(np.uint8),
         "s2": randn(experts, hidden)}
    run_and_compare("QMoE", ["x", "r", "w1", "s1", "", "w2", "s2"], v, ["y"],
                    {"k": 2, "expert_weight_bits": bits, "activation_type": "relu"}, consts=["w1", "s1", "w2", "s2"])


def test_packed_gqa_symbolic_dims():
    # hand-computed from the operator's definition, with no total length known
    got = infer_only("GroupQueryAttention", ["q", "", "", "pk", "pv", "sl", "tl"],
                     {"q": (F, ["batch", "seq", 64]), "pk": (F, ["batch", 2, "past", 8]),
                      "pv": (F, ["batch", 2, "past", 8]), "sl": (I32, ["batch"]), "tl": (I32, [])},
                     ["y", "pko", "pvo"], {"num_heads": 4, "kv_num_heads": 2})
    assert got["y"].shape == ("batch", "seq", 32)
    assert got["pko"].shape == ("batch", 2, dim_add("past", "seq"), 8)


# --- a whole decoder layer as onnxruntime-genai exports it ----------------------------------

HIDDEN, HEADS, KV_HEADS, HEAD, INTER, VOCAB, BLOCK = 64, 4, 2, 16, 128, 50, 32


def _decoder_layer():
    """Embedding, RMS norms, 4-bit projections, rotary embeddings and GQA with
    a KV cache, with the mask bookkeeping genai models do in the graph.
    Returns (nodes, initializers, graph inputs)."""
    nodes, inits = [], {}

    def n(op, ins, outs, domain="", **attrs):
        nodes.append(helper.make_node(op, ins, outs, domain=domain, **attrs))

    def linear(name, x, k, n_out):
        packed, scales = quantize_4bit(randn(k, n_out), BLOCK)
        inits[name + ".qweight"], inits[name + ".scales"] = packed, scales.reshape(-1)
        n("MatMulNBits", [x, name + ".qweight", name + ".scales"], [name + ".out"], MS,
          K=k, N=n_out, bits=4, block_size=BLOCK)
        return name + ".out"

    inits.update(embed=randn(VOCAB, HIDDEN), norm1=randn(HIDDEN), norm2=randn(HIDDEN), norm3=randn(HIDDEN),
                 cos=randn(64, HEAD // 2), sin=randn(64, HEAD // 2),
                 one=np.array(1, np.int64), axis1=np.array([1], np.int64), dim1=np.array([1], np.int64))
    # seqlens_k = tokens per row - 1 and total_sequence_length = the mask's width, as int32
    n("ReduceSum", ["attention_mask", "axis1"], ["mask_sum"], keepdims=0)
    n("Sub", ["mask_sum", "one"], ["seqlens_64"])
    n("Cast", ["seqlens_64"], ["seqlens_k"], to=I32)
    n("Shape", ["attention_mask"], ["mask_shape"])
    n("Gather", ["mask_shape", "one"], ["total_64"], axis=0)
    n("Cast", ["total_64"], ["total_sequence_length"], to=I32)

    n("Gather", ["embed", "input_ids"], ["embeddings"])
    n("SimplifiedLayerNormalization", ["embeddings", "norm1"], ["normed1"], axis=-1, epsilon=1e-5)
    q = linear("q_proj", "normed1", HIDDEN, HEADS * HEAD)
    k = linear("k_proj", "normed1", HIDDEN, KV_HEADS * HEAD)
    v = linear("v_proj", "normed1", HIDDEN, KV_HEADS * HEAD)
    n("RotaryEmbedding", [q, "position_ids", "cos", "sin"], ["q_rot"], MS, num_heads=HEADS)
    n("RotaryEmbedding", [k, "position_ids", "cos", "sin"], ["k_rot"], MS, num_heads=KV_HEADS)
    n("GroupQueryAttention", ["q_rot", "k_rot", v, "past_key_values.0.key", "past_key_values.0.value",
                              "seqlens_k", "total_sequence_length"],
      ["attn", "present.0.key", "present.0.value"], MS, num_heads=HEADS, kv_num_heads=KV_HEADS)
    o = linear("o_proj", "attn", HEADS * HEAD, HIDDEN)
    n("SkipSimplifiedLayerNormalization", [o, "embeddings", "norm2"], ["normed2", "", "", "residual2"], MS,
      epsilon=1e-5)
    gate = linear("gate_proj", "normed2", HIDDEN, INTER)
    up = linear("up_proj", "normed2", HIDDEN, INTER)
    n("Sigmoid", [gate], ["gate_sig"])
    n("Mul", [gate, "gate_sig"], ["gate_silu"])
    n("Mul", ["gate_silu", up], ["mlp_in"])
    down = linear("down_proj", "mlp_in", INTER, HIDDEN)
    n("SkipSimplifiedLayerNormalization", [down, "residual2", "norm3"], ["normed3", "", "", "residual3"], MS,
      epsilon=1e-5)
    linear("lm_head", "normed3", HIDDEN, VOCAB)
    cache = ["batch", KV_HEADS, "past_sequence_length", HEAD]
    inputs = [("input_ids", I64, ["batch", "sequence_length"]),
              ("attention_mask", I64, ["batch", "total_sequence_length"]),
              ("position_ids", I64, ["batch", "sequence_length"]),
              ("past_key_values.0.key", F, cache), ("past_key_values.0.value", F, cache)]
    return nodes, inits, inputs


def test_decoder_layer_gets_full_symbolic_shapes_that_match_a_run():
    nodes, inits, inputs = _decoder_layer()
    produced = [o for nd in nodes for o in nd.output if o]
    graph = helper.make_graph(
        nodes, "decoder", [helper.make_tensor_value_info(*i) for i in inputs],
        [helper.make_empty_tensor_value_info(o) for o in produced],   # every value, to compare with the run
        initializer=[numpy_helper.from_array(a, name) for name, a in inits.items()])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid(MS, 1)])
    model.ir_version = 10
    data = model.SerializeToString()
    got = infer(core.load_bytes(data))

    for name in produced:
        t = got[name]
        assert t.shape is not None and None not in t.shape, (name, t)
    total = dim_add("past_sequence_length", "sequence_length")
    assert got["lm_head.out"].shape == ("batch", "sequence_length", VOCAB)
    assert got["present.0.key"].shape == got["present.0.value"].shape == ("batch", KV_HEADS, total, HEAD)
    assert got["attn"].shape == ("batch", "sequence_length", HEADS * HEAD)
    assert got["total_sequence_length"].shape == () and got["seqlens_k"].shape == ("batch",)

    # one prompt continuing a cache (onnxruntime's CPU GQA takes several new tokens for batch 1 only)
    sizes = {"batch": 1, "sequence_length": 3, "past_sequence_length": 5, "total_sequence_length": 8}
    feeds = {"input_ids": rng.integers(0, VOCAB, (1, 3)), "attention_mask": np.ones((1, 8), np.int64),
             "position_ids": np.arange(5, 8, dtype=np.int64)[None],
             "past_key_values.0.key": randn(1, KV_HEADS, 5, HEAD),
             "past_key_values.0.value": randn(1, KV_HEADS, 5, HEAD)}
    so = ort.SessionOptions()
    so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    sess = ort.InferenceSession(data, so, providers=["CPUExecutionProvider"])
    for name, value in zip(produced, sess.run(produced, feeds)):
        t = got[name]
        assert [_value_of(d, sizes) for d in t.shape] == list(value.shape), (name, t.shape, value.shape)
        assert np.dtype(_NUMPY[t.elem_type]) == value.dtype, (name, t.elem_type, value.dtype)
