"""Editing a value in the properties dock: element type by name, dims (ints,
symbolic names, unknown; "-3" and "1.5" refused), rename (a used name
refused), graph inputs/outputs reordered, removed and added (also from the
canvas context menu), value_info declared; then undo, redo, save, reload."""
from __future__ import annotations


from PySide6.QtWidgets import QMenu

from edit_helpers import open_conv_model, type_into


def _value_editor(window, name):
    window.properties.show_value(window.model.graph.get_value(name))
    return window.properties.editor


def _pick(combo, text):
    combo.setCurrentIndex(combo.findText(text))
    combo.activated.emit(combo.currentIndex())


def test_parse_dims_refuses_what_is_not_a_dim():
    import pytest
    from onnxstudio.ui.panels.value_editor import parse_dims
    assert parse_dims("1, 3, batch, ?") == [1, 3, "batch", None]
    assert parse_dims("") == []
    for bad, words in (("-3", "negative"), ("1.5", "whole number"), ("'3'", "no quotes"),
                       ("1,,2", "empty")):
        with pytest.raises(ValueError, match=words):
            parse_dims(bad)


def test_value_type_name_and_graph_lists_undo_redo_save_reload(qtbot, window, tmp_path):
    import onnx
    path = open_conv_model(qtbot, window, tmp_path)
    editor = _value_editor(window, "x")
    _pick(editor.type_combo, "float16")
    x = window.model.graph.get_value("x")
    assert x.type.elem_type == 10
    editor = window.properties.editor
    type_into(qtbot, editor.dims_edit, "N, 3, 8, ?")
    assert list(x.type.shape) == ["N", 3, 8, None]
    # a negative size and a fraction are refused at the field, the type stays
    for bad in ("N, -3, 8, 8", "1.5, 3, 8, 8"):
        editor = window.properties.editor
        type_into(qtbot, editor.dims_edit, bad)
        assert list(x.type.shape) == ["N", 3, 8, None]
        assert "not changed" in window.properties.editor.message.text()
    # a name already used is refused; a fresh one renames everywhere
    editor = window.properties.editor
    type_into(qtbot, editor.name_edit, "W")
    assert x.name == "x" and "already used" in window.properties.editor.message.text()
    type_into(qtbot, window.properties.editor.name_edit, "image")
    assert x.name == "image" and window.model.graph.nodes[0].inputs[0] is x
    # make "r" a graph output from the canvas context menu, "c" from the panel
    menu = QMenu()
    r = window.model.graph.get_value("r")
    edge = next(e for e in window.graph.scene.edge_items.values() if e.ref.value is r)    # r's edge on the canvas
    window.properties.extend_canvas_menu(edge, menu)
    action = next(a for a in menu.actions() if "r a Graph Output" in a.text())
    action.trigger()
    assert [v.name for v in window.model.graph.outputs] == ["y", "s", "r"]
    _value_editor(window, "c").output_button.click()
    assert [v.name for v in window.model.graph.outputs] == ["y", "s", "r", "c"]
    # reorder and remove outputs
    _value_editor(window, "r").buttons["output_up"].click()
    assert [v.name for v in window.model.graph.outputs] == ["y", "r", "s", "c"]
    assert not _value_editor(window, "y").buttons["output_up"].isEnabled()
    window.properties.editor.buttons["output_remove"].click()
    assert [v.name for v in window.model.graph.outputs] == ["r", "s", "c"]
    steps = len(window.document.steps)
    window.edit_actions.undo()
    assert [v.name for v in window.model.graph.outputs] == ["y", "r", "s", "c"]
    window.edit_actions.redo()
    assert [v.name for v in window.model.graph.outputs] == ["r", "s", "c"]
    assert len(window.document.steps) == steps
    assert window.edit_actions.files.save()
    saved = onnx.load(path)
    assert [i.name for i in saved.graph.input] == ["image"]
    t = saved.graph.input[0].type.tensor_type
    assert t.elem_type == onnx.TensorProto.FLOAT16
    dims = [d.dim_param or (d.dim_value if d.HasField("dim_value") else None) for d in t.shape.dim]
    assert dims == ["N", 3, 8, None]
    assert [o.name for o in saved.graph.output] == ["r", "s", "c"]
    assert saved.graph.node[0].input[0] == "image"


def test_declare_value_info_and_remove_it(qtbot, window, tmp_path):
    import onnx
    path = open_conv_model(qtbot, window, tmp_path)
    editor = _value_editor(window, "c")
    assert editor.type_combo is None
    editor.declare()
    c = window.model.graph.get_value("c")
    assert any(v is c for v in window.model.graph.value_info)
    assert c.type.elem_type == 1 and list(c.type.shape) == [1, 4, 8, 8]
    editor = window.properties.editor
    type_into(qtbot, editor.dims_edit, "1, 4, H, W")
    assert list(c.type.shape) == [1, 4, "H", "W"]
    window.edit_actions.undo()
    assert list(c.type.shape) == [1, 4, 8, 8]
    window.edit_actions.redo()
    assert window.edit_actions.files.save()
    saved = onnx.load(path)
    vi = {v.name: v for v in saved.graph.value_info}
    assert [d.dim_param or d.dim_value for d in vi["c"].type.tensor_type.shape.dim] == [1, 4, "H", "W"]


def test_graph_inputs_added_reordered_removed_and_rank_unknown(qtbot, window, tmp_path):
    import onnx
    path = open_conv_model(qtbot, window, tmp_path)
    g = window.model.graph
    window.properties.show_model()
    editor = window.properties.editor
    editor.input_name.setText("mask")
    editor.input_dims.setText("1, seq")
    assert editor.add_input()
    assert [v.name for v in g.inputs] == ["x", "mask"]
    editor = _value_editor(window, "mask")
    assert not editor.buttons["input_down"].isEnabled()
    editor.buttons["input_up"].click()
    assert [v.name for v in g.inputs] == ["mask", "x"]
    editor = window.properties.editor
    editor.unknown_rank.setChecked(True)
    assert g.get_value("mask").type.shape is None
    _pick(window.properties.editor.type_combo, "bool")
    assert g.get_value("mask").type.elem_type == 9
    # "x" is read by the Conv: removing it is refused and says so
    _value_editor(window, "x").buttons["input_remove"].click()
    assert [v.name for v in g.inputs] == ["mask", "x"]
    assert window.edit_actions.last_refusal
    _value_editor(window, "mask").buttons["input_remove"].click()
    assert [v.name for v in g.inputs] == ["x"]
    window.edit_actions.undo()
    assert [v.name for v in g.inputs] == ["mask", "x"] and g.get_value("mask").type.shape is None
    assert window.edit_actions.files.save()
    saved = onnx.load(path)
    assert [i.name for i in saved.graph.input] == ["mask", "x"]
    assert not saved.graph.input[0].type.tensor_type.HasField("shape")
    assert saved.graph.input[0].type.tensor_type.elem_type == onnx.TensorProto.BOOL


def test_the_app_reads_dims_with_the_grammar_of_the_cli_and_core():
    import pytest
    from onnxstudio.core import dims_text
    from onnxstudio.ui.panels.value_editor import REFUSALS, parse_dims
    # The same refusals as core's, word for word (the zh_CN catalogue translates these texts).
    assert {k: dims_text.TEMPLATES[k] for k in REFUSALS} == REFUSALS
    assert parse_dims("1, p2o.DynamicDimension.0, input:0, ?") == [1, "p2o.DynamicDimension.0", "input:0", None]
    for bad in ("1,3,99999999999999999999999,4", "1,3,2.5,4", "2x", "a b", "1,-3"):
        with pytest.raises(dims_text.DimsTextError) as core_refusal:
            dims_text.parse_dims(bad)
        with pytest.raises(ValueError) as app_refusal:
            parse_dims(bad)
        assert str(app_refusal.value) == str(core_refusal.value)


def test_a_size_beyond_int64_is_refused_at_the_field(qtbot, window, tmp_path):
    import onnx
    path = open_conv_model(qtbot, window, tmp_path)
    x = window.model.graph.get_value("x")
    before = list(x.type.shape)
    for bad, words in (("1, 3, 99999999999999999999999, 8", "dim 2 is 99999999999999999999999: a size must fit "
                                                             "in int64"),
                       ("1, 3, 2x, 8", "dim 2: '2x' is neither a size, a name nor ?")):
        type_into(qtbot, _value_editor(window, "x").dims_edit, bad)
        message = window.properties.editor.message.text()
        assert words in message and "not changed" in message, message
        assert list(x.type.shape) == before
    # the largest int64 is a size like any other, and saved as one
    type_into(qtbot, _value_editor(window, "x").dims_edit, "9223372036854775807, 3, 8, 8")
    assert list(x.type.shape) == [2 ** 63 - 1, 3, 8, 8]
    assert window.edit_actions.files.save()
    assert onnx.load(path).graph.input[0].type.tensor_type.shape.dim[0].dim_value == 2 ** 63 - 1


def test_the_type_changes_without_retyping_dims_the_grammar_would_refuse(qtbot, window, tmp_path):
    # An exporter's dim name with spaces shows in the field; changing the
    # element type or another dim keeps it instead of refusing it.
    open_conv_model(qtbot, window, tmp_path)
    from onnxstudio.core.edits import SetValueType
    window.document.apply(SetValueType("x", None, ["seq + 1", 3, 8, 8]))
    editor = _value_editor(window, "x")
    _pick(editor.type_combo, "float16")
    x = window.model.graph.get_value("x")
    assert x.type.elem_type == 10 and list(x.type.shape) == ["seq + 1", 3, 8, 8]
    # ... and editing another dim keeps it too
    type_into(qtbot, _value_editor(window, "x").dims_edit, "seq + 1, 3, 16, 8")
    assert list(x.type.shape) == ["seq + 1", 3, 16, 8]


def test_a_graph_input_changes_rank_only_when_the_user_says_so(qtbot, window, tmp_path):
    open_conv_model(qtbot, window, tmp_path)
    x = window.model.graph.get_value("x")
    before = list(x.type.shape)
    prompter = window.edit_actions.prompter
    type_into(qtbot, _value_editor(window, "x").dims_edit, "1, 3, 64")
    assert list(x.type.shape) == before
    title, text = prompter.asked[-1]
    assert title == "Change rank" and "Input x has rank 4" in text and "rank 3" in text
    assert "rank 4 kept" in window.properties.editor.message.text()
    prompter.answers = ["Change rank"]
    type_into(qtbot, _value_editor(window, "x").dims_edit, "1, 3, 64")
    assert list(x.type.shape) == [1, 3, 64]
    window.edit_actions.undo()
    assert list(x.type.shape) == before
