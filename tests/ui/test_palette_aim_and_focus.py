"""The operator palette, as people use it: Shift+A gives it the keyboard
(typing filters it), it opens beside the selected node rather than over it,
it shows the current op's signature (as the op picker does), and an op
dropped near two edges goes to the nearest one, which is exactly the one lit
up while dragging. Drags are the palette's own mime data sent as drag
events (a real QDrag cannot run offscreen)."""
from __future__ import annotations

from types import SimpleNamespace

from PySide6.QtCore import QPoint, QPointF, QRect, Qt
from PySide6.QtGui import QDragEnterEvent, QDragMoveEvent, QDropEvent
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication

from edit_helpers import open_conv_model, open_palette_by_key
from viewer_helpers import wait_idle


def _node(window, name):
    return next(n for n in window.model.graph.nodes if n.name == name)


def _edge_into(window, value_name, reader_name):
    scene = window.graph.scene
    reader = _node(window, reader_name)
    return next(e for e in scene.edge_items.values()
                if e.ref.value is not None and e.ref.value.name == value_name
                and scene.view_model.nodes[e.ref.target].node is reader)


def test_shift_a_gives_the_palette_the_keyboard_and_typing_filters_it(qtbot, window, tmp_path):
    open_conv_model(qtbot, window, tmp_path)
    palette = open_palette_by_key(qtbot, window)
    qtbot.waitUntil(lambda: QApplication.focusWidget() is palette.search)
    assert QApplication.activeWindow() is palette
    QTest.keyClicks(QApplication.focusWidget(), "sigm")       # typed where the keyboard is
    assert palette.search.text() == "sigm"
    assert palette.list.currentItem().data(Qt.UserRole) == ("", "Sigmoid")
    # The signature of the current op: inputs, outputs, type constraints.
    text = palette.signature.text()
    assert "<b>Sigmoid</b>(X: T) → Y: T" in text and "Sigmoid-13" in text and "float16" in text
    # Down moves through the list without leaving the search field.
    palette.search.setText("conv")
    QTest.keyClick(palette.search, Qt.Key_Down)
    assert palette.list.currentRow() == 1 and QApplication.focusWidget() is palette.search
    palette.search.setText("Conv")
    text = palette.signature.text()
    assert "<b>Conv</b>(X: T, W: T, B?: T) → Y: T" in text
    assert "group: int = 1" in text and "auto_pad: string = NOTSET" in text and "kernel_shape: ints" in text


def test_the_palette_opens_beside_the_selected_node_not_over_it(qtbot, window, tmp_path):
    open_conv_model(qtbot, window, tmp_path)
    view, scene = window.graph.view, window.graph.scene
    for name in ("sig1", "conv1"):
        card = scene.item_for_node(_node(window, name))
        scene.clearSelection()
        card.setSelected(True)
        view.centerOn(card.sceneBoundingRect().center())
        palette = open_palette_by_key(qtbot, window)
        rect = view.mapFromScene(card.sceneBoundingRect()).boundingRect()
        on_screen = QRect(view.viewport().mapToGlobal(rect.topLeft()), rect.size())
        assert not palette.frameGeometry().intersects(on_screen), (name, palette.frameGeometry(), on_screen)
        assert view.viewport().rect().contains(rect), "the selected node stays in view"
        palette.hide()


def test_the_op_picker_shows_signatures_too(qtbot, window, tmp_path):
    from onnxstudio.ui.panels.op_picker import OpPicker
    open_conv_model(qtbot, window, tmp_path)
    picker = OpPicker(window.model, window)
    qtbot.addWidget(picker)
    picker.search.setText("Cast")
    assert "to: int (required)" in picker.signature.text()
    picker.search.setText("LayerNormalization")
    assert "epsilon: float = 1e-05" in picker.signature.text()


def _send_drag(view, palette, op, at: QPoint, drop: bool):
    mime = palette.list.mimeData([palette.item_for(op)])
    target, actions = view.viewport(), Qt.CopyAction | Qt.MoveAction
    QApplication.sendEvent(target, QDragEnterEvent(at, actions, mime, Qt.LeftButton, Qt.NoModifier))
    QApplication.sendEvent(target, QDragMoveEvent(at, actions, mime, Qt.LeftButton, Qt.NoModifier))
    if drop:
        QApplication.sendEvent(target, QDropEvent(QPointF(at), actions, mime, Qt.LeftButton, Qt.NoModifier))


def test_a_drop_between_two_edges_takes_the_nearest_and_lights_exactly_it(qtbot, window, tmp_path):
    from onnxstudio.ui.canvas.items import EdgeItem
    open_conv_model(qtbot, window, tmp_path)
    view, scene = window.graph.view, window.graph.scene
    view.reset_zoom()
    # Two straight edges 6 units apart in an empty part of the scene, both in
    # reach of a drop on the first; the second is drawn later, so the scene
    # lists it first there.
    top = scene.itemsBoundingRect().bottom() + 200
    into_sig = SimpleNamespace(**vars(_edge_into(window, "r", "sig1").ref))
    into_cast = SimpleNamespace(**vars(_edge_into(window, "r", "cast1").ref))
    aimed = EdgeItem("aimed", [(0, top), (60, top), (120, top), (180, top)], ref=into_sig)
    other = EdgeItem("other", [(0, top + 6), (60, top + 6), (120, top + 6), (180, top + 6)], ref=into_cast)
    scene.addItem(aimed)
    scene.addItem(other)
    middle = QPointF(90, top)
    view.centerOn(middle)
    at = view.mapFromScene(middle)
    listed = [e for e in scene.items(QPointF(90, top + 3)) if isinstance(e, EdgeItem)]
    assert listed[:2] == [other, aimed], "the test needs the neighbour listed first"
    assert view.edge_at(middle) is aimed
    palette = window.edit_actions.canvas.show_palette()
    _send_drag(view, palette, "Neg", at, drop=False)
    assert aimed.highlighted and not other.highlighted
    _send_drag(view, palette, "Neg", view.mapFromScene(QPointF(90, top + 5)), drop=False)
    assert other.highlighted and not aimed.highlighted      # moved nearer the other: it is lit instead
    _send_drag(view, palette, "Neg", at, drop=True)
    neg = next(n for n in window.model.graph.nodes if n.op_type == "Neg")
    assert _node(window, "sig1").inputs[0] is neg.outputs[0], "inserted on the edge aimed at"
    assert _node(window, "cast1").inputs[0].name == "r"
    wait_idle(qtbot, window)
