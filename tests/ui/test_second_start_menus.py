"""From the second start on (a saved window layout restored) no stray tab
bar covers the menus: the Compare and Profile docks were tabified beside
Problems before restoreState, which left Qt's tab bar of that pairing
orphaned and shown at the window's top-left, a "Problems" tab drawn over
the File and Edit menus (QA, every second start under X11)."""
from __future__ import annotations

from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QTabBar

from viewer_helpers import window_with_settings


def _window(qtbot, path):
    return window_with_settings(qtbot, path, (1200, 800))


def _bars_over_menus(win) -> list:
    menus = win.menuBar().geometry()
    return [[bar.tabText(i) for i in range(bar.count())] for bar in win.findChildren(QTabBar)
            if bar.parent() is win and bar.isVisible() and bar.geometry().intersects(menus)]


def _tabbed(win, dock) -> bool:
    """Whether `dock`, shown, is a tab beside Problems."""
    problems = win.edit_actions.problems_dock
    problems.show()
    dock.show()
    return dock in win.tabifiedDockWidgets(problems)


def test_no_tab_bar_over_the_menus_after_a_saved_layout_is_restored(qtbot, tmp_path):
    settings = tmp_path / "settings.ini"
    first = _window(qtbot, settings)
    assert _bars_over_menus(first) == []
    assert _tabbed(first, first.run_ui.compare_dock)          # the default: Compare is a tab beside Problems
    first.close()                                              # saves the layout
    second = _window(qtbot, settings)
    assert _bars_over_menus(second) == []
    assert second.run_ui.compare_dock.isVisible() and _tabbed(second, second.run_ui.compare_dock)
    second.close()


def test_a_layout_that_does_not_fit_gets_the_default_tabs(qtbot, tmp_path):
    settings = tmp_path / "settings.ini"
    stored = QSettings(str(settings), QSettings.IniFormat)
    stored.setValue("window/state", b"not a window layout")
    stored.sync()
    win = _window(qtbot, settings)
    assert _bars_over_menus(win) == []
    assert _tabbed(win, win.run_ui.compare_dock) and _tabbed(win, win.run_ui.profile.dock)
    win.close()
