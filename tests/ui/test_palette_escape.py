"""Esc in the operator palette, with real key events: the first Esc clears
what was typed, the next closes the palette and the canvas has the keyboard
again (the rule the palette's hint line states)."""
from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QLabel

from edit_helpers import open_conv_model, open_palette_by_key


def _open_palette_by_key(qtbot, window):
    """Shift+A, then wait until the palette's search field has the keyboard."""
    palette = open_palette_by_key(qtbot, window)
    qtbot.waitUntil(lambda: QApplication.focusWidget() is palette.search)
    return palette


def test_esc_clears_the_search_then_closes_and_gives_the_canvas_the_keyboard(qtbot, window, tmp_path):
    open_conv_model(qtbot, window, tmp_path)
    palette = _open_palette_by_key(qtbot, window)
    assert any("Esc clears the search, then closes" in label.text() for label in palette.findChildren(QLabel))
    QTest.keyClicks(QApplication.focusWidget(), "layern")
    assert palette.search.text() == "layern"
    QTest.keyClick(QApplication.focusWidget(), Qt.Key_Escape)
    assert palette.isVisible() and palette.search.text() == ""
    assert palette.list.count() > 1                         # the whole list again
    QTest.keyClick(QApplication.focusWidget(), Qt.Key_Escape)
    assert not palette.isVisible()
    qtbot.waitUntil(window.graph.view.hasFocus)
    # Shift+A opens it again, with the keyboard.
    assert _open_palette_by_key(qtbot, window) is palette and palette.isVisible()


def test_esc_with_the_focus_in_the_list_closes_the_palette(qtbot, window, tmp_path):
    open_conv_model(qtbot, window, tmp_path)
    palette = _open_palette_by_key(qtbot, window)
    palette.list.setFocus()
    qtbot.waitUntil(palette.list.hasFocus)
    QTest.keyClick(palette.list, Qt.Key_Escape)
    assert not palette.isVisible()
    qtbot.waitUntil(window.graph.view.hasFocus)
