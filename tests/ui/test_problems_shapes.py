"""A shape contradiction made in the app (an axis past the input's rank, typed
into the properties dock) is listed in the Problems dock and badges the node;
undo takes both away."""
from __future__ import annotations

from edit_helpers import open_editable, type_into
from viewer_helpers import wait_idle


def _write_softmax_model(path) -> str:
    """x[1,2,3,4] -> Relu "relu1" -> Softmax "sm" (axis -1) -> y."""
    import onnx
    from onnx import TensorProto, helper
    nodes = [helper.make_node("Relu", ["x"], ["r"], name="relu1"),
             helper.make_node("Softmax", ["r"], ["y"], name="sm", axis=-1)]
    graph = helper.make_graph(nodes, "softmax",
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 2, 3, 4])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 2, 3, 4])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], producer_name="edit-tests")
    model.ir_version = 8
    onnx.save(model, str(path))
    return str(path)


def _codes(problems) -> list:
    tree = problems.tree
    return [tree.topLevelItem(i).text(2) for i in range(tree.topLevelItemCount())]


def test_softmax_axis_past_the_rank_is_listed_and_badged(qtbot, window, tmp_path):
    open_editable(qtbot, window, _write_softmax_model(tmp_path / "m.onnx"))
    problems = window.edit_actions.problems
    softmax = next(n for n in window.model.graph.nodes if n.name == "sm")
    assert "attr.axis-out-of-range" not in _codes(problems)
    window.properties.show_node(softmax)
    type_into(qtbot, window.properties.editor.attr_editors["axis"].edit, "7")
    assert softmax.attributes["axis"].value == 7
    qtbot.waitUntil(lambda: "attr.axis-out-of-range" in _codes(problems), timeout=60_000)
    row = problems.tree.topLevelItem(_codes(problems).index("attr.axis-out-of-range"))
    assert "rank 4" in "\t".join(row.text(c) for c in range(problems.tree.columnCount()))
    wait_idle(qtbot, window)
    qtbot.waitUntil(lambda: window.graph.scene.item_for_node(softmax).badge == 2, timeout=60_000)
    window.edit_actions.undo()
    qtbot.waitUntil(lambda: "attr.axis-out-of-range" not in _codes(problems), timeout=60_000)
    wait_idle(qtbot, window)
    qtbot.waitUntil(lambda: window.graph.scene.item_for_node(softmax).badge is None, timeout=60_000)
