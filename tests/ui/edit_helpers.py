"""What the editing tests do over and over: open a model and wait until the
document can take edits, type into a field as a user would, open the
operator palette by its key, apply an edit script from the Edit menu."""
from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtTest import QTest

from edit_models import write_conv_model
from viewer_helpers import open_model


def open_editable(qtbot, window, path):
    """Open `path` and wait until its document is ready for edits; the path."""
    open_model(qtbot, window, path)
    qtbot.waitUntil(lambda: window.qdoc.ready, timeout=60_000)
    return path


def open_conv_model(qtbot, window, tmp_path):
    """Write edit_models' conv model to tmp_path/m.onnx and open it; the path."""
    return open_editable(qtbot, window, write_conv_model(tmp_path / "m.onnx"))


def type_into(qtbot, edit, text):
    """Replace the text of a line edit by typing, then press Return."""
    edit.setFocus()
    edit.selectAll()
    qtbot.keyClicks(edit, text)
    qtbot.keyClick(edit, Qt.Key_Return)


def open_palette_by_key(qtbot, window):
    """Shift+A on the focused canvas, as a user opens the operator palette; the palette."""
    view = window.graph.view
    window.activateWindow()
    view.setFocus()
    qtbot.waitUntil(view.hasFocus)
    QTest.keyClick(view, Qt.Key_A, Qt.ShiftModifier)
    palette = window.edit_actions.canvas.palette
    assert palette is not None and palette.isVisible()
    return palette


def apply_script_from_menu(window, path):
    """Edit ▸ Apply Edit Script… with `path` chosen in its file dialog; the report shown."""
    window.edit_actions.scripts.choose_path = lambda: str(path)
    window.edit_actions.apply_script_action.trigger()
    return window.edit_actions.scripts.report
