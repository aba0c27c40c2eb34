"""An edit, or a change of the Run dock's inputs, while a job runs cancels
it. The Run dock then kept saying "Running the model…" with nothing running
(seen under Xvfb: an edit 0.7 s into ppocr_v4_det's run); a change of the
inputs during a whole run said it "ended the stepping run". Each now says
which job it stopped."""
from __future__ import annotations

import shutil
import threading

from viewer_helpers import open_model, wait_idle
from onnxstudio.core import edits as E
from onnxstudio.core.ir import AttrType
from onnxstudio.resources import sample_path
from onnxstudio.ui.run.controller import RunJob


def _slow_run(qtbot, window, monkeypatch):
    """A whole run of the demo that is still running when the test acts:
    after its first node it waits until it is cancelled (each node waiting
    0.1 s gave a loaded machine a second to end the run first)."""
    report, cancel = RunJob.report, RunJob.cancel
    stopped = threading.Event()

    def cancel_and_let_go(job):
        cancel(job)             # the flag first: let go, the run stops at its next node
        stopped.set()

    def waiting_report(job, i, n, node):
        if i > 0:
            stopped.wait(300)
        report(job, i, n, node)
    monkeypatch.setattr(RunJob, "cancel", cancel_and_let_go)
    monkeypatch.setattr(RunJob, "report", waiting_report)
    r = window.run_ui
    r.run_all()
    qtbot.waitUntil(lambda: r.controller.job is not None and r.controller.job.isRunning(), timeout=30_000)
    assert r.dock_widget.status.text() == "Running the model…"
    return r


def _demo(qtbot, window, tmp_path):
    open_model(qtbot, window, shutil.copy(sample_path("demo.onnx"), tmp_path / "demo.onnx"))
    qtbot.waitUntil(lambda: window.qdoc.ready, timeout=60_000)


def test_an_edit_during_a_run_says_it_stopped_the_run(qtbot, window, tmp_path, monkeypatch):
    _demo(qtbot, window, tmp_path)
    r = _slow_run(qtbot, window, monkeypatch)
    gemm = next(n for n in window.model.graph.nodes if n.op_type == "Gemm")
    window.qdoc.apply(E.SetAttribute(E.node_ref(gemm), "alpha", AttrType.FLOAT, 2.0))
    assert not r.controller.running
    wait_idle(qtbot, window)
    status = r.dock_widget.status.text()
    assert "Running the model" not in status.replace("(Running the model)", ""), status
    assert "Your edit stopped the job in progress (Running the model)" in status
    assert not r.dock_widget.cancel_button.isEnabled()


def test_a_change_of_the_inputs_during_a_run_says_it_stopped_the_run(qtbot, window, tmp_path, monkeypatch):
    _demo(qtbot, window, tmp_path)
    r = _slow_run(qtbot, window, monkeypatch)
    r.inputs.seed.setValue(r.inputs.seed.value() + 1)
    assert not r.controller.running
    wait_idle(qtbot, window)
    status = r.dock_widget.status.text()
    assert "Your change of the inputs stopped the job in progress (Running the model)" in status, status
    assert "stepping" not in status
