"""Every difference as a row (rewrites, changed, added and removed nodes,
weights, inputs and outputs); clicking one shows it on both canvases.
Rows are added a page at a time and their texts made only then, so
100,000 differences never build 100,000 rows (or texts) at once."""
from __future__ import annotations

from typing import Callable

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QBrush, QColor
from PySide6.QtWidgets import QLabel, QListWidget, QListWidgetItem, QPushButton, QVBoxLayout, QWidget

from ...core.diff import ADDED, CHANGED, REMOVED, REWRITTEN
from ...core.diff.report import node_label
from .status_marks import COLOURS

PAGE = 500


class DifferenceList(QWidget):
    chosen = Signal(object, object)          # object of A, object of B (either may be None)

    def __init__(self, diff, parent=None):
        super().__init__(parent)
        self._sections = self.sections(diff)
        self.total = sum(len(items) for items, _ in self._sections)
        self.list = QListWidget(self)
        # A row too long for the dock keeps its start (the node) and its end
        # (the kind of change) and loses its middle; the whole text is its tooltip.
        self.list.setTextElideMode(Qt.ElideMiddle)
        self.list.setHorizontalScrollBarPolicy(Qt.ScrollBarAlwaysOff)
        self.count = QLabel(self)
        self.more = QPushButton(self.tr("Show More"), self)
        self.more.clicked.connect(self.show_page)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.count)
        layout.addWidget(self.list, 1)
        layout.addWidget(self.more)
        self.list.currentItemChanged.connect(self._current)
        self.list.itemClicked.connect(self._current)
        self.show_page()

    def sections(self, diff) -> list[tuple[list, Callable]]:
        """(items, row) per kind of difference, in reading order; `row(item)`
        gives (text, status, object of A, object of B). Texts are made only
        for the rows shown, so a diff of 100,000 differences costs nothing
        until it is paged through."""
        io = []
        for d in (diff.inputs, diff.outputs):
            io += [(v, "added") for v in d.added] + [(v, "removed") for v in d.removed]
            io += [(pair, "changed") for pair in d.changed]
        return [(diff.rewrites, self._rewrite), (diff.changed, self._changed),
                (diff.added, lambda n: (self.tr("added: {name} ({op})").format(name=node_label(n), op=n.op_type),
                                        ADDED, None, n)),
                (diff.removed, lambda n: (self.tr("removed: {name} ({op})").format(name=node_label(n),
                                                                                   op=n.op_type), REMOVED, n, None)),
                (diff.weights_changed, self._weight),
                (diff.weights_added, lambda v: (self.tr("weight added: {name}").format(name=v.name), ADDED, None, v)),
                (diff.weights_removed, lambda v: (self.tr("weight removed: {name}").format(name=v.name), REMOVED,
                                                  v, None)),
                (io, self._io)]

    def _rewrite(self, r):
        names = ", ".join(node_label(n) for n in r.a_nodes) or "—"
        into = ", ".join(node_label(n) for n in r.b_nodes) or "—"
        return (self.tr("{what}: {a} → {b}").format(what=r.text, a=names, b=into), REWRITTEN,
                r.a_nodes[0] if r.a_nodes else None, r.b_nodes[0] if r.b_nodes else None)

    def _changed(self, c):
        what = []
        if c.op:
            what.append(self.tr("op {a} → {b}").format(a=c.op[0], b=c.op[1]))
        if c.attributes:
            what.append(self.tr("attributes {names}").format(names=", ".join(c.attributes)))
        if c.inputs:
            what.append(self.tr("inputs rewired"))
        if c.domain:
            what.append(self.tr("domain"))
        return f"{node_label(c.a)}: {'; '.join(what)}", CHANGED, c.a, c.b

    def _weight(self, w):
        detail = (self.tr("max abs {x:.4g}").format(x=w.max_abs) if w.max_abs is not None
                  else self.tr("dtype or shape"))
        return self.tr("weight {name}: {detail}").format(name=w.a.name, detail=detail), CHANGED, w.a, w.b

    def _io(self, entry):
        item, how = entry
        if how == "added":
            return self.tr("graph input/output added: {name}").format(name=item.name), ADDED, None, item
        if how == "removed":
            return self.tr("graph input/output removed: {name}").format(name=item.name), REMOVED, item, None
        x, y = item
        return (self.tr("graph input/output {a}: {ta} → {b}: {tb}").format(a=x.name, ta=x.type, b=y.name,
                                                                          tb=y.type), CHANGED, x, y)

    def row(self, index: int) -> tuple:
        """(text, status, object of A, object of B) of difference `index`."""
        for items, make in self._sections:
            if index < len(items):
                return make(items[index])
            index -= len(items)
        raise IndexError(index)

    def show_page(self) -> None:
        start = self.list.count()
        for i in range(start, min(start + PAGE, self.total)):
            text, status, a, b = self.row(i)
            item = QListWidgetItem(text)
            item.setToolTip(text)
            item.setData(Qt.UserRole, (a, b))
            item.setForeground(QBrush(QColor(COLOURS[status])))
            self.list.addItem(item)
        shown = self.list.count()
        self.count.setText(self.count_text(shown, self.total))
        self.more.setVisible(shown < self.total)

    def count_text(self, shown: int, total: int) -> str:
        # Plural forms through Qt's %n, as ui/problems.py does: English is the
        # source language (no translator), so its singular is picked here.
        if shown < total:
            return self.tr("{shown} of %n differences", "", total).format(shown=shown)
        return self.tr("%n difference", "", total) if total == 1 else self.tr("%n differences", "", total)

    def _current(self, item, *_) -> None:
        if item is not None:
            a, b = item.data(Qt.UserRole)
            self.chosen.emit(a, b)
