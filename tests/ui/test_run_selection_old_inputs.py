"""Run Selection after a change of the Run dock's inputs computes from the
last run's values, of the inputs before: its tags were marked stale, but the
status said only "Ran the selection: 1 node computed", which reads as a run
on the inputs just set (seen under Xvfb on bert_small). It says so now."""
from __future__ import annotations

import shutil

from viewer_helpers import open_model, wait_idle
from onnxstudio.resources import sample_path

OLD = "of the inputs before your last change"


def _finish(qtbot, window):
    assert window.run_ui.controller.wait(300_000)
    wait_idle(qtbot, window)


def test_a_selection_run_on_the_values_of_the_inputs_before_says_so(qtbot, window, tmp_path):
    open_model(qtbot, window, shutil.copy(sample_path("demo.onnx"), tmp_path / "demo.onnx"))
    r = window.run_ui
    c = r.controller
    gemm = next(n for n in window.model.graph.nodes if n.op_type == "Gemm")
    r.run_all()
    _finish(qtbot, window)
    assert c.run_selection([gemm])
    _finish(qtbot, window)
    assert OLD not in r.dock_widget.status.text()          # the values of the inputs shown: nothing to say

    r.inputs.seed.setValue(r.inputs.seed.value() + 1)
    wait_idle(qtbot, window)
    assert c.run_selection([gemm])
    _finish(qtbot, window)
    assert c.debug.nodes_run == [gemm]
    assert OLD in r.dock_widget.status.text() and OLD in window.statusBar().currentMessage()
    tag = next(t for t in r.overlay.items if getattr(t, "name", None) == gemm.outputs[0].name)
    assert tag.stale                                       # and its tag is marked as of those inputs

    r.run_all()                                            # on the new inputs
    _finish(qtbot, window)
    assert c.run_selection([gemm])
    _finish(qtbot, window)
    assert OLD not in r.dock_widget.status.text()
