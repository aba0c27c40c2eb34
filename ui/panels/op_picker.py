"""Choosing an operator: only the ops of the model's imported opsets and
domains (and its model-local functions), filtered as the user types.

Used by the properties panel (change a node's op) and the canvas palette
(add a node, insert on an edge). `OpPalette` is the same list in a small
window that stays open: its ops can be dragged onto the canvas (onto an edge:
inserted there; onto empty canvas: added where dropped). Both show the
current op's signature (op_signature.py) under the list."""
from __future__ import annotations

from PySide6.QtCore import QEvent, QMimeData, Qt, Signal
from PySide6.QtWidgets import (QAbstractItemView, QDialog, QDialogButtonBox, QLabel, QLineEdit, QListWidget,
                               QListWidgetItem, QVBoxLayout, QWidget)

from ...core import schemas
from .op_signature import signature_html


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


def signature_label() -> QLabel:
    """The label under an op list showing the current op's signature."""
    label = QLabel()
    label.setObjectName("signature")
    label.setWordWrap(True)
    label.setTextFormat(Qt.RichText)
    label.setTextInteractionFlags(Qt.TextSelectableByMouse)
    label.setMinimumHeight(96)
    label.setAlignment(Qt.AlignTop | Qt.AlignLeft)
    return label


def show_signature(label: QLabel, item, imports: dict) -> None:
    if item is None:
        label.clear()
        return
    domain, op = item.data(Qt.UserRole)
    label.setText(signature_html(domain, op, imports))


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
        self.imports = dict(model.opset_imports)
        self.chosen = None
        self.search = QLineEdit()
        self.search.setPlaceholderText(self.tr("Type to search operators…"))
        self.list = QListWidget()
        self.signature = signature_label()
        self.list.currentItemChanged.connect(lambda item, _old: show_signature(self.signature, item, self.imports))
        buttons = QDialogButtonBox(QDialogButtonBox.Ok | QDialogButtonBox.Cancel)
        layout = QVBoxLayout(self)
        layout.addWidget(self.search)
        layout.addWidget(self.list, 1)
        layout.addWidget(self.signature)
        layout.addWidget(buttons)
        self.search.textChanged.connect(self._fill)
        self.search.returnPressed.connect(self.accept)
        self.list.itemActivated.connect(lambda _i: self.accept())
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        self.resize(420, 560)
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


OP_MIME = "application/x-onnxstudio-op"     # "domain\top" of a dragged operator


def op_mime(domain: str, op: str) -> QMimeData:
    mime = QMimeData()
    mime.setData(OP_MIME, f"{domain}\t{op}".encode("utf-8"))
    mime.setText(op)
    return mime


def op_from_mime(mime) -> tuple[str, str] | None:
    """(domain, op) carried by a drag from the palette, else None."""
    if mime is None or not mime.hasFormat(OP_MIME):
        return None
    domain, _, op = bytes(mime.data(OP_MIME)).decode("utf-8", "replace").partition("\t")
    return (domain, op) if op else None


class _OpList(QListWidget):
    """The palette's list: each row drags as its operator."""

    def mimeData(self, items):
        if not items:
            return None
        domain, op = items[0].data(Qt.UserRole)
        return op_mime(domain, op)

    def mimeTypes(self):
        return [OP_MIME]


class OpPalette(QWidget):
    """A small window listing the model's operators, searchable, that stays
    open beside the canvas: drag an op onto an edge to insert it there, onto
    empty canvas to add it at that place; Enter or double-click adds it after
    the selected node (as Tab does). Esc clears the search; Esc on an empty
    search closes the palette (`dismissed`: the canvas takes the focus back)."""
    chosen = Signal(object)          # (domain, op)
    dismissed = Signal()             # closed with Esc

    def __init__(self, parent=None):
        super().__init__(parent, Qt.Tool)
        self.setWindowTitle(self.tr("Operators"))
        self.ops: list = []
        self.imports: dict = {}
        self.search = QLineEdit()
        self.search.setPlaceholderText(self.tr("Type to search operators…"))
        self.list = _OpList()
        self.signature = signature_label()
        self.list.currentItemChanged.connect(lambda item, _old: show_signature(self.signature, item, self.imports))
        self.list.setDragEnabled(True)
        self.list.setDragDropMode(QAbstractItemView.DragOnly)
        self.list.setSelectionMode(QAbstractItemView.SingleSelection)
        hint = QLabel(self.tr("Drag onto an edge to insert, onto the canvas to add; Enter adds after the "
                              "selected node. Esc clears the search, then closes."))
        hint.setWordWrap(True)
        hint.setStyleSheet("color: palette(placeholder-text);")
        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 6, 6, 6)
        layout.addWidget(self.search)
        layout.addWidget(self.list, 1)
        layout.addWidget(self.signature)
        layout.addWidget(hint)
        self.search.textChanged.connect(self._fill)
        self.search.returnPressed.connect(self._choose_current)
        self.list.itemActivated.connect(lambda _i: self._choose_current())
        # Up/Down move through the list while the cursor stays in the search field.
        self.search.installEventFilter(self)
        self.resize(300, 560)

    def eventFilter(self, obj, event) -> bool:
        if obj is self.search and event.type() == QEvent.KeyPress and event.key() == Qt.Key_Escape:
            # One rule, said in the hint: the first Esc clears what was typed, the next closes.
            if self.search.text():
                self.search.clear()
            else:
                self.dismiss()
            return True
        if obj is self.search and event.type() == QEvent.KeyPress and event.key() in (Qt.Key_Up, Qt.Key_Down):
            row = self.list.currentRow() + (1 if event.key() == Qt.Key_Down else -1)
            if 0 <= row < self.list.count():
                self.list.setCurrentRow(row)
            return True
        return super().eventFilter(obj, event)

    def keyPressEvent(self, event) -> None:
        # Esc with the focus in the list (the search field filters its own).
        if event.key() == Qt.Key_Escape:
            self.dismiss()
            return
        super().keyPressEvent(event)

    def dismiss(self) -> None:
        self.hide()
        self.dismissed.emit()

    def set_model(self, model) -> None:
        self.ops = available_ops(model) if model is not None else []
        self.imports = dict(model.opset_imports) if model is not None else {}
        self._fill(self.search.text())

    def _fill(self, text: str) -> None:
        self.list.clear()
        for domain, op in filter_ops(self.ops, text):
            item = QListWidgetItem(op_label(domain, op))
            item.setData(Qt.UserRole, (domain, op))
            item.setFlags(item.flags() | Qt.ItemIsDragEnabled)
            self.list.addItem(item)
        if self.list.count():
            self.list.setCurrentRow(0)

    def item_for(self, op: str, domain: str = ""):
        return next((self.list.item(i) for i in range(self.list.count())
                     if self.list.item(i).data(Qt.UserRole) == (domain, op)), None)

    def _choose_current(self) -> None:
        item = self.list.currentItem()
        if item is not None:
            self.chosen.emit(item.data(Qt.UserRole))


def pick_op(model, parent=None, title: str | None = None):
    """(domain, op) or None. Offscreen (tests) the picker is built but not run:
    tests drive `OpPicker` directly or replace this function."""
    dialog = OpPicker(model, parent, title)
    return dialog.chosen if dialog.exec() == QDialog.Accepted else None
