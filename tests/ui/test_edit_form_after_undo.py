"""The model form and the value form after an undo while the cursor is still
in the field just committed: the field shows the document's value, and
leaving it commits nothing. Before, these fields kept the undone text while
they had focus (the model form's producer showed "edited" after Edit > Undo
had put "pytorch" back), and the value form's name then renamed the value
again on focus-out, undoing the undo. Ctrl+Z typed in these fields undoes
the document, as in the node form's fields."""
from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtTest import QTest

from edit_helpers import open_conv_model


def _focus(qtbot, window, edit):
    window.activateWindow()
    edit.setFocus()
    qtbot.waitUntil(edit.hasFocus)


def _commit(edit, text):
    edit.selectAll()
    QTest.keyClicks(edit, text)
    QTest.keyClick(edit, Qt.Key_Return)


def _leave(qtbot, window, edit):
    window.graph.view.setFocus()
    qtbot.waitUntil(lambda: not edit.hasFocus())


def test_model_form_field_follows_an_undo_from_the_menu(qtbot, window, tmp_path):
    open_conv_model(qtbot, window, tmp_path)
    window.properties.show_model()
    edit = window.properties.editor.fields["producer_name"]
    _focus(qtbot, window, edit)
    _commit(edit, "edited")
    assert window.model.producer_name == "edited"
    steps = window.document.index
    window.edit_actions.undo()                      # Edit > Undo, the cursor still in the field
    assert window.model.producer_name == "edit-tests"
    edit = window.properties.editor.fields["producer_name"]
    assert edit.text() == "edit-tests"
    _leave(qtbot, window, edit)
    assert window.model.producer_name == "edit-tests" and window.document.index == steps - 1
    assert window.document.can_redo


def test_model_form_ctrl_z_in_the_field_undoes_the_document(qtbot, window, tmp_path):
    open_conv_model(qtbot, window, tmp_path)
    window.properties.show_model()
    edit = window.properties.editor.fields["domain"]
    _focus(qtbot, window, edit)
    _commit(edit, "org.example")
    assert window.model.domain == "org.example"
    QTest.keyClick(edit, Qt.Key_Z, Qt.ControlModifier)
    assert window.model.domain == ""
    edit = window.properties.editor.fields["domain"]
    assert edit.text() == ""
    _leave(qtbot, window, edit)
    assert window.model.domain == "" and window.document.can_redo


def test_value_form_name_after_an_undo_is_not_committed_again(qtbot, window, tmp_path):
    open_conv_model(qtbot, window, tmp_path)
    r = window.model.graph.get_value("r")
    window.properties.show_value(r)
    edit = window.properties.editor.name_edit
    _focus(qtbot, window, edit)
    _commit(edit, "relu_out")
    assert r.name == "relu_out"
    window.edit_actions.undo()
    assert r.name == "r"
    edit = window.properties.editor.name_edit
    assert edit.text() == "r"
    _leave(qtbot, window, edit)
    assert r.name == "r" and window.document.can_redo      # leaving the field renamed nothing


def test_value_form_ctrl_z_in_the_name_undoes_the_document(qtbot, window, tmp_path):
    open_conv_model(qtbot, window, tmp_path)
    x = window.model.graph.get_value("x")
    window.properties.show_value(x)
    edit = window.properties.editor.dims_edit
    _focus(qtbot, window, edit)
    _commit(edit, "N, 3, 8, 8")
    assert list(x.type.shape) == ["N", 3, 8, 8]
    QTest.keyClick(edit, Qt.Key_Z, Qt.ControlModifier)
    assert list(x.type.shape) == [1, 3, 8, 8]
    edit = window.properties.editor.dims_edit
    assert edit.text().replace(" ", "") == "1,3,8,8"
    _leave(qtbot, window, edit)
    assert list(x.type.shape) == [1, 3, 8, 8] and window.document.can_redo
