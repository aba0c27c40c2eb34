"""A .npy of numbers of another type (float64 for a float32 tensor) is
offered as a conversion, with what it would lose, instead of only refused;
pressing "Import as float32" imports it as one undo step."""
from __future__ import annotations

import numpy as np
from PySide6.QtCore import Qt

from edit_helpers import open_conv_model


def test_a_float64_npy_is_offered_as_a_cast_with_its_precision(qtbot, window, tmp_path):
    open_conv_model(qtbot, window, tmp_path)
    w = window.model.graph.get_value("W")
    window.properties.show_value(w)
    editor = window.properties.tensor_editor
    data = np.full((4, 3, 3, 3), 0.1, np.float64)
    data[0, 0, 0, 0] = 1e300                       # does not fit float32
    path = tmp_path / "w64.npy"
    np.save(path, data)
    steps = window.document.index
    assert not editor.import_npy(str(path))        # nothing imported yet
    text = editor.message.text()
    assert "holds float64, the tensor is float:" in text and "108 of 108 values change" in text
    assert "1 overflow" in text and window.document.index == steps
    assert editor.cast_import_button.isVisible() and editor.cast_import_button.text() == "Import as float"
    qtbot.mouseClick(editor.cast_import_button, Qt.LeftButton)
    assert window.document.index == steps + 1
    values = w.const.numpy()
    assert values.dtype == np.float32 and values[0, 0, 0, 1] == np.float32(0.1) and np.isinf(values[0, 0, 0, 0])
    assert not window.properties.tensor_editor.cast_import_button.isVisible()
    # Strings into a float tensor are still refused.
    np.save(tmp_path / "s.npy", np.full((4, 3, 3, 3), "a"))
    assert not editor.import_npy(str(tmp_path / "s.npy")) and "change the dtype first" in editor.message.text()
