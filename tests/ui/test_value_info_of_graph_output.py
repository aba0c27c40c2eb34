"""A value_info entry the file gives for a graph input or output (allowed,
and damaged when it disagrees with the declaration) can be removed from the
value's form: the Problems dock names `graph/value_info "y"`, and the form of
y offered no way to remove that entry, only the output declaration (QA: a
value_info saying int8 for a float output could not be fixed in the app)."""
from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QPushButton

from edit_helpers import open_editable


def _write(path):
    import onnx
    from onnx import TensorProto, helper
    graph = helper.make_graph(
        [helper.make_node("Relu", ["x"], ["y"], name="relu")], "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2])],
        value_info=[helper.make_tensor_value_info("y", TensorProto.INT8, [2])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    onnx.save(model, str(path))
    return path


def _remove_button(editor):
    found = [b for b in editor.findChildren(QPushButton) if b.text() == "Remove value_info entry"]
    return found[0] if found else None


def test_the_value_info_entry_of_an_output_is_removed_from_its_form(qtbot, window, tmp_path):
    from onnxstudio import core
    path = open_editable(qtbot, window, _write(tmp_path / "m.onnx"))
    codes = [d.code for d in window.document.diagnostics]
    assert "graph.value-info-conflict" in codes
    y = window.model.graph.get_value("y")
    window.properties.show_value(y)
    button = _remove_button(window.properties.editor)
    assert button is not None
    qtbot.mouseClick(button, Qt.LeftButton)
    assert "graph.value-info-conflict" not in [d.code for d in window.document.diagnostics]
    assert y.is_graph_output and y.type.elem_type == 1          # the output's own declaration stays
    assert _remove_button(window.properties.editor) is None     # nothing left to remove
    assert window.edit_actions.files.save()
    saved = core.load(path)
    assert [v.name for v in saved.graph.value_info] == [] and saved.graph.outputs[0].name == "y"
    window.edit_actions.undo()
    assert _remove_button(window.properties.editor) is not None


def test_an_output_without_a_value_info_entry_offers_none(qtbot, window, tmp_path):
    from edit_models import write_conv_model
    open_editable(qtbot, window, write_conv_model(tmp_path / "m.onnx"))
    window.properties.show_value(window.model.graph.get_value("y"))
    assert _remove_button(window.properties.editor) is None
