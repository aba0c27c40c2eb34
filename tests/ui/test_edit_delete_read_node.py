"""Del on a node whose output is still read: the status line names the node,
the value and its readers, and says what to do (Delete and Reconnect, or
select the readers too). Seen on a torch dynamo GPT-2: Del on an attention
MatMul said only 'cannot remove MatMul "node_MatMul_130": its outputs are
still used: ...', leaving the user to guess the way out. Selecting the
readers too deletes the chain in one step, graph outputs count as readers."""
from __future__ import annotations

import onnx
from onnx import TensorProto, helper

from PySide6.QtCore import Qt

from edit_helpers import open_editable


def _chain(path) -> str:
    nodes = [helper.make_node("Relu", ["x"], ["a"], name="first"),
             helper.make_node("Neg", ["a"], ["b"], name="middle"),
             helper.make_node("Abs", ["b"], ["y"], name="last")]
    g = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2])])
    onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)], ir_version=8), str(path))
    return str(path)


def _select(window, *names):
    scene = window.graph.scene
    scene.clearSelection()
    for name in names:
        node = next(n for n in window.model.graph.nodes if n.name == name)
        scene.item_for_node(node).setSelected(True)


def _names(window):
    return [n.name for n in window.model.graph.nodes]


def test_a_refused_delete_says_what_to_do(qtbot, window, tmp_path):
    open_editable(qtbot, window, _chain(tmp_path / "m.onnx"))
    window.graph.view.setFocus()
    _select(window, "middle")
    qtbot.keyClick(window.graph.view, Qt.Key_Delete)
    assert _names(window) == ["first", "middle", "last"]
    message = window.edit_actions.last_refusal
    assert 'Neg "middle"' in message and '"b"' in message and 'Abs "last"' in message
    assert "Shift+Del" in message and "select the readers too" in message
    assert window.statusBar().currentMessage() == message


def test_the_readers_selected_too_go_in_one_step(qtbot, window, tmp_path):
    path = tmp_path / "m.onnx"
    _chain(path)
    m = onnx.load(str(path))      # a side chain nobody reads: first -> side1 -> side2
    m.graph.node.extend([helper.make_node("Sigmoid", ["a"], ["s"], name="side1"),
                         helper.make_node("Exp", ["s"], ["t"], name="side2")])
    onnx.save(m, str(path))
    open_editable(qtbot, window, str(path))
    canvas = window.edit_actions.canvas
    _select(window, "first", "middle")
    assert not canvas.delete()
    assert 'Sigmoid "side1"' in window.edit_actions.last_refusal     # reads "a", not selected
    assert "Select the readers too" in window.edit_actions.last_refusal
    assert "Shift+Del" not in window.edit_actions.last_refusal      # a choice for one node only
    _select(window, "middle", "last")
    assert not canvas.delete()                                      # "y" is a graph output
    assert "the graph outputs" in window.edit_actions.last_refusal
    assert _names(window) == ["first", "middle", "last", "side1", "side2"]
    _select(window, "side1", "side2")
    assert canvas.delete()
    assert _names(window) == ["first", "middle", "last"]
    window.edit_actions.undo()
    assert _names(window) == ["first", "middle", "last", "side1", "side2"]


def test_deleted_nodes_leave_no_declaration_behind(qtbot, window, tmp_path):
    """A dynamo export declares every intermediate value: deleting nodes took
    the nodes and left their value_info entries, which the Problems dock then
    flagged (graph.value-info-unused) for an edit the user made."""
    path = tmp_path / "m.onnx"
    _chain(path)
    m = onnx.load(str(path))
    m.graph.node.extend([helper.make_node("Sigmoid", ["a"], ["s"], name="side1"),
                         helper.make_node("Exp", ["s"], ["t"], name="side2")])
    m.graph.value_info.extend([helper.make_tensor_value_info(n, TensorProto.FLOAT, [2]) for n in ("s", "t")])
    onnx.save(m, str(path))
    open_editable(qtbot, window, str(path))
    _select(window, "side1", "side2")
    assert window.edit_actions.canvas.delete()
    qtbot.waitUntil(lambda: window.qdoc.ready, timeout=60_000)
    assert [d.code for d in window.document.diagnostics if d.code.startswith("graph.value-info")] == []
    assert window.edit_actions.files.save()
    assert [v.name for v in onnx.load(str(path)).graph.value_info] == []
