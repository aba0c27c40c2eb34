"""Search finds a dynamo export's nodes by their module: torch's dynamo
exporter names nodes "node_Softmax_226" and records the module path in the
node's metadata (where the canvas groups them from). Before, a search for
"h.1 attn softmax" or "transformer.h.0.ln_1" found no node of such a model,
where the legacy export's "/m/transformer/h.1/attn/Softmax" was found."""
from __future__ import annotations

import onnx
from onnx import TensorProto, helper

from onnxstudio.core import load
from onnxstudio.ui.search import build_index, search


def _dynamo_like(path) -> None:
    def node(op, inputs, output, name, modules):
        made = helper.make_node(op, inputs, [output], name=name)
        entry = made.metadata_props.add()
        entry.key, entry.value = "pkg.torch.onnx.name_scopes", repr(modules)
        return made
    nodes = [node("LayerNormalization", ["x", "g", "b"], "n0", "node_layer_norm",
                  ["", "m", "m.transformer", "m.transformer.h.0", "m.transformer.h.0.ln_1", "layer_norm"]),
             node("Softmax", ["n0"], "s0", "node_Softmax_12",
                  ["", "m", "m.transformer", "m.transformer.h.0", "m.transformer.h.0.attn", "softmax"]),
             node("Softmax", ["s0"], "y", "node_Softmax_40",
                  ["", "m", "m.transformer", "m.transformer.h.1", "m.transformer.h.1.attn", "softmax"]),
             helper.make_node("Relu", ["y"], ["z"], name="/legacy/scope/Relu")]
    init = [helper.make_tensor(n, TensorProto.FLOAT, [4], [1.0] * 4) for n in ("g", "b")]
    graph = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 4])],
                              [helper.make_tensor_value_info("z", TensorProto.FLOAT, [2, 4])], initializer=init)
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)], ir_version=10), path)


def _names(hits) -> list[str]:
    return [hit.obj.name for hit in hits if hit.kind == "node"]


def test_nodes_are_found_by_their_module_path(tmp_path):
    path = tmp_path / "dynamo_like.onnx"
    _dynamo_like(path)
    index = build_index(load(path))
    assert _names(search(index, "h.1 attn softmax")) == ["node_Softmax_40"]
    assert _names(search(index, "transformer.h.0.ln_1")) == ["node_layer_norm"]      # torch's dotted name
    assert _names(search(index, "h.0/attn")) == ["node_Softmax_12"]
    hit = search(index, "h.0/attn")[0]
    assert hit.label == "m/transformer/h.0/attn/node_Softmax_12  (Softmax)"
    assert sorted(_names(search(index, "attn"))) == ["node_Softmax_12", "node_Softmax_40"]
    # A node whose name holds its scope is found by that name, once.
    assert _names(search(index, "legacy/scope")) == ["/legacy/scope/Relu"]
