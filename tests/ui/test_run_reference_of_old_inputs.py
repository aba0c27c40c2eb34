"""Keep Run as Reference after a change of the inputs keeps the values held,
which are of the inputs before (their tags are marked so): a later run is
compared with them, and differs by the inputs as much as by any edit. The
status said only "Kept 23 values as the reference run"; it says whose
inputs they are of."""
from __future__ import annotations

import shutil

from viewer_helpers import open_model, wait_idle
from onnxstudio.resources import sample_path

SAID = "computed from the inputs before your last change"


def test_a_reference_kept_from_values_of_the_inputs_before_says_so(qtbot, window, tmp_path):
    open_model(qtbot, window, shutil.copy(sample_path("demo.onnx"), tmp_path / "demo.onnx"))
    r = window.run_ui
    c = r.controller
    r.run_all()
    assert c.wait(300_000)
    wait_idle(qtbot, window)
    assert c.keep_reference()
    assert "as the reference run" in r.dock_widget.status.text() and SAID not in r.dock_widget.status.text()
    r.inputs.seed.setValue(r.inputs.seed.value() + 1)
    wait_idle(qtbot, window)
    assert c.keep_reference()
    assert "as the reference run" in r.dock_widget.status.text() and SAID in r.dock_widget.status.text()
    assert SAID in window.statusBar().currentMessage()
