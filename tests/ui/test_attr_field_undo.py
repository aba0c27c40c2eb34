"""Ctrl+Z pressed while the cursor is still in a Properties attribute field
undoes the document (or first the field's uncommitted text), and the field
then shows the document's value: leaving the field commits nothing stale,
and Ctrl+Shift+Z brings the edit back. Floats show the shortest text that
reads back as the same float32."""
from __future__ import annotations

import numpy as np
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest

from viewer_helpers import open_model


def _layernorm_model(path) -> str:
    import onnx
    from onnx import TensorProto, helper, numpy_helper
    nodes = [helper.make_node("LayerNormalization", ["x", "g", "b"], ["y"], name="ln", axis=-1, epsilon=1e-12)]
    graph = helper.make_graph(nodes, "ln", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 4])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 4])],
                              [numpy_helper.from_array(np.ones(4, np.float32), "g"),
                               numpy_helper.from_array(np.zeros(4, np.float32), "b")])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    onnx.save(model, str(path))
    return str(path)


def _epsilon_field(qtbot, window):
    node = window.model.graph.nodes[0]
    window.properties.show_node(node)
    edit = window.properties.editor.attr_editors["epsilon"].edit
    window.activateWindow()
    edit.setFocus()
    qtbot.waitUntil(edit.hasFocus)
    return node, edit


def _epsilon(node) -> float:
    return float(np.float32(node.attributes["epsilon"].value))


def test_ctrl_z_in_a_field_undoes_the_document_and_never_commits_stale_text(qtbot, window, tmp_path):
    open_model(qtbot, window, _layernorm_model(tmp_path / "ln.onnx"))
    node, edit = _epsilon_field(qtbot, window)
    doc = window.document
    assert edit.text() == "1e-12"                     # not 9.99999996e-13
    edit.selectAll()
    QTest.keyClicks(edit, "1e-5")
    QTest.keyClick(edit, Qt.Key_Return)
    assert _epsilon(node) == np.float32(1e-5) and doc.undo_name == "Set attribute epsilon"
    steps = doc.index

    QTest.keyClick(edit, Qt.Key_Z, Qt.ControlModifier)   # the cursor is still in the field
    assert _epsilon(node) == np.float32(1e-12), "Ctrl+Z in the field must undo the document"
    assert edit.text() == "1e-12" and edit.hasFocus()
    assert doc.index == steps - 1 and doc.can_redo

    # Leaving the field (clicking the canvas) commits nothing.
    QTest.mouseClick(window.graph.view.viewport(), Qt.LeftButton)
    window.graph.view.setFocus()
    qtbot.waitUntil(lambda: not edit.hasFocus())
    assert doc.index == steps - 1 and doc.can_redo and _epsilon(node) == np.float32(1e-12)

    edit.setFocus()
    qtbot.waitUntil(edit.hasFocus)
    QTest.keyClick(edit, Qt.Key_Z, Qt.ControlModifier | Qt.ShiftModifier)
    assert _epsilon(node) == np.float32(1e-5) and edit.text() == "1e-05" and doc.index == steps


def test_ctrl_z_first_takes_back_uncommitted_text_then_the_document(qtbot, window, tmp_path):
    open_model(qtbot, window, _layernorm_model(tmp_path / "ln.onnx"))
    node, edit = _epsilon_field(qtbot, window)
    doc = window.document
    edit.selectAll()
    QTest.keyClicks(edit, "0.001")
    QTest.keyClick(edit, Qt.Key_Return)
    edit.selectAll()
    QTest.keyClicks(edit, "0.5")                      # typed, not committed
    QTest.keyClick(edit, Qt.Key_Z, Qt.ControlModifier)
    assert edit.text() == "0.001" and _epsilon(node) == np.float32(0.001) and doc.can_undo
    QTest.keyClick(edit, Qt.Key_Z, Qt.ControlModifier)
    assert edit.text() == "1e-12" and _epsilon(node) == np.float32(1e-12)
    window.graph.view.setFocus()
    qtbot.waitUntil(lambda: not edit.hasFocus())
    assert _epsilon(node) == np.float32(1e-12) and doc.can_redo


def test_each_attribute_field_shows_the_schema_default_beside_it(qtbot, window, tmp_path):
    open_model(qtbot, window, _layernorm_model(tmp_path / "ln.onnx"))
    window.properties.show_node(window.model.graph.nodes[0])
    editors = window.properties.editor.attr_editors
    assert editors["epsilon"].hint.text() == "default 1e-05"
    assert editors["axis"].hint.text() == "default -1"
    assert editors["epsilon"].hint.isVisibleTo(window.properties)


def test_refused_text_does_not_stay_in_the_field(qtbot, window, tmp_path):
    open_model(qtbot, window, _layernorm_model(tmp_path / "ln.onnx"))
    node, edit = _epsilon_field(qtbot, window)
    edit.selectAll()
    QTest.keyClicks(edit, "tiny")
    QTest.keyClick(edit, Qt.Key_Return)
    message = window.properties.editor.message.text()
    assert "expected a number, got 'tiny'" in message and "not changed" in message
    assert edit.text() == "1e-12" and _epsilon(node) == np.float32(1e-12)
