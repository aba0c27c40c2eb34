"""Renaming a shown node moves its box into the group its new name's scope
gives, and its box id follows the new name (QA of the edit re-layout): a
rename used to be shown by relabelling the box in place, so the box stayed
in its old group and kept the old name's id (node:<old name>), which the
next edit's reuse then matched against other nodes. pytest-qt, offscreen."""
from __future__ import annotations

from onnxstudio.core import edits as E

from shared_models import shared_model
from viewer_helpers import open_model, wait_idle

SELF = "/m/encoder/layer.0/attention/self"


def _box(window, node):
    view = window.graph.scene.view_model
    box_id = next(k for k, vn in view.nodes.items() if vn.node is node)
    group = next(n.group for n in view.request.nodes if n.id == box_id)
    return box_id, tuple(group)


def test_a_renamed_node_is_shown_in_its_new_scope_under_its_new_id(qtbot, window):
    open_model(qtbot, window, shared_model("bert_small") / "model.onnx")
    qtbot.waitUntil(lambda: window.qdoc.ready, timeout=60_000)
    wait_idle(qtbot, window)
    node = next(n for n in window.model.graph.nodes if n.name == SELF + "/MatMul")
    box_id, group = _box(window, node)
    assert box_id == "node:" + SELF + "/MatMul" and group[-1] == "self"
    assert window.qdoc.apply(E.SetNodeField(node.name, "name", SELF + "/query/MatMul_qa"))
    wait_idle(qtbot, window)
    box_id, group = _box(window, node)
    assert box_id == "node:" + SELF + "/query/MatMul_qa"
    assert group[-2:] == ("self", "query")
    window.edit_actions.undo()
    wait_idle(qtbot, window)
    assert _box(window, node) == ("node:" + SELF + "/MatMul", group[:-1])
