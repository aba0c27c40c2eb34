"""'Make a graph output' from the value form and the model form declares
the value's inferred type when the file gives it none: the saved file
passes onnx's checker (an output without a type is refused there)."""
from __future__ import annotations

import onnx

from edit_helpers import open_conv_model


def _output_dims(path, name):
    out = next(o for o in onnx.load(str(path)).graph.output if o.name == name)
    t = out.type.tensor_type
    return t.elem_type, [d.dim_param or d.dim_value for d in t.shape.dim]


def test_value_form_output_button_declares_the_inferred_type(qtbot, window, tmp_path):
    path = open_conv_model(qtbot, window, tmp_path)
    c = window.model.graph.get_value("c")
    assert c.type is None                      # no value_info in the file
    window.properties.show_value(c)
    window.properties.editor.output_button.click()
    assert [v.name for v in window.model.graph.outputs][-1] == "c"
    assert window.edit_actions.files.save()
    onnx.checker.check_model(str(path), full_check=True)
    assert _output_dims(path, "c") == (onnx.TensorProto.FLOAT, [1, 4, 8, 8])
    window.edit_actions.undo()
    assert c.type is None                      # undone: the value has no type again


def test_model_form_add_output_declares_the_inferred_type(qtbot, window, tmp_path):
    path = open_conv_model(qtbot, window, tmp_path)
    window.properties.show_model()
    editor = window.properties.editor
    editor.output_name.setText("c")
    assert editor.add_output()
    assert window.edit_actions.files.save()
    onnx.checker.check_model(str(path), full_check=True)
    assert _output_dims(path, "c") == (onnx.TensorProto.FLOAT, [1, 4, 8, 8])
    editor = window.properties.editor
    editor.output_name.setText("no_such_value")
    assert not editor.add_output()
    assert "no_such_value" in window.edit_actions.last_refusal      # said in the status bar


def test_canvas_menu_make_output_declares_the_inferred_type(qtbot, window, tmp_path):
    from PySide6.QtWidgets import QMenu
    path = open_conv_model(qtbot, window, tmp_path)
    c = window.model.graph.get_value("c")
    assert c.type is None
    edge = next(e for e in window.graph.scene.edge_items.values() if e.ref.value is c)
    menu = QMenu()
    window.properties.extend_canvas_menu(edge, menu)
    next(a for a in menu.actions() if "c a Graph Output" in a.text()).trigger()
    assert [v.name for v in window.model.graph.outputs][-1] == "c"
    assert window.edit_actions.files.save()
    onnx.checker.check_model(str(path), full_check=True)
    assert _output_dims(path, "c") == (onnx.TensorProto.FLOAT, [1, 4, 8, 8])
