"""Journey: compare with onnxruntime, change the Run dock's inputs, run again.
The canvas's box colours, the Compare dock's note and the Tensor Inspector
must all say the same thing about the comparison: it is of the values shown
only while those were computed from the inputs it ran on (found under Xvfb:
after a run on new inputs every box stayed green, its tooltip giving the
error of values no longer shown, while the inspector had already dropped
onnxruntime's values). A run that finds the compared inputs again (the
seed changed back, or changed while every input comes from a file) makes
the comparison, and the inspected value, current again."""
from __future__ import annotations

import shutil

import numpy as np
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication

from viewer_helpers import open_model, wait_idle
from onnxstudio.core.exec.run_files import save_npz
from onnxstudio.resources import sample_path

OLD_INPUTS = "Made with the inputs before your last change"


def _demo(qtbot, window, tmp_path):
    path = shutil.copy(sample_path("demo.onnx"), tmp_path / "demo.onnx")
    open_model(qtbot, window, path)
    qtbot.waitUntil(lambda: window.qdoc.ready, timeout=60_000)
    return window.run_ui, window.model.graph


def _press_run(qtbot, window):
    """Ctrl+R, as a user runs the model."""
    window.activateWindow()
    qtbot.waitUntil(lambda: QApplication.activeWindow() is window, timeout=10_000)
    window.graph.view.setFocus()
    qtbot.keyClick(window.graph.view, Qt.Key_R, Qt.ControlModifier)
    _finish(qtbot, window)


def _finish(qtbot, window):
    assert window.run_ui.controller.wait(300_000)
    wait_idle(qtbot, window)


def _bands(window) -> list:
    """The boxes coloured by the comparison on the canvas."""
    return [m for m in window.run_ui.overlay._marks if m.band is not None]


def _gemm_output(graph):
    return next(n for n in graph.nodes if n.op_type == "Gemm").outputs[0]


def _compare(qtbot, window, r, graph):
    r.compare_onnxruntime()
    _finish(qtbot, window)
    assert not r.controller.last_error, r.controller.last_error
    assert r.controller.report is not None and _bands(window)
    assert r.inspect(_gemm_output(graph)) and r.inspector.other is not None
    assert OLD_INPUTS not in r.compare.summary.text()


def test_box_colours_go_with_the_inputs_they_were_made_on_and_come_back_with_them(qtbot, window, tmp_path):
    r, graph = _demo(qtbot, window, tmp_path)
    _compare(qtbot, window, r, graph)
    seed = r.inputs.seed.value()

    r.inputs.seed.setValue(seed + 1)
    wait_idle(qtbot, window)
    assert not _bands(window)                # the values shown are marked stale; nothing vouches for colours
    assert OLD_INPUTS in r.compare.summary.text() and "off the canvas" in r.compare.summary.text()
    _press_run(qtbot, window)
    assert r.controller.debug.nodes_run, "the new inputs were run"
    assert not _bands(window), "boxes coloured by a comparison of other inputs than the values shown"
    assert r.inspector.other is None and OLD_INPUTS in r.compare.summary.text()

    r.inputs.seed.setValue(seed)             # back to the compared inputs
    wait_idle(qtbot, window)
    _press_run(qtbot, window)
    assert _bands(window), "the comparison is of these inputs again: its colours are back"
    assert OLD_INPUTS not in r.compare.summary.text()
    assert r.inspector.other is not None and r.inspector.tabs.isTabEnabled(3)


def test_a_seed_change_that_changes_no_input_leaves_nothing_marked_old_after_a_run(qtbot, window, tmp_path):
    r, graph = _demo(qtbot, window, tmp_path)
    feeds = r.inputs.make_feeds()
    assert feeds
    save_npz(tmp_path / "inputs.npz", feeds)
    assert r.inputs.load_all_inputs(tmp_path / "inputs.npz")
    _compare(qtbot, window, r, graph)
    shown = r.inspector.array

    r.inputs.seed.setValue(r.inputs.seed.value() + 1)     # every input comes from the file: none changes
    wait_idle(qtbot, window)
    assert not r.inspector.note.isHidden()                # said at once, before anyone knows
    _press_run(qtbot, window)
    assert r.controller.debug.nodes_run == []             # the run found the inputs it had
    assert r.inspector.array is shown or np.array_equal(r.inspector.array, shown)
    assert r.inspector.note.isHidden(), "the inspector still says its value is of the inputs before"
    assert _bands(window) and OLD_INPUTS not in r.compare.summary.text()
    assert r.inspector.other is not None
