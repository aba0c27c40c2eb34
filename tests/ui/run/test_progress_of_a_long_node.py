"""A job's bar shows where it is however soon a long node starts. Each
node is reported as it starts, the first count after 40 ms: a Loop of
4,000 iterations reached before that (Ctrl+R or F10 on it, under Xvfb)
left the bar empty and still, "Running the model…" all it said."""
from __future__ import annotations

from onnx import TensorProto as TP, helper as h
from PySide6.QtCore import Qt

from holding import held
from viewer_helpers import open_model, wait_idle
from onnxstudio.ui.run.controller import RunController, RunJob


def _three_nodes(path):
    graph = h.make_graph([h.make_node("Relu", ["x"], ["a"], name="first"),
                          h.make_node("Neg", ["a"], ["b"], name="second"),
                          h.make_node("Abs", ["b"], ["y"], name="third")], "g",
                         [h.make_tensor_value_info("x", TP.FLOAT, [2])], [h.make_tensor_value_info("y", TP.FLOAT, [2])])
    path.write_bytes(h.make_model(graph, opset_imports=[h.make_opsetid("", 17)]).SerializeToString())
    return path


def test_a_job_with_no_count_yet_shows_the_bar_busy(qtbot, window, tmp_path, monkeypatch):
    open_model(qtbot, window, _three_nodes(tmp_path / "m.onnx"))
    r = window.run_ui
    bar = r.dock_widget.progress
    with held(monkeypatch, RunController, "_feeds") as feeds:      # the job at work before any node
        r.run_all()
        qtbot.waitUntil(lambda: feeds.waiting.is_set() and bar.maximum() == 0, timeout=60_000)
    assert r.controller.wait(300_000)
    wait_idle(qtbot, window)
    assert bar.maximum() == 1 and not bar.format() and not r.controller.last_error


def test_a_long_node_right_after_the_start_shows_its_count(qtbot, window, tmp_path, monkeypatch):
    open_model(qtbot, window, _three_nodes(tmp_path / "m.onnx"))
    r = window.run_ui
    bar = r.dock_widget.progress
    # The second node's report (and with it the node) held: the first reported, maybe not shown.
    with held(monkeypatch, RunJob, "report", from_call=2) as second:
        r.run_all()
        qtbot.waitUntil(lambda: second.waiting.is_set() and bar.text() == "node 1 of 3", timeout=60_000)
        assert bar.toolTip() == 'Relu "first"'
        qtbot.mouseClick(r.dock_widget.cancel_button, Qt.LeftButton)
    assert r.controller.wait(300_000)
