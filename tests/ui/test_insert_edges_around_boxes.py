"""After an insert on an edge, edges between layout pieces still go around
the boxes between their ends (QA, issue 25): the pinned re-layout drew each
such edge as one curve between its ends, so on bert_small 157 edges cut
through boxes (the attention mask's Expand output straight through every
layer's MatMul, Add and Reshape), and 131 were left after undo. A fresh
layout of the same model has none. pytest-qt, offscreen."""
from __future__ import annotations

from onnxstudio.ui.canvas.items import EdgeItem

from shared_models import shared_model
from viewer_helpers import open_model, wait_idle


def _through_boxes(scene) -> list:
    """(value, node) for each edge that enters a box it neither starts nor ends at."""
    boxes = [(key, item.scene_rect().adjusted(3, 3, -3, -3)) for key, item in scene.node_items.items()]
    found = []
    for edge in scene.edge_items.values():
        path = edge.path
        points = [edge.mapToScene(path.pointAtPercent(i / 200)) for i in range(201)]
        for key, inner in boxes:
            if key in (edge.src_key, edge.dst_key):
                continue
            if any(inner.contains(p) for p in points):
                found.append((getattr(edge.ref.value, "name", edge.key), key))
    return found


def test_edges_between_pieces_keep_clear_of_boxes_after_insert_and_undo(qtbot, window):
    open_model(qtbot, window, shared_model("bert_small") / "model.onnx")
    qtbot.waitUntil(lambda: window.qdoc.ready, timeout=60_000)
    wait_idle(qtbot, window)
    scene = window.graph.scene
    assert _through_boxes(scene) == []
    edge = next(e for e in scene.edge_items.values() if isinstance(e, EdgeItem)
                and getattr(e.ref, "value", None) is not None
                and e.ref.value.name.endswith("word_embeddings/Gather_output_0"))
    assert window.edit_actions.canvas.insert_on_edge(edge, ("", "Identity"))
    wait_idle(qtbot, window)
    assert _through_boxes(window.graph.scene) == []
    window.qdoc.undo()
    wait_idle(qtbot, window)
    assert _through_boxes(window.graph.scene) == []


def test_a_node_renamed_into_another_group_leaves_no_edge_through_a_box(qtbot, window):
    """A rename that moves a box out of its group (its scope) changes the
    group frames the pinned re-layout would keep; pinned, 69 edges of
    layer.0's attention ran through boxes and a frame covered the Softmax
    (QA). Such an edit is laid out whole, as a fresh open would be."""
    from onnxstudio.core import edits as E
    open_model(qtbot, window, shared_model("bert_small") / "model.onnx")
    qtbot.waitUntil(lambda: window.qdoc.ready, timeout=60_000)
    wait_idle(qtbot, window)
    node = next(n for n in window.model.graph.nodes if n.name == "/m/encoder/layer.0/attention/self/MatMul")
    assert window.qdoc.apply(E.SetNodeField(node.name, "name", "zzz_unique"))
    wait_idle(qtbot, window)
    assert _through_boxes(window.graph.scene) == []
    assert window.qdoc.apply(E.insert_on_edge(window.model, "/m/Add_output_0", "Identity", name="/m/qa_identity"))
    wait_idle(qtbot, window)
    assert _through_boxes(window.graph.scene) == []
    window.edit_actions.undo()
    window.edit_actions.undo()
    wait_idle(qtbot, window)
    assert _through_boxes(window.graph.scene) == []
