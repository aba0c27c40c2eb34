"""A transformer-like ONNX model of any size, with exporter-style scoped names
(`/encoder/layer.7/attention/self/query/MatMul`) and Shape→Gather→Concat
chains, for benchmarking the viewer on 10k-node graphs. Built with the onnx
package (a development tool here, never imported by the app)."""
from __future__ import annotations

import numpy as np

from graph_builder import GraphBuilder


class _Builder(GraphBuilder):
    def ints(self, name, values):
        return self.const(name, np.asarray(values, dtype=np.int64))

    def weight(self, name, shape, rng):
        return self.const(name, rng.standard_normal(shape).astype(np.float32))


def _layer_norm(b, x, scope, hidden, rng):
    mean = b.op("ReduceMean", [x], scope, axes=[-1])
    centred = b.op("Sub", [x, mean], scope)
    sq = b.op("Mul", [centred, centred], scope)
    var = b.op("ReduceMean", [sq], scope, axes=[-1])
    eps = b.op("Add", [var, b.weight(f"{scope}.eps", [1], rng)], scope)
    norm = b.op("Div", [centred, b.op("Sqrt", [eps], scope)], scope)
    scaled = b.op("Mul", [norm, b.weight(f"{scope}.weight", [hidden], rng)], scope)
    return b.op("Add", [scaled, b.weight(f"{scope}.bias", [hidden], rng)], scope)


def _linear(b, x, scope, n_in, n_out, rng):
    y = b.op("MatMul", [x, b.weight(f"{scope}.weight", [n_in, n_out], rng)], scope)
    return b.op("Add", [y, b.weight(f"{scope}.bias", [n_out], rng)], scope)


def _heads(b, x, scope, heads, hidden, rng):
    shape = b.op("Shape", [x], scope)
    batch = b.op("Gather", [shape, b.ints(f"{scope}.i0", 0)], scope, axis=0)
    dims = b.op("Unsqueeze", [batch, b.ints(f"{scope}.ax", [0])], scope)
    target = b.op("Concat", [dims, b.ints(f"{scope}.rest", [-1, heads, hidden // heads])], scope, axis=0)
    reshaped = b.op("Reshape", [x, target], scope)
    return b.op("Transpose", [reshaped], scope, perm=[0, 2, 1, 3])


def _layer(b, x, i, hidden, rng):
    base = f"/encoder/layer.{i}"
    att = f"{base}/attention/self"
    q = _heads(b, _linear(b, x, f"{att}/query", hidden, hidden, rng), f"{att}/query", 4, hidden, rng)
    k = _heads(b, _linear(b, x, f"{att}/key", hidden, hidden, rng), f"{att}/key", 4, hidden, rng)
    v = _heads(b, _linear(b, x, f"{att}/value", hidden, hidden, rng), f"{att}/value", 4, hidden, rng)
    kt = b.op("Transpose", [k], att, perm=[0, 1, 3, 2])
    scores = b.op("Div", [b.op("MatMul", [q, kt], att), b.weight(f"{att}.scale", [1], rng)], att)
    probs = b.op("Softmax", [scores], att, axis=-1)
    ctx = b.op("Transpose", [b.op("MatMul", [probs, v], att)], att, perm=[0, 2, 1, 3])
    ctx = b.op("Reshape", [ctx, b.ints(f"{att}.merge", [0, -1, hidden])], att)
    out = f"{base}/attention/output"
    attn = b.op("Add", [_linear(b, ctx, f"{out}/dense", hidden, hidden, rng), x], out)
    attn = _layer_norm(b, attn, f"{out}/LayerNorm", hidden, rng)
    ffn = f"{base}/intermediate"
    h = _linear(b, attn, f"{ffn}/dense", hidden, hidden * 2, rng)
    gelu = b.op("Mul", [h, b.op("Add", [b.op("Erf", [b.op("Div", [h, b.weight(f"{ffn}.sqrt2", [1], rng)], ffn)], ffn),
                                          b.weight(f"{ffn}.one", [1], rng)], ffn)], ffn)
    out2 = f"{base}/output"
    y = b.op("Add", [_linear(b, gelu, f"{out2}/dense", hidden * 2, hidden, rng), attn], out2)
    return _layer_norm(b, y, f"{out2}/LayerNorm", hidden, rng)


NODES_PER_LAYER = 61


def build(nodes: int = 10_000, hidden: int = 16, seed: int = 0):
    """An onnx.ModelProto with about `nodes` nodes (tiny weights: the point is
    the graph, not the bytes)."""
    from onnx import TensorProto, helper
    rng = np.random.default_rng(seed)
    b = _Builder()
    x = "input_embeddings"
    for i in range(max(1, round(nodes / NODES_PER_LAYER))):
        x = _layer(b, x, i, hidden, rng)
    graph = helper.make_graph(
        b.nodes, "synthetic_transformer",
        [helper.make_tensor_value_info("input_embeddings", TensorProto.FLOAT, ["batch", "seq", hidden])],
        [helper.make_tensor_value_info(x, TensorProto.FLOAT, ["batch", "seq", hidden])],
        initializer=b.inits)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)],
                             producer_name="onnxstudio-benchmark")


if __name__ == "__main__":
    import sys
    import onnx
    model = build(int(sys.argv[1]) if len(sys.argv) > 1 else 10_000)
    onnx.save(model, sys.argv[2] if len(sys.argv) > 2 else "synthetic.onnx")
    print(len(model.graph.node), "nodes")
