"""The node form shown in Properties is rebuilt when the node it shows gains
or loses an attribute through a button: the form in the slot was offered
again for the same node (its shape read from the node itself, already
changed), so a removed attribute kept its row and the next text typed there
was refused against its old type (QA: removing a float kernel_shape of a
damaged Conv left the "1.5" row, "expected a number, got '3, 3'")."""
from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QToolButton

from edit_helpers import open_conv_model


def _show(window, name):
    node = next(n for n in window.model.graph.nodes if n.name == name)
    window.properties.show_node(node)
    return node


def _remove_button(editor, name):
    return next(b for b in editor.findChildren(QToolButton) if b.toolTip().endswith(" " + name))


def test_removing_an_attribute_by_its_button_drops_its_row(qtbot, window, tmp_path):
    open_conv_model(qtbot, window, tmp_path)
    conv = _show(window, "conv1")
    window.graph.view.setFocus()            # the user's focus is not in the form
    qtbot.mouseClick(_remove_button(window.properties.editor, "kernel_shape"), Qt.LeftButton)
    assert "kernel_shape" not in conv.attributes
    editor = window.properties.editor
    assert editor.node is conv
    assert "kernel_shape" not in editor.attr_editors
    assert "kernel_shape" in [editor.add_combo.itemText(i) for i in range(editor.add_combo.count())]


def test_undoing_an_attribute_removal_brings_its_row_back(qtbot, window, tmp_path):
    open_conv_model(qtbot, window, tmp_path)
    conv = _show(window, "conv1")
    window.graph.view.setFocus()
    qtbot.mouseClick(_remove_button(window.properties.editor, "strides"), Qt.LeftButton)
    assert "strides" not in window.properties.editor.attr_editors
    window.edit_actions.undo()
    assert conv.attributes["strides"].value == [1, 1]
    assert window.properties.editor.attr_editors["strides"].edit.text() == "1, 1"
