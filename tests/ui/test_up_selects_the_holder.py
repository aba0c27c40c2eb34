"""Going up out of a body (Esc on the canvas, a breadcrumb) selects the node
holding the body just left, as a file manager selects the folder one came
out of; the enclosing graph came back with nothing selected, and the user
had to find the If or Loop again on a large graph."""
from __future__ import annotations

import onnx
from onnx import TensorProto, helper

from PySide6.QtCore import Qt

from viewer_helpers import open_model, wait_idle


def _write(path) -> str:
    """main: relu -> Loop "/loop" (its body holds If "/inner_if") -> neg."""
    f = TensorProto.FLOAT
    branch = [helper.make_graph([helper.make_node(op, ["acc_in"], [f"{op}_y"], name=f"{op}_node")], f"{op}_branch",
                                [], [helper.make_tensor_value_info(f"{op}_y", f, [2])]) for op in ("Relu", "Neg")]
    body = helper.make_graph(
        [helper.make_node("Identity", ["cond_in"], ["cond_out"], name="keep_going"),
         helper.make_node("If", ["cond_in"], ["acc_out"], name="/inner_if", then_branch=branch[0],
                          else_branch=branch[1])],
        "loop_body",
        [helper.make_tensor_value_info("i", TensorProto.INT64, []),
         helper.make_tensor_value_info("cond_in", TensorProto.BOOL, []),
         helper.make_tensor_value_info("acc_in", f, [2])],
        [helper.make_tensor_value_info("cond_out", TensorProto.BOOL, []),
         helper.make_tensor_value_info("acc_out", f, [2])])
    nodes = [helper.make_node("Relu", ["x"], ["a"], name="relu"),
             helper.make_node("Loop", ["trips", "cond", "a"], ["looped"], name="/loop", body=body),
             helper.make_node("Neg", ["looped"], ["y"], name="neg")]
    graph = helper.make_graph(nodes, "main", [helper.make_tensor_value_info("x", f, [2]),
                                              helper.make_tensor_value_info("trips", TensorProto.INT64, []),
                                              helper.make_tensor_value_info("cond", TensorProto.BOOL, [])],
                              [helper.make_tensor_value_info("y", f, [2])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    onnx.checker.check_model(model)
    onnx.save(model, str(path))
    return str(path)


def _node(graph, name):
    return next(n for n in graph.nodes if n.name == name)


def _selected_nodes(panel):
    return [item.ref.node for item in panel.scene.selectedItems() if getattr(item.ref, "node", None) is not None]


def test_esc_and_a_breadcrumb_select_the_node_whose_body_was_left(qtbot, window, tmp_path):
    open_model(qtbot, window, _write(tmp_path / "nested.onnx"))
    panel, main = window.graph, window.model.graph
    loop = _node(main, "/loop")
    body = loop.attributes["body"].value
    inner_if = _node(body, "/inner_if")
    panel.enter_graph(body)
    wait_idle(qtbot, window)
    panel.enter_graph(inner_if.attributes["then_branch"].value)
    wait_idle(qtbot, window)
    assert panel.scene.selectedItems() == []
    window.activateWindow()
    panel.view.setFocus()
    qtbot.keyClick(panel.view, Qt.Key_Escape)
    wait_idle(qtbot, window)
    assert panel.level.graph is body and _selected_nodes(panel) == [inner_if]
    qtbot.waitUntil(lambda: getattr(window.properties.current, "node", window.properties.current) is inner_if,
                    timeout=60_000)
    # Two levels up at once (the breadcrumb of the main graph), from the If's branch.
    panel.enter_graph(inner_if.attributes["else_branch"].value)
    wait_idle(qtbot, window)
    panel.go_to_level(0)
    wait_idle(qtbot, window)
    assert panel.level.graph is main and _selected_nodes(panel) == [loop]


def _write_with_function(path) -> str:
    """main: x -> Swish "/act1" -> Swish "/act2" -> y, Swish a model-local function."""
    f = TensorProto.FLOAT
    swish = helper.make_function("local", "Swish", ["X"], ["Y"],
                                 [helper.make_node("Sigmoid", ["X"], ["S"], name="sig"),
                                  helper.make_node("Mul", ["X", "S"], ["Y"], name="mul")],
                                 [helper.make_opsetid("", 17)])
    nodes = [helper.make_node("Swish", ["x"], ["a"], name="/act1", domain="local"),
             helper.make_node("Swish", ["a"], ["y"], name="/act2", domain="local")]
    graph = helper.make_graph(nodes, "main", [helper.make_tensor_value_info("x", f, [2])],
                              [helper.make_tensor_value_info("y", f, [2])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid("local", 1)],
                              functions=[swish])
    onnx.checker.check_model(model)
    onnx.save(model, str(path))
    return str(path)


def test_esc_out_of_a_function_selects_the_call_it_was_entered_from(qtbot, window, tmp_path):
    open_model(qtbot, window, _write_with_function(tmp_path / "fn.onnx"))
    panel, main = window.graph, window.model.graph
    second = _node(main, "/act2")
    panel.scene.item_for_node(second).setSelected(True)
    panel.enter_graph(next(iter(window.model.functions.values())).graph)
    wait_idle(qtbot, window)
    assert panel.level.graph is not main
    window.activateWindow()
    panel.view.setFocus()
    qtbot.keyClick(panel.view, Qt.Key_Escape)
    wait_idle(qtbot, window)
    assert panel.level.graph is main and _selected_nodes(panel) == [second]
