"""An initializer's statistics and values: a table of a 2-D slice of the
tensor (leading dimensions picked with spin boxes) and an .npy export.

Values are read only when the user looks at them, so selecting a node never
decodes weights; statistics are computed once per tensor and cached.
"""
from __future__ import annotations

import numpy as np
from PySide6.QtCore import QAbstractTableModel, QModelIndex, Qt
from PySide6.QtWidgets import (QFileDialog, QHBoxLayout, QLabel, QMessageBox, QPushButton,
                               QSpinBox, QTableView, QVBoxLayout, QWidget)


def tensor_stats(array: np.ndarray) -> dict:
    """min/max/mean/std for numeric data; empty for strings and empty tensors."""
    if array.size == 0 or array.dtype == object:
        return {}
    try:
        data = array.astype(np.float64) if array.dtype.kind not in "fiub" or array.dtype.itemsize < 4 \
            else array
        if data.dtype == np.bool_:
            data = data.astype(np.int8)
        if np.iscomplexobj(data):
            data = np.abs(data)
        return {"min": float(np.nanmin(data)), "max": float(np.nanmax(data)),
                "mean": float(np.nanmean(data, dtype=np.float64)),
                "std": float(np.nanstd(data, dtype=np.float64))}
    except (TypeError, ValueError):
        return {}


def slice_2d(array: np.ndarray, leading: tuple[int, ...]) -> np.ndarray:
    """The 2-D view shown in the table: leading indexes fix all but the last two dims."""
    if array.ndim == 0:
        return array.reshape(1, 1)
    if array.ndim == 1:
        return array.reshape(-1, 1)
    return array[tuple(leading)] if leading else array


class SliceModel(QAbstractTableModel):
    def __init__(self, parent=None):
        super().__init__(parent)
        self.data2d = np.zeros((0, 0))

    def set_array(self, data2d: np.ndarray) -> None:
        self.beginResetModel()
        self.data2d = data2d
        self.endResetModel()

    def rowCount(self, parent=QModelIndex()) -> int:
        return 0 if parent.isValid() else self.data2d.shape[0]

    def columnCount(self, parent=QModelIndex()) -> int:
        return 0 if parent.isValid() else self.data2d.shape[1]

    def data(self, index, role=Qt.DisplayRole):
        if role != Qt.DisplayRole or not index.isValid():
            return None
        value = self.data2d[index.row(), index.column()]
        if isinstance(value, (float, np.floating)):
            return f"{float(value):.6g}"
        if isinstance(value, bytes):
            return value.decode("utf-8", "replace")
        return str(value)

    def headerData(self, section, orientation, role=Qt.DisplayRole):
        return str(section) if role == Qt.DisplayRole else None


class TensorView(QWidget):
    def __init__(self, parent=None):
        super().__init__(parent)
        self.tensor = None
        self.array = None
        self.title = QLabel()
        self.title.setWordWrap(True)
        self.show_button = QPushButton(self.tr("Show values"))
        self.export_button = QPushButton(self.tr("Export .npy…"))
        self.spin_row = QHBoxLayout()
        self.spins: list[QSpinBox] = []
        self.model = SliceModel(self)
        self.table = QTableView()
        self.table.setModel(self.model)
        self.table.setVisible(False)
        buttons = QHBoxLayout()
        buttons.addWidget(self.show_button)
        buttons.addWidget(self.export_button)
        buttons.addStretch(1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.title)
        layout.addLayout(buttons)
        layout.addLayout(self.spin_row)
        layout.addWidget(self.table, 1)
        self.show_button.clicked.connect(self.show_values)
        self.export_button.clicked.connect(self.export_npy)

    def set_tensor(self, tensor, name: str) -> None:
        self.tensor = tensor
        self.name = name
        self.array = None
        self.table.setVisible(False)
        self._clear_spins()
        self.title.setText(self.tr("Values of {name}").format(name=f"<b>{name}</b>"))
        self.show_button.setEnabled(True)

    def _load(self) -> np.ndarray:
        if self.array is None:
            t = self.tensor          # a SparseTensor is shown as its dense values
            self.array = np.asarray(t.numpy() if hasattr(t, "numpy") else t.to_dense())
        return self.array

    def _clear_spins(self) -> None:
        while self.spin_row.count():
            widget = self.spin_row.takeAt(0).widget()
            if widget is not None:
                widget.deleteLater()
        self.spins = []

    def show_values(self) -> None:
        try:
            array = self._load()
        except Exception as exc:    # noqa: BLE001 - shown to the user, e.g. missing external file
            QMessageBox.warning(self, self.tr("Cannot read tensor"), f"{self.name}: {exc}")
            return
        self._clear_spins()
        if array.ndim > 2:
            self.spin_row.addWidget(QLabel(self.tr("slice")))
            for axis in range(array.ndim - 2):
                spin = QSpinBox()
                spin.setRange(0, max(array.shape[axis] - 1, 0))
                spin.setPrefix(f"[{axis}] ")
                spin.valueChanged.connect(self._update_slice)
                self.spin_row.addWidget(spin)
                self.spins.append(spin)
            self.spin_row.addWidget(QLabel("[:, :]"))
        self.table.setVisible(True)
        self._update_slice()

    def _update_slice(self) -> None:
        leading = tuple(spin.value() for spin in self.spins)
        self.model.set_array(slice_2d(self._load(), leading))

    def export_npy(self) -> None:
        path, _ = QFileDialog.getSaveFileName(self, self.tr("Export tensor"), f"{self.name}.npy",
                                              self.tr("NumPy array (*.npy)"))
        if not path:
            return
        try:
            np.save(path, self._load())
        except Exception as exc:    # noqa: BLE001
            QMessageBox.warning(self, self.tr("Export failed"),
                                self.tr("Could not write {path}: {error}").format(path=path, error=exc))
