"""onnxruntime's operators for large language models and diffusion exports
(domain com.microsoft): attention with its KV cache, rotary embeddings,
block-quantized weights, fused embeddings and norms.

Shapes follow what onnxruntime's CPU run produces; ops it only runs on GPU
follow the operator's definition. Where onnxruntime's own shape inference
gives up (a symbolic sequence length, a cache without a known total length),
we keep going with dim arithmetic: a growing KV cache has
`past_sequence_length + kv_sequence_length` positions. A model that shares
one fixed-size buffer between past and present declares its present shape;
the declared name then wins when types are merged.
"""
from __future__ import annotations

from ..ir.dtypes import DataType
from .context import rule, tensor
from .dims import axis_index, dim_add, dim_floordiv, dim_mul
from .ops_nn import matmul_shape

MS = "com.microsoft"


def _rank_is(shape, n):
    return shape is not None and len(shape) == n


def _scalar_input(ctx, i):
    """The single entry of a scalar (or 1-element) input as a dim, else None."""
    entries = ctx.sym(i)
    return entries[0] if entries is not None and len(entries) == 1 else None


def _grown_cache(past, seq_axis, new_positions):
    """A past cache's shape with `new_positions` appended along seq_axis."""
    out = list(past)
    out[seq_axis] = dim_add(past[seq_axis], new_positions)
    return tuple(out)


# --- attention with a (batch, kv_heads, seq, head_size) cache: GQA, SparseAttention

def _gqa_heads(ctx):
    """(batch, seq, output hidden size, head_size) of GroupQueryAttention and
    SparseAttention, None when query's rank is unknown. Without key and value,
    query packs Q, K and V: (num_heads + 2 * kv_num_heads) heads side by side."""
    q = ctx.shape(0)
    if not _rank_is(q, 3):
        return None
    num_heads, kv_heads = ctx.attr("num_heads", 0), ctx.attr("kv_num_heads", 0)
    batch, seq, width = q
    if not num_heads:
        return batch, seq, None, None
    if ctx.has_input(1):
        return batch, seq, width, dim_floordiv(width, num_heads)
    head = dim_floordiv(width, num_heads + 2 * kv_heads)
    return batch, seq, dim_mul(head, num_heads), head


@rule("GroupQueryAttention", domain=MS)
def group_query_attention(ctx):
    layout = _gqa_heads(ctx)
    batch, seq, width, head = layout or (None,) * 4
    # present takes the cache's element type: a quantized cache stays int8/uint8
    cache_elem = ctx.elem(3) if ctx.has_input(3) else ctx.elem(0)
    total = _scalar_input(ctx, 6)
    past = ctx.shape(3) if ctx.has_input(3) else None
    if _rank_is(past, 4):
        if ctx.attr("sliding_window_cache", 0):
            present = past          # a window cache keeps its capacity
        else:
            present = past[:2] + (_present_length(past[2], seq, total),) + past[3:]
    elif layout is not None:
        present = (batch, ctx.attr("kv_num_heads", 0) or None, total if total is not None else seq, head)
    else:
        present = None
    # scores span the total length, which a window cache's capacity does not tell
    qk_len = present[2] if present is not None and not ctx.attr("sliding_window_cache", 0) else None
    qk = (batch, ctx.attr("num_heads", 0) or None, seq, qk_len)
    return [tensor(ctx.elem(0), layout and (batch, seq, width)), tensor(cache_elem, present),
            tensor(cache_elem, present), tensor(ctx.elem(0), qk)]


def _present_length(past_len, seq, total):
    """onnxruntime sizes present as max(past buffer, total_sequence_length).
    Only a known total can say so; otherwise the cache grows by seq."""
    if isinstance(total, int) and isinstance(past_len, int):
        return max(total, past_len)
    if total is not None and past_len == 0:
        return total
    return dim_add(past_len, seq)


@rule("SparseAttention", domain=MS)
def sparse_attention(ctx):
    # past and present share one buffer of the maximum length
    layout = _gqa_heads(ctx)
    return [tensor(ctx.elem(0), layout and layout[:3]), ctx.type(3), ctx.type(4)]


# --- MultiHeadAttention and its decoding variant

def _mha_layout(ctx, packed_qkv_3d=False):
    """(batch, seq, kv_seq, q head_size, v head_size, v hidden size) of
    MultiHeadAttention's query/key/value, in any of the packings it accepts;
    None when query's rank is unknown."""
    q, k, v = ctx.shape(0), ctx.shape(1), ctx.shape(2)
    k = k if ctx.has_input(1) else None
    v = v if ctx.has_input(2) else None
    heads = ctx.attr("num_heads", 0) or None

    def per_head(width):
        return dim_floordiv(width, heads) if heads else None

    if _rank_is(q, 5):                      # (batch, seq, heads, 3, head_size)
        b, s, n, _, h = q
        return b, s, s, h, h, dim_mul(n, h)
    if not _rank_is(q, 3):
        return None
    b, s, width = q
    if _rank_is(v, 3):                      # (batch, kv_seq, v_hidden)
        return b, s, v[1], per_head(width), per_head(v[2]), v[2]
    if _rank_is(v, 4):                      # (batch, heads, kv_seq, head_size): cross attention
        return b, s, v[2], per_head(width), v[3], dim_mul(v[1], v[3])
    if _rank_is(k, 5):                      # packed K and V: (batch, kv_seq, heads, 2, head_size)
        return b, s, k[1], k[4], k[4], width
    if k is None and packed_qkv_3d:         # (batch, seq, 3 * hidden)
        hidden = dim_floordiv(width, 3)
        return b, s, s, per_head(hidden), per_head(hidden), hidden
    return b, s, None, per_head(width), per_head(width), width


def _mha_present(ctx, past_index, shared, layout, head, cache_input):
    """present_key or present_value: the past grown by kv_seq positions, the
    past itself when one buffer serves both, else built from the heads."""
    past = ctx.shape(past_index) if ctx.has_input(past_index) else None
    kv_seq = layout and layout[2]
    if _rank_is(past, 4):
        return past if shared else _grown_cache(past, 2, kv_seq)
    given = ctx.shape(cache_input) if ctx.has_input(cache_input) else None
    if _rank_is(given, 4):                  # key/value given per head are used as they are
        return given
    if layout is None:
        return None
    return (layout[0], ctx.attr("num_heads", 0) or None, kv_seq, head)


@rule("MultiHeadAttention", domain=MS)
def multi_head_attention(ctx):
    # a past_sequence_length input says past and present are one buffer of the maximum length
    return _mha_outputs(ctx, _mha_layout(ctx), 6, shared=ctx.has_input(8))


@rule("DecoderMaskedMultiHeadAttention", domain=MS)
def decoder_masked_mha(ctx):
    return _mha_outputs(ctx, _mha_layout(ctx, packed_qkv_3d=True), 5,
                        shared=bool(ctx.attr("past_present_share_buffer", 0)))


def _mha_outputs(ctx, layout, past_index, shared):
    elem = ctx.elem(0)
    b, s, _, qk_head, v_head, v_hidden = layout or (None,) * 6
    out = layout and (b, s, v_hidden)
    present_k = _mha_present(ctx, past_index, shared, layout, qk_head, 1)
    present_v = _mha_present(ctx, past_index + 1, shared, layout, v_head, 2)
    # scores span the total length, which a shared buffer's capacity does not tell
    total = present_k[2] if present_k is not None and not shared else None
    qk = (b, ctx.attr("num_heads", 0) or None, s, total)
    return [tensor(elem, out), tensor(elem, present_k), tensor(elem, present_v), tensor(elem, qk)]


# --- BERT/GPT-2 style attention with merged QKV weights and a stacked cache

def _attention(ctx, past_index, elem):
    x, w, bias = ctx.shape(0), ctx.shape(1), ctx.shape(2) if ctx.has_input(2) else None
    sizes = ctx.attr("qkv_hidden_sizes")
    if sizes and len(sizes) == 3:
        qk_hidden, v_hidden = sizes[0], sizes[2]
    else:
        merged = bias[0] if _rank_is(bias, 1) else (w[1] if _rank_is(w, 2) else None)
        qk_hidden = v_hidden = dim_floordiv(merged, 3)
    if not _rank_is(x, 3):
        return [tensor(elem, None), tensor(elem, None)]
    b, s, _ = x
    heads = ctx.attr("num_heads", 0) or None
    past = ctx.shape(past_index) if ctx.has_input(past_index) else None
    if _rank_is(past, 5):                   # (2, batch, heads, past_seq, head_size)
        present = past if ctx.attr("past_present_share_buffer", 0) else _grown_cache(past, 3, s)
    else:
        present = (2, b, heads, s, dim_floordiv(qk_hidden, heads) if heads else None)
    return [tensor(elem, (b, s, v_hidden)), tensor(elem, present)]


@rule("Attention", "DecoderMaskedSelfAttention", domain=MS)
def attention(ctx):
    return _attention(ctx, 4, ctx.elem(0))


@rule("PackedAttention", domain=MS)
def packed_attention(ctx):
    # padding removed: rows are tokens, (token_count, input_hidden) -> (token_count, v_hidden)
    x, bias = ctx.shape(0), ctx.shape(2)
    sizes = ctx.attr("qkv_hidden_sizes")
    if sizes and len(sizes) == 3:
        v_hidden = sizes[2]
    else:
        v_hidden = dim_floordiv(bias[0], 3) if _rank_is(bias, 1) else None
    return [tensor(ctx.elem(0), (x[0], v_hidden) if _rank_is(x, 2) else None)]


@rule("PackedMultiHeadAttention", domain=MS)
def packed_multi_head_attention(ctx):
    q, v = ctx.shape(0), ctx.shape(2) if ctx.has_input(2) else None
    if _rank_is(q, 4):                      # (token_count, heads, 3, head_size)
        return [tensor(ctx.elem(0), (q[0], dim_mul(q[1], q[3])))]
    if not _rank_is(q, 2):
        return [tensor(ctx.elem(0), None)]
    return [tensor(ctx.elem(0), (q[0], v[1] if _rank_is(v, 2) else q[1]))]


@rule("QAttention", domain=MS)
def q_attention(ctx):
    # dequantized: the output is the scales' float type
    return _attention(ctx, 8, ctx.elem(3))


# --- rotary embeddings, embeddings and norms

@rule("GemmaRotaryEmbedding", domain=MS)
def gemma_rotary_embedding(ctx):
    # the angles (batch, seq, dim) broadcast over the heads of q and of k
    return [ctx.type(1), ctx.type(3)]


@rule("EmbedLayerNormalization", domain=MS)
def embed_layer_norm(ctx):
    ids, words = ctx.shape(0), ctx.shape(2)
    hidden = words[1] if _rank_is(words, 2) else None
    if hidden is None and _rank_is(ctx.shape(5), 1):
        hidden = ctx.shape(5)[0]            # gamma has the hidden size too
    batch, seq = ids if _rank_is(ids, 2) else (None, None)
    out = tensor(ctx.elem(2), (batch, seq, hidden))
    # mask_index: per sequence, the count of tokens the mask keeps
    return [out, tensor(DataType.INT32, (batch,)), out]


@rule("RotaryEmbedding", "GroupNorm", "BiasAdd", domain=MS)
def keeps_first_input(ctx):
    return [ctx.type(0)]


@rule("SkipGroupNorm", domain=MS)
def skip_group_norm(ctx):
    # Y and the sum X + skip (+ bias) both have X's shape
    return [ctx.type(0), ctx.type(0)]


@rule("BiasSplitGelu", domain=MS)
def bias_split_gelu(ctx):
    # the last axis splits in halves: one half gates the other
    x = ctx.shape(0)
    return [tensor(ctx.elem(0), None if not x else x[:-1] + (dim_floordiv(x[-1], 2),))]


# --- mixtures of experts: each token's output has its input's shape

@rule("MoE", "QMoE", domain=MS)
def mixture_of_experts(ctx):
    return [ctx.type(0)]


# --- matrix products with quantized or fused operands

def _rows_times(ctx, n):
    """A's shape with its last axis replaced by the weight's output size n."""
    a = ctx.shape(0)
    return tensor(ctx.elem(0), None if not a else a[:-1] + (n,))


@rule("MatMulNBits", "MatMulBnb4", domain=MS)
def matmul_n_bits(ctx):
    # B is packed along K in blocks; its logical size is the attributes'
    return [_rows_times(ctx, ctx.attr("N"))]


@rule("GemmFastGelu", domain=MS)
def gemm_fast_gelu(ctx):
    return [tensor(ctx.elem(0), matmul_shape(ctx.shape(0), ctx.shape(1)))]


@rule("DynamicQuantizeMatMul", domain=MS)
def dynamic_quantize_matmul(ctx):
    return [tensor(ctx.elem(0), matmul_shape(ctx.shape(0), ctx.shape(1)))]


@rule("MatMulIntegerToFloat", domain=MS)
def matmul_integer_to_float(ctx):
    # integer operands; the product comes out in the scales' float type
    return [tensor(ctx.elem(2), matmul_shape(ctx.shape(0), ctx.shape(1)))]


_BYTE_PACKED = {DataType.UINT8}


@rule("GatherBlockQuantized", domain=MS)
def gather_block_quantized(ctx):
    data, indices = ctx.shape(0), ctx.shape(1)
    elem = ctx.elem(2)                      # dequantized into the scales' type
    if data is None or indices is None:
        return [tensor(elem, None)]
    data = list(data)
    q_axis = axis_index(ctx.attr("quantize_axis", 1), len(data))
    if ctx.elem(0) in _BYTE_PACKED and q_axis is not None:
        # uint8 storage packs 8 // bits values per byte along the quantized axis
        data[q_axis] = dim_mul(data[q_axis], 8 // ctx.attr("bits", 4))
    g_axis = axis_index(ctx.attr("gather_axis", 0), len(data))
    if g_axis is None:
        return [tensor(elem, None)]
    return [tensor(elem, tuple(data[:g_axis]) + tuple(indices) + tuple(data[g_axis + 1:]))]
