"""A search hit inside an If says which branch holds it: torch's exporter
names both branches' graphs "sub_graph", and the list said
"If If_1941 › sub_graph" for the then- and the else-branch alike; it names
the attribute (then_branch / else_branch) as the breadcrumbs do."""
from __future__ import annotations


def _write(path):
    import onnx
    from onnx import TensorProto, helper

    def branch(value):
        return helper.make_graph(
            [helper.make_node("Constant", [], [f"c{value}"], name=f"pick_{value}",
                              value=helper.make_tensor("v", TensorProto.FLOAT, [1], [float(value)]))],
            "sub_graph", [], [helper.make_tensor_value_info(f"c{value}", TensorProto.FLOAT, [1])])
    graph = helper.make_graph(
        [helper.make_node("If", ["cond"], ["y"], name="If_1", then_branch=branch(1), else_branch=branch(2))],
        "g", [helper.make_tensor_value_info("cond", TensorProto.BOOL, [])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1])])
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), str(path))
    return path


def test_hits_in_two_branches_say_which(tmp_path):
    from onnxstudio import core
    from onnxstudio.ui.search import build_index, search
    index = build_index(core.load(_write(tmp_path / "if.onnx")))
    [then_hit] = [h for h in search(index, "pick_1") if h.kind == "node"]
    [else_hit] = [h for h in search(index, "pick_2") if h.kind == "node"]
    assert "then_branch" in then_hit.where and "If_1" in then_hit.where
    assert "else_branch" in else_hit.where
