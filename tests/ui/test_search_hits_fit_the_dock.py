"""A dynamo export's search hits start with the node's module path, wider
than the Search dock ("m/transformer/h.0/attn/node_Softmax_12  (Softmax)"):
the op type and node name at the end were behind a horizontal scroll bar.
Each hit now fits the list's width, cut in the middle so the layer at the
start and the op type at the end both show; the tooltip keeps it whole."""
from __future__ import annotations

from test_search_module_paths import _dynamo_like

from PySide6.QtCore import Qt

from viewer_helpers import open_model, wait_idle


def test_long_module_hits_fit_the_search_list(qtbot, window, tmp_path):
    path = tmp_path / "dynamo_like.onnx"
    _dynamo_like(path)
    open_model(qtbot, window, path)
    window.show_search()
    panel = window.search
    window.search_dock.setFloating(True)          # a dock as narrow as a user's
    window.search_dock.resize(240, 500)
    qtbot.keyClicks(panel.edit, "h.0/attn")
    wait_idle(qtbot, window)
    qtbot.waitUntil(lambda: window.qdoc.ready, timeout=60_000)    # its types in: the list is refilled then
    wait_idle(qtbot, window)
    results = panel.results
    assert results.count() >= 1
    first = results.item(0)
    assert "(Softmax)" in first.text() and "(Softmax)" in first.toolTip()
    line = first.text().split("\n")[0]
    qtbot.waitUntil(lambda: results.viewport().width() < results.fontMetrics().horizontalAdvance(line))
    # Too long for the list, it is cut in the middle (Qt draws each row at the
    # list's width), not put behind a horizontal scroll bar.
    qtbot.wait(100)
    assert not results.horizontalScrollBar().isVisible()
    assert results.textElideMode() == Qt.ElideMiddle
