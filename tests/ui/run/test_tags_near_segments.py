"""Placing value tags measures each trial place against the edges nearby;
on a decoder's long edges (llama_past_dynamo) a Python pass over every
segment made its 218 tags take 2.3 s to appear (1.0 s now). Only the segments
near enough are measured now: the tags land exactly where they did."""
from __future__ import annotations

from shared_models import shared_model
from viewer_helpers import open_model, wait_idle
from onnxstudio.ui.run import overlay
from onnxstudio.ui.run.overlay import ValueTag


def _placed(qtbot, window, folder) -> dict:
    open_model(qtbot, window, folder / "model.onnx")
    r = window.run_ui
    assert r.inputs.load_all_inputs(folder / "inputs.npz")
    r.run_all()
    assert r.controller.wait(300_000)
    wait_idle(qtbot, window)
    assert not r.controller.last_error
    scene = window.graph.scene
    return {(t.toolTip(), round(t.scenePos().x(), 6), round(t.scenePos().y(), 6))
            for t in r.overlay.items if isinstance(t, ValueTag) and t.scene() is scene and t.isVisible()}


def test_tags_land_where_a_pass_over_every_segment_put_them(qtbot, window, monkeypatch):
    folder = shared_model("bert_small")
    monkeypatch.setattr(overlay, "_FEW_SEGMENTS", 10**9)          # every segment measured, as before
    every = _placed(qtbot, window, folder)
    monkeypatch.undo()
    picked = []
    real = overlay._Line.bounds
    monkeypatch.setattr(overlay._Line, "bounds", lambda line: picked.append(1) or real(line))
    near = _placed(qtbot, window, folder)
    assert picked, "no edge long enough to pick its near segments: the test measures nothing"
    assert len(every) > 100 and near == every
