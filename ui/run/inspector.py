"""The tensor inspector dock: statistics, histogram, a slicing table, an
image view for image-shaped tensors and the comparison with a second tensor
(the reference run's or onnxruntime's value) for any computed value or
initializer; export as .npy.

It shows the value of the current run of the current model: the run UI
shows the new value after every run or step (install.RunUI), says when
there is none (show_none) and when the inputs changed since (mark_stale)."""
from __future__ import annotations

from typing import Optional

import numpy as np
from PySide6.QtCore import QT_TRANSLATE_NOOP
from PySide6.QtWidgets import (QFileDialog, QHBoxLayout, QLabel, QPushButton, QTabWidget, QVBoxLayout,
                               QWidget)

from onnxstudio.core.exec.tensor_stats import as_float, tensor_stats
from onnxstudio.core.exec.values import describe

from ..tensor_view import HistogramWidget, ImageView, TensorTable, guess_layout, stats_text


class TensorInspector(QWidget):
    def __init__(self, parent=None):
        super().__init__(parent)
        self.name = ""
        self.array: Optional[np.ndarray] = None
        self.other: Optional[np.ndarray] = None
        self.other_label = ""
        self.title = QLabel(self.tr(HINT))
        self.title.setWordWrap(True)
        self.note = QLabel()             # the inputs changed since this value was computed
        self.note.setWordWrap(True)
        self.note.hide()
        self.stats = QLabel()
        self.stats.setWordWrap(True)
        self.export_button = QPushButton(self.tr("Export .npy…"))
        self.export_button.setEnabled(False)
        self.tabs = QTabWidget()
        self.histogram = HistogramWidget()
        self.table = TensorTable()
        self.image = ImageView()
        self.compare = QWidget()
        self.compare_text = QLabel()
        self.compare_text.setWordWrap(True)
        self.diff_histogram = HistogramWidget()
        cl = QVBoxLayout(self.compare)
        cl.addWidget(self.compare_text)
        cl.addWidget(QLabel(self.tr("|ours − reference| per element:")))
        cl.addWidget(self.diff_histogram, 1)
        self.tabs.addTab(self.histogram, self.tr("Histogram"))
        self.tabs.addTab(self.table, self.tr("Values"))
        self.tabs.addTab(self.image, self.tr("Image"))
        self.tabs.addTab(self.compare, self.tr("Compare"))
        head = QHBoxLayout()
        head.addWidget(self.title, 1)
        head.addWidget(self.export_button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addLayout(head)
        layout.addWidget(self.note)
        layout.addWidget(self.stats)
        layout.addWidget(self.tabs, 1)
        self.export_button.clicked.connect(self.export_dialog)
        self._set_tabs(False, False)

    def _set_tabs(self, image: bool, compare: bool) -> None:
        self.tabs.setTabEnabled(2, image)
        self.tabs.setTabEnabled(3, compare)

    def clear(self) -> None:
        """Nothing inspected (another model was opened)."""
        self.show_none("", self.tr(HINT))

    def show_none(self, name: str, text: str) -> None:
        """`name` has no value to show (`text` says why): nothing of an
        earlier run or model stays on screen or goes into an export."""
        self.name = name
        self.array = None
        self.other = None
        self.note.hide()
        self.title.setText(f"<b>{_escape(name)}</b>: {_escape(text)}" if name else _escape(text))
        self.stats.clear()
        self.export_button.setEnabled(False)
        self.histogram.set_data([], [])
        self.table.set_array(np.zeros((0, 0)))
        self.diff_histogram.set_data([], [])
        self._set_tabs(False, False)
        self.tabs.setCurrentIndex(0)

    def mark_stale(self, text: str) -> None:
        """Say the shown value was computed before a change (`text` says which)."""
        if self.array is None:
            return
        self.note.setText(_orange(text))
        self.note.show()

    def show_value(self, name: str, value, *, where: str = "", other=None, other_label: str = "") -> None:
        """Show `value` (array, sequence, map); `other` is the tensor to compare it with."""
        self.name = name
        self.note.hide()
        if isinstance(value, (list, dict)) or value is None:
            self.array = None
            self.title.setText(f"<b>{name}</b>: {describe(value)}" + (f" — {where}" if where else ""))
            self.stats.setText(self.tr("sequences, maps and empty optionals are shown by their length only"))
            self.export_button.setEnabled(False)
            self.histogram.set_data([], [])
            self.table.set_array(np.zeros((0, 0)))
            self._set_tabs(False, False)
            return
        array = np.asarray(value)
        self.array = array
        self.title.setText(f"<b>{name}</b>: {describe(array)}" + (f" — {where}" if where else ""))
        self.stats.setText(stats_text(tensor_stats(array)))
        self.histogram.set_array(array)
        self.table.set_array(array)
        is_image = guess_layout(array.shape) is not None and as_float(array) is not None
        if is_image:
            self.image.set_array(array)
        self.export_button.setEnabled(True)
        self.other = None if other is None else np.asarray(other)
        self.other_label = other_label
        self._show_comparison()
        # Read before the tabs change: disabling the current tab makes Qt show the one before it
        # (the Compare tab gone, the image appeared in its place instead of the histogram).
        shown = self.tabs.currentIndex()
        self._set_tabs(is_image, self.other is not None)
        if not is_image and shown == 2 or self.other is None and shown == 3:
            self.tabs.setCurrentIndex(0)

    def _show_comparison(self) -> None:
        if self.other is None:
            self.compare_text.setText(
                self.tr("Nothing to compare with: keep a reference run or compare with onnxruntime"))
            self.diff_histogram.set_data([], [])
            return
        from onnxstudio.core.exec.compare import compare_value
        d = compare_value(self.name, self.array, self.other)
        who = self.other_label if self.other_label == "onnxruntime" else self.tr("the reference run")
        agrees, differs = self.tr("agrees"), self.tr("differs")     # (lupdate skips f-strings)
        verdict = (f"<span style='color:#2a8a2a'>{agrees}</span>" if d.agrees
                   else f"<span style='color:#c03030'><b>{differs}</b></span>")
        lines = [self.tr("against <b>{who}</b>: {verdict}").format(who=who, verdict=verdict),
                 self.tr("max abs error {abs}, relative to the largest |value| ({scale}): {rel}").format(
                     abs=f"{d.max_abs:.4g}", scale=f"{d.scale:.4g}", rel=f"{d.rel:.4g}")]
        if d.max_abs:
            lines.append(self.tr("largest difference at {where}: ours {ours}, {other} {theirs}").format(
                where=d.where or "[]", ours=_num(d.ours), other=who, theirs=_num(d.theirs)))
        if d.note:
            lines.append(d.note)
        self.compare_text.setText("<br>".join(lines))
        a, b = as_float(self.array), as_float(self.other)
        if a is not None and b is not None and a.shape == b.shape:
            with np.errstate(all="ignore"):
                self.diff_histogram.set_array(np.abs(a.astype(np.float64) - b.astype(np.float64)))
        else:
            self.diff_histogram.set_data([], [])

    def export_dialog(self) -> None:
        if self.array is None:
            return
        safe = "".join(c if c.isalnum() or c in "._-" else "_" for c in self.name).strip("._") or "value"
        path, _ = QFileDialog.getSaveFileName(self, self.tr("Export tensor"), f"{safe}.npy",
                                              self.tr("NumPy array (*.npy)"))
        if path:
            self.export(path)

    def export(self, path) -> bool:
        try:
            np.save(path, self.array, allow_pickle=self.array.dtype == object)
        except (OSError, ValueError) as e:
            self.stats.setText(_red(self.tr("Could not write {path}: {error}").format(path=path, error=e)))
            return False
        self.stats.setText(_lines(self.stats.text(), self.tr("Exported to {path}").format(path=path)))
        return True


HINT = QT_TRANSLATE_NOOP("TensorInspector", "Select an edge after a run (or an initializer) to inspect its value")


def _orange(text: str) -> str:
    return f"<span style='color:#b06000'>{_escape(text)}</span>"


def _escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def _lines(*texts: str) -> str:
    return "<br>".join(texts)


def _red(text: str) -> str:
    return "<span style='color:#c03030'>" + text.replace("&", "&amp;").replace("<", "&lt;") + "</span>"


def _num(x) -> str:
    try:
        return f"{float(x):.7g}"
    except (TypeError, ValueError):
        return repr(x)
