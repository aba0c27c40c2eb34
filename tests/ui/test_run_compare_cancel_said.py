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


def test_cancel_while_onnxruntime_runs_is_answered_at_once(qtbot, window, tmp_path, monkeypatch):
    """onnxruntime's run cannot be stopped partway: Cancel pressed then
    answered nothing for as long as it ran (17 s on ppocr_v4_det under load,
    the status still saying it runs). It says what happens now."""
    pytest.importorskip("onnxruntime")
    from onnxstudio.core.exec import compare
    open_model(qtbot, window, shutil.copy(sample_path("demo.onnx"), tmp_path / "demo.onnx"))
    r = window.run_ui
    # onnxruntime's run held until Cancel was answered: a fixed 1.5 s could end first on a busy machine.
    with held(monkeypatch, compare, "compare_run_with_onnxruntime") as ort_run:
        r.compare_onnxruntime()
        status = r.dock_widget.status
        qtbot.waitUntil(lambda: ort_run.waiting.is_set() and "onnxruntime: running" in status.text(),
                        timeout=120_000)
        qtbot.mouseClick(r.dock_widget.cancel_button, Qt.LeftButton)
        assert "Cancelling" in status.text()                 # at once: said by the press itself
        assert r.controller.running                          # still waiting for onnxruntime
        assert "cannot be stopped partway" in status.text()
    assert r.controller.wait(300_000)
    wait_idle(qtbot, window)
    assert "own errors cancelled after 0 of" in status.text()
