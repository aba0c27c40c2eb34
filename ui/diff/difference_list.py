"""Every difference as a row (rewrites, changed nodes, inputs and outputs,
changed weights, values that could not be compared, added and removed
nodes and weights, renames, opset imports and IR version: what
`onnxstudio diff` lists); clicking one shows
it on both canvases. Many added (or removed) Constant nodes are one row
that lists them when clicked: between two unrelated models they were
hundreds of rows before anything a reader looks for (bert_small against
ppocr_v4_det: 342). Rows are added a page at a time and their texts made
only then, so 100,000 differences never build 100,000 rows (or texts) at
once; a group lists its members a page at a time too."""
from __future__ import annotations

from typing import Callable

from PySide6.QtCore import QEvent, Qt, Signal
from PySide6.QtGui import QBrush, QColor, QFont
from PySide6.QtWidgets import QLabel, QListWidget, QListWidgetItem, QPushButton, QVBoxLayout, QWidget

from ...core.diff import ADDED, CHANGED, REMOVED, REWRITTEN
from ...core.diff.report import is_constant_node, node_label, rewrite_side
from ...core.ir import type_name
from .status_marks import COLOURS

PAGE = 500
# Fewer Constant nodes than this are listed like any other node: a handful
# reads as well as one row that hides them.
GROUP_FROM = 5
INDENT = "    "

DIFFERENCE = Qt.UserRole            # (object of A, object of B) of a difference's row
GROUP = Qt.UserRole + 1             # the ConstantGroup of its own row, its members' and its "more" row
HEAD, MORE = "head", "more"
KIND = Qt.UserRole + 2              # HEAD: a group's own row; MORE: its "… n more" row
NOT_COMPARED_ROLE = Qt.UserRole + 3  # True on a row whose values could not be compared
NOT_COMPARED = "not compared"       # a row's status: values whose data cannot be read


class ConstantGroup:
    """Constant nodes only one side has, shown as one row whose click lists
    them (`listed` of them, a page at a time) beneath it."""

    def __init__(self, members: list, status: str, make: Callable):
        self.members, self.status, self.make = members, status, make
        self.listed = 0
        self.head = None            # its own row, once shown


class DifferenceList(QWidget):
    chosen = Signal(object, object)          # object of A, object of B (either may be None)

    def __init__(self, diff, parent=None):
        super().__init__(parent)
        self._sections = self.sections(diff)
        self.entries = sum(len(items) for items, _ in self._sections)     # rows at the top level
        self.total = sum(_size(item) for items, _ in self._sections for item in items)   # differences
        self.entries_shown = 0
        self.differences_shown = 0
        self.list = QListWidget(self)
        # A row too long for the dock keeps its start (the node) and its end
        # (the kind of change) and loses its middle; the whole text is its tooltip.
        self.list.setTextElideMode(Qt.ElideMiddle)
        self.list.setHorizontalScrollBarPolicy(Qt.ScrollBarAlwaysOff)
        self.list.installEventFilter(self)
        self.count = QLabel(self)
        self.more = QPushButton(self.tr("Show More"), self)
        self.more.clicked.connect(self.show_page)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.count)
        layout.addWidget(self.list, 1)
        layout.addWidget(self.more)
        self.list.currentItemChanged.connect(self._current)
        self.list.itemClicked.connect(self._clicked)
        self.show_page()

    def sections(self, diff) -> list[tuple[list, Callable]]:
        """(items, row) per kind of difference, in reading order: what a
        reader looks for first (rewrites, changed nodes, the model's inputs
        and outputs, changed weights), then what one side only has, then
        renames and the opset imports and IR version.
        `row(item)` gives (text, status, object of A, object of B); a group
        item stands for many differences. Texts are made only for the rows
        shown, so a diff of 100,000 differences costs nothing until it is
        paged through."""
        io = []
        for d in (diff.inputs, diff.outputs):
            io += [(v, "added") for v in d.added] + [(v, "removed") for v in d.removed]
            io += [(pair, "changed") for pair in d.changed]
            io += [(entry, "repeat added") for entry in d.repeats_added]
            io += [(entry, "repeat removed") for entry in d.repeats_removed]
        # A renamed graph input or output is already its row above.
        shown_above = {pair for d in (diff.inputs, diff.outputs) for pair in d.changed}
        renamed_values = [pair for pair in diff.renamed_values if pair not in shown_above]
        added, added_constants = _split_constants(diff.added)
        removed, removed_constants = _split_constants(diff.removed)
        return [(diff.rewrites, self._rewrite), (diff.changed, self._changed), (io, self._io),
                (diff.weights_changed, self._weight),
                (diff.weights_not_compared, self._weight_not_compared),
                ([(c, name, reason) for c in diff.nodes_not_compared for name, reason in c.not_compared],
                 self._attribute_not_compared),
                (added, self._added), self._constants(added_constants, ADDED, self._added),
                (removed, self._removed), self._constants(removed_constants, REMOVED, self._removed),
                (diff.weights_added, lambda v: (self.tr("weight added: {name}").format(name=v.name), ADDED, None, v)),
                (diff.weights_removed, lambda v: (self.tr("weight removed: {name}").format(name=v.name), REMOVED,
                                                  v, None)),
                (diff.renamed_nodes, self._renamed_node), (renamed_values, self._renamed_value),
                (diff.model_fields, self._model_field)]

    def _constants(self, constants: list, status: str, make: Callable) -> tuple[list, Callable]:
        """The section of many Constant nodes: one group; of a handful: each its own row."""
        if len(constants) >= GROUP_FROM:
            return [ConstantGroup(constants, status, make)], lambda group: (self.group_text(group), status,
                                                                            None, None)
        return constants, make

    def _added(self, n):
        return self.tr("added: {name} ({op})").format(name=node_label(n), op=n.op_type), ADDED, None, n

    def _removed(self, n):
        return self.tr("removed: {name} ({op})").format(name=node_label(n), op=n.op_type), REMOVED, n, None

    def group_text(self, group: ConstantGroup) -> str:
        mark = "▾" if group.listed else "▸"
        n = len(group.members)
        if group.status == ADDED:
            what = self.tr("{n} Constant nodes added in B").format(n=n)
        else:
            what = self.tr("{n} Constant nodes removed from A").format(n=n)
        return f"{mark} {what}"

    def _rewrite(self, r):
        names = self._rewrite_side(r.a_nodes, r.a_values)
        into = self._rewrite_side(r.b_nodes, r.b_values)
        return (self.tr("{what}: {a} → {b}").format(what=r.text, a=names, b=into), REWRITTEN,
                r.a_nodes[0] if r.a_nodes else None, r.b_nodes[0] if r.b_nodes else None)

    def _rewrite_side(self, nodes: list, values: list) -> str:
        return rewrite_side(nodes, values, self.tr("initializer {name}")) or "—"

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
        # What changed, as onnxstudio diff says it: which dtype and shape
        # became which, else how far the values moved.
        parts = []
        if w.dtype:
            parts.append(self.tr("dtype {a} → {b}").format(a=type_name(w.dtype[0]), b=type_name(w.dtype[1])))
        if w.shape:
            parts.append(self.tr("shape {a} → {b}").format(a=list(w.shape[0]), b=list(w.shape[1])))
        if w.not_compared:
            parts.append(self.tr("values not compared: {reason}").format(reason=w.not_compared))
        if w.max_abs is not None and not parts:
            parts.append(self.tr("max abs {x:.4g}").format(x=w.max_abs))
        detail = ", ".join(parts) or self.tr("values differ")      # strings: no distance
        return self.tr("weight {name}: {detail}").format(name=w.a.name, detail=detail), CHANGED, w.a, w.b

    # Values whose data cannot be read are neither the same nor different:
    # their rows say so and are drawn apart (NOT_COMPARED), never left out.
    def _weight_not_compared(self, w):
        text = self.tr("weight {name}: values not compared: {reason}").format(name=w.a.name, reason=w.not_compared)
        return text, NOT_COMPARED, w.a, w.b

    def _attribute_not_compared(self, entry):
        c, name, reason = entry
        text = self.tr("{node}: attribute {name}: values not compared: {reason}").format(
            node=node_label(c.a), name=name, reason=reason)
        return text, NOT_COMPARED, c.a, c.b

    def _io(self, entry):
        item, how = entry
        if how == "added":
            return self.tr("graph input/output added: {name}").format(name=item.name), ADDED, None, item
        if how == "removed":
            return self.tr("graph input/output removed: {name}").format(name=item.name), REMOVED, item, None
        if how == "repeat added":
            value, position = item
            return (self.tr("graph input/output declared again in B only: {name} (position {i})").format(
                name=value.name, i=position), ADDED, None, value)
        if how == "repeat removed":
            value, position = item
            return (self.tr("graph input/output declared again in A only: {name} (position {i})").format(
                name=value.name, i=position), REMOVED, value, None)
        x, y = item
        return (self.tr("graph input/output {a}: {ta} → {b}: {tb}").format(a=x.name, ta=x.type, b=y.name,
                                                                          tb=y.type), CHANGED, x, y)

    def _renamed_node(self, pair):
        a, b = pair
        return (self.tr("renamed: {a} → {b} ({op})").format(a=node_label(a), b=node_label(b), op=b.op_type),
                CHANGED, a, b)

    def _renamed_value(self, pair):
        a, b = pair
        return self.tr("value renamed: {a} → {b}").format(a=a.name, b=b.name), CHANGED, a, b

    def _model_field(self, c):
        """An opset import or the IR version: no node to show, so last, and
        said in the window's summary line as well."""
        def shown(v):
            return "—" if v is None else str(v)
        if c.field == "opset_import":
            text = self.tr("opset import {domain}: {a} → {b}").format(domain=c.domain or "ai.onnx", a=shown(c.a),
                                                                     b=shown(c.b))
        else:
            text = self.tr("IR version: {a} → {b}").format(a=shown(c.a), b=shown(c.b))
        return text, CHANGED, None, None

    def entry(self, index: int):
        """(item, row maker) of top-level row `index`."""
        for items, make in self._sections:
            if index < len(items):
                return items[index], make
            index -= len(items)
        raise IndexError(index)

    def show_page(self) -> None:
        start = self.entries_shown
        for i in range(start, min(start + PAGE, self.entries)):
            item, make = self.entry(i)
            text, status, a, b = make(item)
            row = self._item(text, status)
            if isinstance(item, ConstantGroup):
                item.head = row
                row.setData(GROUP, item)
                row.setData(KIND, HEAD)
                row.setFont(_bold())
                row.setToolTip(self.tr("Constant nodes only one side has, in one row: click (or Enter) to "
                                       "list them or hide them again"))
            else:
                row.setData(DIFFERENCE, (a, b))
            self.list.addItem(row)
            self.differences_shown += _size(item)
        self.entries_shown = min(start + PAGE, self.entries)
        self.count.setText(self.count_text(self.differences_shown, self.total))
        self.more.setVisible(self.entries_shown < self.entries)

    def _item(self, text: str, status: str) -> QListWidgetItem:
        row = QListWidgetItem(text)
        row.setToolTip(text)
        if status == NOT_COMPARED:
            # The changed colour (something to look at), in italics: not a
            # difference found, and not the same either.
            row.setForeground(QBrush(QColor(COLOURS[CHANGED])))
            row.setFont(_italic())
            row.setData(NOT_COMPARED_ROLE, True)
        else:
            row.setForeground(QBrush(QColor(COLOURS[status])))
        return row

    # -- groups ------------------------------------------------------------------------------

    def toggle(self, row: QListWidgetItem) -> None:
        """List a group's members beneath its row, or take them away."""
        group = row.data(GROUP)
        if group.listed:
            at = self.list.row(row) + 1
            for _ in range(group.listed + (group.listed < len(group.members))):
                self.list.takeItem(at)
            group.listed = 0
        else:
            self.list_more(row)
        row.setText(self.group_text(group))

    def list_more(self, row: QListWidgetItem) -> None:
        """The group's next page of members, beneath those listed (its
        "more" row, when there are still more, last)."""
        group = row.data(GROUP)
        at = self.list.row(row) + 1 + group.listed
        more = self.list.item(at) if group.listed else None
        if more is not None and more.data(KIND) == MORE:
            self.list.takeItem(at)
        end = min(group.listed + PAGE, len(group.members))
        for k in range(group.listed, end):
            text, status, a, b = group.make(group.members[k])
            member = self._item(INDENT + text, status)
            member.setToolTip(text)
            member.setData(DIFFERENCE, (a, b))
            member.setData(GROUP, group)
            self.list.insertItem(at, member)
            at += 1
        group.listed = end
        if end < len(group.members):
            more = self._item(INDENT + self.tr("… {n} more: click to list them").format(
                n=len(group.members) - end), group.status)
            more.setData(GROUP, group)
            more.setData(KIND, MORE)
            self.list.insertItem(at, more)

    def _clicked(self, row) -> None:
        if row is None:
            return
        if row.data(KIND) == HEAD:
            self.toggle(row)
        elif row.data(KIND) == MORE:
            self.list_more(row.data(GROUP).head)
        else:
            self._current(row)

    def eventFilter(self, watched, event) -> bool:
        # Enter or Space on a group's row lists (or hides) its members, as a click does.
        if watched is self.list and event.type() == QEvent.KeyPress and \
                event.key() in (Qt.Key_Return, Qt.Key_Enter, Qt.Key_Space):
            row = self.list.currentItem()
            if row is not None and row.data(KIND) in (HEAD, MORE):
                self._clicked(row)
                return True
        return super().eventFilter(watched, event)

    def count_text(self, shown: int, total: int) -> str:
        # Plural forms through Qt's %n, as ui/problems.py does: English is the
        # source language (no translator), so its singular is picked here.
        if shown < total:
            return self.tr("{shown} of %n differences", "", total).format(shown=shown)
        return self.tr("%n difference", "", total) if total == 1 else self.tr("%n differences", "", total)

    def _current(self, item, *_) -> None:
        if item is not None and item.data(DIFFERENCE) is not None:
            a, b = item.data(DIFFERENCE)
            self.chosen.emit(a, b)


def _split_constants(nodes: list) -> tuple[list, list]:
    """(nodes that compute, Constant nodes), each in its order."""
    computing, constants = [], []
    for n in nodes:
        (constants if is_constant_node(n) else computing).append(n)
    return computing, constants


def _size(item) -> int:
    """How many differences a top-level row stands for."""
    return len(item.members) if isinstance(item, ConstantGroup) else 1


def _italic() -> QFont:
    font = QFont()
    font.setItalic(True)
    return font


def _bold() -> QFont:
    font = QFont()
    font.setBold(True)
    return font
