"""An error of ours that stops the analysis (inference and the checker) is
said in the Problems dock; it used to go to stderr only, and the dock said
"checking…" for ever, which a user reads as "wait"."""
from __future__ import annotations


def test_a_failed_analysis_is_said_in_the_problems_dock(qtbot, window, monkeypatch):
    import onnxstudio.core.analysis as analysis_module

    def broken(_model):
        raise RuntimeError("inference blew up")

    monkeypatch.setattr(analysis_module, "Analysis", broken)
    window.open_demo()
    qtbot.waitUntil(lambda: not window.busy, timeout=120_000)
    summary = window.edit_actions.problems.summary
    assert not window.qdoc.ready
    assert "not checked" in summary.text() and "inference blew up" in summary.text()
    assert "RuntimeError: inference blew up" in summary.toolTip()
