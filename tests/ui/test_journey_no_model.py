"""Journey: a new user clicks through every menu entry before opening a
model. Nothing may raise (Collapse All Groups and Add Node raised to stderr,
Clean Up reported an "unexpected error"), and nothing is reported."""
from __future__ import annotations

from PySide6.QtCore import QTimer
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QApplication

from onnxstudio.ui import canvas_edits

# Entries that only open a file dialog or the About box (modal; nothing to check here),
# or change what the window shows next time (language) or open a model.
SKIPPED = ("Open…", "Open Demo Model", "About onnxstudio", "Quit", "Clear Recent Files")


def test_every_menu_entry_without_a_model(qtbot, window, monkeypatch):
    monkeypatch.setattr(canvas_edits, "CLIPBOARD", [{"op_type": "Relu", "domain": "", "name": "r",
                                                     "inputs": ["x"], "outputs": ["y"], "attributes": {}}])
    window.edit_actions.canvas.choose_op = lambda title: ("", "Relu")

    def close_modal():              # a safety net: a dialog nobody can answer would hang the test
        widget = QApplication.activeModalWidget()
        if widget is not None:
            widget.reject()
    closer = QTimer()
    closer.timeout.connect(close_modal)
    closer.start(200)
    language_actions = {a for m in window.view_menu.findChildren(type(window.view_menu)) for a in m.actions()}
    triggered = []
    for action in window.findChildren(QAction):
        text = action.text().replace("&", "")
        if not text or action.menu() is not None or action in language_actions or text in SKIPPED:
            continue
        action.trigger()
        qtbot.wait(20)
        triggered.append(text)
    closer.stop()
    assert {"Collapse All Groups", "Expand All Groups", "Add Node…", "Paste Nodes",
            "Clean Up (remove unused)", "Run Model", "Step Over", "Step Into",
            "Step Out"} <= set(triggered)
    assert window.edit_actions.prompter.reports == []
    assert window.model is None
