"""The undo history dock: every step of the document's one history, by name.

Row 0 is the model as opened; row k is "after step k". The current row is the
state shown; clicking another row undoes or redoes up to it. Steps that were
undone stay listed (greyed) until a new edit replaces them, and the saved
state is marked.
"""
from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QFont
from PySide6.QtWidgets import QLabel, QListWidget, QListWidgetItem, QVBoxLayout, QWidget

from .step_names import display_name


class HistoryPanel(QWidget):
    def __init__(self, parent=None):
        super().__init__(parent)
        self.qdoc = None
        self.opened_name = None
        self.list = QListWidget()
        self.hint = QLabel(self.tr("Click a step to go back to it."))
        self.hint.setWordWrap(True)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(self.list, 1)
        layout.addWidget(self.hint)
        self.list.itemClicked.connect(self._clicked)
        self.list.itemActivated.connect(self._clicked)
        self._filling = False

    def set_document(self, qdoc) -> None:
        self.qdoc = qdoc
        # The first row is the model as opened: a Save As later does not rename it.
        path = qdoc.document.path
        self.opened_name = path.name if path is not None else None
        qdoc.history_changed.connect(self.refresh)
        self.refresh()

    def refresh(self) -> None:
        if self.qdoc is None:
            return
        doc = self.qdoc.document
        self._filling = True
        self.list.clear()
        opened = self.tr("Opened {name}").format(name=self.opened_name or self.tr("model"))
        names = [opened] + [display_name(s.name) for s in doc.steps]
        for row, name in enumerate(names):
            saved = self.tr(" (saved)") if doc.clean_index == row and row else ""
            item = QListWidgetItem(f"{row}. {name}{saved}" if row else name + saved)
            item.setData(Qt.UserRole, row)
            if row > doc.index:
                item.setForeground(self.palette().color(self.palette().ColorRole.PlaceholderText))
            if row == doc.index:
                font = QFont(item.font())
                font.setBold(True)
                item.setFont(font)
            self.list.addItem(item)
        self.list.setCurrentRow(doc.index)
        self._filling = False

    def _clicked(self, item) -> None:
        if self._filling or self.qdoc is None:
            return
        row = item.data(Qt.UserRole)
        if row != self.qdoc.document.index:
            self.qdoc.goto(row)
