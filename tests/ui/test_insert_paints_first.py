"""After an insert the canvas is repainted before the overview is redrawn
and the edge labels are refreshed (canvas/after_paint.py): those are put off
two passes of the event loop, so the pass in between paints the edit."""
from __future__ import annotations

from PySide6.QtCore import QEvent, QObject

from edit_helpers import open_editable
from viewer_helpers import wait_idle


class _Paints(QObject):
    def __init__(self, log):
        super().__init__()
        self.log = log

    def eventFilter(self, obj, event):
        if event.type() == QEvent.Paint:
            self.log.append("paint")
        return False


def test_the_canvas_is_repainted_before_the_overview_and_the_labels(qtbot, window, tmp_path):
    import pathlib
    import sys
    sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "layout"))
    from synthetic_models import synthetic_model_file
    from onnxstudio.core.edits import insert_on_edge
    from onnxstudio.ui.canvas_edits import scoped_name
    open_editable(qtbot, window, synthetic_model_file(tmp_path, 600))
    window.graph.expand_all()
    wait_idle(qtbot, window)
    panel, minimap = window.graph, window.graph.minimap
    target = [n for n in window.model.graph.nodes if n.op_type == "MatMul"][-2]
    panel.select_object(target)     # on screen: the insert repaints what is shown
    qtbot.waitUntil(lambda: not minimap.rebuild_pending and not panel.relabel_pending, timeout=60_000)
    qtbot.wait(100)
    log: list = []
    paints = _Paints(log)
    panel.view.viewport().installEventFilter(paints)
    panel.laid_out.connect(lambda: log.append("laid out"))
    rebuild, relabel = minimap.rebuild, panel.scene.relabel_edges
    minimap.rebuild = lambda: (log.append("overview"), rebuild())
    panel.scene.relabel_edges = lambda inferred: (log.append("labels"), relabel(inferred))
    try:
        assert window.qdoc.apply(insert_on_edge(window.model, target.outputs[0].name, "Relu",
                                                name=scoped_name(target, "Relu")))
        wait_idle(qtbot, window)
        qtbot.waitUntil(lambda: not minimap.rebuild_pending and not panel.relabel_pending, timeout=60_000)
        # Until the canvas has painted since the new layout (a fixed 300 ms made it likely only).
        qtbot.waitUntil(lambda: "laid out" in log and "paint" in log[log.index("laid out"):], timeout=60_000)
    finally:
        panel.view.viewport().removeEventFilter(paints)
    shown = log.index("laid out")
    after = log[shown:]
    assert "paint" in after and "overview" in after and "labels" in after, log
    assert after.index("paint") < after.index("overview") and after.index("paint") < after.index("labels"), log
