"""Editing the model's own fields in the properties dock: IR version (warned
when below what the opsets need), opset imports, producer, domain,
model_version, doc_string, metadata as a key/value table, the graph's name
and doc_string, adding a graph input and output; then undo, redo, save,
reload and compare."""
from __future__ import annotations

from edit_helpers import open_conv_model, type_into


def _model_editor(window):
    window.properties.show_model()
    return window.properties.editor


def test_ir_needed_follows_the_opset_table():
    import onnx.helper
    from types import SimpleNamespace
    from onnxstudio.ui.panels.model_editor import ir_needed
    lowest = {}
    for row in onnx.helper.VERSION_TABLE:          # the onnx package as the oracle
        lowest[row[2]] = min(lowest.get(row[2], 99), row[1])
    for opset, ir in lowest.items():
        model = SimpleNamespace(opset_imports={"": opset}, functions={})
        assert ir_needed(model)[0] == max(ir, 3), opset


def test_model_fields_opsets_metadata_graph_undo_redo_save_reload(qtbot, window, tmp_path):
    import onnx
    path = open_conv_model(qtbot, window, tmp_path)
    m = window.model
    editor = _model_editor(window)
    assert editor.warning.text() == ""
    # lowering the IR version below what opset 17 needs is allowed, with a warning
    type_into(qtbot, editor.fields["ir_version"], "6")
    assert m.ir_version == 6
    assert "below 8" in window.properties.editor.warning.text()
    type_into(qtbot, window.properties.editor.fields["ir_version"], "9")
    assert window.properties.editor.warning.text() == ""
    # not a whole number: refused at the field
    type_into(qtbot, window.properties.editor.fields["model_version"], "two")
    assert m.model_version == 0 and "whole number" in window.properties.editor.message.text()
    type_into(qtbot, window.properties.editor.fields["model_version"], "2")
    type_into(qtbot, window.properties.editor.fields["producer_name"], "studio")
    type_into(qtbot, window.properties.editor.fields["producer_version"], "1.0")
    type_into(qtbot, window.properties.editor.fields["domain"], "org.example")
    type_into(qtbot, window.properties.editor.fields["doc_string"], "a small conv net")
    # opsets: change, add, remove
    type_into(qtbot, window.properties.editor.opset_edits[""], "18")
    assert m.opset_imports[""] == 18
    editor = window.properties.editor
    editor.new_domain.setText("com.microsoft")
    editor.new_version.setText("1")
    editor.add_opset()
    assert m.opset_imports["com.microsoft"] == 1
    editor = window.properties.editor
    editor.new_domain.setText("ai.onnx")
    editor.new_version.setText("5")
    assert not editor.add_opset() and "already imported" in editor.message.text()
    # metadata: add two, change a value in the table, rename a key, remove one
    for key, value in (("author", "me"), ("license", "MIT")):
        editor = window.properties.editor
        editor.new_key.setText(key)
        editor.new_value.setText(value)
        assert editor.add_metadata()
    editor = window.properties.editor
    editor.metadata.item(1, 1).setText("Apache-2.0")
    assert m.metadata_props == {"author": "me", "license": "Apache-2.0"}
    window.properties.editor.metadata.item(0, 0).setText("owner")
    assert list(m.metadata_props.items()) == [("owner", "me"), ("license", "Apache-2.0")]
    editor = window.properties.editor
    editor.metadata.selectRow(1)
    assert editor.remove_metadata()
    assert m.metadata_props == {"owner": "me"}
    # graph fields, a new input and a new output
    type_into(qtbot, window.properties.editor.graph_name, "edited")
    type_into(qtbot, window.properties.editor.graph_doc, "graph doc")
    editor = window.properties.editor
    editor.input_name.setText("mask")
    editor.input_dims.setText("1, -3")
    assert not editor.add_input() and "negative" in editor.message.text()
    editor.input_dims.setText("1, N")
    assert editor.add_input()
    editor = window.properties.editor
    editor.output_name.setText("c")
    assert editor.add_output()
    assert [v.name for v in m.graph.outputs] == ["y", "s", "c"]
    # undo / redo
    window.edit_actions.undo()
    assert [v.name for v in m.graph.outputs] == ["y", "s"]
    window.edit_actions.redo()
    window.edit_actions.undo()
    window.edit_actions.undo()
    assert [v.name for v in m.graph.inputs] == ["x"]
    window.edit_actions.redo()
    window.edit_actions.redo()
    assert window.edit_actions.files.save()
    saved = onnx.load(path)
    assert saved.ir_version == 9 and saved.model_version == 2
    assert (saved.producer_name, saved.producer_version, saved.domain) == ("studio", "1.0", "org.example")
    assert saved.doc_string == "a small conv net"
    assert {o.domain: o.version for o in saved.opset_import} == {"": 18, "com.microsoft": 1}
    assert [(p.key, p.value) for p in saved.metadata_props] == [("owner", "me")]
    assert (saved.graph.name, saved.graph.doc_string) == ("edited", "graph doc")
    assert [i.name for i in saved.graph.input] == ["x", "mask"]
    dims = saved.graph.input[1].type.tensor_type.shape.dim
    assert [d.dim_value or d.dim_param for d in dims] == [1, "N"]
    assert [o.name for o in saved.graph.output] == ["y", "s", "c"]
    # an opset import removed is gone from the file, and comes back on undo
    window.properties.show_model()
    window.properties.editor.opset_remove["com.microsoft"].click()
    assert "com.microsoft" not in m.opset_imports
    window.edit_actions.undo()
    assert m.opset_imports["com.microsoft"] == 1
