"""Editing a value's dims in the Properties dock keeps that value selected
on the canvas (its edge and box) and in the form, after the edit and after
undo (issue 25): the relayout used to reselect only nodes."""
from __future__ import annotations

import pytest
from PySide6.QtCore import Qt

from onnxstudio.ui.canvas.items import EdgeItem, NodeItem

from edit_helpers import open_conv_model, type_into


def _click(qtbot, window, item, at):
    view = window.graph.view
    view.centerOn(at)
    qtbot.mouseClick(view.viewport(), Qt.LeftButton, pos=view.mapFromScene(at))


def _settled(qtbot, window):
    qtbot.waitUntil(lambda: window.graph.settled, timeout=20_000)
    qtbot.wait(50)


def _shows(window, value) -> bool:
    selected = window.graph.scene.selectedItems()
    editor = window.properties.editor
    return bool(selected) and getattr(editor, "value", None) is value and \
        all(item in window.graph.scene.items_for_value(value) for item in selected)


@pytest.mark.parametrize("clicked", ["edge", "box"])
def test_value_stays_selected_after_dims_edit_and_undo(qtbot, window, tmp_path, clicked):
    open_conv_model(qtbot, window, tmp_path)
    _settled(qtbot, window)
    x = window.model.graph.get_value("x")
    items = window.graph.scene.items_for_value(x)
    if clicked == "edge":
        item = next(i for i in items if isinstance(i, EdgeItem))
        at = item.path.pointAtPercent(0.5)
    else:
        item = next(i for i in items if isinstance(i, NodeItem))
        at = item.sceneBoundingRect().center()
    _click(qtbot, window, item, at)
    assert item.isSelected() and _shows(window, x)
    type_into(qtbot, window.properties.editor.dims_edit, "2, 3, 8, 8")
    assert list(x.type.shape) == [2, 3, 8, 8]
    _settled(qtbot, window)
    assert _shows(window, x)
    window.graph.view.setFocus()
    qtbot.keyClick(window.graph.view, Qt.Key_Z, Qt.ControlModifier)
    assert list(x.type.shape) == [1, 3, 8, 8]
    _settled(qtbot, window)
    assert _shows(window, x)
