"""Cancel pressed while a model opens: the status line must not go on
saying "Loading …" or "Laying out …" (it did, beside an empty canvas, with
the progress bar gone: the 2 GB LLM's layout cancelled looked like a
layout still running)."""
from __future__ import annotations

from holding import held
from onnxstudio.ui import workers
from shared_models import SHARED_MODELS
from viewer_helpers import open_model, wait_idle


def test_cancel_while_loading_says_cancelled(qtbot, window):
    window.open_path(SHARED_MODELS / "bert_small" / "model.onnx")
    assert window.cancel_button.isVisibleTo(window)
    assert window.status_label.text().startswith("Loading")
    window.cancel_button.click()
    wait_idle(qtbot, window)
    text = window.status_label.text()
    assert not window.progress.isVisibleTo(window)
    assert "Loading" not in text and "Laying out" not in text
    assert "ancelled" in text


def test_cancel_while_laying_out_says_cancelled(qtbot, window, monkeypatch):
    # The layout is held until Cancel is pressed: bert_small's layout, cached by an earlier
    # test of the same process, could end before the test's next look at the window.
    with held(monkeypatch, workers, "lay_out_level"):
        window.open_path(SHARED_MODELS / "bert_small" / "model.onnx")
        qtbot.waitUntil(lambda: not window.loading, timeout=120_000)   # loaded: its layout is held
        assert window.graph.layout_running
        window.cancel_button.click()
    wait_idle(qtbot, window)
    text = window.status_label.text()
    assert "Laying out" not in text and "ancelled" in text
    # The cancelled job, let go, ends: nothing of it reaches the canvas or the status line.
    qtbot.waitUntil(lambda: not window.findChildren(workers.LayoutJob), timeout=120_000)
    assert window.status_label.text() == text and not window.graph.scene.node_items
    # Opening again works and says what is shown.
    open_model(qtbot, window, SHARED_MODELS / "silero_vad" / "model.onnx")
    assert "boxes" in window.status_label.text()


def test_cancel_of_a_relayout_says_the_picture_stays(qtbot, window):
    """Cancelling Expand All leaves the picture that was shown: the status
    line must not send the user to open the file again."""
    open_model(qtbot, window, SHARED_MODELS / "bert_small" / "model.onnx")
    boxes = len(window.graph.scene.node_items)
    window.graph.expand_all()
    assert window.graph.layout_running
    window.cancel_button.click()
    wait_idle(qtbot, window)
    text = window.status_label.text()
    assert len(window.graph.scene.node_items) == boxes
    assert "ancelled" in text and "open the file" not in text
