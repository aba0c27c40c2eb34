"""The operator palette is a drag source: an op dropped on an edge is inserted
there, dropped on empty canvas it is added where it was dropped.

A real QDrag cannot run under the offscreen platform (QDrag.exec needs the
window system's drag-and-drop loop), so the drag is the palette list's own
mime data delivered to the canvas as the drag-enter, drag-move and drop
events a window system sends."""
from __future__ import annotations

from PySide6.QtCore import QPoint, QPointF, QRect, Qt
from PySide6.QtGui import QDragEnterEvent, QDragMoveEvent, QDropEvent
from PySide6.QtWidgets import QApplication

from edit_helpers import open_conv_model
from viewer_helpers import wait_idle


def _drag_op_to(view, palette, op, viewport_point: QPoint, before_drop=None):
    item = palette.item_for(op)
    assert item is not None, op
    mime = palette.list.mimeData([item])
    target = view.viewport()
    actions = Qt.CopyAction | Qt.MoveAction
    enter = QDragEnterEvent(viewport_point, actions, mime, Qt.LeftButton, Qt.NoModifier)
    QApplication.sendEvent(target, enter)
    assert enter.isAccepted()
    move = QDragMoveEvent(viewport_point, actions, mime, Qt.LeftButton, Qt.NoModifier)
    QApplication.sendEvent(target, move)
    assert move.isAccepted()
    if before_drop is not None:
        before_drop()
    drop = QDropEvent(QPointF(viewport_point), actions, mime, Qt.LeftButton, Qt.NoModifier)
    QApplication.sendEvent(target, drop)
    assert drop.isAccepted()


def _edge_into(scene, window, value_name, reader_name):
    reader = next(n for n in window.model.graph.nodes if n.name == reader_name)
    return next(e for e in scene.edge_items.values()
                if e.ref.value is not None and e.ref.value.name == value_name
                and scene.view_model.nodes[e.ref.target].node is reader)


def _empty_point(view) -> QPoint:
    """A viewport point with nothing within 40 px."""
    rect = view.viewport().rect()
    for y in range(40, rect.height() - 40, 20):
        for x in range(40, rect.width() - 40, 20):
            if not view.items(QRect(x - 40, y - 40, 80, 80)):
                return QPoint(x, y)
    raise AssertionError("no empty place on the canvas")


def test_drop_op_on_edge_and_on_empty_canvas(qtbot, window, tmp_path):
    open_conv_model(qtbot, window, tmp_path)
    canvas = window.edit_actions.canvas
    graph = window.graph
    view, scene = graph.view, graph.scene
    palette = canvas.show_palette()
    assert palette.isVisible() and not palette.isModal()
    # The list is searchable and drags its rows.
    qtbot.keyClicks(palette.search, "Ne")
    assert palette.list.item(0).data(Qt.UserRole) == ("", "Neg")
    assert palette.list.dragEnabled()
    palette.search.clear()
    # Onto the edge relu1 -> sig1: lit up while hovering, inserted on drop.
    edge = _edge_into(scene, window, "r", "sig1")
    point = edge.mapToScene(edge.path.pointAtPercent(0.5))
    view.centerOn(point)
    at = view.mapFromScene(point)
    _drag_op_to(view, palette, "Neg", at, before_drop=lambda: _assert_lit(edge))
    nodes = {n.op_type: n for n in window.model.graph.nodes}
    neg, sig = nodes["Neg"], nodes["Sigmoid"]
    assert sig.inputs[0] is neg.outputs[0] and neg.inputs[0].name == "r"
    assert nodes["Cast"].inputs[0].name == "r"      # the other reader keeps its input
    wait_idle(qtbot, window)
    assert window.edit_actions.undo_action.isEnabled()
    # Onto empty canvas: a new node reading nothing, shown where it was dropped.
    spot = _empty_point(view)
    dropped = view.mapToScene(spot)
    _drag_op_to(view, palette, "Abs", spot)
    abs_node = next(n for n in window.model.graph.nodes if n.op_type == "Abs")
    assert all(v is None for v in abs_node.inputs) and not abs_node.outputs[0].uses
    wait_idle(qtbot, window)
    item = scene.item_for_node(abs_node)
    assert item is not None and item.ref.node is abs_node
    centre = item.sceneBoundingRect().center()
    assert abs(centre.x() - dropped.x()) < 2 and abs(centre.y() - dropped.y()) < 2
    # One undo step each.
    window.edit_actions.undo()
    assert not any(n.op_type == "Abs" for n in window.model.graph.nodes)
    window.edit_actions.undo()
    assert not any(n.op_type == "Neg" for n in window.model.graph.nodes)
    wait_idle(qtbot, window)
    # Onto a node: added after it, reading its output.
    cast = next(n for n in window.model.graph.nodes if n.name == "cast1")
    card = scene.item_for_node(cast)
    view.centerOn(card.sceneBoundingRect().center())
    _drag_op_to(view, palette, "Floor", view.mapFromScene(card.sceneBoundingRect().center()))
    floor = next(n for n in window.model.graph.nodes if n.op_type == "Floor")
    assert floor.inputs[0] is cast.outputs[0]
    window.edit_actions.undo()
    wait_idle(qtbot, window)
    # Enter in the palette adds the op after the selected node (as Tab does).
    scene.clearSelection()
    relu = next(n for n in window.model.graph.nodes if n.name == "relu1")
    scene.item_for_node(relu).setSelected(True)
    palette.search.setText("Sqrt")
    qtbot.keyClick(palette.search, Qt.Key_Return)
    sqrt = next(n for n in window.model.graph.nodes if n.op_type == "Sqrt")
    assert sqrt.inputs[0] is relu.outputs[0]
    wait_idle(qtbot, window)


def _assert_lit(edge):
    assert edge.highlighted


def test_other_drags_are_left_to_the_canvas(qtbot, window, tmp_path):
    from PySide6.QtCore import QMimeData
    open_conv_model(qtbot, window, tmp_path)
    view = window.graph.view
    mime = QMimeData()
    mime.setText("just text")
    enter = QDragEnterEvent(QPoint(50, 50), Qt.CopyAction, mime, Qt.LeftButton, Qt.NoModifier)
    enter.setAccepted(False)
    QApplication.sendEvent(view.viewport(), enter)
    count = len(window.model.graph.nodes)
    drop = QDropEvent(QPointF(50, 50), Qt.CopyAction, mime, Qt.LeftButton, Qt.NoModifier)
    QApplication.sendEvent(view.viewport(), drop)
    assert len(window.model.graph.nodes) == count
