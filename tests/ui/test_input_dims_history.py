"""Edit > Set Dims of All Inputs… shows its step as an unsaved edit that can
be undone (QA): the step is recorded as its macro closes, after the edits'
own events, so the title lacked its * and Undo stayed greyed until the next
edit. pytest-qt, offscreen."""
from __future__ import annotations

from PySide6.QtCore import Qt

from edit_helpers import open_conv_model


def test_dims_step_shows_in_title_and_undo(qtbot, window, tmp_path):
    open_conv_model(qtbot, window, tmp_path)
    assert window.windowTitle().startswith("m.onnx ")
    window.edit_actions.input_dims_action.trigger()
    dialog = window.edit_actions.input_dims.dialog
    qtbot.waitUntil(dialog.isVisible)
    qtbot.keyClicks(dialog.value, "batch")
    qtbot.keyClick(dialog.value, Qt.Key_Return)
    qtbot.waitUntil(lambda: not dialog.isVisible())
    assert window.document.undo_name == "Set dims of all inputs"
    assert window.windowTitle().startswith("m.onnx*")
    undo = window.edit_actions.undo_action
    assert undo.isEnabled() and "Set dims of all inputs" in undo.text()
