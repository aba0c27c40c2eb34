"""Showing an initializer's values in Properties does not make the window
taller. The tensor editor's minimum (a dozen table rows, the histogram: ~560
px) was added to the summary's and the form's, and the window grew past the
size it was given (1400x900 under Xvfb became 1400x937; on a 768 px laptop
screen it would run off the screen). The editor now scrolls inside its part
of the dock, keeping its dozen rows."""
from __future__ import annotations

import shutil

from viewer_helpers import open_model, wait_idle
from onnxstudio.resources import sample_path


def test_initializer_editor_keeps_the_window_size(qtbot, window, tmp_path):
    path = shutil.copy(sample_path("demo.onnx"), tmp_path / "demo.onnx")
    window.resize(1280, 720)
    open_model(qtbot, window, path)
    qtbot.waitUntil(lambda: window.qdoc.ready, timeout=60_000)
    wait_idle(qtbot, window)
    height = window.height()
    weight = window.model.graph.initializers["head.fc.weight"]
    window.properties.show_value(weight)
    qtbot.waitUntil(lambda: window.properties.tensor_editor is not None)
    qtbot.wait(200)
    assert window.minimumSizeHint().height() <= height
    assert window.height() == height
    editor = window.properties.tensor_editor
    assert editor.table.view.height() >= 12 * 20 + 24      # its dozen rows, scrolled to when short
