"""What the run overlay redoes when the run's state changes (responsiveness,
issue 22): a change only the node marks show (a step starting, a
breakpoint) leaves the value tags alone; the layout's boxes, titles and
labels the tags keep clear of are gathered once per layout. pytest-qt,
offscreen."""
from viewer_helpers import open_model, wait_idle
from onnxstudio.resources import sample_path
from onnxstudio.ui.run.overlay import NodeMark, RunOverlay, ValueTag


def test_a_breakpoint_redraws_the_marks_not_the_tags(qtbot, window, monkeypatch):
    open_model(qtbot, window, sample_path("demo.onnx"))
    r = window.run_ui
    for _ in range(3):
        r.step_action.trigger()
        assert r.controller.wait(60_000)
        wait_idle(qtbot, window)
    tags = [i for i in r.overlay.items if isinstance(i, ValueTag)]
    places = [t.pos() for t in tags]
    assert tags
    calls = []
    value_tags = RunOverlay._value_tags
    monkeypatch.setattr(RunOverlay, "_value_tags", lambda self, *a: calls.append(1) or value_tags(self, *a))
    later = list(r.controller.model.graph.nodes)[-1]
    r.controller.debug.breakpoints.add(later)
    r.overlay.refresh()
    assert not calls                                     # the tags were left as they were
    assert [i for i in r.overlay.items if isinstance(i, ValueTag)] == tags
    assert [t.pos() for t in tags] == places and all(t.scene() is window.graph.scene for t in tags)
    marks = [i for i in r.overlay.items if isinstance(i, NodeMark)]
    assert any(m.breakpoint for m in marks) and any(m.current for m in marks)
    assert all(m.scene() is window.graph.scene for m in marks)
    r.controller.debug.breakpoints.discard(later)
    r.overlay.refresh()
    assert not calls and not any(m.breakpoint for m in r.overlay.items if isinstance(m, NodeMark))
    assert all(m.scene() is None for m in marks)         # the old marks are off the scene
    # Full refreshes on the same layout and labels gather its boxes and labels once.
    r.overlay._shown = None                # forget what is shown: everything placed again
    r.overlay.refresh()
    ground = r.overlay._ground
    r.overlay._shown = None
    r.overlay.refresh()
    assert len(calls) == 2 and r.overlay._ground is ground
