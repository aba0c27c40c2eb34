"""The inputs panel: one row per graph input with its declared type and the
source of its value; the sizes of symbolic dims (asked once for the whole
model); the seed; saving and loading input sets; loading every input at
once from an .npz. What is chosen here is remembered per model
(settings.update_model_state, key "run_inputs").

A size box the user never touched says "auto": the input's file or image
gives that size, or, for made values, what the model needs to run or the
sum of the dims a dim is written as (input_gen.made_sizes), else 1. Only
sizes the user typed go into the input set, so changing the seed never
resizes an image.

The values themselves are made by core.exec.input_gen, in the run's worker
thread (files and images can be slow to read); a problem comes back as a
message naming the input.
"""
from __future__ import annotations

import json
import os
import pathlib
from typing import Optional

from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication, Qt, Signal
from PySide6.QtWidgets import (QComboBox, QDoubleSpinBox, QFileDialog, QFormLayout, QGridLayout,
                               QGroupBox, QHBoxLayout, QHeaderView, QLabel, QLineEdit, QPushButton, QSpinBox,
                               QTableWidget, QTableWidgetItem, QToolButton, QVBoxLayout, QWidget)

from onnxstudio.core.exec.errors import FeedError
from onnxstudio.core.exec.input_gen import (IMAGE_LAYOUTS, SOURCES, InputSet, InputSpec, declared_dtype,
                                            default_spec, describe_type, free_dims, make_feeds, made_sizes,
                                            specs_from_npz, tensor_type, unsized_dims)
from onnxstudio.core.exec.values import ANONYMOUS_DIMS

STATE_KEY = "run_inputs"
SET_FILTER = QT_TRANSLATE_NOOP("InputsPanel", "Input sets (*.json);;All files (*)")
NPZ_FILTER = QT_TRANSLATE_NOOP("InputsPanel", "Arrays by input name (*.npz);;All files (*)")
AUTO = -1            # a size box's value when the user typed no size
# install.RunDock's width when it first shows: a third of a 1280 px window
# at most, so the canvas keeps its third beside the Properties dock.
RunDockWidth = 400
ARRAY_FILTER = QT_TRANSLATE_NOOP("InputsPanel", "Arrays (*.npy *.npz *.pb);;All files (*)")
IMAGE_FILTER = QT_TRANSLATE_NOOP("InputsPanel", "Images (*.png *.jpg *.jpeg *.bmp *.ppm *.pgm *.pnm *.tif *.tiff "
                                                "*.webp *.gif);;All files (*)")


def _tr(text: str) -> str:
    return QCoreApplication.translate("InputsPanel", text)


def source_label(source: str) -> str:
    """A source's name as the user reads it (the stored name stays English)."""
    labels = {"random": QCoreApplication.translate("InputsPanel", "random"),
              "zeros": QCoreApplication.translate("InputsPanel", "zeros"),
              "ones": QCoreApplication.translate("InputsPanel", "ones"),
              "constant": QCoreApplication.translate("InputsPanel", "constant"),
              "file": QCoreApplication.translate("InputsPanel", "file"),
              "image": QCoreApplication.translate("InputsPanel", "image")}
    return labels.get(source, source)


def _floats(text: str, what: str) -> list:
    try:
        return [float(x) for x in text.replace(";", ",").split(",") if x.strip()]
    except ValueError:
        raise FeedError(QCoreApplication.translate(
            "InputsPanel", "{what}: {text} is not a list of numbers (e.g. 0.485, 0.456, 0.406)")
            .format(what=what, text=repr(text))) from None


class InputsPanel(QWidget):
    changed = Signal()

    def __init__(self, parent=None, settings=None):
        super().__init__(parent)
        self.settings = settings
        self.path: Optional[pathlib.Path] = None
        self.inputs: list = []                  # IR Values the user gives
        self.input_set = InputSet()
        self._loading = False
        self.seed = QSpinBox()
        self.seed.setRange(0, 2**31 - 1)
        self.seed.setPrefix(self.tr("seed "))
        self.save_button = QPushButton(self.tr("Save set…"))
        self.load_button = QPushButton(self.tr("Load set…"))
        self.load_all_button = QPushButton(self.tr("Load all inputs…"))
        self.load_all_button.setToolTip(self.tr("Every input from one .npz file whose arrays are named like "
                                                "the inputs (such as a model's inputs.npz)"))
        # Two rows: in one the buttons alone made the dock ~460 px at least, more
        # than a third of a laptop's window.
        top = QVBoxLayout()
        first, sets = QHBoxLayout(), QHBoxLayout()
        first.addWidget(self.seed)
        first.addStretch(1)
        first.addWidget(self.load_all_button)
        sets.addStretch(1)
        sets.addWidget(self.load_button)
        sets.addWidget(self.save_button)
        top.addLayout(first)
        top.addLayout(sets)
        self.dims_box = QGroupBox(self.tr("Sizes of symbolic dimensions"))
        self.dims_layout = QGridLayout(self.dims_box)
        self.dim_spins: dict[str, QSpinBox] = {}
        self.table = QTableWidget(0, 4)
        self.table.setHorizontalHeaderLabels([self.tr("Input"), self.tr("Type"), self.tr("Source"),
                                              self.tr("Settings")])
        self.table.verticalHeader().hide()
        self.table.setSelectionBehavior(QTableWidget.SelectRows)
        self.table.setSelectionMode(QTableWidget.SingleSelection)
        self.table.setEditTriggers(QTableWidget.NoEditTriggers)
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(0, QHeaderView.ResizeToContents)
        header.setSectionResizeMode(1, QHeaderView.Interactive)      # sized in _fit_table, long types elided
        header.setSectionResizeMode(2, QHeaderView.ResizeToContents)
        header.setStretchLastSection(True)
        self.details = _SpecEditor(self)
        self.message = QLabel()
        self.message.setWordWrap(True)
        self.message.setTextInteractionFlags(Qt.TextSelectableByMouse)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addLayout(top)
        layout.addWidget(self.dims_box)
        layout.addWidget(self.table)
        layout.addWidget(self.details)
        layout.addWidget(self.message)
        layout.addStretch(1)
        self.seed.valueChanged.connect(self._seed_edited)
        self.save_button.clicked.connect(self.save_dialog)
        self.load_button.clicked.connect(self.load_dialog)
        self.load_all_button.clicked.connect(self.load_all_dialog)
        self.table.currentCellChanged.connect(lambda row, *_: self._show_details(row))
        self.details.changed.connect(self._detail_changed)

    # -- model -----------------------------------------------------------------------------

    def set_model(self, model, path=None) -> None:
        self.path = pathlib.Path(path) if path is not None else None
        graph = model.graph
        self.inputs = [v for v in graph.inputs if v.name not in graph.initializers]
        stored = self._stored()
        specs = {v.name: stored.inputs.get(v.name) or default_spec(v, graph.outputs) for v in self.inputs}
        self.input_set = InputSet(stored.seed, dict(stored.dims), specs)
        self._rebuild()

    def follow_edit(self, model, renamed=()) -> None:
        """The graph's inputs were edited (added, removed, renamed or given
        another type): the rows, their types and the size boxes of symbolic
        dims follow. An input keeps its settings through a rename (`renamed`:
        (old, new) pairs in the order they were made); a new one gets the
        first guess, as at open."""
        for old, new in renamed:
            spec = self.input_set.inputs.pop(old, None)
            if spec is not None:
                spec.name = new
                self.input_set.inputs[new] = spec
        graph = model.graph
        self.inputs = [v for v in graph.inputs if v.name not in graph.initializers]
        for v in self.inputs:
            if v.name not in self.input_set.inputs:
                self.input_set.inputs[v.name] = default_spec(v, graph.outputs)
        row = self.table.currentRow()
        self._rebuild()
        if 0 < row < len(self.inputs):
            self.table.setCurrentCell(row, 0)
            self._show_details(row)
        self.remember()

    def _stored(self) -> InputSet:
        if self.settings is None or self.path is None:
            return InputSet()
        data = self.settings.model_state(self.path).get(STATE_KEY)
        if not data:
            return InputSet()
        try:
            return InputSet.from_json(data)
        except FeedError:
            return InputSet()          # a stale or damaged entry: start afresh

    def remember(self) -> None:
        if self.settings is not None and self.path is not None:
            self.settings.update_model_state(self.path, **{STATE_KEY: self.input_set.to_json()})

    def _rebuild(self) -> None:
        self._loading = True
        self.seed.setValue(self.input_set.seed)
        while self.dims_layout.count():
            w = self.dims_layout.takeAt(0).widget()
            if w is not None:
                w.hide()                # gone now, not when the event loop deletes it
                w.deleteLater()
        for column in range(self.dims_layout.columnCount()):
            self.dims_layout.setColumnStretch(column, 0)
        self.dim_spins = {}
        dims = free_dims(self.inputs)
        shown = short_dim_names(dims)
        columns = self._dim_columns(list(shown.values()))
        for i, name in enumerate(dims):
            spin = QSpinBox()
            spin.setRange(AUTO, 1 << 20)
            spin.setValue(int(self.input_set.dims.get(name, AUTO)))
            spin.setToolTip(self.tr("size of {name} in every input that uses it; below 0: auto (the "
                                    "input's file or image, or what the model needs)").format(name=name))
            spin.valueChanged.connect(lambda size, n=name: self._dim_edited(n, size))
            label = QLabel(shown[name])
            label.setToolTip(name)
            label.setBuddy(spin)
            row, column = divmod(i, columns)
            self.dims_layout.addWidget(label, row, 2 * column)
            self.dims_layout.addWidget(spin, row, 2 * column + 1)
            self.dim_spins[name] = spin
        self.dims_layout.setColumnStretch(2 * columns, 1)
        self._show_auto_sizes()
        self.dims_box.setVisible(bool(dims))
        self.table.setRowCount(len(self.inputs))
        for row, v in enumerate(self.inputs):
            name = QTableWidgetItem(v.name)
            name.setToolTip(v.name)
            self.table.setItem(row, 0, name)
            type_item = QTableWidgetItem(describe_type(v))
            type_item.setToolTip(describe_type(v))
            self.table.setItem(row, 1, type_item)
            combo = QComboBox()
            for source in SOURCES:
                combo.addItem(source_label(source), source)
            combo.setCurrentIndex(combo.findData(self.input_set.spec(v.name).source))
            combo.currentIndexChanged.connect(
                lambda _i, n=v.name, c=combo: self._source_chosen(n, c.currentData()))
            self.table.setCellWidget(row, 2, combo)
            self.table.setItem(row, 3, QTableWidgetItem(self._summary(v)))
        self._loading = False
        self._fit_table()
        if self.inputs:
            self.table.setCurrentCell(0, 0)
            self._show_details(0)
        self.message.clear()

    def _dim_columns(self, dims: list) -> int:
        """How many name + size pairs fit side by side (`dims`: the names as
        shown, see short_dim_names)."""
        if not dims:
            return 1
        metrics = self.fontMetrics()
        pair = max(metrics.horizontalAdvance(n) for n in dims) + metrics.horizontalAdvance(self.tr("from the image"))
        # The panel is often hidden when a model opens: plan for the Run dock's narrowest width.
        return max(1, min(4, (RunDockWidth - 40) // (pair + 70)))

    def _fit_table(self) -> None:
        """As tall as its rows (up to 12), so the settings sit right below; a
        long type (Paddle's dim names) is cut, not the Source column pushed out."""
        self.table.resizeColumnToContents(1)
        self.table.setColumnWidth(1, min(self.table.columnWidth(1), 16 * self.fontMetrics().averageCharWidth()))
        self.table.resizeRowsToContents()
        rows = min(self.table.rowCount(), 12)
        height = self.table.horizontalHeader().height() + 2 * self.table.frameWidth() + 4
        height += sum(self.table.rowHeight(r) for r in range(rows))
        if self.table.rowCount() > 12 or self.table.horizontalScrollBar().isVisible():
            height += self.table.horizontalScrollBar().sizeHint().height()
        self.table.setFixedHeight(max(height, 60))

    def _summary(self, v) -> str:
        s = self.input_set.spec(v.name)
        if s.source == "random":
            if _is_integer(v):
                return self.tr("integers {low}..{high}").format(low=int(s.low), high=int(s.high))
            if _is_bool(v):
                return self.tr("true/false at random")
            if s.distribution == "uniform":
                return self.tr("uniform {low}..{high}").format(low=f"{s.low:g}", high=f"{s.high:g}")
            return self.tr("normal mean {mean} std {std}").format(mean=f"{s.mean:g}", std=f"{s.std:g}")
        if s.source == "constant":
            return self.tr("all {value}").format(value=f"{s.value:g}")
        if s.source in ("file", "image"):
            base = pathlib.Path(s.path).name if s.path else self.tr("(choose a file)")
            if s.source == "image":
                base += f" · {s.layout} · ×{s.scale:g}"
            elif s.key:
                base += f" · {s.key}"       # which array of an .npz
            return base
        return source_label(s.source)

    # -- editing -------------------------------------------------------------------------

    def _seed_edited(self, seed: int) -> None:
        if self._loading:
            return
        self.input_set.seed = seed
        self.remember()
        self.changed.emit()

    def _dim_edited(self, name: str, size: int) -> None:
        """Only this box's size goes into the set: the others stay auto."""
        if self._loading:
            return
        if size == AUTO:
            self.input_set.dims.pop(name, None)
        else:
            self.input_set.dims[name] = size
        self._show_auto_sizes()         # a dim written as a sum of this one follows it
        self.remember()
        self.changed.emit()

    def _show_auto_sizes(self) -> None:
        """What "auto" means in each size box: the size of an input's own file
        or image (when every input with that dim has one), or the size made
        values get."""
        sizes = made_sizes(self.inputs, self.input_set.dims)
        for name, spin in self.dim_spins.items():
            origins = {self._origin(v, name) for v in self.inputs if name in free_dims([v])}
            if origins == {"image"}:
                text = self.tr("from the image")
            elif origins and origins <= {"file", "image"}:
                text = self.tr("from the file")
            else:
                text = self.tr("auto: {size}").format(size=sizes.get(name, 1))
            spin.setSpecialValueText(text)
            # Wide enough for the text and the arrows (the size hint keeps the first text's width).
            spin.setMinimumWidth(spin.fontMetrics().horizontalAdvance(text) + 40)

    def _origin(self, v, dim: str) -> str:
        """"file" or "image" when `v`'s source gives the size of `dim`, else "made"."""
        source = self.input_set.spec(v.name).source
        if source == "file":
            return "file"
        if source != "image":
            return "made"
        # An image gives the height and width; the batch and channel axes are the model's.
        t = tensor_type(v)
        shape = tuple(t.shape or ()) if t is not None else ()
        axes = (2, 3) if self.input_set.spec(v.name).layout == "NCHW" else (1, 2)
        keys = {shape[a] if isinstance(shape[a], str) and shape[a] not in ANONYMOUS_DIMS else f"{v.name}[{a}]"
                for a in axes if a < len(shape)}
        return "image" if dim in keys else "made"

    def _source_chosen(self, name: str, source: str) -> None:
        if self._loading:
            return
        self.input_set.spec(name).source = source
        self.input_set.inputs.setdefault(name, self.input_set.spec(name))
        row = next(i for i, v in enumerate(self.inputs) if v.name == name)
        self.table.setCurrentCell(row, 0)
        self._refresh_row(row)
        self._show_details(row)
        self._show_auto_sizes()
        self.remember()
        self.changed.emit()

    def _refresh_row(self, row: int) -> None:
        self.table.item(row, 3).setText(self._summary(self.inputs[row]))

    def _show_details(self, row: int) -> None:
        if 0 <= row < len(self.inputs):
            v = self.inputs[row]
            self.details.edit(v, self.input_set.inputs.setdefault(v.name, self.input_set.spec(v.name)))

    def _detail_changed(self) -> None:
        row = self.table.currentRow()
        if 0 <= row < len(self.inputs):
            self._refresh_row(row)
        self._show_auto_sizes()
        self.remember()
        self.changed.emit()

    def set_source(self, name: str, source: str, **settings) -> None:
        """Choose an input's source and settings (scripts and tests)."""
        spec = self.input_set.inputs.setdefault(name, InputSpec(name))
        for key, value in settings.items():
            setattr(spec, key, value)
        row = next(i for i, v in enumerate(self.inputs) if v.name == name)
        combo = self.table.cellWidget(row, 2)
        combo.setCurrentIndex(combo.findData(source))
        spec.source = source
        self._refresh_row(row)
        self._show_details(row)
        self._show_auto_sizes()
        self.remember()

    def set_dim(self, name: str, size: int) -> None:
        """Type a size (AUTO: back to the file's or the model's)."""
        self.dim_spins[name].setValue(size)

    # -- values ------------------------------------------------------------------------------

    def snapshot(self) -> InputSet:
        """A copy of the set (the worker thread makes values from it)."""
        return InputSet.from_json(json.loads(json.dumps(self.input_set.to_json())))

    def make_feeds(self) -> dict:
        return make_feeds(self.inputs, self.snapshot())

    def sizes_made_one(self) -> list:
        """The symbolic dims made values get 1 for, for want of a size."""
        return unsized_dims(self.inputs, self.input_set)

    def show_problem(self, text: str) -> None:
        self.message.setText(_red(text) if text else "")

    # -- input sets ------------------------------------------------------------------------------

    def save_dialog(self) -> None:
        start = str(self.path.with_suffix(".inputs.json")) if self.path else "inputs.json"
        path, _ = QFileDialog.getSaveFileName(self, self.tr("Save input set"), start, _tr(SET_FILTER))
        if path:
            self.save_set(path)

    def save_set(self, path) -> None:
        try:
            pathlib.Path(path).write_text(json.dumps(self.input_set.to_json(), indent=1), encoding="utf-8")
        except OSError as e:
            self.show_problem(self.tr("{path}: cannot write ({error})").format(path=path, error=e.strerror or e))
            return
        self.message.setText(self.tr("Saved the input set to {path}").format(path=path))

    def load_dialog(self) -> None:
        start = str(self.path.parent) if self.path else ""
        path, _ = QFileDialog.getOpenFileName(self, self.tr("Load input set"), start, _tr(SET_FILTER))
        if path:
            self.load_set(path)

    def load_set(self, path) -> bool:
        try:
            data = json.loads(pathlib.Path(path).read_text(encoding="utf-8"))
            loaded = InputSet.from_json(data)
        except FileNotFoundError:
            self.show_problem(self.tr("{path}: no such file").format(path=path))
            return False
        except (OSError, ValueError, FeedError) as e:
            self.show_problem(self.tr("{path}: not an input set ({error})").format(path=path, error=e))
            return False
        known = {v.name for v in self.inputs}
        unknown = [n for n in loaded.inputs if n not in known]
        for v in self.inputs:
            loaded.inputs.setdefault(v.name, self.input_set.spec(v.name))
        loaded.inputs = {k: s for k, s in loaded.inputs.items() if k in known}
        self.input_set = loaded
        self._rebuild()
        self.remember()
        if unknown:
            self.message.setText(self.tr("Loaded {path}; the model has no input {names} (ignored)").format(
                path=path, names=", ".join(unknown)))
        else:
            self.message.setText(self.tr("Loaded the input set {path}").format(path=path))
        self.changed.emit()
        return True


    # -- every input from one .npz ------------------------------------------------------------

    def load_all_dialog(self) -> None:
        start = str(self.path.parent) if self.path else ""
        path, _ = QFileDialog.getOpenFileName(self, self.tr("Load all inputs"), start, _tr(NPZ_FILTER))
        if path:
            self.load_all_inputs(path)

    def load_all_inputs(self, path) -> bool:
        """Each input named in the .npz at `path` takes its array from there;
        the others keep their settings; names no input has are said."""
        try:
            specs, unknown = specs_from_npz(self.inputs, path)
        except FeedError as e:
            self.show_problem(str(e))
            return False
        if not specs:
            self.show_problem(self.tr("{path}: no array is named like an input of this model (it has {names}; "
                                      "the inputs are {inputs})").format(
                path=path, names=", ".join(unknown) or self.tr("none"),
                inputs=", ".join(v.name for v in self.inputs)))
            return False
        self.input_set.inputs.update(specs)
        self._rebuild()
        self.remember()
        lines = [self.tr("Loaded {names} from {path}").format(names=", ".join(specs), path=path)]
        kept = [v.name for v in self.inputs if v.name not in specs]
        if kept:
            lines.append(self.tr("not in the file, kept as they were: {names}").format(names=", ".join(kept)))
        if unknown:
            lines.append(self.tr("the model has no input {names} (ignored)").format(names=", ".join(unknown)))
        self.message.setText(_escape("; ".join(lines)))
        self.changed.emit()
        return True


# Characters a dim name may have on its label before the part it shares with
# the other names is cut; the full name is in the label's tooltip.
SHORT_DIM_NAME = 14
_WORD_ENDS = "._/:-"


def short_dim_names(names: list, limit: int = SHORT_DIM_NAME) -> dict:
    """{name: its label}: names longer than `limit` lose the start they all
    share, from a word boundary, so they stay distinct ("p2o.DynamicDimension.0",
    ".1" -> "…Dimension.0", "…Dimension.1"). Names still too long are cut
    in the middle, when that keeps them distinct."""
    prefix = os.path.commonprefix(list(names)) if len(names) > 1 else ""
    if len(prefix) > limit // 2 and any(len(n) > limit for n in names):
        cut = _word_start(prefix, len(prefix) - limit // 2)
        if cut > 1:
            return {n: "…" + n[cut:] for n in names}
    middle = {n: _cut_middle(n, limit) for n in names}
    return middle if len(set(middle.values())) == len(middle) else {n: n for n in names}


def _word_start(text: str, at: int) -> int:
    """The word start in `text` nearest before `at` (after a dot, underscore
    ..., or a capital after a small letter), else after it; else `at`."""
    def starts(i):
        return text[i - 1] in _WORD_ENDS or (text[i].isupper() and text[i - 1].islower())
    for i in range(at, max(at - SHORT_DIM_NAME // 2, 1) - 1, -1):
        if 0 < i < len(text) and starts(i):
            return i
    for i in range(max(at, 1), len(text)):
        if starts(i):
            return i
    return at


def _cut_middle(text: str, limit: int) -> str:
    if len(text) <= limit:
        return text
    head = (limit - 1) // 2
    return text[:head] + "…" + text[len(text) - (limit - 1 - head):]


def _red(text: str) -> str:
    return f"<span style='color:#c03030'>{_escape(text)}</span>"


def _escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def _is_integer(v) -> bool:
    try:
        dt = declared_dtype(v)
    except FeedError:
        return False
    return dt.kind in "iu" or "int" in dt.name


def _is_bool(v) -> bool:
    try:
        return declared_dtype(v).kind == "b"
    except FeedError:
        return False


class _NumberBox(QDoubleSpinBox):
    """A float box that writes 1 and 0.485, not 1.0000 and 0.4850."""

    def textFromValue(self, value: float) -> str:
        text = super().textFromValue(value)
        point = self.locale().decimalPoint()
        if point in text:
            text = text.rstrip("0").rstrip(point)
        return text


class _SpecEditor(QGroupBox):
    """The settings of the selected input's source."""
    changed = Signal()

    def __init__(self, parent=None):
        super().__init__(parent)
        self.setTitle(self.tr("Settings"))
        self.form = QFormLayout(self)
        self.form.setFieldGrowthPolicy(QFormLayout.ExpandingFieldsGrow)
        self.value = None
        self.spec: Optional[InputSpec] = None

    def _clear(self) -> None:
        while self.form.rowCount():
            self.form.removeRow(0)

    def edit(self, value, spec: InputSpec) -> None:
        self.value, self.spec = value, spec
        self._clear()
        self.setTitle(f"{value.name}: {source_label(spec.source)}")
        s = spec
        if s.source == "random":
            if _is_integer(value):
                self._int_row(self.tr("lowest"), "low")
                self._int_row(self.tr("highest"), "high")
            elif not _is_bool(value):
                dist = QComboBox()
                dist.addItem(self.tr("normal"), "normal")
                dist.addItem(self.tr("uniform"), "uniform")
                dist.setCurrentIndex(dist.findData(s.distribution))
                dist.currentIndexChanged.connect(
                    lambda _i: self._set("distribution", dist.currentData(), rebuild=True))
                self.form.addRow(self.tr("distribution"), dist)
                if s.distribution == "uniform":
                    self._float_row(self.tr("from"), "low")
                    self._float_row(self.tr("to"), "high")
                else:
                    self._float_row(self.tr("mean"), "mean")
                    self._float_row(self.tr("std"), "std")
        elif s.source == "constant":
            if _is_integer(value):          # silero_vad's sample rate reads 16000, not 16000.0000
                self._int_row(self.tr("value"), "value")
            else:
                self._float_row(self.tr("value"), "value", decimals=6)
        elif s.source in ("file", "image"):
            row = QHBoxLayout()
            path = QLineEdit(s.path)
            path.setPlaceholderText(self.tr("a .npy, .npz or .pb file") if s.source == "file"
                                    else self.tr("an image file"))
            path.editingFinished.connect(lambda: self._set("path", path.text().strip()))
            browse = QToolButton()
            browse.setText("…")
            browse.clicked.connect(lambda: self._browse(path))
            row.addWidget(path, 1)
            row.addWidget(browse)
            self.form.addRow(self.tr("file"), row)
            if s.source == "file":
                key = QLineEdit(s.key)
                key.setPlaceholderText(self.tr("array name in an .npz (default {name})").format(name=value.name))
                key.editingFinished.connect(lambda: self._set("key", key.text().strip()))
                self.form.addRow(self.tr("array"), key)
            else:
                layout = QComboBox()
                layout.addItems(IMAGE_LAYOUTS)
                layout.setCurrentText(s.layout)
                layout.currentTextChanged.connect(lambda t: self._set("layout", t))
                self.form.addRow(self.tr("layout"), layout)
                self._float_row(self.tr("scale"), "scale", decimals=6)
                self._list_row(self.tr("mean (per channel)"), "channel_mean")
                self._list_row(self.tr("std (per channel)"), "channel_std")
                order = QComboBox()
                order.addItems(["RGB", "BGR"])
                order.setCurrentText("BGR" if s.bgr else "RGB")
                order.currentTextChanged.connect(lambda t: self._set("bgr", t == "BGR"))
                self.form.addRow(self.tr("channel order"), order)
        else:
            self.form.addRow(QLabel(self.tr("every element {value}").format(value=1 if s.source == "ones" else 0)))

    def _set(self, attr, value, rebuild=False) -> None:
        setattr(self.spec, attr, value)
        if rebuild:
            self.edit(self.value, self.spec)
        self.changed.emit()

    def _float_row(self, label, attr, decimals=4) -> None:
        box = _NumberBox()
        box.setDecimals(decimals)
        box.setRange(-1e12, 1e12)
        box.setValue(float(getattr(self.spec, attr)))
        box.valueChanged.connect(lambda v: self._set(attr, float(v)))
        self.form.addRow(label, box)

    def _int_row(self, label, attr) -> None:
        box = QSpinBox()
        box.setRange(-2**31, 2**31 - 1)
        box.setValue(int(getattr(self.spec, attr)))
        box.valueChanged.connect(lambda v: self._set(attr, int(v)))
        self.form.addRow(label, box)

    def _list_row(self, label, attr) -> None:
        edit = QLineEdit(", ".join(f"{x:g}" for x in getattr(self.spec, attr)))

        def done():
            try:
                self._set(attr, _floats(edit.text(), label))
            except FeedError as e:
                edit.setToolTip(str(e))
        edit.editingFinished.connect(done)
        self.form.addRow(label, edit)

    def _browse(self, line: QLineEdit) -> None:
        what = ARRAY_FILTER if self.spec.source == "file" else IMAGE_FILTER
        path, _ = QFileDialog.getOpenFileName(self, self.tr("Value of {name}").format(name=self.value.name),
                                              line.text(), _tr(what))
        if path:
            line.setText(path)
            self._set("path", path)
