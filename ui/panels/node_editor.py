"""The editable form of one node: name, op (through the op picker), domain,
doc string, each attribute with its typed editor, adding and removing
attributes, and the node's inputs (pick another value, clear an optional one).

Every change is an Edit pushed through `qdoc.apply`; a refused or mistyped
entry shows its message under the form and leaves the model as it was.
"""
from __future__ import annotations

from PySide6.QtCore import QCoreApplication, QStringListModel, Qt, Signal
from PySide6.QtWidgets import (QApplication, QComboBox, QCompleter, QFormLayout, QHBoxLayout, QLabel, QLineEdit,
                               QPushButton, QToolButton, QVBoxLayout, QWidget)

from ...core import schemas
from ...core.edits import Macro, SetAttribute, SetNodeField, SetNodeInput, graph_path, node_ref
from ...core.ir import AttrType
from .attr_editors import ButtonAttrEditor, HistoryKeys, default_for, editor_for, format_value
from .op_picker import pick_op
from .refusal_line import RefusalLine, apply_edit

ADDABLE_TYPES = [AttrType.INT, AttrType.FLOAT, AttrType.STRING, AttrType.INTS, AttrType.FLOATS,
                 AttrType.STRINGS]


def change_op_edit(node, model, domain: str, op_type: str):
    """Macro: set the op (and domain); keep attributes the new op still has
    with the same type; drop the others; add its required ones with defaults."""
    ref, gpath = node_ref(node), graph_path(node.graph)
    schema = schemas.bind(domain, op_type, dict(model.opset_imports))
    edits = [SetNodeField(ref, "op_type", op_type, gpath)]
    if domain != node.domain:
        edits.append(SetNodeField(ref, "domain", domain, gpath))
    if schema is not None:
        for name, attr in node.attributes.items():
            spec = schema.attributes.get(name)
            if spec is None or int(spec.type) != int(attr.type):
                edits.append(SetAttribute(ref, name, None, graph=gpath))
        for name in schema.required_attributes:
            if name not in node.attributes or int(node.attributes[name].type) != int(schema.attributes[name].type):
                spec = schema.attributes[name]
                value = spec.default if spec.default is not None else default_for(spec.type)
                if value is not None:
                    edits.append(SetAttribute(ref, name, int(spec.type), _plain(value), graph=gpath))
    # Later edits find the node by its name or first output, which stay put.
    return Macro(edits, QCoreApplication.translate("NodeEditor", "Change op of {node} to {op}").format(
        node=node.display_name, op=op_type))


def _shape(node) -> tuple:
    return (tuple((k, int(a.type), a.ref_attr_name) for k, a in node.attributes.items()), len(node.inputs),
            node.op_type)


def _plain(value):
    return list(value) if isinstance(value, tuple) else value


class NodeEditor(QWidget):
    navigate = Signal(object)          # a subgraph to enter
    open_tensor = Signal(object, object)  # node, Attr: edit a tensor attribute

    def __init__(self, qdoc, node, parent=None):
        super().__init__(parent)
        self.qdoc = qdoc
        self.node = node
        self.message = RefusalLine(hide_when_empty=False)
        self.attr_editors: dict = {}
        self.input_edits: list[QLineEdit] = []
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        self.form = QFormLayout()
        self.form.setFieldGrowthPolicy(QFormLayout.AllNonFixedFieldsGrow)
        layout.addWidget(self.message)          # refusals show above the fields, always in view
        layout.addLayout(self.form)
        layout.addStretch(1)
        # What the fields were built for; compared with the node's shape, not
        # the node's own: after an attribute of the node shown is added or
        # removed, its shape has moved and these fields no longer fit it.
        self.built_shape = _shape(node)
        self._build()

    # -- building ------------------------------------------------------------------------

    @property
    def ref(self):
        return node_ref(self.node)

    @property
    def gpath(self):
        return graph_path(self.node.graph)

    def _build(self) -> None:
        node = self.node
        self.name_edit = self._line(node.name, self._set_name)
        self.form.addRow(QLabel("<b>" + self.tr("Node") + "</b>"))
        self.form.addRow("name", self.name_edit)
        op_row = QHBoxLayout()
        self.op_label = QLabel(node.op_type)
        self.op_button = QPushButton(self.tr("Change…"))
        self.op_button.clicked.connect(self.choose_op)
        op_row.addWidget(self.op_label, 1)
        op_row.addWidget(self.op_button)
        self.form.addRow("op_type", op_row)
        self.domain_edit = self._line(node.domain, lambda t: self._set_field("domain", t))
        self.domain_edit.setPlaceholderText("ai.onnx")
        self.form.addRow("domain", self.domain_edit)
        self.doc_edit = self._line(node.doc_string, lambda t: self._set_field("doc_string", t))
        self.form.addRow("doc_string", self.doc_edit)
        self.form.addRow(QLabel("<b>" + self.tr("Inputs") + "</b>"))
        completer = QCompleter(QStringListModel(sorted(self._names_in_scope())), self)
        completer.setCaseSensitivity(Qt.CaseInsensitive)
        completer.setFilterMode(Qt.MatchContains)
        for i, value in enumerate(node.inputs):
            edit = QLineEdit(value.name if value is not None else "")
            edit.setPlaceholderText(self.tr("(empty)"))
            edit.setCompleter(completer)
            edit.editingFinished.connect(lambda i=i, e=edit: self._set_input(i, e.text().strip()))
            clear = QToolButton()
            clear.setText("×")
            clear.setToolTip(self.tr("Leave this optional input empty"))
            clear.clicked.connect(lambda _=False, i=i: self._set_input(i, ""))
            row = QHBoxLayout()
            row.addWidget(edit, 1)
            row.addWidget(clear)
            self.form.addRow(self._formal_name(i), row)
            self.input_edits.append(edit)
        self.form.addRow(QLabel("<b>" + self.tr("Attributes") + "</b>"))
        specs = getattr(self._schema(), "attributes", {})      # defaults shown beside the fields
        for name, attr in node.attributes.items():
            editor = editor_for(attr, specs.get(name))
            editor.committed.connect(lambda v, a=attr: self._set_attr(a.name, int(a.type), v))
            editor.invalid.connect(lambda msg, a=attr: self._refuse(
                self.tr('attribute "{name}": {problem}').format(name=a.name, problem=msg)))
            if isinstance(editor, ButtonAttrEditor):
                editor.open_requested.connect(self._open_attr)
            remove = QToolButton()
            remove.setText("−")
            remove.setToolTip(self.tr("Remove attribute {name}").format(name=name))
            remove.clicked.connect(lambda _=False, n=name: self._remove_attr(n))
            row = QHBoxLayout()
            row.addWidget(editor, 1)
            row.addWidget(remove)
            label = QLabel(name)
            label.setToolTip(AttrType(int(attr.type)).name.lower())
            self.form.addRow(label, row)
            self.attr_editors[name] = editor
        self._build_add_row()

    def _build_add_row(self) -> None:
        self.add_combo = QComboBox()
        self.add_combo.setEditable(True)
        self.add_combo.lineEdit().setPlaceholderText(self.tr("attribute name"))
        schema = self._schema()
        if schema is not None:
            for name, spec in sorted(schema.attributes.items()):
                if name not in self.node.attributes:
                    self.add_combo.addItem(name, spec)
        self.add_combo.setCurrentIndex(-1)
        self.add_type = QComboBox()
        for t in ADDABLE_TYPES:
            self.add_type.addItem(t.name.lower(), int(t))
        self.add_combo.currentIndexChanged.connect(self._schema_type)
        add = QPushButton(self.tr("Add"))
        add.clicked.connect(self.add_attribute)
        row = QHBoxLayout()
        row.addWidget(self.add_combo, 1)
        row.addWidget(self.add_type)
        row.addWidget(add)
        self.form.addRow(self.tr("add"), row)

    def _schema(self):
        model = self.qdoc.document.model
        return schemas.bind(self.node.domain, self.node.op_type, dict(model.opset_imports))

    def _schema_type(self, index: int) -> None:
        spec = self.add_combo.itemData(index)
        if spec is not None:
            i = self.add_type.findData(int(spec.type))
            if i >= 0:
                self.add_type.setCurrentIndex(i)

    def _formal_name(self, index: int) -> str:
        schema = self._schema()
        formal = schema.input_formal(index) if schema is not None else None
        return f"{index} {formal.name}" if formal is not None else str(index)

    def _names_in_scope(self) -> set:
        names = set()
        g = self.node.graph
        while g is not None:
            names.update(g.values())
            g = g.parent_graph
        return names

    def _line(self, text: str, commit) -> QLineEdit:
        edit = QLineEdit(text)
        edit.shown = text
        HistoryKeys(edit, lambda: edit.shown)       # Ctrl+Z here undoes the model, not the text alone
        def finish():
            if edit.text() != edit.shown:
                edit.shown = edit.text()
                commit(edit.text())
        edit.editingFinished.connect(finish)
        return edit

    # -- keeping in step -------------------------------------------------------------------

    def shape(self) -> tuple:
        """The node's shape as it is now: the attributes (name, type, a
        reference to a function's attribute), the number of inputs, the op.
        `built_shape` is the one the fields were built for."""
        return _shape(self.node)

    def can_show(self, node) -> bool:
        """Whether these fields fit `node` as they stand: the same op, domain,
        graph (the inputs' completer offers its names) and shape, and nobody
        typing in them (a field left with focus would commit its text to the
        node shown next)."""
        mine = self.node
        return (node.graph is mine.graph and node.domain == mine.domain and _shape(node) == self.built_shape
                and not self.isAncestorOf(QApplication.focusWidget()))

    def show_node(self, node) -> None:
        """Show `node` in these fields (see `can_show`): stepping through a
        model shows node after node of the same kind, and building the form
        again each time was most of a step's pause on the UI thread."""
        self.node = node
        self.message.clear_refusal()        # a refusal was about the node shown before
        self.sync()

    def sync(self) -> None:
        """Show the node's current values in the existing fields (after an undo)."""
        n = self.node
        for edit, text in ((self.name_edit, n.name), (self.domain_edit, n.domain),
                           (self.doc_edit, n.doc_string)):
            if not edit.hasFocus() or edit.text() == edit.shown:     # nobody typing here
                edit.setText(text)
                edit.shown = text
        for edit, value in zip(self.input_edits, n.inputs):
            if not edit.hasFocus():
                edit.setText(value.name if value is not None else "")
        for name, editor in self.attr_editors.items():
            attr = n.attributes.get(name)
            if attr is not None:
                editor.attr = attr
                editor.set_value(attr.value)

    # -- edits -------------------------------------------------------------------------------

    def _apply(self, edit) -> bool:
        # Each commit of a field (Return, focus-out) is an undo step of its
        # own: typing until the commit is one edit, five commits are five steps.
        return apply_edit(self.qdoc, self.message, edit, merge=False)

    def _refuse(self, message: str) -> None:
        self.message.say(self.tr("{node}: {problem} — not changed.").format(
            node=self.node.display_name, problem=message))

    def _set_name(self, text: str) -> None:
        if text and any(n.name == text and n is not self.node for n in self.node.graph.nodes):
            self._refuse(self.tr("the name {name} is already used by another node").format(name=repr(text)))
            self.name_edit.setText(self.node.name)
            self.name_edit.shown = self.node.name
            return
        self._set_field("name", text)

    def _set_field(self, field: str, text: str) -> None:
        if not self._apply(SetNodeField(self.ref, field, text, self.gpath)):
            self.sync()

    def _set_input(self, index: int, name: str) -> None:
        current = self.node.inputs[index]
        if (current.name if current is not None else "") == name:
            return
        if name and self.node.graph.lookup(name) is None:
            self._refuse(self.tr("input {index}: no value named {name} is visible here").format(
                index=index, name=repr(name)))
            self._show_input(index)
            return
        if not self._apply(SetNodeInput(self.ref, index, name, self.gpath)):
            self._show_input(index)

    def _show_input(self, index: int) -> None:
        """After a refusal the field shows the name the node still reads, focus
        or not (sync leaves a focused field alone): the refused text stayed
        there and leaving the field refused it again (QA)."""
        value = self.node.inputs[index]
        self.input_edits[index].setText(value.name if value is not None else "")

    def _set_attr(self, name: str, attr_type: int, value) -> None:
        self._apply(SetAttribute(self.ref, name, attr_type, value, graph=self.gpath))

    def _remove_attr(self, name: str) -> None:
        self._apply(SetAttribute(self.ref, name, None, graph=self.gpath))

    def add_attribute(self) -> None:
        name = self.add_combo.currentText().strip()
        if not name:
            self._refuse(self.tr("give the new attribute a name"))
            return
        if name in self.node.attributes:
            self._refuse(self.tr('attribute "{name}" is already there').format(name=name))
            return
        spec = None
        schema = self._schema()
        if schema is not None:
            spec = schema.attributes.get(name)
        attr_type = int(spec.type) if spec is not None else int(self.add_type.currentData())
        value = spec.default if spec is not None and spec.default is not None else default_for(attr_type)
        if value is None:
            self._refuse(self.tr('attribute "{name}" ({type}) cannot be added here').format(
                name=name, type=AttrType(attr_type).name.lower()))
            return
        self._apply(SetAttribute(self.ref, name, attr_type, _plain(value), graph=self.gpath))

    def choose_op(self, choice=None) -> None:
        model = self.qdoc.document.model
        choice = choice or pick_op(model, self, self.tr("Change the operator"))
        if choice is None:
            return
        domain, op = choice
        self._apply(change_op_edit(self.node, model, domain, op))

    def _open_attr(self, attr) -> None:
        if int(attr.type) in (AttrType.TENSOR, AttrType.SPARSE_TENSOR):
            self.open_tensor.emit(self.node, attr)
        elif int(attr.type) == AttrType.GRAPH:
            self.navigate.emit(attr.value)
        elif attr.value:
            self.navigate.emit(attr.value[0])


__all__ = ["NodeEditor", "change_op_edit", "format_value"]
