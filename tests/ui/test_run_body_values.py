"""After a whole run (Ctrl+R), the values inside If/Loop bodies are on the
canvas and in the inspector (issue 22)."""
import numpy as np

from shared_models import SHARED_MODELS
from viewer_helpers import open_model, wait_idle
from onnxstudio.ui.run.overlay import ValueTag


class _Click:
    def accept(self):
        pass


def _finish(qtbot, win):
    assert win.run_ui.controller.wait(300_000)
    wait_idle(qtbot, win)


def _tags(win):
    return [i for i in win.run_ui.overlay.items if isinstance(i, ValueTag)]


def _enter(qtbot, win, graph):
    win.graph.enter_graph(graph)
    wait_idle(qtbot, win)
    qtbot.waitUntil(lambda: win.graph.level.graph is graph and bool(win.graph.scene.edge_items), timeout=60_000)
    wait_idle(qtbot, win)


def _run_silero(qtbot, window):
    open_model(qtbot, window, SHARED_MODELS / "silero_vad" / "model.onnx")
    r = window.run_ui
    with np.load(SHARED_MODELS / "silero_vad" / "inputs.npz") as z:
        feeds = {k: z[k] for k in z.files}
    r.controller.feeds_source = lambda: feeds
    r.run_action.trigger()                      # Ctrl+R
    _finish(qtbot, window)
    assert not r.controller.last_error, r.controller.last_error
    debug = r.controller.debug
    model = r.controller.model
    if0 = next(n for n in model.graph.nodes if n.op_type == "If")
    body = next(g for _, g in if0.subgraphs() if id(g) in debug.body_values)     # the branch that ran
    return r, debug, body


def test_after_ctrl_r_an_if_body_shows_its_values_and_the_inspector_them(qtbot, window):
    r, debug, body = _run_silero(qtbot, window)
    _enter(qtbot, window, body)
    shown = {t.name: t for t in _tags(window)}
    computed = [v for n in body.nodes for v in n.outputs if v is not None and v.name]
    assert len(shown) > 10 and all(debug.value_of(shown[name].name, body) is not None for name in shown)
    assert {v.name for v in computed} & set(shown)
    value = next(v for v in computed if v.name in shown)
    shown[value.name].mousePressEvent(_Click())      # a click on the tag inspects the body value
    assert r.inspector.name == value.name and r.inspector_dock.isVisible()
    np.testing.assert_array_equal(r.inspector.array, debug.value_of(value))
    # selecting a body node's edge with the inspector open shows that value too
    other = next(v for v in computed if v.name in shown and v.name != value.name)
    assert r.inspect(other) and r.inspector.name == other.name


def test_the_option_off_keeps_no_body_values(qtbot, window):
    open_model(qtbot, window, SHARED_MODELS / "silero_vad" / "model.onnx")
    r = window.run_ui
    assert r.bodies_action.isChecked() and r.dock_widget.bodies_box.isChecked()     # on by default
    r.bodies_action.trigger()
    assert not r.dock_widget.bodies_box.isChecked()
    r.run_action.trigger()
    _finish(qtbot, window)
    assert r.controller.debug.kept is None and not r.controller.debug.body_values


def test_the_budget_says_what_it_left_out(qtbot, window):
    open_model(qtbot, window, SHARED_MODELS / "silero_vad" / "model.onnx")
    r = window.run_ui
    r.dock_widget.budget_box.setValue(0)
    r.run_action.trigger()
    _finish(qtbot, window)
    kept = r.controller.debug.kept
    assert kept.budget == 0 and kept.not_kept and not kept.values
    status = r.dock_widget.status.text()
    assert "0 values inside bodies kept" in status and "past the 0 MiB budget, not kept: " in status
    assert list(kept.not_kept)[0][1] in status


def test_a_loop_body_tag_names_its_iteration(qtbot, window, tmp_path):
    from loop_model import write_loop_model
    open_model(qtbot, window, write_loop_model(tmp_path / "loop.onnx"))
    r = window.run_ui
    r.inputs.set_source("trips", "constant", value=3)
    r.inputs.set_source("cond", "ones")
    r.inputs.set_source("start", "zeros")
    r.run_action.trigger()
    _finish(qtbot, window)
    loop = next(n for n in r.controller.model.graph.nodes if n.op_type == "Loop")
    body = loop.subgraphs()[0][1]
    _enter(qtbot, window, body)
    tag = next(t for t in _tags(window) if t.name == "acc_sum")
    assert tag.value.tolist() == [3, 6]
    assert "from the last of 3 runs of this body (iteration 2)" in tag.detail()


def test_the_apps_onnxruntime_comparison_covers_body_values(qtbot, window):
    import pytest
    pytest.importorskip("onnxruntime")
    r, debug, body = _run_silero(qtbot, window)
    r.compare_onnxruntime()
    _finish(qtbot, window)
    report = r.controller.report
    assert report is not None, r.controller.last_error
    ran = next(b for b in report.bodies if b.graph is body)
    assert ran.report is not None and ran.compared > 50 and ran.report.agrees
    assert "Inside bodies (each run alone by onnxruntime on our inputs): " in r.compare.summary.text()
    # the body's nodes are rows of the table, beside the main graph's
    assert any(nd.node.graph is body for nd in r.compare.rows)
