"""After Del or Delete and Reconnect (Shift+Del) the user goes on from where
they were: the node that now reads what the deleted node read is selected
(or, with none, its producer; or the graph input it read), and the
Properties panel shows it. Undo brings the deleted node back selected.
Before, both left nothing selected."""
from __future__ import annotations

import onnx
from onnx import TensorProto, helper

from PySide6.QtCore import Qt

from edit_helpers import open_editable
from viewer_helpers import wait_idle


def _write(path, nodes, outputs=("y",)) -> str:
    g = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2])],
                          [helper.make_tensor_value_info(o, TensorProto.FLOAT, [2]) for o in outputs])
    onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)], ir_version=8), str(path))
    return str(path)


def _node(window, name):
    return next(n for n in window.model.graph.nodes if n.name == name)


def _press_on(qtbot, window, name, key, modifier=Qt.NoModifier):
    scene = window.graph.scene
    scene.clearSelection()
    scene.item_for_node(_node(window, name)).setSelected(True)
    window.activateWindow()
    window.graph.view.setFocus()
    qtbot.keyClick(window.graph.view, key, modifier)


def _shown_in_properties(window):
    shown = window.properties.current        # a canvas item's ViewNode, or an IR object
    shown = getattr(shown, "node", shown)
    return getattr(shown, "name", None)


def _selected(qtbot, window):
    wait_idle(qtbot, window)
    refs = window.graph.selection.refs()
    return [getattr(r, "name", r) for r in refs]


def test_delete_and_reconnect_selects_the_reader_and_undo_the_node(qtbot, window, tmp_path):
    # x -> first -> a -> middle -> b -> last -> y; "a" is also read by a side node.
    nodes = [helper.make_node("Relu", ["x"], ["a"], name="first"),
             helper.make_node("Neg", ["a"], ["b"], name="middle"),
             helper.make_node("Abs", ["b"], ["y"], name="last"),
             helper.make_node("Sigmoid", ["a"], ["s"], name="side")]
    open_editable(qtbot, window, _write(tmp_path / "m.onnx", nodes, ("y", "s")))
    _press_on(qtbot, window, "middle", Qt.Key_Delete, Qt.ShiftModifier)
    assert [n.name for n in window.model.graph.nodes] == ["first", "last", "side"]
    # "last" now reads "a", which "middle" read (before "side" in graph order: the reconnected reader wins).
    assert _selected(qtbot, window) == ["last"]
    qtbot.waitUntil(lambda: _shown_in_properties(window) == "last", timeout=60_000)
    window.edit_actions.undo_action.trigger()
    assert _selected(qtbot, window) == ["middle"]
    qtbot.waitUntil(lambda: _shown_in_properties(window) == "middle", timeout=60_000)


def test_delete_selects_the_producer_when_nothing_else_reads_its_input(qtbot, window, tmp_path):
    # x -> first -> a (graph output); a -> dead (read by nothing).
    nodes = [helper.make_node("Relu", ["x"], ["a"], name="first"),
             helper.make_node("Neg", ["a"], ["d"], name="dead")]
    open_editable(qtbot, window, _write(tmp_path / "m.onnx", nodes, ("a",)))
    _press_on(qtbot, window, "dead", Qt.Key_Delete)
    assert [n.name for n in window.model.graph.nodes] == ["first"]
    assert _selected(qtbot, window) == ["first"]
    window.edit_actions.undo_action.trigger()
    assert _selected(qtbot, window) == ["dead"]


def test_delete_of_the_first_node_selects_the_graph_input(qtbot, window, tmp_path):
    nodes = [helper.make_node("Relu", ["x"], ["y"], name="only"),
             helper.make_node("Neg", ["x"], ["d"], name="dead")]
    open_editable(qtbot, window, _write(tmp_path / "m.onnx", nodes))
    _press_on(qtbot, window, "dead", Qt.Key_Delete)
    assert _selected(qtbot, window) == ["only"]           # reads "x", as "dead" did
    _press_on(qtbot, window, "only", Qt.Key_Delete, Qt.ShiftModifier)
    assert len(window.model.graph.nodes) == 0
    assert set(_selected(qtbot, window)) == {"x"}         # the graph input it read (now the output too)


def test_undo_of_a_delete_of_several_nodes_selects_them_all(qtbot, window, tmp_path):
    nodes = [helper.make_node("Relu", ["x"], ["y"], name="first"),
             helper.make_node("Sigmoid", ["y"], ["s"], name="side1"),
             helper.make_node("Exp", ["s"], ["t"], name="side2")]
    open_editable(qtbot, window, _write(tmp_path / "m.onnx", nodes))
    scene = window.graph.scene
    for name in ("side1", "side2"):
        scene.item_for_node(_node(window, name)).setSelected(True)
    assert window.edit_actions.canvas.delete()
    assert _selected(qtbot, window) == ["first"]
    window.edit_actions.undo_action.trigger()
    assert sorted(_selected(qtbot, window)) == ["side1", "side2"]
