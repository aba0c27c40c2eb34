"""After an edit the canvas re-labels and re-measures only the boxes the edit
can have changed (the rest come from the previous view): whatever the edit,
the boxes shown equal those of a view built from scratch."""
from __future__ import annotations

import numpy as np

from edit_helpers import open_conv_model
from viewer_helpers import wait_idle


def _boxes(view):
    sizes = {n.id: (n.width, n.height, n.group) for n in view.request.nodes}
    return {k: (vn.label, sizes[k], tuple(id(v) for v in vn.folded)) for k, vn in view.nodes.items()}


def _assert_fresh(window):
    from onnxstudio.core.layout import build_view
    from onnxstudio.ui.canvas.scene import measure_label
    panel = window.graph
    shown = panel.scene.view_model
    fresh = build_view(panel.level.graph, measure_label, expanded=panel.level.expanded, model=window.model)
    assert _boxes(shown) == _boxes(fresh)
    assert shown.request.group_min_width == fresh.request.group_min_width


def test_reused_boxes_equal_a_fresh_view(qtbot, window, tmp_path):
    from onnxstudio.core.edits import (AddInitializer, SetAttribute, SetInitializer, SetNodeInput,
                                       insert_on_edge)
    from onnxstudio.core.ir import AttrType, DataType
    open_conv_model(qtbot, window, tmp_path)
    window.graph.expand_all()
    wait_idle(qtbot, window)
    calls = []
    from onnxstudio.core.layout import from_graph
    original = from_graph._Builder._reused

    def counted(self, *args):
        done = original(self, *args)
        calls.append(done)
        return done
    from_graph._Builder._reused = counted
    try:
        steps = [
            # An initializer's dtype shows in its reader's box.
            SetInitializer("B", dtype=int(DataType.FLOAT16)),
            # A new attribute line on Cast.
            SetAttribute("cast1", "saturate", AttrType.INT, 0),
            # An initializer replaced by one of another shape.
            SetInitializer("W", np.zeros((4, 3, 3, 3), np.float32)),
            # A node reading another (folded) initializer.
            AddInitializer("K", np.ones((3,), np.float32)),
        ]
        for edit in steps:
            assert window.qdoc.apply(edit), window.qdoc.last_refusal if hasattr(window.qdoc, "last_refusal") else edit
            wait_idle(qtbot, window)
            _assert_fresh(window)
        assert window.qdoc.apply(insert_on_edge(window.model, "r", "Neg", name="neg1"))
        wait_idle(qtbot, window)
        _assert_fresh(window)
        assert window.qdoc.apply(SetNodeInput("neg1", 0, "K"))
        wait_idle(qtbot, window)
        _assert_fresh(window)
        for _ in range(len(steps) + 2):
            window.edit_actions.undo()
            wait_idle(qtbot, window)
            _assert_fresh(window)
    finally:
        from_graph._Builder._reused = original
    # Boxes were taken over, not all rebuilt.
    assert any(calls) and not all(calls)
