"""The Compare dock after a comparison with an edited node (issue 23): the
canvas coloured by total or own error, the table sorted by either, and
Extract failing subgraph… writing a small model that still disagrees."""
from __future__ import annotations

import shutil

import pytest

from viewer_helpers import open_model, wait_idle
from onnxstudio.core import load
from onnxstudio.core.edits import SetAttribute
from onnxstudio.core.ir import AttrType
from onnxstudio.resources import sample_path
from onnxstudio.ui.run.compare_view import CompareView
from onnxstudio.ui.run.extract_failing import ExtractJob
from onnxstudio.ui.run.overlay import NodeMark, error_colour


def finish(qtbot, win):
    assert win.run_ui.controller.wait(300_000)
    wait_idle(qtbot, win)


def coloured(win) -> list[str]:
    """The node boxes whose band says 'differs' (first tooltip line: the node)."""
    agrees = error_colour(0, True)
    return [m.toolTip().split("\n")[0] for m in win.run_ui.overlay.items
            if isinstance(m, NodeMark) and m.band is not None and m.band != agrees]


def _compared_with_an_edit(qtbot, window, tmp_path):
    pytest.importorskip("onnxruntime")
    path = shutil.copy(sample_path("demo.onnx"), tmp_path / "demo.onnx")
    open_model(qtbot, window, path)
    r = window.run_ui
    r.run_all()
    finish(qtbot, window)
    gemm = list(r.controller.model.graph.nodes)[8]
    # Unsaved: onnxruntime runs the file as saved.
    assert window.qdoc.apply(SetAttribute(gemm.name, "alpha", AttrType.FLOAT, 2.0))
    r.compare_onnxruntime()
    finish(qtbot, window)
    return r, gemm


def test_colour_by_own_error_lights_only_the_edited_node(qtbot, window, tmp_path):
    r, gemm = _compared_with_an_edit(qtbot, window, tmp_path)
    report = r.controller.report
    assert report.worst_own.node is gemm and report.first_divergence.node is gemm
    total = coloured(window)
    assert gemm.display_name in total and len(total) > 1           # what comes after inherits the error
    view: CompareView = r.compare
    view.colour_by.setCurrentIndex(view.colour_by.findData("own"))
    assert r.overlay.colour_by == "own"
    assert coloured(window) == [gemm.display_name]
    assert view.node_at(0).node is gemm                             # sorted by own error
    assert "Largest own error" in view.summary.text()
    view.table.sortItems(2)                                         # by max abs, ascending
    firsts = [view.node_at(i).max_abs for i in range(view.table.rowCount())]
    assert firsts == sorted(firsts)
    view.colour_by.setCurrentIndex(view.colour_by.findData("total"))
    assert sorted(coloured(window)) == sorted(total)


def test_extract_failing_subgraph_writes_a_small_model(qtbot, window, tmp_path):
    r, gemm = _compared_with_an_edit(qtbot, window, tmp_path)
    assert r.compare.extract_button.isEnabled()
    actions = r.compare_actions
    out = tmp_path / "out"
    out.mkdir()
    assert actions.start(out / "small.onnx")
    qtbot.waitUntil(lambda: actions.job is None, timeout=120_000)
    assert sorted(p.name for p in out.iterdir()) == ["small.expected.npz", "small.inputs.npz", "small.onnx",
                                                     "small.reference.onnx"]
    small = load(out / "small.onnx")
    assert [n.name for n in small.graph.nodes if n.op_type != "Constant"] == [gemm.name]
    assert "Wrote the failing subgraph" in r.dock_widget.status.text()


def test_a_cancelled_extract_writes_nothing(qtbot, tmp_path):
    written = []

    def work(progress):
        progress(1, 64)             # the search's first attempt: Cancel stops it here
        written.append(1)
    job = ExtractJob(work)
    job.cancel()
    with qtbot.waitSignal(job.cancelled, timeout=1000):
        job.run()
    assert written == []
