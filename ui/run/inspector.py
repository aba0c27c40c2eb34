"""The tensor inspector dock: statistics, histogram, a slicing table, an
image view for image-shaped tensors and the comparison with a second tensor
(the reference run's or onnxruntime's value) for any computed value or
initializer; export as .npy. Inside a sequence or a map, choosers pick the
element or entry shown (value_parts.py); a map of one number per key is
shown as a column of values labelled by its keys.

It shows the value of the current run of the current model: the run UI
shows the new value after every run or step (install.RunUI), says when
there is none (show_none) and when the inputs changed since (mark_stale)."""
from __future__ import annotations

from typing import Optional

import numpy as np
from PySide6.QtCore import QT_TRANSLATE_NOOP
from PySide6.QtWidgets import (QComboBox, QFileDialog, QHBoxLayout, QLabel, QPushButton, QSpinBox, QTabWidget,
                               QVBoxLayout, QWidget)

from onnxstudio.core.exec.tensor_stats import as_float, tensor_stats
from onnxstudio.core.exec.values import describe

from ..tensor_view import HistogramWidget, ImageView, TensorTable, format_element, guess_layout, stats_text
from .value_parts import aligned_values, fit_path, is_container, levels, part_at, path_text, scalar_map


class TensorInspector(QWidget):
    def __init__(self, parent=None):
        super().__init__(parent)
        self.name = ""
        self.array: Optional[np.ndarray] = None     # the tensor shown (a map of scalars: its values)
        self.other = None                # the compared-with part (None: nothing to compare with)
        self.other_label = ""
        self._whole = self._whole_other = None      # the values given, of which a part is shown
        self._where = ""
        self._path: list = []            # positions and map keys to the part shown (value_parts)
        self._part = None                # the part shown, as the run holds it
        self._keys: Optional[list] = None            # a map of scalars shown: its keys, in the table's order
        self._other_array: Optional[np.ndarray] = None   # the compared-with elements lined up with `array`
        self.title = QLabel(self.tr(HINT))
        self.title.setWordWrap(True)
        self.note = QLabel()             # the inputs changed since this value was computed
        self.note.setWordWrap(True)
        self.note.hide()
        self.stats = QLabel()
        self.stats.setWordWrap(True)
        self.parts = QWidget()           # the element / key choosers inside a sequence or a map
        parts_layout = QHBoxLayout(self.parts)
        parts_layout.setContentsMargins(0, 0, 0, 0)
        self.parts.hide()
        self.export_button = QPushButton(self.tr("Export .npy…"))
        self.export_button.setEnabled(False)
        self.tabs = QTabWidget()
        # Every tab's name shown: the dock opens at the inspector's narrowest, which for a small
        # value (a loop body's float[4]) was 4 px short of the tab bar, "Compare" cut behind arrows.
        self.tabs.setUsesScrollButtons(False)
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
        layout.addWidget(self.parts)
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
        self._whole = self._whole_other = self._part = self._keys = self._other_array = None
        self._path = []
        self.parts.hide()
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
        """Show `value` (array, sequence, map, None); `other` is the value to
        compare it with. Inside a sequence or a map the part shown is the one
        chosen before (value_parts.fit_path) while it still exists."""
        if name != self.name:
            self._path = []
        self.name = name
        self._whole, self._whole_other = value, other
        self._where = where
        self.other_label = other_label
        self._show_part()

    def _show_part(self) -> None:
        value, other = self._whole, self._whole_other
        self._path = fit_path(value, self._path)
        self._build_part_choosers()
        part = part_at(value, self._path)
        try:
            other_part = None if other is None else part_at(other, self._path)
        except KeyError:                 # the other run's value has another structure
            other_part = None
        label = _escape(self.name + path_text(value, self._path))
        where = f" — {_escape(self._where)}" if self._where else ""
        self.note.hide()
        pairs = scalar_map(part)
        if pairs is not None:
            keys, values = pairs
            self._keys = keys
            self.title.setText(self.tr("<b>{name}</b>: map of {n} ({key} → {value}){where}").format(
                name=label, n=len(keys), key=_element_type(np.asarray(keys)), value=_element_type(values),
                where=where))
            self._show_array(part, values, other_part, aligned_values(part, other_part),
                             [format_element(k) for k in keys])
            return
        self._keys = None
        if is_container(part) or part is None:
            self.array = None
            self.other = None
            self.title.setText(f"<b>{label}</b>: {_escape(describe(part))}{where}")
            self.stats.setText(self.tr("an empty optional: no value") if part is None
                               else self.tr("empty: no element to show"))
            self.export_button.setEnabled(False)
            self.histogram.set_data([], [])
            self.table.set_array(np.zeros((0, 0)))
            self.diff_histogram.set_data([], [])
            self._set_tabs(False, False)
            return
        array = np.asarray(part)
        self.title.setText(f"<b>{label}</b>: {_escape(describe(array))}{where}")
        self._show_array(array, array, other_part, None if other_part is None or is_container(other_part)
                         else np.asarray(other_part))

    def _show_array(self, part, array: np.ndarray, other_part, other_array, row_labels=None) -> None:
        """The views of one array (`part` as the run holds it: the array, or
        the map of scalars `array` lists): statistics, histogram, table (rows
        named by `row_labels` when given), image and the comparison with
        `other_part` (`other_array` its elements lined up with `array`'s)."""
        self._part = part
        self.array = array
        self.stats.setText(stats_text(tensor_stats(array)))
        self.histogram.set_array(array)
        self.table.set_array(array, row_labels=row_labels)
        is_image = row_labels is None and guess_layout(array.shape) is not None and as_float(array) is not None
        if is_image:
            self.image.set_array(array)
        self.export_button.setEnabled(True)
        self.other = other_part
        self._other_array = other_array
        self._show_comparison()
        # Read before the tabs change: disabling the current tab makes Qt show the one before it
        # (the Compare tab gone, the image appeared in its place instead of the histogram).
        shown = self.tabs.currentIndex()
        self._set_tabs(is_image, self.other is not None)
        if not is_image and shown == 2 or self.other is None and shown == 3:
            self.tabs.setCurrentIndex(0)

    def _build_part_choosers(self) -> None:
        """One chooser per sequence or map along the path: the element's
        position, or the entry's key."""
        layout = self.parts.layout()
        while layout.count():
            widget = layout.takeAt(0).widget()
            if widget is not None:
                widget.deleteLater()
        found = levels(self._whole, self._path)
        for depth, (container, choice) in enumerate(found):
            if isinstance(container, dict):
                layout.addWidget(QLabel(self.tr("key")))
                box = QComboBox()
                keys = list(container)
                box.addItems([format_element(k) for k in keys])
                box.setCurrentIndex(keys.index(choice))
                box.activated.connect(lambda i, d=depth, ks=keys: self._choose(d, ks[i]))
                layout.addWidget(box)
            else:
                spin = QSpinBox()
                spin.setRange(0, len(container) - 1)
                spin.setPrefix(self.tr("element "))
                spin.setSuffix(self.tr(" of {n}").format(n=len(container)))
                spin.setValue(choice)
                spin.valueChanged.connect(lambda i, d=depth: self._choose(d, i))
                layout.addWidget(spin)
        layout.addStretch(1)
        self.parts.setVisible(bool(found))

    def _choose(self, depth: int, choice) -> None:
        """The user chose another element or key at `depth`: the parts below
        it keep their choices where they still exist."""
        self._path = self._path[:depth] + [choice] + self._path[depth + 1:]
        self._show_part()

    def _show_comparison(self) -> None:
        if self.other is None:
            self.compare_text.setText(
                self.tr("Nothing to compare with: keep a reference run or compare with onnxruntime"))
            self.diff_histogram.set_data([], [])
            return
        from onnxstudio.core.exec.compare import compare_value
        d = compare_value(self.name, self._part, self.other)
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
        a, b = as_float(self.array), None if self._other_array is None else as_float(self._other_array)
        if a is not None and b is not None and a.shape == b.shape:
            with np.errstate(all="ignore"):
                self.diff_histogram.set_array(np.abs(a.astype(np.float64) - b.astype(np.float64)))
        else:
            self.diff_histogram.set_data([], [])

    def export_dialog(self) -> None:
        if self.array is None:
            return
        shown = self.name + path_text(self._whole, self._path)
        safe = "".join(c if c.isalnum() or c in "._-" else "_" for c in shown).strip("._") or "value"
        path, _ = QFileDialog.getSaveFileName(self, self.tr("Export tensor"), f"{safe}.npy",
                                              self.tr("NumPy array (*.npy)"))
        if path:
            self.export(path)

    def export(self, path) -> bool:
        """Save the part shown as .npy; a map of scalars as a structured
        array of (key, value) records, so no key is lost."""
        array = self.array
        if self._keys is not None:
            keys = np.asarray(self._keys)
            array = np.empty(len(keys), dtype=[("key", keys.dtype), ("value", self.array.dtype)])
            array["key"], array["value"] = keys, self.array
        try:
            np.save(path, array, allow_pickle=array.dtype.hasobject)
        except (OSError, ValueError) as e:
            self.stats.setText(_red(self.tr("Could not write {path}: {error}").format(path=path, error=e)))
            return False
        self.stats.setText(_lines(self.stats.text(), self.tr("Exported to {path}").format(path=path)))
        return True


HINT = QT_TRANSLATE_NOOP("TensorInspector", "Select an edge after a run (or an initializer) to inspect its value")


def _element_type(array: np.ndarray) -> str:
    """The element type of a map's keys or values, as describe() names it."""
    text = describe(array)
    return text[:text.index("[")] if "[" in text else text


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
