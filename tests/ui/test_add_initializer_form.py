"""The model form adds an initializer (there was no way to make one in the
app but a private copy of a shared weight): zeros of the type and sizes
typed, one undo step, saved as a valid file; a symbolic or unknown dim is
refused, naming it. A search finds the new initializer, which nothing reads
yet (no box draws it), and Enter shows it in Properties with its tensor
editor, where its values are set."""
from __future__ import annotations

import numpy as np
from PySide6.QtCore import Qt

from edit_helpers import open_conv_model
from viewer_helpers import wait_idle


def _model_form(window):
    window.properties.show_model()
    return window.properties.editor


def _add(window, name, type_name, dims):
    form = _model_form(window)
    form.initializer_name.setText(name)
    form.initializer_type.setCurrentIndex(form.initializer_type.findText(type_name))
    form.initializer_dims.setText(dims)
    return form.add_initializer()


def test_add_initializer_undo_save(qtbot, window, tmp_path):
    import onnx
    from onnx import numpy_helper
    path = open_conv_model(qtbot, window, tmp_path)
    assert _add(window, "scale", "float16", "2, 3")
    g = window.model.graph
    assert g.initializers["scale"].const.numpy().dtype == np.float16
    assert g.initializers["scale"].const.numpy().shape == (2, 3)
    window.edit_actions.undo()
    assert "scale" not in g.initializers
    window.edit_actions.redo()
    assert "scale" in window.model.graph.initializers
    assert window.edit_actions.files.save()
    saved = onnx.load(str(path))
    onnx.checker.check_model(saved, full_check=True)
    tensor = next(t for t in saved.graph.initializer if t.name == "scale")
    assert tensor.data_type == onnx.TensorProto.FLOAT16
    np.testing.assert_array_equal(numpy_helper.to_array(tensor), np.zeros((2, 3), np.float16))


def test_symbolic_dim_and_used_name_refused(qtbot, window, tmp_path):
    open_conv_model(qtbot, window, tmp_path)
    before = set(window.model.graph.initializers)
    assert not _add(window, "w2", "float", "N, 3")
    assert "N" in window.properties.editor.message.text()
    assert not _add(window, "", "float", "3")
    assert "name" in window.properties.editor.message.text()
    used = next(iter(before))
    assert not _add(window, used, "float", "3")
    assert set(window.model.graph.initializers) == before


def test_search_finds_the_unread_initializer_and_shows_it(qtbot, window, tmp_path):
    open_conv_model(qtbot, window, tmp_path)
    assert _add(window, "fresh_weight", "float", "4")
    wait_idle(qtbot, window)
    window.show_search()
    window.search.edit.setText("fresh_weight")
    qtbot.keyClick(window.search.edit, Qt.Key_Return)
    wait_idle(qtbot, window)
    value = window.model.graph.initializers["fresh_weight"]
    assert window.properties.current is value
    assert window.properties.tensor_editor is not None


def test_a_refusal_at_the_bottom_of_the_form_is_scrolled_into_view(qtbot, window, tmp_path):
    """The model form says a refusal on a line above its fields; the Add rows
    are at its bottom, so with the form scrolled down to them the refusal
    was said out of sight (seen under Xvfb: a click on Add initializer with
    'N, 3' seemed to do nothing)."""
    from PySide6.QtCore import QPoint, QRect
    open_conv_model(qtbot, window, tmp_path)
    window.resize(1200, 560)
    form = _model_form(window)
    area = window.properties.editor_area
    qtbot.waitUntil(lambda: area.verticalScrollBar().maximum() > 0)
    area.verticalScrollBar().setValue(area.verticalScrollBar().maximum())
    form.initializer_name.setText("w2")
    form.initializer_dims.setText("N, 3")
    assert not form.add_initializer()
    qtbot.waitUntil(lambda: form.message.isVisible())
    top_left = form.message.mapTo(area.viewport(), QPoint(0, 0))
    shown = QRect(top_left, form.message.size())
    assert area.viewport().rect().intersects(shown), (shown, area.viewport().rect())


def test_a_node_input_field_connects_the_new_initializer(qtbot, window, tmp_path):
    """What the README says comes next: type its name into a node's input."""
    from edit_helpers import type_into
    open_conv_model(qtbot, window, tmp_path)
    assert _add(window, "bias2", "float", "4")
    wait_idle(qtbot, window)
    conv = next(n for n in window.model.graph.nodes if n.name == "conv1")
    window.graph.reveal(conv, window.model.graph)
    wait_idle(qtbot, window)
    qtbot.waitUntil(lambda: window.properties.editor is not None
                    and getattr(window.properties.editor, "node", None) is conv)
    type_into(qtbot, window.properties.editor.input_edits[2], "bias2")
    bias2 = window.model.graph.initializers["bias2"]
    assert conv.inputs[2] is bias2
