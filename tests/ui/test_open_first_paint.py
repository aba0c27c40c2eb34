"""Opening a model: the first paint comes before anything the user has not
asked for. The analysis (inference and the checker) starts only after it,
the Problems dock says "checking…" until the analysis is ready (never "no
problems" before the check ran), and the executor's background import
starts only after the analysis."""
from __future__ import annotations

import pytest
from shared_models import shared_models_root


@pytest.mark.slow          # analyses bert_12layer_narrow: ~5 s
def test_first_paint_before_analysis_then_executor_preload(qtbot, window):
    path = shared_models_root() / "bert_12layer_narrow" / "model.onnx"
    order: list[str] = []
    at_paint: dict = {}

    def painted(_seconds):
        if "ready" in at_paint:
            return
        order.append("paint")
        at_paint["ready"] = window.qdoc.ready
        at_paint["problems"] = window.edit_actions.problems.summary.text()

    controller = window.run_ui.controller
    preload = controller.preload_executor

    def recorded_preload():
        order.append("preload")
        at_paint["ready_at_preload"] = window.qdoc.ready
        preload()

    controller.preload_executor = recorded_preload
    window.graph.view.first_paint.connect(painted)
    window.model_loaded.connect(lambda _m: window.qdoc.analysed.connect(lambda: order.append("analysed")))
    window.open_path(path, remember=False)
    qtbot.waitUntil(lambda: "preload" in order, timeout=120_000)

    assert order[0] == "paint", order
    assert at_paint["ready"] is False                   # nothing analysed before the picture
    assert at_paint["problems"] == "checking…"
    assert order.index("analysed") < order.index("preload"), order
    assert at_paint["ready_at_preload"] is True
    qtbot.waitUntil(lambda: not window.busy, timeout=120_000)
    summary = window.edit_actions.problems.summary.text()
    assert summary != "checking…" and "error" in summary, summary


def test_the_opened_model_is_shown_before_the_other_panels_fill(qtbot, window):
    """The canvas's layout is started first (it runs in a worker, dot in a
    child process) and the other panels take the document meanwhile."""
    started: list[str] = []
    graph_set = window.graph.set_document
    properties_set = window.properties.set_document

    def graph_first(*args, **kwargs):
        started.append("canvas")
        return graph_set(*args, **kwargs)

    def properties_after(*args, **kwargs):
        started.append("properties")
        assert window.graph.layout_running        # its layout is already on its way
        return properties_set(*args, **kwargs)

    window.graph.set_document = graph_first
    window.properties.set_document = properties_after
    window.open_demo()
    qtbot.waitUntil(lambda: not window.busy, timeout=120_000)
    assert started == ["canvas", "properties"]
