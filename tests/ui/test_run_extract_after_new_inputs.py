"""Extract failing subgraph… after the inputs changed and the model ran on
them: the extract took the model's inputs from the values held (the new
inputs) and the intermediates from onnxruntime's run (the inputs compared),
so the bug report held the inputs of one run beside the values of another.
It takes the inputs the comparison ran on."""
from __future__ import annotations

import shutil

import numpy as np
import pytest

from viewer_helpers import open_model, wait_idle
from onnxstudio.core.edits import SetInitializer
from onnxstudio.resources import sample_path


def _finish(qtbot, window):
    assert window.run_ui.controller.wait(300_000)
    wait_idle(qtbot, window)


def test_the_extract_holds_the_inputs_onnxruntime_ran_on(qtbot, window, tmp_path):
    pytest.importorskip("onnxruntime")
    open_model(qtbot, window, shutil.copy(sample_path("demo.onnx"), tmp_path / "demo.onnx"))
    r = window.run_ui
    c = r.controller
    conv = window.model.graph.nodes[0]                 # reads the graph input "pixels"
    weight = conv.inputs[1]
    # Unsaved: onnxruntime runs the file as saved, so the conv disagrees.
    window.qdoc.apply(SetInitializer(weight.name, weight.const.numpy() * 2))
    wait_idle(qtbot, window)
    compared = r.inputs.make_feeds()["pixels"]
    r.compare_onnxruntime()
    _finish(qtbot, window)
    assert c.report.first_divergence.node is conv

    r.inputs.seed.setValue(r.inputs.seed.value() + 1)  # new inputs, run: the values held are theirs
    wait_idle(qtbot, window)
    r.run_all()
    _finish(qtbot, window)
    assert not np.array_equal(c.debug.values["pixels"], compared)

    out = tmp_path / "out"
    out.mkdir()
    assert r.compare_actions.start(out / "small.onnx", conv)
    qtbot.waitUntil(lambda: r.compare_actions.job is None, timeout=120_000)
    assert "Wrote the failing subgraph" in r.dock_widget.status.text(), r.dock_widget.status.text()
    with np.load(out / "small.inputs.npz") as saved:
        np.testing.assert_array_equal(saved["pixels"], compared)
