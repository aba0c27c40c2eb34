"""The place under the Properties summary where the editable form of what is
shown goes (a node's, a value's, the model's), and the node forms kept for
reuse.

Building a node's form costs ~25 ms and putting it into the dock ~20 ms
more (bert_12layer_narrow, idle machine); while stepping, the dock follows
the current node, and a model's nodes come in a dozen kinds. So a form that
leaves the slot is kept (a few, the most recently used), and a node whose
op, attributes and graph match a kept form is shown in it, its values
updated in place (NodeEditor.can_show / show_node). Any change to the
document drops the kept forms: their input completers list the names that
existed when they were built.
"""
from __future__ import annotations

from collections import OrderedDict

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QScrollArea, QSizePolicy, QStackedWidget, QWidget

from .node_editor import NodeEditor

KEPT_FORMS = 16


class EditorSlot(QScrollArea):
    def __init__(self, parent=None):
        super().__init__(parent)
        self.setWidgetResizable(True)
        # A dock narrower than the form scrolls sideways rather than cutting off its buttons.
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarAsNeeded)
        self.setVisible(False)
        # Forms come and go as pages of one stack: putting a widget into a
        # scroll area and taking it out again costs ~15 ms a swap.
        self.stack = QStackedWidget()
        self.empty = QWidget()
        self.stack.addWidget(self.empty)
        self.setWidget(self.stack)
        self.editor = None
        self._kept: OrderedDict[int, NodeEditor] = OrderedDict()     # id -> form, least recently used first

    def kept_form(self, qdoc, node):
        """A form showing `node`: the one in the slot or a kept one when it
        fits (see NodeEditor.can_show); None when none does."""
        for form in ([self.editor] if isinstance(self.editor, NodeEditor) else []) + list(self._kept.values()):
            if form.qdoc is qdoc and form.can_show(node):
                self._kept.pop(id(form), None)
                form.show_node(node)
                return form
        return None

    def keep(self, form) -> None:
        """Keep a node form built but not shown yet, for kept_form to offer."""
        if form is self.editor or id(form) in self._kept:
            return
        _counts(form, False)
        self._kept[id(form)] = form
        self._trim()

    def blank(self) -> None:
        """No form, for a moment (one is on its way): an empty page, the slot
        keeping its place (hiding it would lay out the dock twice)."""
        self.put(None)
        self.stack.setCurrentWidget(self.empty)
        self.setVisible(True)

    def put(self, editor) -> None:
        """Show `editor` (a form widget, or None); the one it replaces is kept
        when it is a node form, else deleted."""
        if editor is self.editor:
            return
        old, stack = self.editor, self.stack
        if editor is not None:
            if stack.indexOf(editor) < 0:
                stack.addWidget(editor)
            _counts(editor, True)
            stack.setCurrentWidget(editor)
        if old is not None:
            _counts(old, False)
            if isinstance(old, NodeEditor):
                self._kept[id(old)] = old
                self._trim()
            else:
                self._drop(old)
        self.editor = editor
        self.setVisible(editor is not None)

    def _trim(self) -> None:
        while len(self._kept) > KEPT_FORMS:
            self._drop(self._kept.popitem(last=False)[1])

    def _drop(self, form) -> None:
        self.stack.removeWidget(form)
        form.deleteLater()

    def drop_kept(self) -> None:
        """Forget the kept forms (the document changed under them)."""
        for form in self._kept.values():
            self._drop(form)
        self._kept.clear()


def _counts(form, shown: bool) -> None:
    """A kept form hidden in the stack must not size the slot (the stack is
    as large as its largest page otherwise): its size is ignored."""
    policy = QSizePolicy.Preferred if shown else QSizePolicy.Ignored
    form.setSizePolicy(policy, policy)
