"""A dock shown at the side of the window is wide enough to read: on a first
start Ctrl+F opened Search 78 px wide ("Sea…", every hit cut after a few
letters), and the Undo History beside it the same (QA)."""
from __future__ import annotations

from PySide6.QtCore import Qt


def test_search_opens_wide_enough_to_read(qtbot, window):
    window.resize(1500, 950)
    window.show_search()
    dock = window.search_dock
    qtbot.waitUntil(lambda: dock.isVisible() and dock.width() >= 270, timeout=60_000)
    assert dock.width() <= window.width() // 3


def test_the_history_shown_from_the_view_menu_is_readable(qtbot, window):
    window.resize(1500, 950)
    dock = window.edit_actions.history_dock
    assert window.dockWidgetArea(dock) == Qt.LeftDockWidgetArea
    dock.toggleViewAction().trigger()
    qtbot.waitUntil(lambda: dock.isVisible() and dock.width() >= 270, timeout=60_000)


def test_a_side_dock_the_user_made_wider_keeps_its_width(qtbot, window):
    window.resize(1500, 950)
    window.show_search()
    dock = window.search_dock
    qtbot.waitUntil(lambda: dock.width() >= 270, timeout=60_000)
    window.resizeDocks([dock], [420], Qt.Horizontal)
    qtbot.waitUntil(lambda: dock.width() >= 400, timeout=60_000)
    dock.hide()
    dock.show()
    qtbot.wait(50)
    assert dock.width() >= 400
