"""Every difference as a row (rewrites, changed, added and removed nodes,
weights, inputs and outputs); clicking one shows it on both canvases.
Rows are added a page at a time, so 100,000 differences never build
100,000 rows at once."""
from __future__ import annotations

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
        self.rows = self.differences(diff)
        self.list = QListWidget(self)
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

    def differences(self, diff) -> list[tuple[str, str, object, object]]:
        """(text, status, object of A, object of B) for every difference, in reading order."""
        rows = []
        for r in diff.rewrites:
            names = ", ".join(node_label(n) for n in r.a_nodes) or "—"
            into = ", ".join(node_label(n) for n in r.b_nodes) or "—"
            rows.append((self.tr("{what}: {a} → {b}").format(what=r.text, a=names, b=into), REWRITTEN,
                         r.a_nodes[0] if r.a_nodes else None, r.b_nodes[0] if r.b_nodes else None))
        for c in diff.changed:
            what = []
            if c.op:
                what.append(self.tr("op {a} → {b}").format(a=c.op[0], b=c.op[1]))
            if c.attributes:
                what.append(self.tr("attributes {names}").format(names=", ".join(c.attributes)))
            if c.inputs:
                what.append(self.tr("inputs rewired"))
            if c.domain:
                what.append(self.tr("domain"))
            rows.append((f"{node_label(c.a)}: {'; '.join(what)}", CHANGED, c.a, c.b))
        rows += [(self.tr("added: {name} ({op})").format(name=node_label(n), op=n.op_type), ADDED, None, n)
                 for n in diff.added]
        rows += [(self.tr("removed: {name} ({op})").format(name=node_label(n), op=n.op_type), REMOVED, n, None)
                 for n in diff.removed]
        for w in diff.weights_changed:
            detail = (self.tr("max abs {x:.4g}").format(x=w.max_abs) if w.max_abs is not None
                      else self.tr("dtype or shape"))
            rows.append((self.tr("weight {name}: {detail}").format(name=w.a.name, detail=detail), CHANGED, w.a, w.b))
        rows += [(self.tr("weight added: {name}").format(name=v.name), ADDED, None, v) for v in diff.weights_added]
        rows += [(self.tr("weight removed: {name}").format(name=v.name), REMOVED, v, None)
                 for v in diff.weights_removed]
        for io in (diff.inputs, diff.outputs):
            rows += [(self.tr("graph input/output added: {name}").format(name=v.name), ADDED, None, v)
                     for v in io.added]
            rows += [(self.tr("graph input/output removed: {name}").format(name=v.name), REMOVED, v, None)
                     for v in io.removed]
            changed = self.tr("graph input/output {a}: {ta} → {b}: {tb}")
            rows += [(changed.format(a=x.name, ta=x.type, b=y.name, tb=y.type), CHANGED, x, y) for x, y in io.changed]
        return rows

    def show_page(self) -> None:
        start = self.list.count()
        for text, status, a, b in self.rows[start:start + PAGE]:
            item = QListWidgetItem(text)
            item.setData(Qt.UserRole, (a, b))
            item.setForeground(QBrush(QColor(COLOURS[status])))
            self.list.addItem(item)
        shown = self.list.count()
        self.count.setText(self.tr("{shown} of {total} differences").format(shown=shown, total=len(self.rows))
                           if shown < len(self.rows) else self.tr("{total} differences").format(total=len(self.rows)))
        self.more.setVisible(shown < len(self.rows))

    def _current(self, item, *_) -> None:
        if item is not None:
            a, b = item.data(Qt.UserRole)
            self.chosen.emit(a, b)
