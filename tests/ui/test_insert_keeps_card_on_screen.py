"""Inserting a node on an edge keeps the edited card where it was on screen
(issue 25): the relayout and the new node's selection used to centre the
view on the new node, shifting the picture by 94-159 px on bert_12layer_narrow."""
from __future__ import annotations

import pytest
from PySide6.QtCore import QPointF

from onnxstudio.ui.canvas.items import EdgeItem

from shared_models import shared_model
from viewer_helpers import open_model, wait_idle


def _on_screen(view, item) -> QPointF:
    return QPointF(view.mapFromScene(item.sceneBoundingRect().center()))


@pytest.mark.slow
def test_insert_on_edge_keeps_producer_on_screen(qtbot, window):
    open_model(qtbot, window, shared_model("bert_12layer_narrow") / "model.onnx")
    qtbot.waitUntil(lambda: window.qdoc.ready, timeout=60_000)
    wait_idle(qtbot, window)
    graph, view = window.graph, window.graph.view
    scene = graph.scene
    # A node shown as a card with its output drawn as an edge, placed
    # off-centre in the view (centring on the new node moved the picture).
    # One halfway down the graph: the view can scroll to any place around it.
    shown = sorted((n for n in window.model.graph.nodes if n.outputs and n.outputs[0] is not None
                    and scene.item_for_node(n) is not None
                    and any(isinstance(i, EdgeItem) for i in scene.items_for_value(n.outputs[0]))),
                   key=lambda n: scene.item_for_node(n).sceneBoundingRect().top())
    producer = shown[len(shown) // 2]
    card = scene.item_for_node(producer)
    view.reset_zoom()
    view.centerOn(card.sceneBoundingRect().center() + QPointF(150, 120))
    before = _on_screen(view, card)
    edge = next(i for i in scene.items_for_value(producer.outputs[0]) if isinstance(i, EdgeItem))
    assert window.edit_actions.canvas.insert_on_edge(edge, ("", "Neg"))
    wait_idle(qtbot, window)
    qtbot.wait(50)
    card = scene.item_for_node(producer)
    after = _on_screen(view, card)
    assert abs(after.x() - before.x()) < 5 and abs(after.y() - before.y()) < 5, (before, after)
    assert view.current_scale() == pytest.approx(1.0)
    new = next(n for n in window.model.graph.nodes if n.op_type == "Neg")
    new_item = scene.item_for_node(new)
    assert new_item is not None and new_item.isSelected()
    assert view.visible_scene_rect().intersects(new_item.sceneBoundingRect())
