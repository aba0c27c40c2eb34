"""A GPT-2-like decoder with a KV cache, written the way torch exporters
write one, for timing prompt and per-token runs of the executor.

Inputs: input_ids (1, S), position_ids (1, S), past_key.i / past_value.i
(1, H, P, D) per layer (P = 0 for the prompt). Outputs: logits (1, S, V) and
present_key.i / present_value.i (1, H, P+S, D). Each layer: LayerNorm, one
QKV MatMul+Add, Split, Shape->Gather->Concat-built Reshape targets, past
Concat, scaled QK^T, the causal mask sliced out of a stored lower-triangular
table with Shape-derived bounds, Where, Softmax, attention output MatMul+Add,
residual, LayerNorm, MatMul+Add, the tanh Gelu of GPT-2 spelt out in nine
nodes, MatMul+Add, residual. Built with the onnx package (a development
tool here, never imported by the app); random weights, fixed seed.
"""
from __future__ import annotations

import numpy as np

from graph_builder import GraphBuilder


class _B(GraphBuilder):
    def __init__(self, rng):
        super().__init__(output_suffix="_output_")
        self.rng = rng

    def weight(self, name, shape, scale=0.02):
        return self.const(name, (self.rng.standard_normal(shape) * scale).astype(np.float32))


def _linear(b, x, scope, n_in, n_out):
    y = b.op("MatMul", [x, b.weight(f"{scope}.weight", [n_in, n_out])], scope)
    return b.op("Add", [y, b.weight(f"{scope}.bias", [n_out], 0.01)], scope)


def _layer_norm(b, x, scope, hidden):
    g = b.const(f"{scope}.weight", np.ones(hidden, np.float32))
    beta = b.const(f"{scope}.bias", np.zeros(hidden, np.float32))
    return b.op("LayerNormalization", [x, g, beta], scope, axis=-1, epsilon=1e-5)


def _dim(b, x, axis, scope):
    shape = b.op("Shape", [x], scope)
    d = b.op("Gather", [shape, b.const(f"{scope}.idx{b.count}", np.int64(axis))], scope, axis=0)
    return b.op("Unsqueeze", [d, b.const(f"{scope}.ax{b.count}", np.array([0], np.int64))], scope)


def _split_heads(b, x, scope, heads, head_dim):
    batch, seq = _dim(b, x, 0, scope), _dim(b, x, 1, scope)
    target = b.op("Concat", [batch, seq, b.const(f"{scope}.hd{b.count}", np.array([heads, head_dim], np.int64))],
                  scope, axis=0)
    return b.op("Transpose", [b.op("Reshape", [x, target], scope)], scope, perm=[0, 2, 1, 3])


def _gelu_tanh(b, x, scope):
    cube = b.op("Pow", [x, b.const(f"{scope}.three", np.float32(3.0))], scope)
    inner = b.op("Add", [x, b.op("Mul", [cube, b.const(f"{scope}.c", np.float32(0.044715))], scope)], scope)
    t = b.op("Tanh", [b.op("Mul", [inner, b.const(f"{scope}.s", np.float32(np.sqrt(2 / np.pi)))], scope)], scope)
    one_plus = b.op("Add", [t, b.const(f"{scope}.one", np.float32(1.0))], scope)
    half_x = b.op("Mul", [x, b.const(f"{scope}.half", np.float32(0.5))], scope)
    return b.op("Mul", [half_x, one_plus], scope)


def _attention(b, x, i, hidden, heads, max_pos, past_k, past_v):
    scope = f"/transformer/h.{i}/attn"
    d = hidden // heads
    qkv = _linear(b, x, f"{scope}/c_attn", hidden, 3 * hidden)
    q, k, v = b.op("Split", [qkv, b.const(f"{scope}.split", np.array([hidden] * 3, np.int64))], scope,
                   n_out=3, axis=2)
    q, k, v = (_split_heads(b, t, scope, heads, d) for t in (q, k, v))
    k_all = b.op("Concat", [past_k, k], scope, axis=2)
    v_all = b.op("Concat", [past_v, v], scope, axis=2)
    scores = b.op("MatMul", [q, b.op("Transpose", [k_all], scope, perm=[0, 1, 3, 2])], scope)
    scores = b.op("Div", [scores, b.const(f"{scope}.scale", np.float32(np.sqrt(d)))], scope)
    # causal mask rows [total - S, total), columns [0, total) of the stored table
    q_len = _dim(b, q, 2, scope)
    total = _dim(b, k_all, 2, scope)
    start = b.op("Sub", [total, q_len], scope)
    rows = b.op("Slice", [b.const(f"{scope}.bias", np.tril(np.ones((1, 1, max_pos, max_pos), bool))),
                          start, total, b.const(f"{scope}.ax2", np.array([2], np.int64))], scope)
    mask = b.op("Slice", [rows, b.const(f"{scope}.zero", np.array([0], np.int64)), total,
                          b.const(f"{scope}.ax3", np.array([3], np.int64))], scope)
    scores = b.op("Where", [mask, scores, b.const(f"{scope}.masked", np.float32(np.finfo(np.float32).min))], scope)
    probs = b.op("Softmax", [scores], scope, axis=-1)
    ctx = b.op("Transpose", [b.op("MatMul", [probs, v_all], scope)], scope, perm=[0, 2, 1, 3])
    target = b.op("Concat", [_dim(b, x, 0, scope), _dim(b, x, 1, scope),
                             b.const(f"{scope}.hidden", np.array([hidden], np.int64))], scope, axis=0)
    ctx = b.op("Reshape", [ctx, target], scope)
    return _linear(b, ctx, f"{scope}/c_proj", hidden, hidden), k_all, v_all


def build(layers: int = 6, hidden: int = 256, heads: int = 4, vocab: int = 8192, max_pos: int = 1024,
          seed: int = 0):
    """The decoder as an onnx ModelProto."""
    from onnx import TensorProto, helper
    b = _B(np.random.default_rng(seed))
    d = hidden // heads
    wte = b.weight("transformer.wte.weight", [vocab, hidden])
    x = b.op("Add", [b.op("Gather", [wte, "input_ids"], "/transformer/wte"),
                     b.op("Gather", [b.weight("transformer.wpe.weight", [max_pos, hidden], 0.01), "position_ids"],
                          "/transformer/wpe")], "/transformer")
    inputs = [helper.make_tensor_value_info("input_ids", TensorProto.INT64, [1, "seq"]),
              helper.make_tensor_value_info("position_ids", TensorProto.INT64, [1, "seq"])]
    outputs = []
    for i in range(layers):
        past_k, past_v = f"past_key.{i}", f"past_value.{i}"
        inputs += [helper.make_tensor_value_info(n, TensorProto.FLOAT, [1, heads, "past", d]) for n in (past_k, past_v)]
        h = _layer_norm(b, x, f"/transformer/h.{i}/ln_1", hidden)
        attn, k_all, v_all = _attention(b, h, i, hidden, heads, max_pos, past_k, past_v)
        x = b.op("Add", [x, attn], f"/transformer/h.{i}")
        h = _layer_norm(b, x, f"/transformer/h.{i}/ln_2", hidden)
        h = _linear(b, h, f"/transformer/h.{i}/mlp/c_fc", hidden, 4 * hidden)
        h = _gelu_tanh(b, h, f"/transformer/h.{i}/mlp/act")
        x = b.op("Add", [x, _linear(b, h, f"/transformer/h.{i}/mlp/c_proj", 4 * hidden, hidden)],
                 f"/transformer/h.{i}")
        for name, value in ((f"present_key.{i}", k_all), (f"present_value.{i}", v_all)):
            b.nodes.append(helper.make_node("Identity", [value], [name], name=f"/transformer/h.{i}/{name}"))
            outputs.append(helper.make_tensor_value_info(name, TensorProto.FLOAT, [1, heads, "total", d]))
    x = _layer_norm(b, x, "/transformer/ln_f", hidden)
    logits = b.op("MatMul", [x, b.op("Transpose", [wte], "/lm_head", perm=[1, 0])], "/lm_head")
    b.nodes.append(helper.make_node("Identity", [logits], ["logits"], name="/lm_head/out"))
    outputs.insert(0, helper.make_tensor_value_info("logits", TensorProto.FLOAT, [1, "seq", vocab]))
    graph = helper.make_graph(b.nodes, "synthetic_decoder", inputs, outputs, b.inits)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=8)


def prompt_feeds(layers: int = 6, heads: int = 4, head_dim: int = 64, length: int = 64, vocab: int = 8192,
                 seed: int = 1) -> dict:
    rng = np.random.default_rng(seed)
    feeds = {"input_ids": rng.integers(0, vocab, (1, length), dtype=np.int64),
             "position_ids": np.arange(length, dtype=np.int64)[None]}
    for i in range(layers):
        for kind in ("key", "value"):
            feeds[f"past_{kind}.{i}"] = np.zeros((1, heads, 0, head_dim), np.float32)
    return feeds


def next_feeds(outputs: dict, token: int, position: int, layers: int) -> dict:
    """Feeds for one more token given the previous run's outputs (by name)."""
    feeds = {"input_ids": np.array([[token]], np.int64), "position_ids": np.array([[position]], np.int64)}
    for i in range(layers):
        for kind in ("key", "value"):
            feeds[f"past_{kind}.{i}"] = outputs[f"present_{kind}.{i}"]
    return feeds
