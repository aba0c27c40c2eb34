"""Selecting a large initializer must stay quick: the Properties summary
does not read its values for statistics (a 250 MB embedding of a 2 GB LLM
froze the window 4 s on every click, in min/max/mean/std over the whole
array); above the tensor editor's threshold it says where to read them.
Small ones keep their statistics."""
from __future__ import annotations

from edit_helpers import open_conv_model


def test_summary_of_a_large_initializer_reads_no_values(qtbot, window, tmp_path, monkeypatch):
    from onnxstudio.ui.panels import summaries as properties, tensor_editor
    monkeypatch.setattr(properties, "STATS_NOW_BYTES", 100)       # W (432 bytes) counts as large
    monkeypatch.setattr(tensor_editor, "LOAD_NOW_BYTES", 100)     # (as it stays below the editor's)
    read = []
    real_stats = properties.tensor_stats
    monkeypatch.setattr(properties, "tensor_stats", lambda a: read.append(a.nbytes) or real_stats(a))
    open_conv_model(qtbot, window, tmp_path)
    window.properties.show_value(window.model.graph.get_value("W"))
    text = window.properties.browser.toPlainText()
    assert read == []
    assert "min" not in text.split() and "not read" in text and "432 B" in text
    assert "Load values" in text
    editor = window.properties.tensor_editor
    assert editor.array is None                     # nothing read there either, until asked


def test_summary_of_a_small_initializer_keeps_its_statistics(qtbot, window, tmp_path):
    open_conv_model(qtbot, window, tmp_path)
    window.properties.show_value(window.model.graph.get_value("W"))
    text = window.properties.browser.toPlainText()
    assert "min" in text.split() and "std" in text.split() and "not read" not in text
