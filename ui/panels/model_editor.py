"""The editable form of the model itself: IR version (with a warning when it
drops below what the model's opsets and functions need), opset imports,
producer, domain, model_version, doc_string, metadata_props as a key/value
table, the main graph's name and doc_string, and adding graph inputs,
outputs and initializers (zeros of a type and sizes; the tensor editor sets
their values once a node reads them or a search finds them).

Each field becomes one Edit pushed through `qdoc.apply`; text that is not a
whole number where one is needed is refused at the field.
"""
from __future__ import annotations

import numpy as np
from PySide6.QtCore import QCoreApplication
from PySide6.QtWidgets import (QFormLayout, QHBoxLayout, QLabel, QLineEdit, QPushButton,
                               QTableWidget, QTableWidgetItem, QVBoxLayout, QWidget, QHeaderView)

from ...core.edits import (AddGraphInput, AddGraphOutput, AddInitializer, Macro, SetGraphField, SetMetadata,
                           SetModelField, SetOpsetImport, typed_output)
from ...core.ir.dtypes import DataType, to_numpy_dtype
from .attr_editors import follows_document, parse_int, show_committed
from .refusal_line import RefusalLine, apply_edit
from .value_editor import elem_type_combo, parse_dims, select_elem_type

# The first ai.onnx opset each IR version was released with: a model importing
# opset N needs at least the IR version listed for the largest key <= N.
IR_FOR_OPSET = ((28, 14), (25, 13), (24, 12), (23, 11), (21, 10), (19, 9), (15, 8), (12, 7),
                (11, 6), (10, 5), (9, 4), (1, 3))
IR_FOR_FUNCTIONS = 8          # model-local functions came with IR version 8
MAX_NEW_INITIALIZER_BYTES = 1 << 30     # zeros made in memory here; larger weights come from files


def ir_needed(model) -> tuple[int, str]:
    """The lowest IR version the model can declare, and why."""
    need, why = 3, ""
    opset = model.opset_imports.get("", model.opset_imports.get("ai.onnx"))
    if opset is not None:
        for first, ir in IR_FOR_OPSET:
            if opset >= first:
                if ir > need:
                    need, why = ir, f"ai.onnx opset {opset}"    # the spec's words
                break
    if model.functions and IR_FOR_FUNCTIONS > need:
        need, why = IR_FOR_FUNCTIONS, QCoreApplication.translate("ModelEditor", "model-local functions")
    return need, why


class ModelEditor(QWidget):
    def __init__(self, qdoc, parent=None):
        super().__init__(parent)
        self.qdoc = qdoc
        self.message = RefusalLine()         # shown only with something to say
        self.warning = QLabel("")
        self.warning.setWordWrap(True)
        self.warning.setStyleSheet("color: #b9770e;")
        self.warning.setVisible(False)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        self.form = QFormLayout()
        self.form.setFieldGrowthPolicy(QFormLayout.AllNonFixedFieldsGrow)
        layout.addWidget(self.message)
        layout.addWidget(self.warning)
        layout.addLayout(self.form)
        layout.addStretch(1)
        self.fields: dict[str, QLineEdit] = {}
        self.opset_edits: dict[str, QLineEdit] = {}
        self.opset_remove: dict[str, QPushButton] = {}
        self._build()
        self._update_warning()

    @property
    def model(self):
        return self.qdoc.document.model

    def shape(self) -> tuple:
        m = self.model
        return (tuple(m.opset_imports), tuple(m.metadata_props))

    def sync(self) -> None:
        """Show the model's fields again without rebuilding the form (an edit
        elsewhere, undo): a field being typed into keeps its text and focus."""
        m = self.model
        for field, edit in self.fields.items():
            show_committed(edit, str(getattr(m, field)))
        for domain, edit in self.opset_edits.items():
            if domain in m.opset_imports:
                show_committed(edit, str(m.opset_imports[domain]))
        show_committed(self.graph_name, m.graph.name)
        show_committed(self.graph_doc, m.graph.doc_string)
        table = self.metadata
        table.blockSignals(True)
        for r, (k, v) in enumerate(m.metadata_props.items()):
            for c, text in ((0, k), (1, v)):
                item = table.item(r, c)
                if item is not None and item.text() != text:
                    item.setText(text)
        table.blockSignals(False)
        self._update_warning()

    # -- building ---------------------------------------------------------------------------

    def _line(self, text: str, commit) -> QLineEdit:
        edit = follows_document(QLineEdit(text))
        def finish():
            if edit.text() != edit.shown:
                if commit(edit.text()) is False:
                    edit.setText(edit.shown)
                else:
                    edit.shown = edit.text()
        edit.editingFinished.connect(finish)
        return edit

    def _build(self) -> None:
        m = self.model
        self.form.addRow(QLabel(self.tr("<b>Model</b>")))
        for field, label in (("ir_version", self.tr("IR version")), ("producer_name", self.tr("producer")),
                             ("producer_version", self.tr("producer version")), ("domain", self.tr("domain")),
                             ("model_version", self.tr("model version")), ("doc_string", self.tr("doc_string"))):
            edit = self._line(str(getattr(m, field)), lambda t, f=field: self._set_model_field(f, t))
            self.form.addRow(label, edit)
            self.fields[field] = edit
        self.form.addRow(QLabel(self.tr("<b>Opset imports</b>")))
        for domain, version in m.opset_imports.items():
            edit = self._line(str(version), lambda t, d=domain: self._set_opset(d, t))
            remove = QPushButton(self.tr("Remove"))
            remove.clicked.connect(lambda _=False, d=domain: self._apply(SetOpsetImport(d, None)))
            row = QHBoxLayout()
            row.addWidget(edit, 1)
            row.addWidget(remove)
            self.form.addRow(domain or "ai.onnx", row)
            self.opset_edits[domain] = edit
            self.opset_remove[domain] = remove
        self.new_domain = QLineEdit()
        self.new_domain.setPlaceholderText(self.tr("domain"))
        self.new_version = QLineEdit()
        self.new_version.setPlaceholderText(self.tr("version"))
        add = QPushButton(self.tr("Add"))
        add.clicked.connect(self.add_opset)
        row = QHBoxLayout()
        row.addWidget(self.new_domain, 2)
        row.addWidget(self.new_version, 1)
        row.addWidget(add)
        self.form.addRow(self.tr("import"), row)
        self._build_metadata()
        g = m.graph
        self.form.addRow(QLabel(self.tr("<b>Graph</b>")))
        self.graph_name = self._line(g.name, lambda t: self._apply(SetGraphField("name", t)))
        self.form.addRow(self.tr("name"), self.graph_name)
        self.graph_doc = self._line(g.doc_string, lambda t: self._apply(SetGraphField("doc_string", t)))
        self.form.addRow(self.tr("doc_string"), self.graph_doc)
        self.input_name = QLineEdit()
        self.input_name.setPlaceholderText(self.tr("name"))
        self.input_type = elem_type_combo()
        select_elem_type(self.input_type, int(DataType.FLOAT))
        self.input_dims = QLineEdit()
        self.input_dims.setPlaceholderText(self.tr("dims: 1, 3, N, ?"))
        add_input = QPushButton(self.tr("Add input"))
        add_input.clicked.connect(self.add_input)
        row = QHBoxLayout()
        for w, stretch in ((self.input_name, 2), (self.input_type, 0), (self.input_dims, 2), (add_input, 0)):
            row.addWidget(w, stretch)
        self.form.addRow(self.tr("new input"), row)
        self.output_name = QLineEdit()
        self.output_name.setPlaceholderText(self.tr("name of an existing value"))
        add_output = QPushButton(self.tr("Add output"))
        add_output.clicked.connect(self.add_output)
        row = QHBoxLayout()
        row.addWidget(self.output_name, 1)
        row.addWidget(add_output)
        self.form.addRow(self.tr("new output"), row)
        self.initializer_name = QLineEdit()
        self.initializer_name.setPlaceholderText(self.tr("name"))
        self.initializer_type = elem_type_combo()
        select_elem_type(self.initializer_type, int(DataType.FLOAT))
        self.initializer_dims = QLineEdit()
        self.initializer_dims.setPlaceholderText(self.tr("sizes: 16, 3"))
        add_initializer = QPushButton(self.tr("Add initializer"))
        add_initializer.setToolTip(self.tr("A constant of zeros: connect it to a node's input, "
                                           "then set its values in the tensor editor"))
        add_initializer.clicked.connect(self.add_initializer)
        row = QHBoxLayout()
        for w, stretch in ((self.initializer_name, 2), (self.initializer_type, 0), (self.initializer_dims, 2),
                           (add_initializer, 0)):
            row.addWidget(w, stretch)
        self.form.addRow(self.tr("new initializer"), row)

    def _build_metadata(self) -> None:
        self.form.addRow(QLabel(self.tr("<b>Metadata</b>")))
        props = self.model.metadata_props
        table = QTableWidget(len(props), 2)
        table.setHorizontalHeaderLabels([self.tr("key"), self.tr("value")])
        table.horizontalHeader().setSectionResizeMode(QHeaderView.Stretch)
        table.verticalHeader().setVisible(False)
        for r, (k, v) in enumerate(props.items()):
            table.setItem(r, 0, QTableWidgetItem(k))
            table.setItem(r, 1, QTableWidgetItem(v))
        # Up to eight rows without scrolling (the dock scrolls as a whole).
        rows = min(8, max(len(props), 2))
        table.resizeRowsToContents()
        row_h = table.rowHeight(0) if len(props) else table.verticalHeader().defaultSectionSize()
        table.setFixedHeight(rows * row_h + table.horizontalHeader().sizeHint().height() + 2 * table.frameWidth() + 2)
        table.itemChanged.connect(self._metadata_changed)
        self.metadata = table
        self.form.addRow(table)
        self.new_key = QLineEdit()
        self.new_key.setPlaceholderText(self.tr("key"))
        self.new_value = QLineEdit()
        self.new_value.setPlaceholderText(self.tr("value"))
        add = QPushButton(self.tr("Add"))
        add.clicked.connect(self.add_metadata)
        remove = QPushButton(self.tr("Remove selected"))
        remove.clicked.connect(self.remove_metadata)
        row = QHBoxLayout()
        row.addWidget(self.new_key, 1)
        row.addWidget(self.new_value, 2)
        row.addWidget(add)
        row.addWidget(remove)
        self.form.addRow(row)

    # -- edits --------------------------------------------------------------------------------

    def _apply(self, edit) -> bool:
        return apply_edit(self.qdoc, self.message, edit)

    def _refuse(self, message: str) -> bool:
        self.message.say(self.tr("{message} — not changed.").format(message=message))
        return False

    def _set_model_field(self, field: str, text: str) -> bool:
        value = text
        if field in ("ir_version", "model_version"):
            try:
                value = parse_int(text)
            except ValueError as e:
                return self._refuse(f"{field}: {e}")
            if value < 0 or (field == "ir_version" and value < 1):
                return self._refuse(self.tr("{field}: {value} is out of range").format(field=field, value=value))
        ok = self._apply(SetModelField(field, value))
        self._update_warning()
        return ok

    def _update_warning(self) -> None:
        need, why = ir_needed(self.model)
        have = self.model.ir_version
        self.warning.setText(self.tr("IR version {have} is below {need}, which {why} needs: "
                                     "runtimes may refuse the file.").format(have=have, need=need, why=why)
                             if have < need else "")
        self.warning.setVisible(have < need)

    def _set_opset(self, domain: str, text: str) -> bool:
        try:
            version = parse_int(text)
        except ValueError as e:
            return self._refuse(self.tr("opset {domain}: {error}").format(domain=domain or "ai.onnx", error=e))
        ok = self._apply(SetOpsetImport(domain, version))
        self._update_warning()
        return ok

    def add_opset(self) -> bool:
        domain = self.new_domain.text().strip()
        if (domain if domain != "ai.onnx" else "") in self.model.opset_imports:
            return self._refuse(self.tr("opset {domain} is already imported; change its version above")
                                .format(domain=domain or "ai.onnx"))
        try:
            version = parse_int(self.new_version.text())
        except ValueError as e:
            return self._refuse(self.tr("opset {domain}: {error}").format(domain=domain or "ai.onnx", error=e))
        return self._apply(SetOpsetImport(domain, version))

    def _metadata_changed(self, item) -> None:
        row = item.row()
        keys = list(self.model.metadata_props)
        if row >= len(keys):
            return
        old_key = keys[row]
        key_item, value_item = self.metadata.item(row, 0), self.metadata.item(row, 1)
        if key_item is None or value_item is None:
            return
        key, value = key_item.text(), value_item.text()
        if item.column() == 1:
            if value != self.model.metadata_props[old_key]:
                self._apply(SetMetadata(old_key, value))
            return
        if key == old_key:
            return
        if not key or key in self.model.metadata_props:
            self._refuse(self.tr("metadata key {key} is empty or already used").format(key=repr(key)))
            self.metadata.blockSignals(True)
            key_item.setText(old_key)
            self.metadata.blockSignals(False)
            return
        # A renamed key keeps its place in the list.
        self._apply(Macro([SetMetadata(old_key, None), SetMetadata(key, value, row)],
                          self.tr("Rename metadata {old} to {new}").format(old=old_key, new=key)))

    def add_metadata(self) -> bool:
        key = self.new_key.text().strip()
        if not key:
            return self._refuse(self.tr("give the metadata entry a key"))
        if key in self.model.metadata_props:
            return self._refuse(self.tr("metadata key {key} is already used").format(key=repr(key)))
        return self._apply(SetMetadata(key, self.new_value.text()))

    def remove_metadata(self) -> bool:
        rows = sorted({i.row() for i in self.metadata.selectedIndexes()}, reverse=True)
        keys = list(self.model.metadata_props)
        edits = [SetMetadata(keys[r], None) for r in rows if r < len(keys)]
        if not edits:
            return self._refuse(self.tr("select the metadata rows to remove"))
        return self._apply(edits[0] if len(edits) == 1 else Macro(edits, self.tr("Remove metadata")))

    def add_input(self) -> bool:
        name = self.input_name.text().strip()
        if not name:
            return self._refuse(self.tr("give the new input a name"))
        try:
            dims = parse_dims(self.input_dims.text())
        except ValueError as e:
            return self._refuse(self.tr("input {name}: {error}").format(name=name, error=e))
        return self._apply(AddGraphInput(name, int(self.input_type.currentData()), dims))

    def add_initializer(self) -> bool:
        """A new initializer of zeros with the type and sizes given."""
        name = self.initializer_name.text().strip()
        if not name:
            return self._refuse(self.tr("give the new initializer a name"))
        try:
            dims = parse_dims(self.initializer_dims.text())
        except ValueError as e:
            return self._refuse(self.tr("initializer {name}: {error}").format(name=name, error=e))
        unsized = [d for d in dims if not isinstance(d, int)]
        if unsized:
            return self._refuse(self.tr("initializer {name}: its data needs a size for every dim, "
                                        "not {dim}").format(name=name, dim=unsized[0] or "?"))
        code = int(self.initializer_type.currentData())
        dtype = to_numpy_dtype(code)
        size = int(np.prod(dims, dtype=np.int64)) if dims else 1
        if size * dtype.itemsize > MAX_NEW_INITIALIZER_BYTES:
            return self._refuse(self.tr("initializer {name}: {size} elements is more than a tensor typed here "
                                        "may hold; import a .npy into a smaller one").format(name=name, size=size))
        array = np.full(dims, b"" if code == DataType.STRING else 0, dtype=dtype)
        return self._apply(AddInitializer(name, array, dtype=code))

    def add_output(self) -> bool:
        name = self.output_name.text().strip()
        if not name:
            return self._refuse(self.tr("name the value to make a graph output"))
        value = self.qdoc.document.model.graph.get_value(name)
        if value is None:
            return self._apply(AddGraphOutput(name))     # refused, naming the graph
        return self._apply(typed_output(value, self.qdoc.document.type_of(value)))


__all__ = ["ModelEditor", "ir_needed"]
