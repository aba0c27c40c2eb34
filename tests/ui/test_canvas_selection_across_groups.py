"""Opening or closing a group lays the same graph out again; what was
selected stays selected (before, the selection and the Properties form
went blank at every double-click on a group). A node that a closed group
now hides selects the group's box."""
from __future__ import annotations

import onnx
from onnx import TensorProto, helper

from viewer_helpers import open_model, wait_idle


def _scoped_model(path) -> None:
    nodes = [helper.make_node("Relu", ["x"], ["a"], name="/enc/block/relu"),
             helper.make_node("Neg", ["a"], ["b"], name="/enc/block/neg"),
             helper.make_node("Abs", ["b"], ["c"], name="/enc/block/abs"),
             helper.make_node("Exp", ["c"], ["d"], name="/head/exp"),
             helper.make_node("Sigmoid", ["d"], ["y"], name="/head/sigmoid")]
    graph = helper.make_graph(nodes, "scoped", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2])])
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)]), path)


def _group_box(scene, word):
    return next(item for key, item in scene.node_items.items() if item.kind == "group" and word in key)


def test_the_selection_stays_when_a_group_opens_or_closes(qtbot, window, tmp_path):
    path = tmp_path / "scoped.onnx"
    _scoped_model(path)
    open_model(qtbot, window, path)
    panel, scene, graph = window.graph, window.graph.scene, window.model.graph
    panel.collapse_all()
    wait_idle(qtbot, window)
    exp = next(n for n in graph.nodes if n.op_type == "Exp")
    assert scene.item_for_node(exp).kind == "group"           # hidden in /head

    x_box = next(i for i in scene.items_for_value(graph.get_value("x")) if getattr(i, "kind", None) == "input")
    x_box.setSelected(True)
    panel.activate(_group_box(scene, "enc"))                  # double-click: /enc opens
    wait_idle(qtbot, window)
    assert scene.item_for_node(graph.nodes[0]).kind == "op"   # the group is open
    x_items = scene.items_for_value(graph.get_value("x"))
    assert any(getattr(i, "kind", None) == "input" and i.isSelected() for i in x_items)
    assert window.properties.current is not None

    scene.clearSelection()
    neg = next(n for n in graph.nodes if n.op_type == "Neg")
    scene.item_for_node(neg).setSelected(True)
    panel.activate(_group_box(scene, "head"))                 # another group opens: Neg stays selected
    wait_idle(qtbot, window)
    assert scene.item_for_node(neg).isSelected() and scene.item_for_node(exp).kind == "op"

    panel.collapse_all()                                      # Neg is hidden again: its group's box is selected
    wait_idle(qtbot, window)
    box = scene.item_for_node(neg)
    assert box.kind == "group" and box.isSelected()
