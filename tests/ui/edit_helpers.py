"""What the editing tests do over and over: open a model and wait until the
document can take edits, and type into a field as a user would."""
from __future__ import annotations

from PySide6.QtCore import Qt

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
