"""An edit never loses the user's place: after inserting a node into an
expanded model the open groups stay open and the view stays where it was,
even when the new node's name changes the model's group paths."""
from __future__ import annotations

import pytest

from shared_models import shared_model
from viewer_helpers import open_model, wait_idle


def _expanded_bert(qtbot, window):
    path = shared_model("bert_12layer_narrow") / "model.onnx"
    open_model(qtbot, window, path)
    qtbot.waitUntil(lambda: window.qdoc.ready, timeout=60_000)
    window.graph.expand_all()
    wait_idle(qtbot, window)
    return window.graph


@pytest.mark.slow
@pytest.mark.parametrize("name", ["Neg", "/x/Neg"])
def test_insert_keeps_open_groups_and_position(qtbot, window, name):
    from onnxstudio.core.edits import insert_on_edge
    graph = _expanded_bert(qtbot, window)
    scene = graph.scene
    groups_before = {p for p, g in scene.view_model.groups.items() if g.expanded}
    boxes_before = len(scene.node_items)
    assert boxes_before > 800 and len(groups_before) > 100
    node = [n for n in window.model.graph.nodes if n.op_type == "MatMul"][10]
    graph.select_object(node)          # the user is looking at layer 1
    scale, cx, cy = graph.view_state()
    # The edge's menu names the node after its neighbour; a name without that
    # scope ("Neg") or with a scope of its own ("/x/Neg") used to move every
    # group path ("encoder" -> "m/encoder"), so everything showed closed.
    assert window.qdoc.apply(insert_on_edge(window.model, node.outputs[0].name, "Neg", name=name))
    wait_idle(qtbot, window)
    assert {p for p, g in scene.view_model.groups.items() if g.expanded} == groups_before
    assert len(scene.node_items) == boxes_before + 1
    neg = next(n for n in window.model.graph.nodes if n.name == name)
    assert scene.item_for_node(neg) is not None and scene.item_for_node(neg).ref.node is neg
    scale_after, cx_after, cy_after = graph.view_state()
    assert scale_after == pytest.approx(scale)
    assert abs(cx_after - cx) < 2 and abs(cy_after - cy) < 2
    # The unchanged box under the view did not move either.
    item = scene.item_for_node(node)
    assert item is not None and item.ref.node is node
    # Undo: still open, still there.
    window.edit_actions.undo()
    wait_idle(qtbot, window)
    assert {p for p, g in scene.view_model.groups.items() if g.expanded} == groups_before
    assert len(scene.node_items) == boxes_before


def test_open_groups_follow_moved_paths():
    """A root scope appears when two nodes of another scope are added: the
    groups that were open are open under their new paths."""
    from onnxstudio import core
    from onnxstudio.core.edits import AddNode
    from onnxstudio.core.layout import build_view
    from onnx import TensorProto, helper
    nodes, prev = [], "X"
    for i in range(3):
        s = f"/m/enc/layer.{i}"
        nodes += [helper.make_node("Relu", [prev], [f"r{i}"], name=f"{s}/act/Relu"),
                  helper.make_node("Neg", [f"r{i}"], [f"n{i}"], name=f"{s}/act/Neg"),
                  helper.make_node("Add", [f"n{i}", "X"], [f"a{i}"], name=f"{s}/Add")]
        prev = f"a{i}"
    info = lambda n: helper.make_tensor_value_info(n, TensorProto.FLOAT, [2])  # noqa: E731
    proto = helper.make_model(helper.make_graph(nodes, "g", [info("X")], [info(prev)]),
                              opset_imports=[helper.make_opsetid("", 17)])
    model = core.load_bytes(proto.SerializeToString())
    measure = lambda label: (80.0, 30.0)  # noqa: E731
    opened = {("layer.1",), ("layer.1", "act")}
    before = build_view(model.graph, measure, expanded=opened)
    assert set(before.groups) == {(f"layer.{i}",) for i in range(3)} | {(f"layer.{i}", "act") for i in range(3)}
    doc = core.Document(model)
    doc.apply(AddNode("Abs", ["X"], ["q1"], name="/q/p/Abs"))
    doc.apply(AddNode("Abs", ["q1"], ["q2"], name="/q/p/Abs_1"))
    after = build_view(model.graph, measure, expanded=opened, previous=before)
    # "/m/enc" no longer holds every node: it becomes a group ("m/enc", one chain).
    assert after.expanded == {("m/enc",), ("m/enc", "layer.1"), ("m/enc", "layer.1", "act")}
    closed = sorted(v.group for v in after.nodes.values() if v.kind == "group")
    assert closed == [("m/enc", "layer.0"), ("m/enc", "layer.2"), ("q/p",)]
    # Without the earlier view the old paths mean nothing: one closed box.
    lost = build_view(model.graph, measure, expanded=opened)
    assert sorted(v.group for v in lost.nodes.values() if v.kind == "group") == [("m/enc",), ("q/p",)]
