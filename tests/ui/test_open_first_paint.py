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


def test_the_opened_model_is_painted_before_the_costly_panels_fill(qtbot, window):
    """The canvas takes the document first; Properties (the model's form)
    and Run (a row per input) take it only once the model is painted, so
    they never compete with the layout's worker for the interpreter. The
    cheap panels (Problems, history, search) have it from the start."""
    order: list[str] = []
    graph_set = window.graph.set_document
    properties_set = window.properties.set_document
    run_set = window.run_ui.set_document

    def graph_first(*args, **kwargs):
        order.append("canvas")
        return graph_set(*args, **kwargs)

    def properties_after(qdoc):
        order.append("properties")
        assert window.edit_actions.problems.qdoc is qdoc     # had it already
        return properties_set(qdoc)

    def run_after(qdoc, path=None):
        order.append("run")
        return run_set(qdoc, path)

    window.graph.set_document = graph_first
    window.properties.set_document = properties_after
    window.run_ui.set_document = run_after
    window.graph.view.first_paint.connect(lambda _s: order.append("paint"))
    window.open_demo()
    qtbot.waitUntil(lambda: not window.busy, timeout=120_000)
    assert order[:4] == ["canvas", "paint", "properties", "run"], order
    assert window.properties.qdoc is window.qdoc
    assert window.run_ui.controller.qdoc is window.qdoc


def test_a_cancelled_layout_still_fills_the_panels(qtbot, window):
    """No picture will come after Cancel: the panels take the document then."""
    running_when_cancelled = []

    def cancel(_model):
        running_when_cancelled.append(window.graph.layout_running)
        window.cancel_work()            # the Cancel button of the status bar

    window.model_loaded.connect(cancel)
    window.open_demo()
    qtbot.waitUntil(lambda: not window.busy, timeout=120_000)
    assert running_when_cancelled == [True]
    assert window.properties.qdoc is window.qdoc
    assert window.run_ui.controller.qdoc is window.qdoc


def test_opening_another_model_before_the_first_is_painted(qtbot, window, tmp_path):
    """The panels end up on the second model; the first one's QtDocument is
    let go only once no panel observes it."""
    import shutil
    from onnxstudio.resources import sample_path
    second = tmp_path / "second.onnx"
    shutil.copy(sample_path("demo.onnx"), second)
    window.open_demo()
    qtbot.waitUntil(lambda: window.qdoc is not None, timeout=120_000)
    first = window.qdoc
    window.open_path(second)
    qtbot.waitUntil(lambda: window.path == second and not window.busy, timeout=120_000)
    assert window.qdoc is not first
    assert window.properties.qdoc is window.qdoc
    assert window.run_ui.controller.qdoc is window.qdoc
