"""Each value tag sits on or beside its own edge (issue 22, QA): on
silero_vad the tag of `state` sat left of `input`'s edge into the If and
the tags of the If's inputs stacked; on bert_small tags covered the edges'
type labels. A tag overlaps no other tag, type label or node box, and no
edge of another value passes nearer to it than its own; where no such
place exists it is not shown, and its edge's tooltip says so.
Geometry measured here on the scene's own paths (not the overlay's
polylines). pytest-qt, offscreen."""
import math

import pytest
from PySide6.QtCore import QRectF

from shared_models import shared_model
from viewer_helpers import open_model, wait_idle
from onnxstudio.ui.run.overlay import ValueTag


class _Curve:
    """An edge's curve as points along it (QPainterPath.intersects would
    test the area the curve closes with its chord)."""

    def __init__(self, edge, steps: int = 300):
        self.name = edge.ref.value.name
        self.bounds = edge.path.boundingRect()
        self.points = [(p.x(), p.y()) for p in (edge.path.pointAtPercent(i / steps) for i in range(steps + 1))]

    def distance(self, rect: QRectF) -> float:
        """How near the curve comes to `rect` (0 when it enters it)."""
        best = math.inf
        for x, y in self.points:
            dx = max(rect.left() - x, 0.0, x - rect.right())
            dy = max(rect.top() - y, 0.0, y - rect.bottom())
            best = min(best, math.hypot(dx, dy))
        return best


def _run(qtbot, window, tmp_path, name):
    folder = shared_model(name)
    open_model(qtbot, window, folder / "model.onnx")
    r = window.run_ui
    assert r.inputs.load_all_inputs(folder / "inputs.npz")
    r.run_all()
    assert r.controller.wait(300_000)
    wait_idle(qtbot, window)
    assert not r.controller.last_error
    return r


@pytest.mark.parametrize("name, shown_at_least", [("silero_vad", 4), ("bert_small", 100)])
def test_each_tag_is_beside_its_own_edge_or_hidden(qtbot, window, tmp_path, name, shown_at_least):
    r = _run(qtbot, window, tmp_path, name)
    scene = window.graph.scene
    edges = [e for e in scene.edge_items.values() if getattr(e.ref, "value", None) is not None]
    labels = [(e.full_label, e.label_rect) for e in edges if e.label_rect is not None]
    boxes = [item.scene_rect() for item in scene.node_items.values()]
    curves = [_Curve(e) for e in edges]
    tags = [t for t in r.overlay.items if isinstance(t, ValueTag) and t.scene() is scene]
    assert len(tags) >= shown_at_least
    rects = [(t, t.mapRectToScene(t.rect)) for t in tags]
    for i, (tag, rect) in enumerate(rects):
        inner = rect.adjusted(0.5, 0.5, -0.5, -0.5)        # touching is not covering
        assert not [o.name for o, other in rects[i + 1:] if other.intersects(inner)], tag.name
        assert not [text for text, label in labels if label.intersects(inner)], tag.name
        assert not [box for box in boxes if box.intersects(inner)], tag.name
        own = min(c.distance(rect) for c in curves if c.name == tag.name)
        near = rect.adjusted(-own - 1, -own - 1, own + 1, own + 1)
        nearer = [c.name for c in curves if c.name != tag.name and c.bounds.intersects(near)
                  and c.distance(rect) < own - 0.75]
        assert not nearer, f"the tag of {tag.name} ({own:.1f} px from its edge) is nearer to {nearer}"
        assert own <= 30.0, f"the tag of {tag.name} is {own:.1f} px from its edge"
    # What is not shown is said on its edge, and only there.
    for value_name, text in r.overlay.hidden.items():
        assert value_name not in {t.name for t in tags}
        tips = [e.toolTip() for e in edges if e.ref.value.name == value_name]
        assert any(text in tip and "no room" in tip for tip in tips), value_name
    assert len(tags) + len(r.overlay.hidden) == len({t.name for t in tags} | set(r.overlay.hidden))
    # ... and the Run dock says how many are not shown (a tooltip alone leaves the user guessing).
    note = r.dock_widget.tags_note
    assert note.isHidden() == (not r.overlay.hidden)
    if r.overlay.hidden:
        assert "not shown" in note.text() and f": {len(r.overlay.hidden)} (" in note.text(), note.text()


def test_silero_state_tag_is_not_beside_the_input_edge(qtbot, window, tmp_path):
    """The case QA saw: float[2,1,128] (state) left of the If, on input's edge."""
    r = _run(qtbot, window, tmp_path, "silero_vad")
    scene = window.graph.scene
    curves = [_Curve(e) for e in scene.edge_items.values() if getattr(e.ref, "value", None) is not None]
    tags = {t.name: t.mapRectToScene(t.rect) for t in r.overlay.items if isinstance(t, ValueTag)}
    assert "input" in tags or "input" in r.overlay.hidden
    assert "state" in tags or "state" in r.overlay.hidden
    if "state" in tags:
        rect = tags["state"]
        assert min(c.distance(rect) for c in curves if c.name == "state") < \
            min(c.distance(rect) for c in curves if c.name == "input")
    # Nothing computed goes missing without a word: every graph input has a tag or a note.
    assert {"input", "state", "sr"} <= set(tags) | set(r.overlay.hidden)
    # Hidden tags come back where the next placement finds room (nothing is remembered wrongly).
    r.overlay.clear()
    r.overlay.refresh()
    wait_idle(qtbot, window)
    assert {t.name for t in r.overlay.items if isinstance(t, ValueTag)} == set(tags)


def test_the_count_of_hidden_tags_goes_with_the_run(qtbot, window, tmp_path):
    """Opening another model clears the run's tags: the Run dock's line
    counting the hidden ones goes too (it stayed, naming the old model's 49)."""
    import shutil

    from onnxstudio.resources import sample_path
    r = _run(qtbot, window, tmp_path, "bert_small")
    assert r.overlay.hidden and not r.dock_widget.tags_note.isHidden()
    open_model(qtbot, window, shutil.copy(sample_path("demo.onnx"), tmp_path / "demo.onnx"))
    wait_idle(qtbot, window)
    assert not r.overlay.hidden
    assert r.dock_widget.tags_note.isHidden()
