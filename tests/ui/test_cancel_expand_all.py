"""Expand All cancelled (it takes half a minute on a 10k-node graph): the
picture stays as it was, and so must the groups the level counts as open.
They were left "all open", so the next double-click on a group laid out
every group of the graph instead of opening that one."""
from __future__ import annotations

from shared_models import SHARED_MODELS
from viewer_helpers import open_model, wait_idle


def test_groups_after_a_cancelled_expand_all_are_those_shown(qtbot, window):
    open_model(qtbot, window, SHARED_MODELS / "bert_small" / "model.onnx")
    graph = window.graph
    graph.collapse_all()
    wait_idle(qtbot, window)
    assert not graph.scene.group_frames
    graph.expand_all()
    window.cancel_button.click()
    wait_idle(qtbot, window)
    assert not graph.scene.group_frames                     # the picture stayed
    assert not graph.level.expanded                         # and so did what counts as open
    group = next(item.ref.group for item in graph.scene.node_items.values() if item.kind == "group")
    graph.expand_group(group)
    wait_idle(qtbot, window)
    assert set(graph.scene.group_frames) == {group}
