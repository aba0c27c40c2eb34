"""Choosing an operator: only the ops of the model's imported opsets and
domains (and its model-local functions), filtered as the user types.

Used by the properties panel (change a node's op) and the canvas palette
(add a node, insert on an edge)."""
from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QDialog, QDialogButtonBox, QLineEdit, QListWidget, QListWidgetItem, QVBoxLayout

from ...core import schemas


def available_ops(model) -> list[tuple[str, str]]:
    """(domain, op_type) the model can use: each imported domain's operators
    that bind at the imported version, plus model-local functions."""
    imports = dict(model.opset_imports)
    found = []
    for domain in imports:
        for op in schemas.operators(domain):
            if schemas.bind(domain, op, imports) is not None:
                found.append((domain, op))
    for (domain, name, _overload) in model.functions:
        found.append((domain, name))
    return sorted(set(found), key=lambda d: (d[0] != "", d[0], d[1].lower()))


def op_label(domain: str, op: str) -> str:
    return f"{op}" if not domain else f"{op}  ({domain})"


def filter_ops(ops, text: str) -> list:
    q = text.strip().lower()
    if not q:
        return list(ops)
    ranked = []
    for domain, op in ops:
        name = op.lower()
        pos = name.find(q)
        if pos >= 0:
            ranked.append((0 if name == q else 1 if pos == 0 else 2, name, (domain, op)))
    ranked.sort(key=lambda r: r[:2])
    return [r[2] for r in ranked]


class OpPicker(QDialog):
    """Type to search; Enter or double-click picks. `chosen` is (domain, op)."""

    def __init__(self, model, parent=None, title: str | None = None):
        super().__init__(parent)
        self.setWindowTitle(title or self.tr("Choose an operator"))
        self.ops = available_ops(model)
        self.chosen = None
        self.search = QLineEdit()
        self.search.setPlaceholderText(self.tr("Type to search operators…"))
        self.list = QListWidget()
        buttons = QDialogButtonBox(QDialogButtonBox.Ok | QDialogButtonBox.Cancel)
        layout = QVBoxLayout(self)
        layout.addWidget(self.search)
        layout.addWidget(self.list, 1)
        layout.addWidget(buttons)
        self.search.textChanged.connect(self._fill)
        self.search.returnPressed.connect(self.accept)
        self.list.itemActivated.connect(lambda _i: self.accept())
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        self.resize(360, 480)
        self._fill("")

    def _fill(self, text: str) -> None:
        self.list.clear()
        for domain, op in filter_ops(self.ops, text):
            item = QListWidgetItem(op_label(domain, op))
            item.setData(Qt.UserRole, (domain, op))
            self.list.addItem(item)
        if self.list.count():
            self.list.setCurrentRow(0)

    def accept(self) -> None:
        item = self.list.currentItem()
        if item is None:
            return
        self.chosen = item.data(Qt.UserRole)
        super().accept()


def pick_op(model, parent=None, title: str | None = None):
    """(domain, op) or None. Offscreen (tests) the picker is built but not run:
    tests drive `OpPicker` directly or replace this function."""
    dialog = OpPicker(model, parent, title)
    return dialog.chosen if dialog.exec() == QDialog.Accepted else None
