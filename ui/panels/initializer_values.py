"""An initializer's values: the shared slicing table
(ui/tensor_view.py's TensorTable, any two axes as rows and columns) behind
a "Show values" button, and an .npy export.

Values are read only when the user looks at them, so selecting a node never
decodes weights.
"""
from __future__ import annotations

import numpy as np
from PySide6.QtWidgets import QFileDialog, QHBoxLayout, QLabel, QMessageBox, QPushButton, QVBoxLayout, QWidget

from ...core.ir import SparseTensor
from ..tensor_view import TensorTable


class InitializerValues(QWidget):
    def __init__(self, parent=None):
        super().__init__(parent)
        self.tensor = None
        self.array = None
        self.title = QLabel()
        self.title.setWordWrap(True)
        self.show_button = QPushButton(self.tr("Show values"))
        self.export_button = QPushButton(self.tr("Export .npy…"))
        self.table = TensorTable()
        self.table.setVisible(False)
        buttons = QHBoxLayout()
        buttons.addWidget(self.show_button)
        buttons.addWidget(self.export_button)
        buttons.addStretch(1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.title)
        layout.addLayout(buttons)
        layout.addWidget(self.table, 1)
        self.show_button.clicked.connect(self.show_values)
        self.export_button.clicked.connect(self.export_npy)

    def set_tensor(self, tensor, name: str) -> None:
        self.tensor = tensor
        self.name = name
        self.array = None
        self.table.setVisible(False)
        self.title.setText(self.tr("Values of {name}").format(name=f"<b>{name}</b>"))
        self.show_button.setEnabled(True)

    def _load(self) -> np.ndarray:
        if self.array is None:
            t = self.tensor          # a SparseTensor is shown as its dense values
            self.array = np.asarray(t.to_dense() if isinstance(t, SparseTensor) else t.numpy())
        return self.array

    def show_values(self) -> None:
        try:
            array = self._load()
        except Exception as exc:    # noqa: BLE001 - shown to the user, e.g. missing external file
            QMessageBox.warning(self, self.tr("Cannot read tensor"), f"{self.name}: {exc}")
            return
        self.table.set_array(array)
        self.table.setVisible(True)

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
