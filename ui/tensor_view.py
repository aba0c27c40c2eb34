"""Reusable widgets that show one tensor: a slicing table for N-d arrays, a
histogram painted with QPainter, an image view and a statistics line.

They take plain numpy arrays of any dtype (ml_dtypes' bfloat16/float8/int4,
bool, complex, strings, objects) and never copy the tensor: the table reads
only the cells on screen, through a view fixed by the chosen axes.

    table = TensorTable()                 # read only
    table.set_array(a)                    # two axes shown, spin boxes for the rest
    TensorTable(editable=True).edited     # (full index, new value): the editor hook

The statistics themselves are computed in core (core/exec/tensor_stats.py)
so the CLI and the debug run share them.
"""
from __future__ import annotations

from typing import Optional

import numpy as np
from PySide6.QtCore import QAbstractTableModel, QCoreApplication, QModelIndex, QPointF, QRectF, Qt, Signal
from PySide6.QtGui import QColor, QFontMetrics, QImage, QPainter, QPalette, QPen, QPixmap
from PySide6.QtWidgets import (QComboBox, QHBoxLayout, QLabel, QSizePolicy, QSpinBox, QTableView,
                               QToolTip, QVBoxLayout, QWidget)

from onnxstudio.core.exec.tensor_stats import TensorStats, as_float, histogram, tensor_stats
from onnxstudio.core.ir.dtypes import INTEGER_TYPES, from_numpy_dtype

MAX_TEXT = 200        # characters of one string/object cell shown


def format_element(x) -> str:
    """One element as the table shows it (6 significant digits for floats)."""
    if isinstance(x, (bool, np.bool_)):
        return "true" if x else "false"
    if isinstance(x, (float, np.floating)):
        return f"{float(x):.6g}"
    if isinstance(x, (complex, np.complexfloating)):
        return f"{complex(x):.6g}"
    if isinstance(x, (int, np.integer)):
        return str(int(x))
    if isinstance(x, bytes):
        text = x.decode("utf-8", "replace")
    elif isinstance(x, str):
        text = x
    elif type(x).__module__ == "ml_dtypes" or getattr(getattr(x, "dtype", None), "kind", "") == "V":
        value = float(x)
        return str(int(value)) if value.is_integer() and _is_integer_type(x.dtype) else f"{value:.6g}"
    else:
        text = repr(x)
    return text if len(text) <= MAX_TEXT else text[:MAX_TEXT] + "…"


def _is_integer_type(dtype) -> bool:
    """Whether an ml_dtypes scalar's type is one of ONNX's integers (int4,
    uint2 ...): numpy files them all as kind "V"."""
    try:
        return from_numpy_dtype(dtype) in INTEGER_TYPES
    except ValueError:
        return False


def parse_element(text: str, dtype: np.dtype):
    """The user's text as an element of `dtype`; ValueError with a message when it is not one."""
    text = text.strip()
    if dtype.kind == "b":
        low = text.lower()
        if low in ("1", "true", "yes"):
            return True
        if low in ("0", "false", "no"):
            return False
        raise ValueError(QCoreApplication.translate("TensorView", "{text} is not a boolean (true/false)")
                         .format(text=repr(text)))
    if dtype.kind in "OUS":
        return text
    try:
        if dtype.kind in "iu":
            value = int(text, 0)
            info = np.iinfo(dtype)
            if not info.min <= value <= info.max:
                raise _OutOfRange(QCoreApplication.translate("TensorView",
                                                             "{value} does not fit {dtype} ({low}..{high})")
                                  .format(value=value, dtype=dtype.name, low=info.min, high=info.max))
            return dtype.type(value)
        if dtype.kind == "c":
            return dtype.type(complex(text.replace(" ", "")))
        return np.asarray(float(text)).astype(dtype)[()]
    except (TypeError, OverflowError) as e:
        raise ValueError(QCoreApplication.translate("TensorView", "{text} is not a {dtype}: {error}")
                         .format(text=repr(text), dtype=dtype.name, error=e)) from None
    except ValueError as e:
        if isinstance(e, _OutOfRange):
            raise
        raise ValueError(QCoreApplication.translate("TensorView", "{text} is not a {dtype}")
                         .format(text=repr(text), dtype=dtype.name)) from None


class _OutOfRange(ValueError):
    """A whole number too big for the element type (its own message, kept)."""


class TensorTableModel(QAbstractTableModel):
    """A 2-D window on an N-d array: `row_axis` down, `col_axis` across, every
    other axis fixed at `fixed[axis]`. A 0-d array is one cell, a 1-d one a
    column."""
    edited = Signal(tuple, object)      # full index, new element (editable mode only)
    refused = Signal(str)               # text that could not be parsed

    def __init__(self, parent=None, editable: bool = False):
        super().__init__(parent)
        self.editable = editable
        self.array = np.zeros((0, 0))
        self.row_axis: Optional[int] = 0
        self.col_axis: Optional[int] = 1
        self.fixed: list[int] = []
        self.row_labels: Optional[list[str]] = None     # names of the rows of a 1-D array (a map's keys)

    def set_array(self, array, row_labels: Optional[list[str]] = None) -> None:
        self.beginResetModel()
        self.array = np.asarray(array)
        self.row_labels = row_labels if self.array.ndim == 1 else None
        nd = self.array.ndim
        # The last two axes, as numpy prints an array: an NCHW image shows
        # H x W, a [batch, seq, hidden] activation seq x hidden (axes 0 x 1
        # showed one row of channels).
        self.row_axis = max(nd - 2, 0) if nd >= 1 else None
        self.col_axis = nd - 1 if nd >= 2 else None
        self.fixed = [0] * nd
        self.endResetModel()

    def set_axes(self, row_axis: Optional[int], col_axis: Optional[int]) -> None:
        if row_axis is not None and row_axis == col_axis:
            raise ValueError(self.tr("rows and columns need two different axes"))
        self.beginResetModel()
        self.row_axis, self.col_axis = row_axis, col_axis
        self.endResetModel()

    def set_fixed(self, axis: int, index: int) -> None:
        self.fixed[axis] = index
        if self.rowCount() and self.columnCount():
            self.dataChanged.emit(self.index(0, 0),
                                  self.index(self.rowCount() - 1, self.columnCount() - 1))

    def full_index(self, row: int, col: int) -> tuple:
        idx = list(self.fixed)
        if self.row_axis is not None:
            idx[self.row_axis] = row
        if self.col_axis is not None:
            idx[self.col_axis] = col
        return tuple(idx)

    def rowCount(self, parent=QModelIndex()) -> int:
        if parent.isValid():
            return 0
        return 1 if self.row_axis is None else self.array.shape[self.row_axis]

    def columnCount(self, parent=QModelIndex()) -> int:
        if parent.isValid():
            return 0
        return 1 if self.col_axis is None else self.array.shape[self.col_axis]

    def data(self, index, role=Qt.DisplayRole):
        if not index.isValid() or role not in (Qt.DisplayRole, Qt.EditRole, Qt.ToolTipRole,
                                               Qt.TextAlignmentRole):
            return None
        if role == Qt.TextAlignmentRole:
            return int(Qt.AlignRight | Qt.AlignVCenter) if self.array.dtype.kind not in "OUS" else None
        x = self.array[self.full_index(index.row(), index.column())]
        if role == Qt.ToolTipRole:
            if self.row_labels is not None:
                return f"{self.row_labels[index.row()]}: {format_element(x)}"
            return f"[{', '.join(map(str, self.full_index(index.row(), index.column())))}] = " \
                   f"{format_element(x)}"
        return format_element(x)

    def headerData(self, section, orientation, role=Qt.DisplayRole):
        if role != Qt.DisplayRole:
            return None
        if self.row_labels is not None:     # a map of scalars: its keys down, its values across
            if orientation == Qt.Horizontal:
                return self.tr("value")
            if section < len(self.row_labels):
                return self.row_labels[section]
        return str(section)

    def flags(self, index):
        base = super().flags(index)
        return base | Qt.ItemIsEditable if self.editable else base

    def setData(self, index, value, role=Qt.EditRole) -> bool:
        if not self.editable or role != Qt.EditRole or not index.isValid():
            return False
        try:
            element = parse_element(str(value), self.array.dtype)
        except ValueError as e:
            self.refused.emit(str(e))
            return False
        full = self.full_index(index.row(), index.column())
        if not self.array.flags.writeable:
            self.array = self.array.copy()      # weights are read-only views of the file
        self.array[full] = element
        self.dataChanged.emit(index, index)
        self.edited.emit(full, element)
        return True


class TensorTable(QWidget):
    """The slicing table with its controls: two combo boxes choose the axes
    shown as rows and columns, a spin box fixes each other axis."""
    edited = Signal(tuple, object)

    def __init__(self, parent=None, editable: bool = False):
        super().__init__(parent)
        self.model = TensorTableModel(self, editable)
        self.model.edited.connect(self.edited)
        self.view = QTableView()
        self.view.setModel(self.model)
        self.view.horizontalHeader().setDefaultSectionSize(78)
        self.view.verticalHeader().setDefaultSectionSize(20)
        self.rows_box = QComboBox()
        self.cols_box = QComboBox()
        self.spins: dict[int, QSpinBox] = {}
        self.controls = QHBoxLayout()
        self.controls.setContentsMargins(0, 0, 0, 0)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(self.controls)
        layout.addWidget(self.view, 1)
        self.rows_box.activated.connect(self._axes_chosen)
        self.cols_box.activated.connect(self._axes_chosen)

    @property
    def array(self) -> np.ndarray:
        return self.model.array

    def set_array(self, array, row_labels: Optional[list[str]] = None) -> None:
        """Show `array`; a 1-D one may name its rows (`row_labels`, one per element)."""
        self.model.set_array(array, row_labels)
        nd = self.model.array.ndim
        for box in (self.rows_box, self.cols_box):
            box.clear()
            for axis in range(nd):
                box.addItem(self.tr("axis {axis} ({size})").format(axis=axis, size=self.model.array.shape[axis]), axis)
        if self.model.row_axis is not None:
            self.rows_box.setCurrentIndex(self.model.row_axis)
        if self.model.col_axis is not None:
            self.cols_box.setCurrentIndex(self.model.col_axis)
        self._rebuild_controls()

    def set_axes(self, row_axis: int, col_axis: int) -> None:
        self.rows_box.setCurrentIndex(row_axis)
        self.cols_box.setCurrentIndex(col_axis)
        self._axes_chosen()

    def set_fixed(self, axis: int, index: int) -> None:
        self.spins[axis].setValue(index)

    def _axes_chosen(self, *_):
        rows, cols = self.rows_box.currentData(), self.cols_box.currentData()
        if rows == cols:         # swapping: the other box takes the axis left free
            free = [a for a in range(self.model.array.ndim)
                    if a != rows and a not in (self.model.row_axis, self.model.col_axis)]
            old = self.model.col_axis if self.sender() is self.rows_box else self.model.row_axis
            other = old if old is not None and old != rows else (free[0] if free else None)
            box = self.cols_box if self.sender() is self.rows_box else self.rows_box
            if other is None:
                return
            box.setCurrentIndex(other)
            rows, cols = self.rows_box.currentData(), self.cols_box.currentData()
        self.model.set_axes(rows, cols)
        self._rebuild_controls()

    def _rebuild_controls(self) -> None:
        while self.controls.count():
            item = self.controls.takeAt(0)
            if item.widget() is not None and item.widget() not in (self.rows_box, self.cols_box):
                item.widget().deleteLater()
        self.spins = {}
        nd = self.model.array.ndim
        self.rows_box.setVisible(nd >= 2)
        self.cols_box.setVisible(nd >= 2)
        if nd >= 2:
            self.controls.addWidget(QLabel(self.tr("rows")))
            self.controls.addWidget(self.rows_box)
            self.controls.addWidget(QLabel(self.tr("columns")))
            self.controls.addWidget(self.cols_box)
        for axis in range(nd):
            if axis in (self.model.row_axis, self.model.col_axis):
                continue
            spin = QSpinBox()
            spin.setRange(0, max(self.model.array.shape[axis] - 1, 0))
            spin.setPrefix(self.tr("axis {axis} = ").format(axis=axis))
            spin.setValue(self.model.fixed[axis])
            spin.setEnabled(self.model.array.shape[axis] > 0)
            spin.valueChanged.connect(lambda v, a=axis: self.model.set_fixed(a, v))
            self.controls.addWidget(spin)
            self.spins[axis] = spin
        self.controls.addStretch(1)


class HistogramWidget(QWidget):
    """Bars of a histogram of the finite elements, painted with QPainter;
    hovering a bar names its range and count."""

    def __init__(self, parent=None, bins: int = 64):
        super().__init__(parent)
        self.bins = bins
        self.counts = np.zeros(0, np.int64)
        self.edges = np.zeros(0)
        self.log_scale = False
        self.empty_text = ""           # said only when an array had no finite element to count
        self.setMinimumSize(200, 110)
        self.setSizePolicy(QSizePolicy.Expanding, QSizePolicy.Preferred)
        self.setMouseTracking(True)

    def set_array(self, array) -> None:
        self.set_data(*histogram(array, self.bins), empty_text=self.tr("no finite values to count"))

    def set_data(self, counts, edges, empty_text: str = "") -> None:
        """Empty counts draw an empty box (nothing shown yet) unless `empty_text` says why."""
        self.empty_text = empty_text
        self.counts = np.asarray(counts)
        self.edges = np.asarray(edges)
        self.update()

    def _plot_rect(self) -> QRectF:
        fm = QFontMetrics(self.font())
        return QRectF(6, 4, max(self.width() - 12, 1), max(self.height() - fm.height() - 10, 1))

    def bar_at(self, x: float) -> Optional[int]:
        if self.counts.size == 0:
            return None
        r = self._plot_rect()
        i = int((x - r.left()) / r.width() * self.counts.size)
        return i if 0 <= i < self.counts.size else None

    def paintEvent(self, event) -> None:
        p = QPainter(self)
        pal = self.palette()
        p.fillRect(self.rect(), pal.color(QPalette.Base))
        r = self._plot_rect()
        text = pal.color(QPalette.Text)
        if self.counts.size == 0:
            p.setPen(text)
            p.drawText(self.rect(), Qt.AlignCenter, self.empty_text)
            return
        heights = np.log1p(self.counts) if self.log_scale else self.counts.astype(np.float64)
        top = float(heights.max()) or 1.0
        w = r.width() / self.counts.size
        bar = pal.color(QPalette.Highlight)
        p.setPen(Qt.NoPen)
        p.setBrush(bar)
        for i, h in enumerate(heights):
            if h <= 0:
                continue
            bh = max(1.0, h / top * r.height())
            p.drawRect(QRectF(r.left() + i * w, r.bottom() - bh, max(w - (1 if w > 3 else 0), 0.8), bh))
        p.setPen(QPen(text, 1))
        p.drawLine(QPointF(r.left(), r.bottom()), QPointF(r.right(), r.bottom()))
        fm = QFontMetrics(self.font())
        y = r.bottom() + 4 + fm.ascent()
        lo, hi = format_element(float(self.edges[0])), format_element(float(self.edges[-1]))
        p.drawText(QPointF(r.left(), y), lo)
        p.drawText(QPointF(r.right() - fm.horizontalAdvance(hi), y), hi)
        peak = (self.tr("peak {n} (log)") if self.log_scale else self.tr("peak {n}")).format(n=int(self.counts.max()))
        p.drawText(QPointF(r.center().x() - fm.horizontalAdvance(peak) / 2, y), peak)

    def mouseMoveEvent(self, event) -> None:
        i = self.bar_at(event.position().x())
        if i is None:
            QToolTip.hideText()
            return
        QToolTip.showText(event.globalPosition().toPoint(),
                          f"[{float(self.edges[i]):.6g}, {float(self.edges[i + 1]):.6g}): "
                          f"{int(self.counts[i])}", self)

    def mouseDoubleClickEvent(self, event) -> None:
        self.log_scale = not self.log_scale
        self.update()


# -- images ------------------------------------------------------------------------------------

LAYOUTS = ("NCHW", "NHWC", "CHW", "HWC", "HW")


def guess_layout(shape: tuple) -> Optional[str]:
    """The image layout a tensor of `shape` most likely has, or None when it
    does not look like an image (channels 1, 3 or 4 and both sides > 1)."""
    def sides_ok(h, w):
        return h > 1 and w > 1
    if len(shape) == 4:
        n, a, b, c = shape
        if a in (1, 3, 4) and sides_ok(b, c):
            return "NCHW"
        if c in (1, 3, 4) and sides_ok(a, b):
            return "NHWC"
        return "NCHW" if sides_ok(b, c) else None
    if len(shape) == 3:
        a, b, c = shape
        if a in (1, 3, 4) and sides_ok(b, c):
            return "CHW"
        if c in (1, 3, 4) and sides_ok(a, b):
            return "HWC"
        return None
    if len(shape) == 2 and sides_ok(*shape):
        return "HW"
    return None


def image_planes(array, layout: str, batch: int = 0) -> np.ndarray:
    """The image as float64 [C, H, W] for one batch element."""
    a = as_float(np.asarray(array))
    if a is None:
        raise ValueError(QCoreApplication.translate("TensorView", "only numeric tensors can be shown as images"))
    if a.ndim != len(layout):
        raise ValueError(QCoreApplication.translate("TensorView", "a {layout} image has {n} axes; this tensor has {m}")
                         .format(layout=layout, n=len(layout), m=a.ndim))
    if "N" in layout:
        a = a[batch]
        layout = layout.replace("N", "")
    if layout == "HW":
        a = a[None]
    elif layout == "HWC":
        a = np.moveaxis(a, -1, 0)
    return np.asarray(a, dtype=np.float64)


def to_qimage(planes: np.ndarray, channel: Optional[int] = None) -> QImage:
    """Grey for one channel (`channel`, or the only one), RGB from the first
    three otherwise; each image is stretched from its own min..max."""
    if channel is not None or planes.shape[0] < 3:
        data = planes[channel or 0][None]
    else:
        data = planes[:3]
    with np.errstate(all="ignore"):
        finite = data[np.isfinite(data)]
        lo, hi = (float(finite.min()), float(finite.max())) if finite.size else (0.0, 1.0)
        scaled = np.nan_to_num((data - lo) / (hi - lo if hi > lo else 1.0) * 255.0, nan=0.0)
    pixels = np.clip(scaled, 0, 255).astype(np.uint8)
    h, w = pixels.shape[1:]
    if pixels.shape[0] == 1:
        buf = np.ascontiguousarray(pixels[0])
        image = QImage(buf.data, w, h, w, QImage.Format_Grayscale8)
    else:
        buf = np.ascontiguousarray(np.moveaxis(pixels, 0, -1))
        image = QImage(buf.data, w, h, 3 * w, QImage.Format_RGB888)
    return image.copy()         # own the pixels: `buf` dies with this call


class ImageView(QWidget):
    """An image-shaped tensor as a picture: layout, batch element, and either
    RGB (the first three channels) or one channel in grey."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self.array: Optional[np.ndarray] = None
        self.layout_box = QComboBox()
        self.layout_box.addItems(LAYOUTS)
        self.batch = QSpinBox()
        self.batch.setPrefix(self.tr("batch "))
        self.channel_box = QComboBox()
        self.picture = QLabel()
        self.picture.setAlignment(Qt.AlignCenter)
        self.picture.setMinimumSize(64, 64)
        self.picture.setSizePolicy(QSizePolicy.Ignored, QSizePolicy.Ignored)
        self.message = QLabel()
        row = QHBoxLayout()
        for w in (QLabel(self.tr("layout")), self.layout_box, self.batch, self.channel_box):
            row.addWidget(w)
        row.addStretch(1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(row)
        layout.addWidget(self.message)
        layout.addWidget(self.picture, 1)
        self.layout_box.activated.connect(lambda *_: self._layout_changed())
        self.batch.valueChanged.connect(lambda *_: self.refresh())
        self.channel_box.activated.connect(lambda *_: self.refresh())
        self.image: Optional[QImage] = None

    def set_array(self, array, layout: Optional[str] = None) -> bool:
        """Show `array`; False when it does not look like an image (nothing shown)."""
        self.array = np.asarray(array)
        layout = layout or guess_layout(self.array.shape)
        if layout is None:
            self.image = None
            self.picture.clear()
            self.message.setText(self.tr("not image-shaped"))
            return False
        self.layout_box.setCurrentText(layout)
        self._layout_changed()
        return True

    def _layout_changed(self) -> None:
        layout = self.layout_box.currentText()
        if self.array is None or self.array.ndim != len(layout):
            self.message.setText(self.tr("{layout} needs {n} axes").format(layout=layout, n=len(layout)))
            return
        self.batch.setVisible("N" in layout)
        if "N" in layout:
            self.batch.setRange(0, max(self.array.shape[0] - 1, 0))
        channels = self.array.shape[layout.index("C")] if "C" in layout else 1
        self.channel_box.clear()
        if channels in (3, 4):
            # A picture's colours (alpha left out). Three of a feature map's
            # 32 channels shown as red, green and blue would look like a
            # picture and mean nothing: such a tensor is shown a channel at a time.
            self.channel_box.addItem("RGB", None)
        for c in range(channels):
            self.channel_box.addItem(self.tr("channel {c} (grey)").format(c=c), c)
        self.refresh()

    def refresh(self) -> None:
        layout = self.layout_box.currentText()
        if self.array is None or self.array.ndim != len(layout) or self.array.size == 0:
            return
        try:
            planes = image_planes(self.array, layout, self.batch.value())
        except ValueError as e:
            self.message.setText(str(e))
            return
        self.image = to_qimage(planes, self.channel_box.currentData())
        self.message.setText(self.tr("{w}×{h}, stretched min..max").format(w=self.image.width(), h=self.image.height()))
        self._show()

    def _show(self) -> None:
        if self.image is None:
            return
        pix = QPixmap.fromImage(self.image)
        size = self.picture.size()
        # Small images are enlarged without smoothing so pixels stay visible.
        mode = Qt.FastTransformation if pix.width() < size.width() else Qt.SmoothTransformation
        self.picture.setPixmap(pix.scaled(size, Qt.KeepAspectRatio, mode))

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        self._show()


def stats_text(stats: TensorStats) -> str:
    """Statistics as the inspector's rich-text block."""
    translate = QCoreApplication.translate     # lupdate reads translate("Context", "text")
    if not stats.numeric:
        return (translate("TensorView", "{n} element (not a number)") if stats.count == 1
                else translate("TensorView", "{n} elements (not numbers)")).format(n=stats.count)
    if stats.count == 0:
        return translate("TensorView", "empty")
    rows = [(translate("TensorView", "min"), stats.min), (translate("TensorView", "max"), stats.max),
            (translate("TensorView", "mean"), stats.mean), (translate("TensorView", "std"), stats.std)]
    parts = [f"<b>{k}</b> {format_element(v) if v is not None else '—'}" for k, v in rows]
    bad = [f"{n} {what}" for n, what in ((stats.nan, "NaN"), (stats.posinf, "+Inf"),
                                          (stats.neginf, "−Inf")) if n]
    colour = QColor("#d04040").name()
    tail = (f" &nbsp; <span style='color:{colour}'><b>{', '.join(bad)}</b></span>" if bad
            else " &nbsp; " + translate("TensorView", "no NaN/Inf"))
    count = (translate("TensorView", "({n} element)") if stats.count == 1
             else translate("TensorView", "({n} elements)")).format(n=stats.count)
    return " &nbsp; ".join(parts) + " &nbsp; " + count + tail


__all__ = ["TensorTable", "TensorTableModel", "HistogramWidget", "ImageView", "format_element",
           "parse_element", "guess_layout", "image_planes", "to_qimage", "stats_text", "tensor_stats"]
