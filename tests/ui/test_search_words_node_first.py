"""Several words ("layer.100 softmax") match a node and the value it makes
alike; Enter must go to the node the words describe, not its output edge.
Ranked by length alone, the value came first where its name is shorter
than the node's name and op type together (the 10k-node synthetic model:
"…/Softmax_6128_out0" against "…/Softmax_6128 softmax")."""
from __future__ import annotations


def test_node_before_its_value(tmp_path):
    from onnx import TensorProto, helper
    from onnxstudio import core
    from onnxstudio.ui.search import build_index, search
    nodes = [helper.make_node("Softmax", ["x"], ["/enc/layer.2/Softmax_7_out0"], name="/enc/layer.2/Softmax_7")]
    g = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2])],
                          [helper.make_tensor_value_info("/enc/layer.2/Softmax_7_out0", TensorProto.FLOAT, [2])])
    m = core.load_bytes(helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)]).SerializeToString())
    hits = search(build_index(m), "layer.2 softmax")
    assert [h.kind for h in hits] == ["node", "value"]
