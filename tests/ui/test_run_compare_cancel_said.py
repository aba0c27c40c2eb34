"""Cancel during the comparison's own-error pass: the comparison is shown,
its own errors partial. The Compare dock said so, but the Run dock's status,
right under the Cancel button just pressed, said only "Compared with
onnxruntime: 672 of 672 nodes agree; no divergence" (seen under Xvfb on
ppocr_v4_det, cancelled 40 s in)."""
from __future__ import annotations

import shutil

import pytest
from PySide6.QtCore import Qt

from holding import held
from viewer_helpers import open_model, slowed, wait_idle
from onnxstudio.resources import sample_path


def test_the_run_dock_says_the_own_errors_were_cancelled(qtbot, window, tmp_path, monkeypatch):
    pytest.importorskip("onnxruntime")
    from onnxstudio.core.exec import own_error
    open_model(qtbot, window, shutil.copy(sample_path("demo.onnx"), tmp_path / "demo.onnx"))
    r = window.run_ui
    real = own_error.own_error
    # The first node long enough for the status to count the second (a count every 0.1 s at
    # most); the second held until Cancel is pressed, so the pass surely cannot end before it.
    slowed(monkeypatch, own_error, "own_error", 0.3)
    with held(monkeypatch, own_error, "own_error", from_call=2) as second:
        r.compare_onnxruntime()
        status = r.dock_widget.status
        qtbot.waitUntil(lambda: second.waiting.is_set() and "own error: 2/" in status.text(), timeout=120_000)
        qtbot.mouseClick(r.dock_widget.cancel_button, Qt.LeftButton)
    assert r.controller.wait(300_000)
    wait_idle(qtbot, window)
    measured, total = r.controller.report.own_cancelled
    said = f"own errors cancelled after {measured} of {total} nodes"
    assert status.text().startswith("Compared with onnxruntime") and said in status.text(), status.text()
    assert said in window.statusBar().currentMessage()

    monkeypatch.setattr(own_error, "own_error", real)     # compared through: nothing cancelled to say
    r.compare_onnxruntime()
    assert r.controller.wait(300_000)
    wait_idle(qtbot, window)
    assert "cancelled" not in status.text()


def test_cancel_while_onnxruntime_runs_stops_it(qtbot, window, tmp_path, monkeypatch):
    """Cancel pressed while onnxruntime ran answered nothing for as long as
    it ran (17 s on ppocr_v4_det under load; 89 s on a legacy llama export of
    8,108 nodes at 1,024 tokens, whose values were then compared too). Its
    run is now stopped (core/exec/compare.Stop): the job ends cancelled,
    nothing compared, and the next comparison runs whole."""
    pytest.importorskip("onnxruntime")
    from onnxstudio.core.exec import compare
    open_model(qtbot, window, shutil.copy(sample_path("demo.onnx"), tmp_path / "demo.onnx"))
    r = window.run_ui
    status = r.dock_widget.status
    # onnxruntime's run held until Cancel was pressed: a fixed sleep could end first on a busy machine.
    with held(monkeypatch, compare, "compare_run_with_onnxruntime") as ort_run:
        r.compare_onnxruntime()
        qtbot.waitUntil(lambda: ort_run.waiting.is_set() and "onnxruntime: running" in status.text(),
                        timeout=120_000)
        qtbot.mouseClick(r.dock_widget.cancel_button, Qt.LeftButton)
    assert r.controller.wait(300_000)
    wait_idle(qtbot, window)
    assert status.text().startswith("Run cancelled"), status.text()
    assert r.controller.report is None and r.compare.report is None
    r.compare_onnxruntime()
    assert r.controller.wait(300_000)
    wait_idle(qtbot, window)
    assert r.controller.report is not None and status.text().startswith("Compared with onnxruntime"), status.text()


def test_the_values_compared_show_their_progress_and_cancel_stops_them(qtbot, window, tmp_path, monkeypatch):
    """After onnxruntime's run, each of its values is compared with ours
    (26 s on that llama): the status said onnxruntime was running all along
    and Cancel waited for the end. The count shows now, and Cancel stops it."""
    pytest.importorskip("onnxruntime")
    from onnxstudio.core.exec import compare
    open_model(qtbot, window, shutil.copy(sample_path("demo.onnx"), tmp_path / "demo.onnx"))
    r = window.run_ui
    status = r.dock_widget.status
    with held(monkeypatch, compare, "compare_value") as first_value:
        r.compare_onnxruntime()
        qtbot.waitUntil(lambda: first_value.waiting.is_set() and "comparing with onnxruntime's values: 1/" in
                        status.text(), timeout=120_000)
        qtbot.mouseClick(r.dock_widget.cancel_button, Qt.LeftButton)
    assert r.controller.wait(300_000)
    wait_idle(qtbot, window)
    assert status.text().startswith("Run cancelled"), status.text()
    assert r.controller.report is None
