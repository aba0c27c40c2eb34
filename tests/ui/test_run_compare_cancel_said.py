"""Cancel during the comparison's own-error pass: the comparison is shown,
its own errors partial. The Compare dock said so, but the Run dock's status,
right under the Cancel button just pressed, said only "Compared with
onnxruntime: 672 of 672 nodes agree; no divergence" (seen under Xvfb on
ppocr_v4_det, cancelled 40 s in)."""
from __future__ import annotations

import shutil
import time

import pytest
from PySide6.QtCore import Qt

from viewer_helpers import open_model, wait_idle
from onnxstudio.resources import sample_path


def test_the_run_dock_says_the_own_errors_were_cancelled(qtbot, window, tmp_path, monkeypatch):
    pytest.importorskip("onnxruntime")
    from onnxstudio.core.exec import own_error
    open_model(qtbot, window, shutil.copy(sample_path("demo.onnx"), tmp_path / "demo.onnx"))
    r = window.run_ui
    real = own_error.own_error

    def slow(*args, **kwargs):           # each node long enough to press Cancel partway
        time.sleep(0.3)
        return real(*args, **kwargs)
    monkeypatch.setattr(own_error, "own_error", slow)
    r.compare_onnxruntime()
    status = r.dock_widget.status
    qtbot.waitUntil(lambda: "own error: 2/" in status.text(), timeout=60_000)
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
