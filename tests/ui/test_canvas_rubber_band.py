"""Mouse on the canvas as in graph editors (issue 25): a left drag on empty
canvas draws a selection rectangle and selects the boxes it touches (Shift
adds to the selection); the middle button or Space+drag pans. Real mouse
events on the view's viewport."""
from __future__ import annotations

from PySide6.QtCore import QPoint, QPointF, Qt
from PySide6.QtTest import QTest

from onnxstudio.ui.canvas.items import NodeItem

from edit_helpers import open_conv_model


def _settled(qtbot, window):
    qtbot.waitUntil(lambda: window.graph.settled, timeout=20_000)
    qtbot.wait(50)


def _op_boxes(window):
    boxes = [i for i in window.graph.scene.node_items.values() if isinstance(i, NodeItem) and i.kind == "op"]
    return sorted(boxes, key=lambda b: b.sceneBoundingRect().top())


def _drag(view, start: QPoint, end: QPoint, button=Qt.LeftButton, mods=Qt.NoModifier):
    vp = view.viewport()
    QTest.mousePress(vp, button, mods, start)
    steps = 6
    for k in range(1, steps + 1):
        QTest.mouseMove(vp, start + (end - start) * k / steps)
    QTest.mouseRelease(vp, button, mods, end)


def _band_over(view, box) -> tuple[QPoint, QPoint]:
    """From empty canvas left of `box` to just inside its left edge."""
    rect = box.sceneBoundingRect()
    start = view.mapFromScene(QPointF(rect.left() - 30, rect.top() - 4))
    end = view.mapFromScene(QPointF(rect.left() + 12, rect.center().y()))
    return start, end


def _open(qtbot, window, tmp_path):
    open_conv_model(qtbot, window, tmp_path)
    _settled(qtbot, window)
    view = window.graph.view
    view.reset_zoom()
    boxes = _op_boxes(window)
    assert len(boxes) >= 2
    return view, boxes


def test_drag_on_empty_canvas_selects_touched_boxes_shift_adds(qtbot, window, tmp_path):
    view, boxes = _open(qtbot, window, tmp_path)
    first, second = boxes[0], boxes[1]
    view.centerOn(first)
    start, end = _band_over(view, first)
    assert view.itemAt(start) is None
    bars = (view.horizontalScrollBar().value(), view.verticalScrollBar().value())
    _drag(view, start, end)
    assert first.isSelected() and not second.isSelected()
    assert (view.horizontalScrollBar().value(), view.verticalScrollBar().value()) == bars   # no pan
    # Shift+drag over the second box adds it.
    view.centerOn(second)
    start, end = _band_over(view, second)
    _drag(view, start, end, mods=Qt.ShiftModifier)
    assert first.isSelected() and second.isSelected()
    # A plain drag replaces the selection; only boxes are taken, not edges.
    _drag(view, start, end)
    assert second.isSelected() and not first.isSelected()
    assert all(isinstance(i, NodeItem) for i in window.graph.scene.selectedItems())
    # The Properties panel follows the selection made by the band.
    assert window.properties.editor is not None
    # A click on empty canvas clears the selection.
    QTest.mouseClick(view.viewport(), Qt.LeftButton, Qt.NoModifier, start)
    assert not window.graph.scene.selectedItems()


def test_middle_button_and_space_drag_pan(qtbot, window, tmp_path):
    view, boxes = _open(qtbot, window, tmp_path)
    view.zoom_by(4.0)
    view.centerOn(boxes[0])
    qtbot.wait(20)
    centre = view.viewport().rect().center()

    def bars():
        return view.horizontalScrollBar().value(), view.verticalScrollBar().value()

    before = bars()
    _drag(view, centre, centre + QPoint(40, 60), button=Qt.MiddleButton)
    after = bars()
    assert after == (before[0] - 40, before[1] - 60)
    # Space held: a left drag pans and selects nothing.
    view.setFocus()
    window.graph.scene.clearSelection()
    QTest.keyPress(view, Qt.Key_Space)
    _drag(view, centre, centre + QPoint(-30, -50))
    QTest.keyRelease(view, Qt.Key_Space)
    assert bars() == (after[0] + 30, after[1] + 50)
    assert not window.graph.scene.selectedItems()
    # Released: a left drag selects again, without panning.
    start = bars()
    _drag(view, centre, centre + QPoint(5, 5))
    assert bars() == start
