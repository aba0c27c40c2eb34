"""The Profile dock: where the last profiled run spent its time. The
slowest nodes and the op types with their share of the total (and, when
asked, the change since the profile before); a click on a node goes to
it, on an op type to its slowest node. Heat on the canvas is a toggle."""
from __future__ import annotations

from typing import Optional

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (QAbstractItemView, QCheckBox, QHBoxLayout, QHeaderView, QLabel, QSplitter,
                               QTableWidget, QTableWidgetItem, QVBoxLayout, QWidget)

from .heat import heat_colour, heat_fraction, time_text

TOP_NODES = 100
MIN_ROWS = 5          # each table keeps room for this many rows in a crowded bottom dock


class ProfileView(QWidget):
    jump = Signal(object)             # an ir Node to show
    heat_toggled = Signal(bool)
    compare_toggled = Signal(bool)

    def __init__(self, parent=None):
        super().__init__(parent)
        self.profile = None
        self.diff = None
        self.stale = False            # the model was edited since the profile was made
        self.summary = QLabel(self.tr("Profile a run (Run ▸ Profile Run) to see where its time goes"))
        self.summary.setWordWrap(True)
        self.summary.setTextInteractionFlags(Qt.TextSelectableByMouse)
        self.heat_box = QCheckBox(self.tr("Heat on the canvas"))
        self.heat_box.setChecked(True)
        self.heat_box.toggled.connect(self.heat_toggled)
        self.compare_box = QCheckBox(self.tr("Compare with the previous profile"))
        self.compare_box.setEnabled(False)
        self.compare_box.toggled.connect(self.compare_toggled)
        self.nodes = self._table([self.tr("Share"), self.tr("Time"), self.tr("Change"), self.tr("Op type"),
                                  self.tr("Node")])
        self.ops = self._table([self.tr("Share"), self.tr("Time"), self.tr("Change"), self.tr("Nodes"),
                                self.tr("Op type")])
        self.nodes.cellClicked.connect(lambda row, _col: self._jump(self.nodes, row))
        self.ops.cellClicked.connect(lambda row, _col: self._jump(self.ops, row))
        split = QSplitter(Qt.Horizontal)
        for title, table in ((self.tr("Slowest nodes"), self.nodes), (self.tr("Op types"), self.ops)):
            box = QWidget()
            col = QVBoxLayout(box)
            col.setContentsMargins(0, 0, 0, 0)
            col.addWidget(QLabel(title))
            col.addWidget(table)
            split.addWidget(box)
        split.setStretchFactor(0, 3)
        split.setStretchFactor(1, 2)
        row = QHBoxLayout()
        row.addWidget(self.heat_box)
        row.addWidget(self.compare_box)
        row.addStretch(1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(2, 2, 2, 2)
        layout.addWidget(self.summary)
        layout.addLayout(row)
        layout.addWidget(split, 1)

    def _table(self, headers: list) -> QTableWidget:
        table = QTableWidget(0, len(headers))
        table.setHorizontalHeaderLabels(headers)
        table.setEditTriggers(QAbstractItemView.NoEditTriggers)
        table.setSelectionBehavior(QAbstractItemView.SelectRows)
        table.verticalHeader().setVisible(False)
        table.horizontalHeader().setStretchLastSection(True)
        table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeToContents)
        table.setColumnHidden(2, True)
        # One line a row, long names elided in the middle (their tooltip has them whole).
        table.setWordWrap(False)
        table.setTextElideMode(Qt.ElideMiddle)
        table.setMinimumHeight(table.horizontalHeader().sizeHint().height()
                               + MIN_ROWS * table.verticalHeader().defaultSectionSize())
        return table

    def set_profile(self, profile, diff=None, has_previous: bool = False) -> None:
        """Show `profile`; with `diff` (core.exec.profile_compare.ProfileDiff) its changes too."""
        self.profile, self.diff = profile, diff
        self.compare_box.setEnabled(has_previous)
        for table in (self.nodes, self.ops):
            table.setRowCount(0)
            table.setColumnHidden(2, diff is None)
        if profile is None:
            return
        who = "onnxruntime" if profile.source == "onnxruntime" else self.tr("the built-in executor")
        text = self.tr("{runs} runs with {who}: {wall} a run, {nodes} in nodes").format(
            runs=profile.runs, who=who, wall=time_text(profile.wall), nodes=time_text(profile.total))
        if profile.unmapped:
            text += " — " + self.tr("{share} of the time not tied to a node").format(
                share=f"{profile.share(profile.unmapped_seconds):.1%}")
        if diff is not None:
            text += " — " + self.tr("the previous profile: {wall} a run ({delta})").format(
                wall=time_text(diff.before.wall), delta=_signed(diff.wall_delta))
        if self.stale:
            text += " — " + self.tr("made before your last edit: profile again to see its effect")
        self.summary.setText(text)
        self.summary.setToolTip("\n".join(profile.notes))
        changes = {d.name: d.delta for d in diff.nodes} if diff is not None else {}
        op_changes = {d.op_type: d.delta for d in diff.op_types} if diff is not None else {}
        top = profile.top_nodes(TOP_NODES)
        hottest = top[0].seconds if top else 0.0
        for n in top:
            merged = self.tr(" (with {n} merged)").format(n=len(n.merged)) if n.merged else ""
            self._row(self.nodes, n.node, n.seconds, hottest,
                      [n.op_type, n.name + merged], changes.get(n.name), tip="\n".join(n.merged))
        ops = profile.by_op()
        for t in ops:
            slowest = next((n.node for n in top if n.op_type == t.op_type), None)
            self._row(self.ops, slowest, t.seconds, ops[0].seconds, [str(t.count), t.op_type],
                      op_changes.get(t.op_type))

    def _row(self, table: QTableWidget, node, seconds: float, hottest: float, rest: list,
             change: Optional[float], tip: str = "") -> None:
        r = table.rowCount()
        table.insertRow(r)
        share = QTableWidgetItem(f"{self.profile.share(seconds):.1%}")
        share.setBackground(heat_colour(heat_fraction(seconds, hottest)))
        share.setData(Qt.UserRole, node)
        cells = [share, QTableWidgetItem(time_text(seconds)),
                 QTableWidgetItem(_signed(change) if change is not None else "")]
        cells += [QTableWidgetItem(text) for text in rest]
        for c, item in enumerate(cells):
            if c < 3:
                item.setTextAlignment(Qt.AlignRight | Qt.AlignVCenter)
            # Names may be elided: the tooltip has each text whole, then what was measured with it.
            whole = item.text() if c >= 3 else ""
            if whole or tip:
                item.setToolTip("\n".join(t for t in (whole, tip) if t))
            table.setItem(r, c, item)

    def _jump(self, table: QTableWidget, row: int) -> None:
        item = table.item(row, 0)
        node = item.data(Qt.UserRole) if item is not None else None
        if node is not None:
            self.jump.emit(node)


def _signed(seconds: float) -> str:
    sign = "+" if seconds > 0 else "−" if seconds < 0 else "±"
    return sign + time_text(abs(seconds))
