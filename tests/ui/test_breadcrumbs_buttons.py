"""The breadcrumb bar shows one button per level, and only those: the
buttons of the previous levels go at once, not when Qt gets round to
deleting them (until then they were drawn under the new ones: "main_graph"
over itself, shifted, after a search hit took the canvas into a body)."""
from __future__ import annotations

from PySide6.QtWidgets import QToolButton

from onnxstudio.ui.navigation import Breadcrumbs, Level


def _shown_buttons(bar):
    return [b.text() for b in bar.findChildren(QToolButton) if b.isVisibleTo(bar)]


def test_old_buttons_are_not_shown_with_the_new_ones(qtbot):
    bar = Breadcrumbs()
    qtbot.addWidget(bar)
    bar.show()
    main, body = object(), object()
    bar.set_levels([Level(main, "main_graph")])       # the model opened
    qtbot.wait(20)
    bar.set_levels([Level(main, "main_graph"), Level(body, "/Loop › body")])
    # Asked for at once, before the event loop runs Qt's deferred deletions.
    assert _shown_buttons(bar) == ["main_graph", "/Loop › body"]
    bar.set_levels([Level(main, "main_graph")])
    assert bar.isHidden()       # one level: nothing to go back to
