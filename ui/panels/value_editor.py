"""The editable form of one value: its name, its declared type (element type
picked by name, dims typed as ints, symbolic names or `?`), whether it is a
graph input or output and where in that list, and its value_info entry.

Every change is an Edit pushed through `qdoc.apply`; an entry that does not
fit (a negative dim, "1.5", a size beyond int64, a name already used) is
refused at the field with a message and the model is left as it was. Dims
are read with the grammar the CLI and core share (core/dims_text.py).
"""
from __future__ import annotations

from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication, Signal
from PySide6.QtWidgets import (QCheckBox, QComboBox, QFormLayout, QHBoxLayout, QLabel, QLineEdit,
                               QPushButton, QVBoxLayout, QWidget)

from ...core import dims_text
from ...core.edits import (AddValueInfo, EditError, MoveGraphInput, MoveGraphOutput, RemoveGraphInput,
                           RemoveGraphOutput, RemoveValueInfo, RenameValue, SetValueType, graph_path, set_input_shape,
                           typed_output)
from ...core.ir.dtypes import DataType, type_name
from ...core.serde.type_proto import type_from_proto
from .attr_editors import follows_document, show_committed
from .refusal_line import RefusalLine, apply_edit

# The refusals of the shared dims grammar (core/dims_text.py TEMPLATES), in
# the user's language: the same texts, so the app refuses what the CLI
# refuses with the same words (tests/ui/test_edit_values.py keeps them equal).
REFUSALS = {
    "empty": QT_TRANSLATE_NOOP("ValueEditor", "dim {i} is empty; write ? for an unknown size"),
    "negative": QT_TRANSLATE_NOOP("ValueEditor", "dim {i} is {part}: a size cannot be negative (use ? or a name)"),
    "fraction": QT_TRANSLATE_NOOP("ValueEditor", "dim {i} is {part}: a size is a whole number"),
    "too_large": QT_TRANSLATE_NOOP("ValueEditor",
                                   "dim {i} is {part}: a size must fit in int64 (at most 9223372036854775807)"),
    "not_a_dim": QT_TRANSLATE_NOOP("ValueEditor",
                                   "dim {i}: {part} is neither a size, a name nor ? (a name starts with a letter "
                                   "or _ and has only letters, digits, _ . or :, no quotes or spaces)"),
}


def parse_dims(text: str, known=None) -> list:
    """'1, 3, batch, ?' -> [1, 3, 'batch', None], read with the grammar the
    CLI and core share (core/dims_text.py; `known`, the shape being edited,
    keeps its names as they are); ValueError with the refusal in the user's
    language, naming the dim. An empty text is a scalar (rank 0)."""
    try:
        return dims_text.parse_dims(text, known)
    except dims_text.DimsTextError as e:
        raise ValueError(QCoreApplication.translate("ValueEditor", REFUSALS[e.reason]).format(
            i=e.index, part=dims_text.shown_part(e.reason, e.part))) from None


def elem_type_combo() -> QComboBox:
    """Element types by name ("float", "int64"), the DataType number as data."""
    combo = QComboBox()
    for dt in DataType:
        if dt != DataType.UNDEFINED:
            combo.addItem(type_name(int(dt)), int(dt))
    return combo


def select_elem_type(combo: QComboBox, code: int) -> None:
    i = combo.findData(int(code))
    if i < 0:
        combo.addItem(type_name(int(code)), int(code))
        i = combo.count() - 1
    combo.setCurrentIndex(i)


class ValueEditor(QWidget):
    navigate = Signal(object)

    def __init__(self, qdoc, value, prompter, parent=None):
        """`prompter`: the window's Prompter (ui/dialogs.py), which asks before a rank changes."""
        super().__init__(parent)
        self.qdoc = qdoc
        self.value = value
        self.prompter = prompter
        self.message = RefusalLine()
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        self.form = QFormLayout()
        self.form.setFieldGrowthPolicy(QFormLayout.AllNonFixedFieldsGrow)
        layout.addWidget(self.message)
        layout.addLayout(self.form)
        layout.addStretch(1)
        self._build()

    # -- state --------------------------------------------------------------------------

    @property
    def graph(self):
        return self.value.graph

    @property
    def gpath(self):
        return graph_path(self.value.graph)

    def declared_in(self) -> str:
        """Where the value's type is declared: input, output, value_info or ''."""
        v = self.value
        if v.is_graph_input:
            return "input"
        if v.is_graph_output:
            return "output"
        if self.in_value_info():
            return "value_info"
        return ""

    def in_value_info(self) -> bool:
        """Whether the graph's value_info has an entry for the value; a graph
        input or output may have one too (a damaged file's may contradict
        the declaration, and the Problems dock points at it)."""
        v = self.value
        return any(x is v for x in v.graph.value_info)

    def shape(self) -> tuple:
        """What the form's layout depends on (rebuilt when it changes)."""
        v = self.value
        return (self.declared_in(), self.in_value_info(), v.is_graph_input, v.is_graph_output, v.is_initializer,
                getattr(v.type, "shape", None) is None, self.is_repeat(), tuple(self.repeats()),
                tuple(self.output_repeats()))

    def is_repeat(self) -> bool:
        """Whether the value is a graph input declaring again a name the
        graph's value table gives another value (a damaged file's second
        declaration, graph.input-duplicate): nodes read the other one, and
        edits naming the value would reach that one."""
        v = self.value
        return v.is_graph_input and v.graph.get_value(v.name) is not v

    def repeats(self) -> list[int]:
        """Positions of the graph inputs declaring the value's name again
        with a value of their own (none unless the file repeats it)."""
        v = self.value
        if not v.is_graph_input:
            return []
        return [i for i, x in enumerate(v.graph.inputs) if x.name == v.name and x is not v]

    def output_repeats(self) -> list[int]:
        """Positions of the graph output entries listing the value again
        after its first (a damaged file's; each may declare another type)."""
        v = self.value
        if not v.is_graph_output:
            return []
        return [i for i, x in enumerate(self.graph.outputs) if x is v][1:]

    def occurrence(self) -> int:
        """Which declaration of its name the value's input entry is (0 the
        first): what RemoveGraphInput takes to remove this very entry."""
        items = self.graph.inputs
        index = items.index(self.value)
        return sum(1 for i in range(index) if items[i].name == self.value.name)

    # -- building -----------------------------------------------------------------------

    def _build(self) -> None:
        v = self.value
        self.form.addRow(QLabel(self.tr("<b>Value</b>")))
        self.buttons: dict[str, QPushButton] = {}     # "output_up", "input_remove", "repeat_3_remove", ...
        if self.is_repeat():
            self._build_repeat()
            return
        self.name_edit = follows_document(QLineEdit(v.name))
        self.name_edit.editingFinished.connect(self._rename)
        self.form.addRow(self.tr("name"), self.name_edit)
        self.type_combo = None
        self.dims_edit = None
        self.unknown_rank = None
        where = self.declared_in()
        if where and getattr(v.type, "elem_type", None) is not None:
            self.type_combo = elem_type_combo()
            select_elem_type(self.type_combo, v.type.elem_type or int(DataType.FLOAT))
            self.type_combo.activated.connect(lambda _i: self._set_type())
            self.form.addRow(self.tr("element type"), self.type_combo)
            self.dims_edit = follows_document(QLineEdit(dims_text.format_dims(v.type.shape)))
            self.dims_edit.setPlaceholderText(self.tr("scalar"))
            self.dims_edit.setToolTip(self.tr("Sizes, symbolic names or ? (unknown), comma separated"))
            self.dims_edit.editingFinished.connect(self._set_type)
            self.unknown_rank = QCheckBox(self.tr("rank unknown"))
            self.unknown_rank.setChecked(v.type.shape is None)
            self.dims_edit.setEnabled(v.type.shape is not None)
            self.unknown_rank.toggled.connect(lambda _c: self._set_type())
            dims_row = QHBoxLayout()
            dims_row.addWidget(self.dims_edit, 1)
            dims_row.addWidget(self.unknown_rank)
            self.form.addRow(self.tr("dims"), dims_row)
        elif where:
            self.form.addRow(self.tr("type"), QLabel(self.tr("{type} (not a tensor: shown, not edited here)")
                                                     .format(type=str(v.type))))
        elif not v.is_initializer:
            declare = QPushButton(self.tr("Declare type (value_info)"))
            declare.clicked.connect(self.declare)
            self.form.addRow(self.tr("type"), declare)
        self.form.addRow(QLabel(self.tr("<b>Graph</b>")))
        if v.is_graph_input:
            self._list_row("input", self.tr("graph input"), self.graph.inputs, MoveGraphInput, RemoveGraphInput)
            self._repeat_rows()
        if v.is_graph_output:
            self._list_row("output", self.tr("graph output"), self.graph.outputs, MoveGraphOutput,
                           RemoveGraphOutput)
            self._output_repeat_rows()
        else:
            self.output_button = QPushButton(self.tr("Make graph output"))
            self.output_button.clicked.connect(self.make_output)
            self.form.addRow("", self.output_button)
        if self.in_value_info():
            remove = QPushButton(self.tr("Remove value_info entry"))
            remove.clicked.connect(lambda: self._apply(RemoveValueInfo(self.value.name, self.gpath)))
            self.form.addRow("", remove)

    def _list_row(self, kind: str, label: str, items, move, remove) -> None:
        index = next(i for i, x in enumerate(items) if x is self.value)
        row = QHBoxLayout()
        row.addWidget(QLabel(self.tr("{i} of {n}").format(i=index, n=len(items))), 1)
        for text, delta, tip, key in (("↑", -1, self.tr("Move up"), "up"), ("↓", 1, self.tr("Move down"), "down")):
            button = QPushButton(text)
            button.setToolTip(tip)
            button.setEnabled(0 <= index + delta < len(items))
            button.clicked.connect(lambda _=False, d=delta: self._move(items, move, d))
            row.addWidget(button)
            self.buttons[f"{kind}_{key}"] = button
        drop = QPushButton(self.tr("Remove"))
        if kind == "input":
            drop.clicked.connect(lambda: self._apply(remove(self.value.name, self.gpath, self.occurrence())))
            again = self.repeats()
            if again:
                # Core refuses it too (the name would be left to a value
                # nothing holds): say so before the click.
                drop.setEnabled(False)
                drop.setToolTip(self.tr("Input {i} declares {name} again: remove that declaration first")
                                .format(i=again[0], name=self.value.name))
        else:
            drop.clicked.connect(lambda: self._apply(remove(self.value.name, self.gpath)))
        row.addWidget(drop)
        self.buttons[f"{kind}_remove"] = drop
        self.form.addRow(label, row)

    def _repeat_rows(self) -> None:
        """One row per further declaration of the input's name, each with
        the button that removes it: the Problems dock names the repeat
        (graph.input-duplicate), and this form is where its name leads."""
        items = self.graph.inputs
        name = self.value.name
        for index in self.repeats():
            occurrence = sum(1 for i in range(index) if items[i].name == name)
            row = QHBoxLayout()
            row.addWidget(QLabel(self.tr("input {i}: {type}").format(i=index, type=_type_text(items[index]))), 1)
            drop = QPushButton(self.tr("Remove this declaration"))
            drop.clicked.connect(lambda _=False, k=occurrence: self._apply(RemoveGraphInput(name, self.gpath, k)))
            row.addWidget(drop)
            self.buttons[f"repeat_{index}_remove"] = drop
            self.form.addRow(self.tr("declared again"), row)

    def _output_repeat_rows(self) -> None:
        """One row per further entry listing the output again, with what
        that entry declares and the button that removes it (its occurrence:
        the entries hold one value, so only the position tells them apart)."""
        items = self.graph.outputs
        name = self.value.name
        for index in self.output_repeats():
            occurrence = sum(1 for i in range(index) if items[i].name == name)
            row = QHBoxLayout()
            declared = _declared_type_text(self.graph, "output", index)
            row.addWidget(QLabel(self.tr("output {i}: {type}").format(i=index, type=declared)), 1)
            drop = QPushButton(self.tr("Remove this declaration"))
            drop.clicked.connect(lambda _=False, k=occurrence: self._apply(RemoveGraphOutput(name, self.gpath,
                                                                                             occurrence=k)))
            row.addWidget(drop)
            self.buttons[f"output_repeat_{index}_remove"] = drop
            self.form.addRow(self.tr("listed again"), row)

    def _build_repeat(self) -> None:
        """The form of a repeated declaration: what it says and the button
        that removes it. Nothing else is offered: edits name values, and its
        name stands for the other declaration."""
        v = self.value
        items = self.graph.inputs
        named = v.graph.get_value(v.name)
        first = items.index(named) if named is not None and named in items else None
        self.form.addRow(self.tr("name"), QLabel(v.name))
        self.form.addRow(self.tr("type"), QLabel(_type_text(v)))
        self.form.addRow(QLabel(self.tr("<b>Graph</b>")))
        self.form.addRow(self.tr("graph input"), QLabel(self.tr("{i} of {n}").format(i=items.index(v), n=len(items))))
        if first is not None:
            text = self.tr("{name} is declared more than once: nodes read input {first}, and this repeat is "
                           "an error. Remove it; {name} stays a graph input.").format(name=v.name, first=first)
        else:
            text = self.tr("This declaration of {name} is not the value the graph's nodes and edits name. "
                           "Remove it to keep the file consistent.").format(name=v.name)
        note = QLabel(text)
        note.setWordWrap(True)
        self.form.addRow(note)
        drop = QPushButton(self.tr("Remove this declaration"))
        drop.clicked.connect(lambda: self._apply(RemoveGraphInput(v.name, self.gpath, self.occurrence())))
        self.buttons["input_remove"] = drop
        self.form.addRow("", drop)

    # -- keeping in step ---------------------------------------------------------------------

    def sync(self) -> None:
        v = self.value
        if self.is_repeat():
            return              # the repeat's form shows no fields to follow
        show_committed(self.name_edit, v.name)
        if self.type_combo is not None and v.type is not None:
            select_elem_type(self.type_combo, v.type.elem_type or int(DataType.FLOAT))
            show_committed(self.dims_edit, dims_text.format_dims(v.type.shape))

    # -- edits ---------------------------------------------------------------------------------

    def _apply(self, edit) -> bool:
        # Each commit of a field (Return, focus-out) is an undo step of its
        # own: typing until the commit is one edit, five commits are five steps.
        return apply_edit(self.qdoc, self.message, edit, merge=False)

    def _refuse(self, message: str) -> None:
        self.message.say(self.tr("{name}: {message} — not changed.").format(
            name=self.value.name, message=message))

    def _rename(self) -> None:
        new = self.name_edit.text().strip()
        old = self.value.name
        if new == old:
            return
        if not new:
            self._refuse(self.tr("a value needs a name"))
        elif self.graph.value_name_in_use(new) or self.graph.lookup(new) is not None:
            self._refuse(self.tr("the name {new} is already used").format(new=repr(new)))
        else:
            self.name_edit.shown = new         # committed: an undo later shows the old name again
            if self._apply(RenameValue(old, new, self.gpath)):
                return
        self.name_edit.setText(old)
        self.name_edit.shown = old

    def _set_type(self) -> None:
        if self.type_combo is None:
            return
        elem = int(self.type_combo.currentData())
        unknown = self.unknown_rank.isChecked()
        self.dims_edit.setEnabled(not unknown)
        vtype = self.value.type
        current = getattr(vtype, "shape", None)
        if unknown:
            shape = None
        else:
            try:
                # Names already there stay as they are, also those the grammar
                # would not take from the keyboard ("seq + 1" from an exporter).
                shape = parse_dims(self.dims_edit.text(), current)
            except ValueError as e:
                self._refuse(str(e))
                return
        if vtype is not None and vtype.elem_type == elem and \
                (None if vtype.shape is None else list(vtype.shape)) == shape:
            return
        if self._rank_change_declined(shape):
            self.sync()
            return
        self.dims_edit.shown = self.dims_edit.text()      # committed (sync shows the model's text)
        edit = SetValueType(self.value.name, elem, shape, self.gpath)
        if self._is_model_input() and shape is not None and vtype is not None and vtype.elem_type == elem:
            # New dims of a model input reach the declarations downstream:
            # set_input_shape re-derives them (as Set Dims of All Inputs and
            # `onnxstudio set-shape` do). The input alone left value_info
            # entries that contradict it, a file onnx's checker refuses.
            try:
                edit = set_input_shape(self.qdoc.document.model, self.value.name, shape, allow_rank_change=True)
            except EditError as e:
                self._refuse(str(e))
                self.sync()
                return
        if not self._apply(edit):
            self.sync()

    def _is_model_input(self) -> bool:
        v = self.value
        return v.is_graph_input and self.graph is self.qdoc.document.model.graph

    def _rank_change_declined(self, shape) -> bool:
        """A main-graph input given another rank: the nodes that read it were
        made for its rank, so ask first (core's set_input_shape refuses the
        same change unless allow_rank_change, set-shape unless
        --allow-rank-change). True when the user keeps the rank."""
        v = self.value
        old = getattr(v.type, "shape", None)
        if shape is None or old is None or len(shape) == len(old) or not v.is_graph_input \
                or v.graph.parent_graph is not None:
            return False
        text = self.tr("Input {name} has rank {old}, and the nodes that read it expect that rank. "
                       "Give it rank {new}?").format(name=v.name, old=len(old), new=len(shape))
        if self.prompter.ask(self.tr("Change rank"), text, ("Change rank", "Cancel"), "Cancel") == "Change rank":
            return False
        self._refuse(self.tr("rank {old} kept: the nodes that read it expect it").format(old=len(old)))
        return True

    def declare(self) -> None:
        """Add a value_info entry, typed as inference found it (when it did)."""
        found = self.qdoc.type_of(self.value)
        elem = getattr(found, "elem_type", None) or None
        shape = getattr(found, "shape", None)
        self._apply(AddValueInfo(self.value.name, elem, None if shape is None else list(shape),
                                 graph=self.gpath))

    def make_output(self) -> None:
        # Declared with its inferred type when the file gives it none: an
        # output without a type is a file onnx's checker refuses.
        self._apply(typed_output(self.value, self.qdoc.document.type_of(self.value), self.gpath))

    def _move(self, items, move, delta: int) -> None:
        index = next(i for i, x in enumerate(items) if x is self.value)
        self._apply(move(self.value.name, index + delta, self.gpath))


def _type_text(value) -> str:
    """A declaration's type as the canvas shows it ("float[2]"), or "—"."""
    return "—" if value.type is None else str(value.type)


def _declared_type_text(graph, kind: str, index: int) -> str:
    """What entry `index` of the graph's inputs or outputs declares: its
    verbatim message's type when the file's entry is kept as read (a
    repeated output's may differ from the value's), else the value's."""
    message = graph.declaration_override(kind, index)
    if message is not None and message.HasField("type"):
        return str(type_from_proto(message.type))
    return _type_text(graph.declarations(kind)[index])


__all__ = ["ValueEditor", "parse_dims", "elem_type_combo", "select_elem_type"]
