"""Editing a node in the properties dock: typed attribute editors, the op
picker, adding/removing attributes, inputs; refusals at the field; then
undo, redo, save, reload."""
from __future__ import annotations

from edit_helpers import open_conv_model, type_into


def _node_editor(window, name):
    node = next(n for n in window.model.graph.nodes if n.name == name)
    window.properties.show_node(node)
    return window.properties.editor


def test_typed_attribute_editors_undo_redo_save_reload(qtbot, window, tmp_path):
    from onnxstudio import core
    path = open_conv_model(qtbot, window, tmp_path)
    editor = _node_editor(window, "conv1")
    conv = editor.node
    # ints: a list typed as text
    type_into(qtbot, editor.attr_editors["strides"].edit, "2, 2")
    assert conv.attributes["strides"].value == [2, 2]
    # a float where ints were meant is refused at the field; the model keeps its value
    editor = window.properties.editor
    type_into(qtbot, editor.attr_editors["pads"].edit, "1.5, 0, 0, 0")
    assert conv.attributes["pads"].value == [1, 1, 1, 1]
    assert "whole number" in window.properties.editor.message.text()
    # add a schema attribute with its default, then an int typed inline
    editor = window.properties.editor
    editor.add_combo.setEditText("group")
    editor.add_attribute()
    assert conv.attributes["group"].value == 1
    editor = window.properties.editor
    type_into(qtbot, editor.attr_editors["group"].edit, "1")
    # remove an attribute
    window.properties.editor._remove_attr("kernel_shape")
    assert "kernel_shape" not in conv.attributes
    # enum-like ints by name: Cast's `to`
    editor = _node_editor(window, "cast1")
    combo = editor.attr_editors["to"].combo
    assert combo.currentText() == "FLOAT (1)"
    combo.setCurrentIndex(combo.findText("DOUBLE (11)"))
    combo.activated.emit(combo.currentIndex())
    assert editor.node.attributes["to"].value == 11
    # node fields; a name already used is refused
    editor = window.properties.editor
    type_into(qtbot, editor.name_edit, "relu1")
    assert editor.node.name == "cast1" and "already used" in window.properties.editor.message.text()
    type_into(qtbot, window.properties.editor.doc_edit, "widened")
    assert editor.node.doc_string == "widened"
    steps = len(window.document.steps)
    window.edit_actions.undo()
    assert editor.node.doc_string == ""
    window.edit_actions.redo()
    assert editor.node.doc_string == "widened"
    assert len(window.document.steps) == steps
    assert window.edit_actions.files.save()
    again = core.load(path)
    conv2, cast2 = again.graph.nodes[0], again.graph.nodes[2]
    assert conv2.attributes["strides"].value == [2, 2] and "kernel_shape" not in conv2.attributes
    assert cast2.attributes["to"].value == 11 and cast2.doc_string == "widened"


def test_typing_in_one_field_is_one_step(qtbot, window, tmp_path):
    from PySide6.QtCore import Qt
    open_conv_model(qtbot, window, tmp_path)
    editor = _node_editor(window, "conv1")
    before = len(window.document.steps)
    # Typing continuously, in bursts, until one Return: one step.
    field = window.properties.editor.attr_editors["strides"].edit
    field.setFocus()
    field.selectAll()
    for burst in ("2", ", ", "1"):
        qtbot.keyClicks(field, burst)
    qtbot.keyClick(field, Qt.Key_Return)
    assert editor.node.attributes["strides"].value == [2, 1]
    assert len(window.document.steps) == before + 1
    # Separate commits to the same field are separate steps (a commit ends
    # what merges), and undo takes them back one at a time.
    for text in ("2, 2", "3, 3", "4, 4", "5, 5"):
        type_into(qtbot, window.properties.editor.attr_editors["strides"].edit, text)
    assert len(window.document.steps) == before + 5
    for expected in ([4, 4], [3, 3], [2, 2], [2, 1], [1, 1]):
        window.edit_actions.undo()
        assert editor.node.attributes["strides"].value == expected


def test_op_picker_lists_imported_ops_and_fills_required_attributes(qtbot, window, tmp_path):
    from onnxstudio.ui.panels.op_picker import OpPicker
    open_conv_model(qtbot, window, tmp_path)
    picker = OpPicker(window.model)
    qtbot.addWidget(picker)
    qtbot.keyClicks(picker.search, "softm")
    assert picker.list.currentItem().text() == "Softmax"
    labels = [picker.list.item(i).text() for i in range(picker.list.count())]
    assert all("softm" in t.lower() for t in labels)
    # Ops newer than the imported opset 17 are not offered.
    assert ("", "Attention") not in picker.ops and ("", "Relu") in picker.ops
    editor = _node_editor(window, "relu1")
    editor.choose_op(("", "LeakyRelu"))
    node = editor.node
    assert node.op_type == "LeakyRelu"
    # Changing a Conv to Relu drops attributes Relu does not have, in one step.
    editor = _node_editor(window, "conv1")
    editor.choose_op(("", "Relu"))
    assert editor.node.op_type == "Relu" and not editor.node.attributes
    window.edit_actions.undo()
    assert editor.node.op_type == "Conv" and editor.node.attributes["pads"].value == [1, 1, 1, 1]


def test_node_input_picked_and_cleared(qtbot, window, tmp_path):
    open_conv_model(qtbot, window, tmp_path)
    editor = _node_editor(window, "conv1")
    type_into(qtbot, editor.input_edits[2], "no_such_value")
    assert editor.node.inputs[2].name == "B"
    assert "no value named" in window.properties.editor.message.text()
    window.properties.editor._set_input(2, "")
    assert editor.node.inputs[2] is None
    window.edit_actions.undo()
    assert editor.node.inputs[2].name == "B"
