"""Journey: the first start's dock layout, and a restart keeping the user's.

The Problems dock is empty for most models: on first start it is a strip
under the canvas, not a third of the window; the Properties dock stays wide
enough for its editors. Once the user resized them, the next start keeps
their sizes."""
from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication

from viewer_helpers import open_model, window_with_settings
from onnxstudio.resources import sample_path


def _window(qtbot, ini):
    return window_with_settings(qtbot, ini, (1280, 820))


def test_first_start_problems_dock_is_a_strip(qtbot, tmp_path):
    win = _window(qtbot, tmp_path / "settings.ini")
    try:
        open_model(qtbot, win, sample_path("demo.onnx"))
        problems = win.edit_actions.problems_dock
        assert problems.isVisible()
        assert problems.height() <= 160, problems.height()         # was 250 of 820
        assert win.graph.height() >= 0.6 * win.height()
        assert win.properties_dock.width() >= 400                  # editors are not clipped
    finally:
        win.shutdown()


def test_restart_keeps_the_users_dock_sizes(qtbot, tmp_path):
    ini = tmp_path / "settings.ini"
    win = _window(qtbot, ini)
    win.resizeDocks([win.edit_actions.problems_dock], [300], Qt.Vertical)
    qtbot.wait(50)
    height = win.edit_actions.problems_dock.height()
    assert height > 200
    win.close()
    again = _window(qtbot, ini)
    try:
        qtbot.waitUntil(lambda: abs(again.edit_actions.problems_dock.height() - height) <= 2)
    finally:
        again.shutdown()


def test_minimap_steps_aside_on_a_squeezed_canvas(qtbot, window):
    """With the Run, Inspector and Compare docks open the canvas can be a
    few hundred pixels: a 200×150 overview would cover the graph there."""
    open_model(qtbot, window, sample_path("demo.onnx"))
    view, minimap = window.graph.view, window.graph.minimap
    view.zoom_by(4.0)                       # only part of the graph on screen
    qtbot.waitUntil(minimap.isVisible)
    window.resize(1200, 800)
    window.resizeDocks([window.properties_dock], [800], Qt.Horizontal)
    qtbot.waitUntil(lambda: not minimap.isVisible())
    assert view.viewport().width() < 2.5 * minimap.width()
    window.resizeDocks([window.properties_dock], [300], Qt.Horizontal)
    qtbot.waitUntil(minimap.isVisible)


def test_a_good_open_clears_the_last_opens_error(qtbot, window, tmp_path):
    bad = tmp_path / "bad.onnx"
    bad.write_text("not a model")
    window.open_path(bad)
    qtbot.waitUntil(lambda: not window.loading)
    assert "not an ONNX model" in window.statusBar().currentMessage()
    window.last_error = None
    open_model(qtbot, window, sample_path("demo.onnx"))
    assert "not an ONNX model" not in window.statusBar().currentMessage()


def test_a_narrow_properties_dock_scrolls_to_its_buttons(qtbot, window):
    """Narrower than the node form, the dock scrolls sideways: "Change…" and
    "Add" were cut off with no way to reach them."""
    open_model(qtbot, window, sample_path("demo.onnx"))
    qtbot.waitUntil(lambda: window.qdoc.ready, timeout=60_000)
    gemm = next(n for n in window.model.graph.nodes if n.op_type == "Gemm")
    window.graph.reveal(gemm, window.model.graph)
    qtbot.waitUntil(lambda: window.properties.current is gemm)
    window.resizeDocks([window.properties_dock], [250], Qt.Horizontal)
    area = window.properties.editor_area
    qtbot.waitUntil(lambda: area.widget().width() >= area.widget().minimumSizeHint().width())
    bar = area.horizontalScrollBar()

    def reachable():        # the user can scroll far enough to see the button's right edge
        button = window.properties.editor.op_button      # the form is rebuilt when types arrive
        right = button.mapTo(area.widget(), button.rect().topRight()).x()
        return bar.isVisible() and bar.maximum() + area.viewport().width() >= right
    qtbot.waitUntil(reachable)


def test_esc_leaves_a_subgraph_from_the_canvas_only(qtbot, window):
    """Esc in the search box (to give up a search) kept throwing the user out
    of the If body they were looking at."""
    from shared_models import SHARED_MODELS
    open_model(qtbot, window, SHARED_MODELS / "silero_vad" / "model.onnx")
    if_node = next(n for n in window.model.graph.nodes if n.op_type == "If")
    window.graph.enter_graph(if_node.attributes["then_branch"].value)
    qtbot.waitUntil(lambda: not window.graph.layout_running)
    window.activateWindow()
    qtbot.keyClick(window, Qt.Key_F, Qt.ControlModifier)
    field = QApplication.focusWidget()
    assert field is not None and field.window() is window and window.search_dock.isAncestorOf(field)
    qtbot.keyClicks(field, "LSTM")
    qtbot.keyClick(field, Qt.Key_Escape)
    assert len(window.graph.levels) == 2
    window.graph.view.setFocus()
    qtbot.keyClick(window.graph.view, Qt.Key_Escape)
    assert len(window.graph.levels) == 1


def test_problems_count_line_uses_singular_and_plural(qtbot, window):
    from onnxstudio.core.diagnostics import Diagnostic, Severity
    from onnxstudio.ui import i18n
    from shared_models import shared_models_root
    open_model(qtbot, window, shared_models_root() / "bert_small" / "model.onnx")
    qtbot.waitUntil(lambda: window.qdoc.ready, timeout=60_000)
    panel = window.edit_actions.problems
    # bert_small's checker finds exactly one note.
    qtbot.waitUntil(lambda: panel.summary.text() == "0 errors · 0 warnings · 1 note", timeout=60_000)

    def show(errors, warnings, notes):
        made = [Diagnostic(sev, "X", "graph", "m") for sev, n in
                ((Severity.ERROR, errors), (Severity.WARNING, warnings), (Severity.INFO, notes)) for _ in range(n)]
        panel.diagnostics = made
        panel._fill()
        return panel.summary.text()
    assert show(1, 2, 0) == "1 error · 2 warnings · 0 notes"
    assert show(3, 1, 5) == "3 errors · 1 warning · 5 notes"
    try:
        assert i18n.install("zh_CN") == "zh_CN"
        assert show(1, 2, 1) == "1 个错误 · 2 个警告 · 1 条提示"
    finally:
        i18n.install("en")
