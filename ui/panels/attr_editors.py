"""One editor per attribute type, chosen from a table keyed by AttrType.

An editor shows an attribute's value and turns what the user typed into a
Python value for `SetAttribute`; text that does not fit the type raises
`ValueError` with a message for the field (the model is not touched).
Element-type attributes (Cast's `to`, `dtype`, `output_dtype`) are shown by
name: "BOOL (9)", not "9".
"""
from __future__ import annotations

import ast
import re

import numpy as np

from PySide6.QtCore import QCoreApplication, QEvent, QObject, Signal
from PySide6.QtGui import QKeySequence
from PySide6.QtWidgets import QComboBox, QHBoxLayout, QLabel, QLineEdit, QPushButton, QWidget

from ...core.ir import AttrType
from ...core.ir.dtypes import DataType

DTYPE_ATTRIBUTES = {"to", "dtype", "output_dtype"}
_INT = re.compile(r"[+-]?\d+\Z")


def parse_int(text: str) -> int:
    text = text.strip()
    if not _INT.match(text):
        raise ValueError(QCoreApplication.translate("AttrEditors", "expected a whole number, got {text}")
                         .format(text=repr(text)))
    return int(text)


def parse_float(text: str) -> float:
    try:
        return float(text.strip())
    except ValueError:
        raise ValueError(QCoreApplication.translate("AttrEditors", "expected a number, got {text}")
                         .format(text=repr(text.strip()))) from None


def _items(text: str) -> list:
    """'[1, 2]' or '1, 2' or '' -> list of item texts; quoted strings stay whole."""
    text = text.strip()
    if not text or text == "[]":
        return []
    if text.startswith("["):
        try:
            value = ast.literal_eval(text)
        except (ValueError, SyntaxError):
            raise ValueError(QCoreApplication.translate("AttrEditors", "cannot read {text} as a list")
                             .format(text=repr(text))) from None
        if not isinstance(value, (list, tuple)):
            raise ValueError(QCoreApplication.translate("AttrEditors", "expected a list, got {text}")
                             .format(text=repr(text)))
        return [v if isinstance(v, str) else repr(v) for v in value]
    return [part.strip() for part in text.split(",")]


def parse_list(text: str, item) -> list:
    out = []
    for i, part in enumerate(_items(text)):
        try:
            out.append(item(part))
        except ValueError as e:
            raise ValueError(QCoreApplication.translate("AttrEditors", "item {i}: {problem}")
                             .format(i=i, problem=e)) from None
    return out


def format_value(attr_type: int, value) -> str:
    if attr_type in (AttrType.INTS, AttrType.FLOATS):
        return ", ".join(_num(v) for v in value)
    if attr_type == AttrType.STRINGS:
        return ", ".join(_text(v) for v in value)
    if attr_type == AttrType.STRING:
        return _text(value)
    return _num(value)


def _num(v) -> str:
    # Attribute floats are float32: the shortest text that reads back as the
    # same float32 ("1e-12", not the float64 expansion "9.99999996e-13").
    return str(np.float32(v)) if isinstance(v, float) else str(v)


def _text(v) -> str:
    return v.decode("utf-8", "replace") if isinstance(v, bytes) else str(v)


def dtype_label(code: int) -> str:
    try:
        return f"{DataType(code).name} ({code})"
    except ValueError:
        return QCoreApplication.translate("AttrEditors", "unknown ({code})").format(code=code)


class AttrEditor(QWidget):
    """Base: `committed(value)` when the user finished a valid entry,
    `invalid(message)` when the entry does not fit the type."""
    committed = Signal(object)
    invalid = Signal(str)
    hint = None         # the QLabel with the schema's default or "required", when known

    def __init__(self, attr, parent=None):
        super().__init__(parent)
        self.attr = attr
        self.layout_ = QHBoxLayout(self)
        self.layout_.setContentsMargins(0, 0, 0, 0)

    def set_value(self, value) -> None:
        """Show a new value (after an undo) unless the user is typing here."""


class TextAttrEditor(AttrEditor):
    """Scalars and lists typed as text (ints, floats, strings and their lists)."""

    PARSERS = {
        AttrType.INT: parse_int,
        AttrType.FLOAT: parse_float,
        AttrType.STRING: lambda t: t,
        AttrType.INTS: lambda t: parse_list(t, parse_int),
        AttrType.FLOATS: lambda t: parse_list(t, parse_float),
        AttrType.STRINGS: lambda t: parse_list(t, lambda s: s),
    }

    def __init__(self, attr, parent=None):
        super().__init__(attr, parent)
        self.edit = QLineEdit()
        self.layout_.addWidget(self.edit)
        self.set_value(attr.value, force=True)
        self.edit.editingFinished.connect(self._finish)
        self.history_keys = HistoryKeys(self.edit, lambda: self.shown)
        hint = {AttrType.INTS: self.tr("whole numbers, comma separated"),
                AttrType.FLOATS: self.tr("numbers, comma separated"),
                AttrType.STRINGS: self.tr("texts, comma separated (or a Python list of quoted texts)")}
        self.edit.setToolTip(hint.get(int(attr.type), ""))

    def set_value(self, value, force: bool = False) -> None:
        """Show the document's value; text the user has typed and not yet
        committed stays (a focused field showing the committed text follows
        the document, e.g. after Ctrl+Z pressed in it)."""
        if force or not self.edit.hasFocus() or self.edit.text() == self.shown:
            self.shown = format_value(int(self.attr.type), value)
            self.edit.setText(self.shown)

    @property
    def typing(self) -> bool:
        """The field holds text not committed to the document."""
        return self.edit.text() != self.shown

    def parse(self, text: str):
        return self.PARSERS[int(self.attr.type)](text)

    def _finish(self) -> None:
        text = self.edit.text()
        if text == self.shown:
            return
        try:
            value = self.parse(text)
        except ValueError as e:
            # The message under the form quotes what was refused; the field
            # shows the value the model still holds, not the refused text.
            self.invalid.emit(str(e))
            self.edit.setText(self.shown)
            return
        self.shown = text
        self.committed.emit(value)


class HistoryKeys(QObject):
    """Undo/Redo typed in a line edit of a form belong to the document, not
    to the line edit's own text history (which reverted the text but not the
    model, and a focus-out then committed that stale text as a new edit).
    Ctrl+Z first takes back text typed and not yet committed (`committed()`
    gives the committed text); otherwise the key is left to the window's
    Undo/Redo actions. Installed on the line edit it is made for."""

    def __init__(self, edit: QLineEdit, committed):
        super().__init__(edit)
        self.edit, self.committed = edit, committed
        edit.installEventFilter(self)

    def eventFilter(self, obj, event) -> bool:
        if obj is self.edit and event.type() in (QEvent.ShortcutOverride, QEvent.KeyPress):
            direction = history_key(event)
            if direction == "undo" and self.edit.text() != self.committed():
                if event.type() == QEvent.KeyPress:
                    self.edit.setText(self.committed())
                event.accept()
                return True
            if direction is not None:
                # An ignored override lets the Edit menu's shortcut fire; the
                # line edit's own undo never runs.
                event.ignore()
                return True
        return super().eventFilter(obj, event)


def follows_document(edit: QLineEdit) -> QLineEdit:
    """Make a form's line edit remember the text it last showed or committed
    (`edit.shown`) and hand Ctrl+Z / Ctrl+Shift+Z typed in it to the
    document (HistoryKeys). Pair with `show_committed` when the form syncs."""
    edit.shown = edit.text()
    HistoryKeys(edit, lambda: edit.shown)
    return edit


def show_committed(edit: QLineEdit, text: str) -> None:
    """Show the document's `text` in a field made by `follows_document`,
    unless the user is typing there (focused, with text not yet committed).
    A focused field holding what it last committed shows the new text too:
    after an undo from the menu it kept the undone text, and leaving it
    then committed that text again."""
    if edit.hasFocus() and edit.text() != edit.shown:
        return
    if edit.text() != text:
        edit.setText(text)
    edit.shown = text


def history_key(event) -> str | None:
    """"undo" or "redo" when a key event is the document's Undo or Redo
    (Ctrl+Z; Ctrl+Shift+Z or Ctrl+Y, as the Edit menu has them), else None."""
    if event.matches(QKeySequence.Undo):
        return "undo"
    combo = event.keyCombination()
    if event.matches(QKeySequence.Redo) or combo in (
            QKeySequence("Ctrl+Shift+Z")[0], QKeySequence("Ctrl+Y")[0]):
        return "redo"
    return None


class DtypeAttrEditor(AttrEditor):
    def __init__(self, attr, parent=None):
        super().__init__(attr, parent)
        self.combo = QComboBox()
        for dt in DataType:
            if dt != DataType.UNDEFINED:
                self.combo.addItem(dtype_label(int(dt)), int(dt))
        self.layout_.addWidget(self.combo)
        self.set_value(attr.value)
        self.combo.activated.connect(lambda i: self.committed.emit(int(self.combo.itemData(i))))

    def set_value(self, value) -> None:
        i = self.combo.findData(int(value))
        if i < 0:
            self.combo.addItem(dtype_label(int(value)), int(value))
            i = self.combo.count() - 1
        self.combo.setCurrentIndex(i)


class ButtonAttrEditor(AttrEditor):
    """Tensors open the tensor editor, graphs navigate into the body."""
    open_requested = Signal(object)

    def __init__(self, attr, parent=None):
        super().__init__(attr, parent)
        self.label = QLabel(_summary(attr))
        tensor = int(attr.type) in (AttrType.TENSOR, AttrType.SPARSE_TENSOR)
        text = self.tr("Edit tensor…") if tensor else self.tr("Open body")
        self.button = QPushButton(text)
        self.layout_.addWidget(self.label, 1)
        self.layout_.addWidget(self.button)
        self.button.clicked.connect(lambda: self.open_requested.emit(self.attr))

    def set_value(self, value) -> None:
        self.label.setText(_summary(self.attr))


class ReadOnlyAttrEditor(AttrEditor):
    def __init__(self, attr, parent=None):
        super().__init__(attr, parent)
        self.label = QLabel(_summary(attr))
        self.label.setWordWrap(True)
        self.layout_.addWidget(self.label)


def _summary(attr) -> str:
    if attr.ref_attr_name:
        return f"→ {attr.ref_attr_name}"
    value = attr.value
    t = int(attr.type)
    if t == AttrType.TENSOR and value is not None:
        return f"{getattr(value.dtype, 'name', value.dtype)}{list(value.shape)}"
    if t == AttrType.SPARSE_TENSOR and value is not None:
        return QCoreApplication.translate("AttrEditors", "{type}{dims}, sparse: {stored} of {total} stored").format(
            type=getattr(value.values.dtype, "name", value.values.dtype), dims=list(value.dims),
            stored=value.values.size, total=int(np.prod(value.dims, dtype=np.int64)))
    if t == AttrType.GRAPH and value is not None:
        n = len(value.nodes)
        return (QCoreApplication.translate("AttrEditors", "graph ({n} node)") if n == 1
                else QCoreApplication.translate("AttrEditors", "graph ({n} nodes)")).format(n=n)
    if t == AttrType.GRAPHS:
        return (QCoreApplication.translate("AttrEditors", "{n} graph") if len(value) == 1
                else QCoreApplication.translate("AttrEditors", "{n} graphs")).format(n=len(value))
    return AttrType(t).name.lower()


# The table: attribute type -> editor class.
EDITORS = {
    AttrType.INT: TextAttrEditor, AttrType.FLOAT: TextAttrEditor, AttrType.STRING: TextAttrEditor,
    AttrType.INTS: TextAttrEditor, AttrType.FLOATS: TextAttrEditor, AttrType.STRINGS: TextAttrEditor,
    AttrType.TENSOR: ButtonAttrEditor, AttrType.SPARSE_TENSOR: ButtonAttrEditor,
    AttrType.GRAPH: ButtonAttrEditor, AttrType.GRAPHS: ButtonAttrEditor,
}


def editor_for(attr, spec=None) -> AttrEditor:
    """The editor for `attr`; with its schema entry (`spec`, a
    schemas.AttrSpec) the default or "required" shows beside it."""
    t = int(attr.type)
    if attr.ref_attr_name:
        editor = ReadOnlyAttrEditor(attr)
    elif t == AttrType.INT and attr.name in DTYPE_ATTRIBUTES:
        editor = DtypeAttrEditor(attr)
    else:
        editor = EDITORS.get(t, ReadOnlyAttrEditor)(attr)
    hint = spec_hint(spec)
    if hint:
        editor.hint = QLabel(hint)
        editor.hint.setObjectName("attrHint")
        editor.hint.setStyleSheet("color: palette(placeholder-text);")
        editor.hint.setToolTip(QCoreApplication.translate("AttrEditors", "What the operator's signature says "
                                                          "about {name} ({type})").format(
            name=attr.name, type=AttrType(int(spec.type)).name.lower()))
        editor.layout_.addWidget(editor.hint)
    return editor


def spec_hint(spec) -> str:
    """"default 1e-05", "required" or "" (no schema, or no default)."""
    if spec is None:
        return ""
    if spec.required:
        return QCoreApplication.translate("AttrEditors", "required")
    if spec.default is None:
        return ""
    t = int(spec.type)
    shown = dtype_label(int(spec.default)) if t == AttrType.INT and spec.name in DTYPE_ATTRIBUTES \
        else format_value(t, spec.default)
    return QCoreApplication.translate("AttrEditors", "default {value}").format(value=shown)


def default_for(attr_type: int):
    """A value of the type for an attribute added without a schema default."""
    return {AttrType.INT: 0, AttrType.FLOAT: 0.0, AttrType.STRING: "", AttrType.INTS: [],
            AttrType.FLOATS: [], AttrType.STRINGS: []}.get(int(attr_type))
