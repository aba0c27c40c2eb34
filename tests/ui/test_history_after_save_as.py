"""The Undo History's first row names the file the model was opened from;
after Save As it read "Opened copy.onnx", a file never opened."""
from __future__ import annotations

from onnxstudio.core.edits import SetMetadata

from edit_helpers import open_conv_model


def test_the_first_row_keeps_the_opened_name_after_save_as(qtbot, window, tmp_path):
    open_conv_model(qtbot, window, tmp_path)
    window.qdoc.apply(SetMetadata("k", "v"))
    files = window.edit_actions.files
    files.choose_save_path = lambda: str(tmp_path / "copy.onnx")
    assert files.save_as()
    rows = window.edit_actions.history.list
    assert rows.item(0).text() == "Opened m.onnx"
    assert rows.item(1).text().endswith("(saved)")
    assert "copy.onnx" in window.windowTitle()
