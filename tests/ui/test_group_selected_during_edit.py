"""A collapsed group's box that is selected when an edit lays the level out
again: the new picture is taken in whole and the box stays selected. The
selection kept across the re-layout took a group box for a node or value
and failed on it (AttributeError in GraphPanel._populate, found by
benchmarks/ui_edit.py --selected), leaving the canvas half rebuilt.
pytest-qt, offscreen."""
from __future__ import annotations

from onnxstudio.core.edits import insert_on_edge
from onnxstudio.ui.canvas_edits import scoped_name

from edit_helpers import open_editable
from synthetic_models import synthetic_model_file
from viewer_helpers import wait_idle


def test_selected_group_box_survives_a_relayout(qtbot, window, tmp_path):
    open_editable(qtbot, window, synthetic_model_file(tmp_path, 600))
    scene = window.graph.scene
    group = next(item for item in scene.node_items.values() if item.kind == "group")
    group.setSelected(True)
    target = next(n for n in window.model.graph.nodes if n.op_type == "MatMul")
    name = scoped_name(target, "Relu")
    with qtbot.captureExceptions() as caught:
        assert window.qdoc.apply(insert_on_edge(window.model, target.outputs[0].name, "Relu", name=name))
        wait_idle(qtbot, window)
    assert [str(e[1]) for e in caught] == []
    # The picture is whole: the inserted node is on the level, in its group.
    assert any(n.name == name for n in window.model.graph.nodes)
    kept = [item.key for item in window.graph.scene.selectedItems() if getattr(item, "kind", None) == "group"]
    assert kept == [group.key]
