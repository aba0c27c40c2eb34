"""Editing one tensor: an initializer, or a node's tensor attribute (Constant's
`value`, ConstantOfShape's `value` ...), dense or sparse (a sparse initializer,
a Constant's `sparse_value`: edited as its dense values, stored sparse again).

Built on the reusable widgets of ui/tensor_view.py: the N-d slicing table in
its editable mode, the histogram and the statistics line. Every change is one
Edit (SetInitializer for an initializer, SetAttribute for an attribute)
carrying only this tensor's new data — the rest of the model is not copied,
and the undo step keeps the old tensor object as it was.

  * a cell typed in the table (parsed for the tensor's dtype, refused with a
    message when it does not fit);
  * import .npy (the shape must match the tensor's, or the file is refused
    naming both; numbers of another type are offered as a conversion with
    what it would lose), export .npy;
  * change the element type, after a preview of the precision lost (largest
    absolute and relative change, values changed, values that overflow);
  * reshape (the element count must stay the same);
  * see how many nodes read an initializer (through Identity nodes too:
    exporters share one weight that way) and give one of them a private
    copy to edit alone; a dtype conversion of a shared one says how many
    readers it changes.

A sparse tensor stays sparse through every one of these: the edit stores the
new dense data's nonzeros (a cell set to 0 leaves the stored indices, a
nonzero typed into an empty cell joins them); export writes the dense array.
"""
from __future__ import annotations

import os

import numpy as np
from PySide6.QtWidgets import (QComboBox, QFileDialog, QHBoxLayout, QLabel, QLineEdit, QPushButton,
                               QVBoxLayout, QWidget)

from ...core.edits import (AddInitializer, EditError, Macro, SetAttribute, SetInitializer, SetNodeInput, graph_path,
                           node_ref, sparse_from_dense)
from ...core.exec.tensor_stats import tensor_stats
from ...core.ir import AttrType, SparseTensor
from ...core.ir.dtypes import itemsize_bits, to_numpy_dtype, type_name
from ...core.summary import human_bytes
from ..tensor_view import HistogramWidget, TensorTable, stats_text
from .refusal_line import RefusalLine, apply_edit
from .value_editor import elem_type_combo, parse_dims, select_elem_type

LOAD_NOW_BYTES = 16 << 20      # larger tensors wait for "Load values" (selecting must stay quick)


class TensorSource:
    """Where the tensor lives and which Edit replaces it."""

    def __init__(self, value=None, node=None, attr_name: str = ""):
        self.value, self.node, self.attr_name = value, node, attr_name

    @property
    def alive(self) -> bool:
        obj = self.value if self.value is not None else self.node
        return obj is not None and obj.graph is not None

    @property
    def tensor(self):
        if self.value is not None:
            return self.value.const
        attr = self.node.attributes.get(self.attr_name)
        return None if attr is None else attr.value

    @property
    def title(self) -> str:
        if self.value is not None:
            return self.value.name
        return f"{self.node.display_name}.{self.attr_name}"

    # A sparse tensor (values, indices, dims) is shown and edited as its dense
    # values: these read both kinds alike.

    @property
    def sparse(self) -> bool:
        return isinstance(self.tensor, SparseTensor)

    @property
    def elem_type(self) -> int:
        t = self.tensor
        return int(t.values.dtype if isinstance(t, SparseTensor) else t.dtype)

    @property
    def shape(self) -> tuple:
        t = self.tensor
        return tuple(t.dims) if isinstance(t, SparseTensor) else tuple(t.shape)

    @property
    def size(self) -> int:
        return int(np.prod(self.shape, dtype=np.int64))

    @property
    def nbytes(self) -> int:
        """Bytes of the dense values (what showing them reads into memory)."""
        t = self.tensor
        if not isinstance(t, SparseTensor):
            return t.nbytes
        try:
            return (self.size * itemsize_bits(self.elem_type) + 7) // 8
        except ValueError:          # strings: no fixed size
            return t.values.nbytes

    def stored(self) -> tuple[int, int]:
        """A sparse tensor's (stored elements, bytes of its values and indices)."""
        t = self.tensor
        return int(t.values.size), int(t.values.nbytes + t.indices.nbytes)

    def dense(self) -> np.ndarray:
        """The values as a dense array (a sparse tensor's zeros filled in)."""
        t = self.tensor
        return np.asarray(t.to_dense() if isinstance(t, SparseTensor) else t.numpy())

    def edit(self, array=None, dtype=None, shape=None):
        """The Edit that stores `array` (or casts / reshapes the current data);
        a sparse tensor stays sparse. EditError when the data does not fit."""
        if self.value is not None:      # SetInitializer keeps a sparse initializer sparse
            return SetInitializer(self.value.name, array, dtype, list(shape) if shape is not None else None,
                                  graph_path(self.value.graph))
        if array is None:
            array = self.dense()
            if dtype is not None:
                array = array.astype(to_numpy_dtype(dtype))
            if shape is not None:
                array = array.reshape(shape)
        if self.sparse:
            return SetAttribute(node_ref(self.node), self.attr_name, int(AttrType.SPARSE_TENSOR),
                                sparse_from_dense(array, self.tensor.name, dtype),
                                graph=graph_path(self.node.graph))
        return SetAttribute(node_ref(self.node), self.attr_name, int(AttrType.TENSOR), array,
                            graph=graph_path(self.node.graph))


def tensor_readers(value) -> tuple[list, list]:
    """(readers, identities): the nodes reading `value`, directly or through
    chains of Identity nodes, each once in graph order; the Identity nodes
    passed through are listed apart (they read it only to hand it on)."""
    readers, identities, seen, stack = [], [], set(), [value]
    while stack:
        v = stack.pop()
        for node, _slot in v.uses:
            if id(node) in seen:
                continue
            seen.add(id(node))
            passes_on = (node.op_type == "Identity" and node.domain in ("", "ai.onnx") and node.outputs
                         and node.outputs[0] is not None and not node.outputs[0].is_graph_output)
            if passes_on:
                identities.append(node)
                stack.append(node.outputs[0])
            else:
                readers.append(node)

    def in_order(n):            # the value's own graph first, in node order
        return (n.graph is not value.graph, n.index)
    return sorted(readers, key=in_order), sorted(identities, key=in_order)


def private_copy_edit(value, reader, identities=(), name: str = "") -> Macro:
    """A copy of initializer `value` for `reader` alone: a new initializer
    with the same data, read by every input of `reader` that read `value`
    (directly or through one of `identities`). One undo step."""
    g = value.graph
    new_name = g.unique_name(f"{value.name}_{reader.name or reader.op_type}".replace("/", "_"))
    tensor = value.const
    sparse = isinstance(tensor, SparseTensor)
    array = np.array(tensor.to_dense() if sparse else tensor.numpy(), copy=True)
    dtype = int(tensor.values.dtype if sparse else tensor.dtype)
    passing = {id(value)} | {id(i.outputs[0]) for i in identities}
    edits = [AddInitializer(new_name, array, sparse, dtype, graph_path(g))]
    edits += [SetNodeInput(node_ref(reader), i, new_name, graph_path(reader.graph))
              for i, v in enumerate(reader.inputs) if v is not None and id(v) in passing]
    return Macro(edits, name or f"Private copy of {value.name} for {reader.display_name}")


def precision_change(array: np.ndarray, dtype: np.dtype) -> dict:
    """What casting `array` to `dtype` would do to its values: the largest
    absolute and relative change, how many values change, how many do not fit
    (become Inf/NaN or wrap)."""
    source = np.asarray(array)
    with np.errstate(all="ignore"):         # overflow is what the preview reports
        cast = source.astype(dtype)
    if source.dtype.kind in "OUS" or cast.dtype.kind in "OUS":
        changed = int(np.count_nonzero(source.astype(str) != cast.astype(str)))
        return {"max_abs": None, "max_rel": None, "changed": changed, "overflow": 0}
    with np.errstate(all="ignore"):
        a = source.astype(np.float64) if source.dtype.kind != "c" else np.abs(source)
        b = cast.astype(np.float64) if cast.dtype.kind != "c" else np.abs(cast)
        both = np.isfinite(a) & np.isfinite(b)
        overflow = int(np.count_nonzero(np.isfinite(a) & ~np.isfinite(b)))
        diff = np.abs(a - b)[both]
        rel = diff / np.maximum(np.abs(a[both]), np.finfo(np.float64).tiny)
        changed = int(np.count_nonzero(diff)) + overflow
    return {"max_abs": float(diff.max()) if diff.size else 0.0,
            "max_rel": float(rel.max()) if rel.size else 0.0,
            "changed": changed, "overflow": overflow}


class TensorEditor(QWidget):
    def __init__(self, qdoc, source: TensorSource, selected_on_canvas, parent=None):
        """`selected_on_canvas()`: what the canvas has selected (ir Nodes and
        Values, group keys: CanvasSelection.refs), for the reader a private
        copy is made for."""
        super().__init__(parent)
        self.qdoc = qdoc
        self.source = source
        self.selected_on_canvas = selected_on_canvas
        self.array = None
        self.title = QLabel()
        self.title.setWordWrap(True)
        self.storage = QLabel()         # a sparse tensor: how many elements are stored
        self.storage.setWordWrap(True)
        self.storage.setVisible(False)
        self.stats = QLabel()
        self.stats.setWordWrap(True)
        self.histogram = HistogramWidget()
        self.histogram.setFixedHeight(96)
        self.table = TensorTable(editable=True)
        self.table.view.setMinimumHeight(12 * 20 + 24)      # a dozen rows, never a squeezed four
        self.table.view.horizontalHeader().setDefaultSectionSize(90)   # "-0.00768012" whole
        self.table.edited.connect(self._cell_edited)
        self.table.model.refused.connect(self._refuse)
        self.load_button = QPushButton(self.tr("Load values"))
        self.load_button.clicked.connect(self.load)
        self.message = RefusalLine()
        self.import_button = QPushButton(self.tr("Import .npy…"))
        self.import_button.clicked.connect(lambda: self.import_npy())
        self.cast_import_button = QPushButton()      # "Import as float32": an offered conversion
        self.cast_import_button.setVisible(False)
        self.cast_import_button.clicked.connect(lambda: self.import_cast())
        self.pending_import = None
        self.export_button = QPushButton(self.tr("Export .npy…"))
        self.export_button.clicked.connect(lambda: self.export_npy())
        self.dtype_combo = elem_type_combo()
        self.preview_label = QLabel("")
        self.preview_label.setWordWrap(True)
        self.preview_button = QPushButton(self.tr("Preview"))
        self.preview_button.clicked.connect(self.preview_dtype)
        self.cast_button = QPushButton(self.tr("Apply"))
        self.cast_button.clicked.connect(self.apply_dtype)
        self.dtype_combo.currentIndexChanged.connect(lambda _i: self.preview_label.setText(""))
        self.shape_edit = QLineEdit()
        self.shape_edit.setPlaceholderText(self.tr("new dims, e.g. 4, 27"))
        self.reshape_button = QPushButton(self.tr("Reshape"))
        self.reshape_button.clicked.connect(self.reshape)
        self.shape_edit.returnPressed.connect(self.reshape)
        # Who reads this initializer, and a private copy for one of them.
        self.sharing = QLabel()
        self.sharing.setObjectName("sharing")
        self.sharing.setWordWrap(True)
        self.reader_combo = QComboBox()
        # Exporters' node names run long ("/m/encoder/layer.11/.../LayerNormalization"):
        # sized by its longest item the chooser made the editor wider than the
        # dock and cut the sharing warning off; the open list shows them whole.
        self.reader_combo.setSizeAdjustPolicy(QComboBox.AdjustToMinimumContentsLengthWithIcon)
        self.reader_combo.setMinimumContentsLength(12)
        self.copy_button = QPushButton(self.tr("Make a private copy for this node"))
        self.copy_button.clicked.connect(lambda: self.make_private_copy())
        self.copy_row = QWidget()
        copy_row = QHBoxLayout(self.copy_row)
        copy_row.setContentsMargins(0, 0, 0, 0)
        copy_row.addWidget(self.reader_combo, 1)
        copy_row.addWidget(self.copy_button)

        files = QHBoxLayout()
        files.addWidget(self.import_button)
        files.addWidget(self.cast_import_button)
        files.addWidget(self.export_button)
        files.addWidget(self.load_button)
        files.addStretch(1)
        cast = QHBoxLayout()
        cast.addWidget(QLabel(self.tr("dtype")))
        cast.addWidget(self.dtype_combo, 1)
        cast.addWidget(self.preview_button)
        cast.addWidget(self.cast_button)
        reshape = QHBoxLayout()
        reshape.addWidget(QLabel(self.tr("shape")))
        reshape.addWidget(self.shape_edit, 1)
        reshape.addWidget(self.reshape_button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.title)
        layout.addWidget(self.storage)
        layout.addWidget(self.sharing)
        layout.addWidget(self.copy_row)
        layout.addWidget(self.message)
        layout.addWidget(self.stats)
        layout.addWidget(self.histogram)
        layout.addWidget(self.table, 1)
        layout.addLayout(files)
        layout.addLayout(cast)
        layout.addWidget(self.preview_label)
        layout.addLayout(reshape)
        self.sync(first=True)

    # -- showing -------------------------------------------------------------------------------

    def _header(self) -> None:
        src = self.source
        self.elem_type = src.elem_type
        where = self.tr("initializer") if src.value is not None else self.tr("attribute")
        self.title.setText(f"<b>{src.title}</b> — {where} {type_name(self.elem_type)}"
                           f"{list(src.shape)}, {human_bytes(src.nbytes)}")
        self.storage.setVisible(src.sparse)
        if src.sparse:
            stored, size = src.stored()
            self.storage.setText(self.tr("Stored sparse: {stored} of {total} elements "
                                         "({size} of values and indices); the others are 0.").format(
                stored=stored, total=src.size, size=human_bytes(size)))

    def _sharing(self) -> None:
        """How many nodes read the initializer; with more than one, the
        warning and the private-copy row (the selected node first)."""
        value = self.source.value
        readers, identities = tensor_readers(value) if value is not None else ([], [])
        self.readers, self.identities = readers, identities
        shared = len(readers) > 1
        self.sharing.setVisible(value is not None)
        self.copy_row.setVisible(shared)
        if value is None:
            return
        if not readers:
            text = self.tr("No node reads it.")
        elif len(readers) == 1:
            text = self.tr("Read by 1 node: {node}.").format(node=readers[0].display_name)
        else:
            ops = sorted({n.op_type for n in readers})
            text = self.tr("Shared: read by {n} nodes ({ops}); an edit here changes all of them.").format(
                n=len(readers), ops=", ".join(ops))
        if identities:
            text += " " + (self.tr("Through {n} Identity node.") if len(identities) == 1
                           else self.tr("Through {n} Identity nodes.")).format(n=len(identities))
        self.sharing.setText(text)
        self.sharing.setStyleSheet("color: #b35c00;" if shared else "")
        chosen = self._selected_reader() or self.reader_combo.currentData()
        self.reader_combo.clear()
        for node in readers:
            self.reader_combo.addItem(node.display_name, node)
        if chosen is not None and chosen in readers:
            self.reader_combo.setCurrentIndex(readers.index(chosen))

    def showEvent(self, event) -> None:
        # Built before it joins the window: the canvas selection is read once shown.
        super().showEvent(event)
        node = self._selected_reader()
        if node is not None:
            self.choose_reader(node)

    def _selected_reader(self):
        """The reader selected on the canvas (or the reader an Identity
        selected there feeds), so "this node" is the one the user looks at."""
        for obj in self.selected_on_canvas():
            if obj in self.readers:
                return obj
            if obj in self.identities:
                return next((u for u, _ in obj.outputs[0].uses if u in self.readers), None)
        return None

    def choose_reader(self, node) -> bool:
        """Pick the node the private copy is for (the one selected on the canvas)."""
        i = next((k for k, n in enumerate(self.readers) if n is node), -1)
        if i >= 0:
            self.reader_combo.setCurrentIndex(i)
        return i >= 0

    def make_private_copy(self) -> bool:
        """Give the chosen reader its own copy of the initializer (one undo
        step) and edit that copy from now on."""
        value, reader = self.source.value, self.reader_combo.currentData()
        if value is None or reader is None:
            return False
        edit = private_copy_edit(value, reader, self.identities, self.tr("Private copy of {name} for {node}").format(
            name=value.name, node=reader.display_name))
        if not apply_edit(self.qdoc, self.message, edit, merge=False):
            return False
        copy = value.graph.get_value(edit.edits[0].name)
        self.source = TensorSource(value=copy)
        self.array = None
        self.sync(first=True)
        return True

    def sync(self, first: bool = False) -> None:
        """Show the tensor as it is now (after an edit, undo or redo), keeping
        the table's axes and slice when the shape did not change."""
        if not self.source.alive or self.source.tensor is None:
            return
        self._header()
        self._sharing()
        if first:
            select_elem_type(self.dtype_combo, self.elem_type)
            self.shape_edit.setText(", ".join(str(d) for d in self.source.shape))
        # A tensor that can never be read says why at once (load refuses), not "not read yet".
        if first and self.source.nbytes > LOAD_NOW_BYTES and getattr(self.source.tensor, "unreadable", None) is None:
            self.stats.setText(self.tr("Values not read yet ({size}).").format(
                size=human_bytes(self.source.nbytes)))
            self.table.setEnabled(False)
            return
        self.load()

    def load(self) -> None:
        try:
            array = self.source.dense()
        except Exception as e:  # noqa: BLE001 - e.g. the external data file is missing
            # Said as it is: nothing was being changed ("— not changed" is for edits).
            self.message.say(f"{self.source.title}: " + self.tr("cannot read the values: {error}").format(error=e))
            return
        self.load_button.setVisible(False)
        self.table.setEnabled(True)
        model = self.table.model
        if self.array is not None and model.array.shape == array.shape and model.array.dtype == array.dtype:
            model.array = array                        # same window on new data
            if model.rowCount() and model.columnCount():
                model.dataChanged.emit(model.index(0, 0),
                                       model.index(model.rowCount() - 1, model.columnCount() - 1))
        else:
            self.table.set_array(array)
        self.array = array
        self.stats.setText(stats_text(tensor_stats(array)))
        self.histogram.set_array(array)

    # -- edits -------------------------------------------------------------------------------------

    def _apply(self, name: str, array=None, dtype=None, shape=None) -> bool:
        """The source's edit for this change as one undo step of its own (a cell
        edit does not merge into the reshape before it)."""
        try:
            edit = self.source.edit(array, dtype, shape)
        except (EditError, TypeError, ValueError) as e:   # e.g. a sparse tensor's values do not fit
            return self._refuse(str(e))
        return apply_edit(self.qdoc, self.message, edit, name=name, merge=False)

    def _refuse(self, message: str) -> bool:
        self.message.say(self.tr("{name}: {message} — not changed.").format(
            name=self.source.title, message=message))
        return False

    def _cell_edited(self, index: tuple, element) -> None:
        # The table changed its own copy; the edit gets a copy of that (the old
        # tensor stays untouched for undo).
        where = ",".join(map(str, index))
        if not self._apply(self.tr("Set {name}[{where}]").format(name=self.source.title, where=where),
                           np.array(self.table.array, copy=True)):
            self.load()

    def import_npy(self, path: str = "") -> bool:
        if not path:
            path, _ = QFileDialog.getOpenFileName(self, self.tr("Import tensor"), "",
                                                  self.tr("NumPy array (*.npy)"))
            if not path:
                return False
        try:
            data = np.load(path, allow_pickle=False)
        except Exception as e:  # noqa: BLE001 - not an .npy file, pickled objects, unreadable
            return self._refuse(self.tr("{path} cannot be read as .npy: {error}").format(path=path, error=e))
        if not isinstance(data, np.ndarray):
            return self._refuse(self.tr("{path} holds several arrays, not one").format(path=path))
        shape = self.source.shape
        want = to_numpy_dtype(self.elem_type)
        if tuple(data.shape) != shape:
            return self._refuse(self.tr("{path} has shape {got}, the tensor has {want}").format(
                path=path, got=list(data.shape), want=list(shape)))
        if data.dtype != want and not (want.kind in "OUS" and data.dtype.kind in "OUS"):
            if data.dtype.kind in "biufc" and want.kind in "biufc":
                return self._offer_cast_import(path, data, want)
            return self._refuse(self.tr("{path} holds {got}, the tensor is {want} (change the dtype first)")
                                .format(path=path, got=data.dtype.name, want=type_name(self.elem_type)))
        return self._apply(self.tr("Import {file} into {name}").format(
            file=os.path.basename(path), name=self.source.title), data)

    def _offer_cast_import(self, path: str, data: np.ndarray, want: np.dtype) -> bool:
        """Numbers of another type (a float64 .npy for a float32 tensor): say
        what converting them would lose and offer the import as a cast; nothing
        changes until "Import as …" is pressed."""
        change = precision_change(data, want)
        text = self.tr("{path} holds {got}, the tensor is {want}: converting it, max abs change {a:.6g}, "
                       "max rel change {r:.3g}, {n} of {total} values change").format(
            path=os.path.basename(path), got=data.dtype.name, want=type_name(self.elem_type),
            a=change["max_abs"], r=change["max_rel"], n=change["changed"], total=data.size)
        if change["overflow"]:
            text += self.tr(", {n} overflow").format(n=change["overflow"])
        self.message.say(text + ".")
        with np.errstate(all="ignore"):     # overflow is what the message above reports
            self.pending_import = (path, data.astype(want))
        self.cast_import_button.setText(self.tr("Import as {dtype}").format(dtype=type_name(self.elem_type)))
        self.cast_import_button.setVisible(True)
        return False

    def import_cast(self) -> bool:
        """Apply the import offered by `_offer_cast_import` (one undo step)."""
        pending, self.pending_import = self.pending_import, None
        self.cast_import_button.setVisible(False)
        if pending is None:
            return False
        path, array = pending
        return self._apply(self.tr("Import {file} into {name}").format(
            file=os.path.basename(path), name=self.source.title), array)

    def export_npy(self, path: str = "") -> bool:
        if not path:
            path, _ = QFileDialog.getSaveFileName(self, self.tr("Export tensor"), f"{self.source.title}.npy",
                                                  self.tr("NumPy array (*.npy)"))
            if not path:
                return False
        try:
            np.save(path, self.source.dense())
        except Exception as e:  # noqa: BLE001
            return self._refuse(self.tr("could not write {path}: {error}").format(path=path, error=e))
        return True

    def preview_dtype(self) -> dict | None:
        code = int(self.dtype_combo.currentData())
        try:
            dtype = to_numpy_dtype(code)
            change = precision_change(self.source.dense(), dtype)
        except Exception as e:  # noqa: BLE001 - no conversion between these types
            self._refuse(self.tr("cannot convert to {dtype}: {error}").format(dtype=type_name(code), error=e))
            return None
        one = change["changed"] == 1
        if change["max_abs"] is None:
            text = (self.tr("{n} value changes") if one else self.tr("{n} values change")).format(n=change["changed"])
        else:
            text = (self.tr("to {dtype}: max abs change {a:.6g}, max rel change {r:.3g}, {n} value changes") if one
                    else self.tr("to {dtype}: max abs change {a:.6g}, max rel change {r:.3g}, {n} values change")
                    ).format(dtype=type_name(code), a=change["max_abs"], r=change["max_rel"], n=change["changed"])
            if change["overflow"]:
                text += self.tr(", {n} overflow").format(n=change["overflow"])
        readers = getattr(self, "readers", [])
        if len(readers) > 1:
            text = self.tr("Warning: {n} nodes read this tensor; converting it changes the input of every one "
                           "of them (make a private copy to change one).").format(n=len(readers)) + "\n" + text
            self.preview_label.setStyleSheet("color: #b35c00;")
        else:
            self.preview_label.setStyleSheet("")
        self.preview_label.setText(text)
        self.previewed = code
        return change

    def apply_dtype(self) -> bool:
        code = int(self.dtype_combo.currentData())
        if code == self.elem_type:
            return self._refuse(self.tr("the tensor is already {dtype}").format(dtype=type_name(code)))
        if getattr(self, "previewed", None) != code:
            # The preview always shows before the cast applies; for a shared
            # tensor its warning is read first: Apply again to convert.
            if self.preview_dtype() is None or len(getattr(self, "readers", [])) > 1:
                return False
        return self._apply(self.tr("Convert {name} to {dtype}").format(
            name=self.source.title, dtype=type_name(code)), dtype=code)

    def reshape(self) -> bool:
        try:
            dims = parse_dims(self.shape_edit.text())
        except ValueError as e:
            return self._refuse(str(e))
        if any(not isinstance(d, int) for d in dims):
            return self._refuse(self.tr("a new shape needs sizes, not names or ?"))
        size = int(np.prod(dims, dtype=np.int64))
        have = self.source.size
        if size != have:
            return self._refuse((self.tr("{new} has {n} element, the tensor {m}") if size == 1
                                 else self.tr("{new} has {n} elements, the tensor {m}")).format(
                new=dims, n=size, m=have))
        if list(dims) == list(self.source.shape):
            return False
        return self._apply(self.tr("Reshape {name} to {dims}").format(name=self.source.title, dims=dims),
                           shape=dims)


__all__ = ["TensorEditor", "TensorSource", "precision_change", "private_copy_edit", "tensor_readers"]
