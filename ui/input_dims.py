"""Edit ▸ Set Dims of All Inputs…: one dialog sets the batch (the first
dim) or every dim of one name across all graph inputs, as one undo step.

Each input goes through core's set_input_shape (what `onnxstudio set-shape`
does): its declaration changes and the value_info and output declarations
the change reaches are re-derived; inference and the checker follow the
document's edit as after any other. The dialog says beforehand when the
inputs do not agree on the dim (one has 1, another `batch`): they will all
get the one value typed.
"""
from __future__ import annotations

from PySide6.QtCore import QCoreApplication
from PySide6.QtWidgets import (QComboBox, QDialog, QDialogButtonBox, QFormLayout, QLabel, QLineEdit,
                               QVBoxLayout)

from ..core import dims_text
from ..core.edits import EditError, set_input_shape
from .panels.value_editor import parse_dims

FIRST = ""          # the choice "first dim of each input"; any other choice is a dim name


def targets(inputs, which: str) -> list:
    """[(input, index of the dim to set)] of `inputs` for `which` (FIRST, or a
    dim name: every dim of that name). Inputs without a known shape, scalars
    and inputs without that name are left out."""
    found = []
    for v in inputs:
        shape = getattr(v.type, "shape", None)
        if not shape or v.is_initializer:      # a weight listed as an input (old IR versions)
            continue
        if which == FIRST:
            found.append((v, 0))
        else:
            found.extend((v, i) for i, d in enumerate(shape) if d == which)
    return found


def disagreement(found) -> str:
    """"a 1, b batch" when the dims to be set are not all the same now, else ""."""
    shown = [(v.name, dims_text.format_dims([v.type.shape[i]])) for v, i in found]
    if len({text for _name, text in shown}) <= 1:
        return ""
    return ", ".join(f"{name} {text}" for name, text in shown)


def apply_dims(document, found, value, name: str) -> int:
    """Give each (input, dim) of `found` the dim `value` (an int, a name or
    None), as one undo step called `name`; the number of inputs changed.
    EditError when one is refused (then nothing is changed)."""
    by_input: dict = {}
    for v, i in found:
        by_input.setdefault(v.name, (v, []))[1].append(i)
    changed = 0
    with document.macro(name):
        for input_name, (v, indexes) in by_input.items():
            shape = list(v.type.shape)
            new = [value if i in indexes else d for i, d in enumerate(shape)]
            if new == shape:
                continue
            document.apply(set_input_shape(document.model, input_name, new))
            changed += 1
    return changed


class InputDimsDialog(QDialog):
    """Which dim (the first, or a name found among the inputs) and its new value."""

    def __init__(self, model, parent=None):
        super().__init__(parent)
        self.model = model
        self.setWindowTitle(self.tr("Set Dims of All Inputs"))
        self.setMinimumWidth(380)
        layout = QVBoxLayout(self)
        form = QFormLayout()
        self.which = QComboBox()
        self.which.addItem(self.tr("first dim (batch) of every input"), FIRST)
        names = sorted({d for v in model.graph.inputs for d in (getattr(v.type, "shape", None) or ())
                        if isinstance(d, str)})
        for n in names:
            self.which.addItem(self.tr("every dim named {name}").format(name=n), n)
        form.addRow(self.tr("set"), self.which)
        self.value = QLineEdit()
        self.value.setPlaceholderText(self.tr("a size, a name or ?"))
        form.addRow(self.tr("to"), self.value)
        layout.addLayout(form)
        self.inputs = QLabel()
        self.inputs.setWordWrap(True)
        layout.addWidget(self.inputs)
        self.warning = QLabel()
        self.warning.setWordWrap(True)
        self.warning.setStyleSheet("color: #b35900;")
        layout.addWidget(self.warning)
        self.message = QLabel()
        self.message.setWordWrap(True)
        self.message.setStyleSheet("color: #c62828;")
        layout.addWidget(self.message)
        buttons = QDialogButtonBox(QDialogButtonBox.Ok | QDialogButtonBox.Cancel)
        buttons.accepted.connect(self._accept)
        buttons.rejected.connect(self.reject)
        layout.addWidget(buttons)
        self.which.currentIndexChanged.connect(lambda _i: self._describe())
        self._describe()

    def found(self) -> list:
        return targets(self.model.graph.inputs, self.which.currentData())

    def _describe(self) -> None:
        found = self.found()
        self.inputs.setText(self.tr("Inputs changed: {names}").format(
            names=", ".join(dict.fromkeys(v.name for v, _i in found)) or "—"))
        differ = disagreement(found)
        self.warning.setText(self.tr("The inputs do not agree on this dim now ({dims}); "
                                     "all of them will get the value above.").format(dims=differ)
                             if differ else "")

    def dim(self):
        """The value typed, read with the dims grammar; ValueError with the refusal."""
        dims = parse_dims(self.value.text())
        if len(dims) != 1:
            raise ValueError(self.tr("give one dim: a size, a name or ?"))
        return dims[0]

    def _accept(self) -> None:
        try:
            self.dim()
        except ValueError as e:
            self.message.setText(str(e))
            return
        self.accept()


class InputDims:
    """The Edit menu's action: the dialog, then one step through the document."""

    def __init__(self, window, prompter):
        self.window = window
        self.prompter = prompter
        self.dialog = None

    def open(self) -> None:
        qdoc = self.window.qdoc
        if qdoc is None:
            return
        self.dialog = InputDimsDialog(qdoc.document.model, self.window)
        self.dialog.accepted.connect(lambda: self._apply(qdoc, self.dialog))
        self.dialog.open()

    def _apply(self, qdoc, dialog) -> None:
        name = QCoreApplication.translate("InputDims", "Set dims of all inputs")
        try:
            apply_dims(qdoc.document, dialog.found(), dialog.dim(), name)
        except EditError as e:
            self.prompter.warn(QCoreApplication.translate("InputDims", "Dims not changed"),
                               QCoreApplication.translate("InputDims", "{problem}. Nothing was changed.")
                               .format(problem=e))
