"""The comparison dock: compare with onnxruntime or with a kept run of our
own, a legend of the error colours used on the canvas, the nodes listed by
error (largest first; sortable by total or own error) and a jump to the
first node where the runs part. The canvas colours either each node's
total error or its own error (the node run alone on the reference's
values of its inputs: large only where the error is made); "Extract
failing subgraph…" writes the smallest part that still disagrees.
Its options set the tolerances (for every value, and per value), and
onnxruntime's execution provider and graph optimisation level."""
from __future__ import annotations

import math

from PySide6.QtCore import QRectF, Qt, Signal
from PySide6.QtGui import QLinearGradient, QPainter
from PySide6.QtWidgets import (QComboBox, QFormLayout, QGroupBox, QHBoxLayout, QHeaderView, QLabel, QLineEdit,
                               QPushButton, QSizePolicy, QTableWidget, QTableWidgetItem, QVBoxLayout, QWidget)

from .compare_work import shown_error, unmeasured_note
from .overlay import error_colour


class ErrorLegend(QWidget):
    """The colour scale: green for agreeing nodes, then yellow..red for
    relative errors from 1e-6 to 1 and above."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self.setMinimumHeight(34)
        self.setSizePolicy(QSizePolicy.Expanding, QSizePolicy.Fixed)

    def paintEvent(self, event) -> None:
        p = QPainter(self)
        w = self.width()
        swatch = QRectF(0, 2, 60, 14)
        p.fillRect(swatch, error_colour(0, True))
        p.setPen(self.palette().text().color())
        p.drawText(QRectF(0, 18, 70, 14), Qt.AlignLeft, self.tr("agrees"))
        bar = QRectF(80, 2, max(w - 90, 40), 14)
        grad = QLinearGradient(bar.topLeft(), bar.topRight())
        for i in range(11):
            t = i / 10
            grad.setColorAt(t, error_colour(10 ** (-6 + 6 * t), False))
        p.fillRect(bar, grad)
        for t, text in ((0, "1e-6"), (0.5, "1e-3"), (1, self.tr("≥1  rel. error"))):
            x = bar.left() + t * bar.width()
            align = Qt.AlignLeft if t == 0 else Qt.AlignRight if t == 1 else Qt.AlignHCenter
            rect = QRectF(x - (bar.width() if t == 1 else 40 if t == 0.5 else 0), 18,
                          bar.width() if t == 1 else 80, 14)
            p.drawText(rect, align, text)


# The comparison's defaults (core.exec.compare's, not imported: that would load
# the executor with the window) and onnxruntime's optimisation levels.
DEFAULT_RTOL, DEFAULT_ATOL = "1e-3", "1e-4"
DEFAULT_PROVIDER = "CPUExecutionProvider"
OPT_LEVELS = ("disable", "basic", "extended", "all")


class CompareOptions(QGroupBox):
    """Tolerances, per-value tolerances, onnxruntime's provider and level.
    The providers are read from onnxruntime when the options are first
    shown: importing it when the window opens would cost every start."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self.setTitle(self.tr("Comparison options"))
        self.rtol = QLineEdit(DEFAULT_RTOL)
        self.atol = QLineEdit(DEFAULT_ATOL)
        self.rtol.setToolTip(self.tr("relative tolerance: an element agrees when |ours − theirs| ≤ atol × "
                                     "max(1, the value's largest |value|) + rtol × |theirs|"))
        self.atol.setToolTip(self.rtol.toolTip())
        self.per_value = QLineEdit()
        self.per_value.setPlaceholderText(self.tr("name=rtol,atol; … (e.g. logits=1e-2,1e-3)"))
        self.per_value.setToolTip(self.tr("tolerances of single values (outputs or intermediates), "
                                          "separated by ';'"))
        self.provider = QComboBox()
        self.provider.addItem(DEFAULT_PROVIDER)
        self.level = QComboBox()
        for level in OPT_LEVELS:
            self.level.addItem(level)
        self.level.setToolTip(self.tr("onnxruntime's graph optimisations; with any but 'disable' some "
                                      "intermediates are fused away and cannot be compared"))
        self._providers_read = False
        form = QFormLayout(self)
        row = QHBoxLayout()
        for symbol, box in (("rtol", self.rtol), ("atol", self.atol)):
            row.addWidget(QLabel(symbol))      # the formula's symbols, as in the tooltip: never translated
            row.addWidget(box)
        form.addRow(self.tr("tolerances"), row)
        form.addRow(self.tr("per value"), self.per_value)
        form.addRow(self.tr("execution provider"), self.provider)
        form.addRow(self.tr("optimisation level"), self.level)

    def showEvent(self, event) -> None:
        super().showEvent(event)
        self.read_providers()

    def read_providers(self) -> None:
        """Offer the providers of the installed onnxruntime (once)."""
        if self._providers_read:
            return
        self._providers_read = True
        from onnxstudio.core.exec.compare import CompareError, available_providers
        try:
            providers = available_providers()
        except CompareError as e:
            self.provider.setToolTip(str(e))
            return
        current = self.provider.currentText()
        self.provider.clear()
        self.provider.addItems(providers)
        self.provider.setCurrentText(current if current in providers else DEFAULT_PROVIDER)

    def options(self) -> dict:
        """compare_against_onnxruntime's keyword arguments; ValueError with a
        sentence naming the field when one is not a tolerance."""
        out = {"rtol": self._number(self.rtol.text(), "rtol"),
               "atol": self._number(self.atol.text(), "atol"), "tolerances": {},
               "provider": self.provider.currentText() or DEFAULT_PROVIDER, "opt_level": self.level.currentText()}
        for item in self.per_value.text().split(";"):
            if not item.strip():
                continue
            name, sep, pair = item.strip().rpartition("=")
            parts = pair.split(",")
            if not sep or not name.strip() or len(parts) != 2:
                raise ValueError(self.tr("per value: {item} is not name=rtol,atol").format(item=repr(item.strip())))
            out["tolerances"][name.strip()] = (self._number(parts[0], name.strip()),
                                               self._number(parts[1], name.strip()))
        return out

    def _number(self, text: str, what: str) -> float:
        try:
            value = float(text)
        except ValueError:
            value = -1.0
        if not 0 <= value < float("inf"):
            raise ValueError(self.tr("{what}: {text} is not a tolerance (a number, 0 or more, such as 1e-3)")
                             .format(what=what, text=repr(text.strip())))
        return value


class _SortItem(QTableWidgetItem):
    """A table cell shown as text, sorted by a number (or by its text)."""

    def __init__(self, text: str, key=None):
        super().__init__(text)
        self.key = key if key is not None else text

    def __lt__(self, other) -> bool:
        mine = self.key
        theirs = other.key if isinstance(other, _SortItem) else other.text()     # (text() only when needed)
        if isinstance(mine, str) != isinstance(theirs, str):
            return isinstance(mine, str)            # a number sorts after '-' (not measured)
        return mine < theirs


MIN_ROWS = 5                   # the table keeps room for this many rows in a crowded bottom dock
ROW = Qt.UserRole + 1          # a row's index into CompareView.rows, kept by its first cell when sorting


class CompareView(QWidget):
    jump = Signal(object)                  # ir Node to show
    compare_onnxruntime = Signal()
    keep_reference = Signal()
    compare_reference = Signal()
    colour_by_changed = Signal(str)        # "total" or "own": which error the canvas colours
    extract_failing = Signal()             # Extract failing subgraph… was asked for
    show_on_canvas = Signal()              # the colours were asked back onto the canvas (in place of the heat)

    def __init__(self, parent=None):
        super().__init__(parent)
        self.report = None
        self.kind = ""
        self.stale = False                 # the model was edited since this comparison (mark_stale)
        self.other_inputs = False          # the Run dock's inputs changed since (mark_inputs_changed)
        self.ort_button = QPushButton(self.tr("Compare with onnxruntime"))
        self.keep_button = QPushButton(self.tr("Keep run as reference"))
        self.reference_button = QPushButton(self.tr("Compare with reference"))
        self.first_button = QPushButton(self.tr("Go to first divergence"))
        self.first_button.setEnabled(False)
        self.extract_button = QPushButton(self.tr("Extract failing subgraph…"))
        self.extract_button.setEnabled(False)
        self.extract_button.setToolTip(self.tr("Write the smallest part of the model that still disagrees with "
                                               "onnxruntime, from the node with the largest own error, with its "
                                               "inputs as .npz beside it (for a bug report)"))
        self.colour_by = QComboBox()
        self.colour_by.addItem(self.tr("Colour by total error"), "total")
        self.colour_by.addItem(self.tr("Colour by own error"), "own")
        self.colour_by.setToolTip(self.tr("Total: each node's outputs against the reference, so every node after "
                                          "a broken one is coloured. Own: each node run alone on the reference's "
                                          "values of its inputs, so only the node that makes the error is"))
        self.colour_by.currentIndexChanged.connect(lambda _i: self._colour_by_changed())
        self.options_button = QPushButton(self.tr("Options"))
        self.options_button.setCheckable(True)
        self.options = CompareOptions()
        self.options.hide()
        self.options_button.toggled.connect(self.options.setVisible)
        buttons = QHBoxLayout()
        for b in (self.ort_button, self.keep_button, self.reference_button):
            buttons.addWidget(b)
        buttons.addStretch(1)
        buttons.addWidget(self.options_button)
        self.legend = ErrorLegend()
        self.summary = QLabel(self.tr("No comparison yet"))
        self.summary.setWordWrap(True)
        # The canvas colours its boxes one way at a time: said here while the profile's heat has them.
        self.canvas_note = QLabel(self.tr("The canvas shows the profile's heat: these colours are hidden there."))
        self.canvas_note.setWordWrap(True)
        self.show_button = QPushButton(self.tr("Show on the canvas"))
        self.show_button.setToolTip(self.tr("Colour the boxes by this comparison again, in place of the heat"))
        self.show_button.clicked.connect(self.show_on_canvas)
        self.on_canvas = True
        self.table = QTableWidget(0, 7)
        self.table.setHorizontalHeaderLabels([self.tr("Node"), self.tr("Op"), self.tr("Max abs"), self.tr("Rel"),
                                              self.tr("Own abs"), self.tr("Own rel"), ""])
        self.table.horizontalHeaderItem(5).setToolTip(self.tr("the node run alone on the reference's values of "
                                                              "its inputs, against the reference's outputs"))
        self.table.setSortingEnabled(True)
        self.table.verticalHeader().hide()
        self.table.setEditTriggers(QTableWidget.NoEditTriggers)
        self.table.setSelectionBehavior(QTableWidget.SelectRows)
        # One line a row, long names elided in the middle (the tooltip has them whole): wrapped
        # names left room for two rows in a bottom dock.
        self.table.setWordWrap(False)
        self.table.setTextElideMode(Qt.ElideMiddle)
        self.table.setMinimumHeight(self.table.horizontalHeader().sizeHint().height()
                                    + MIN_ROWS * self.table.verticalHeader().defaultSectionSize())
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(0, QHeaderView.Stretch)
        for c in range(1, 7):
            header.setSectionResizeMode(c, QHeaderView.ResizeToContents)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addLayout(buttons)
        layout.addWidget(self.options)
        layout.addWidget(self.legend)
        note = QHBoxLayout()
        note.addWidget(self.canvas_note, 1)
        note.addWidget(self.show_button)
        layout.addLayout(note)
        row = QHBoxLayout()
        row.addWidget(self.summary, 1)
        side = QVBoxLayout()
        for w in (self.first_button, self.extract_button, self.colour_by):
            side.addWidget(w)
        row.addLayout(side)
        layout.addLayout(row)
        layout.addWidget(self.table, 1)
        self.ort_button.clicked.connect(self.compare_onnxruntime)
        self.keep_button.clicked.connect(self.keep_reference)
        self.reference_button.clicked.connect(self.compare_reference)
        self.first_button.clicked.connect(self.go_to_first)
        self.extract_button.clicked.connect(self.extract_failing)
        self.table.cellDoubleClicked.connect(lambda row, _c: self._jump_row(row))
        self.table.cellClicked.connect(lambda row, _c: self._jump_row(row))
        self.rows: list = []
        self.set_on_canvas(True)

    def set_on_canvas(self, on: bool) -> None:
        """Whether the canvas shows this comparison's colours (False: the
        profile's heat has the boxes; the dock says so and offers them back)."""
        self.on_canvas = on
        hidden = not on and self.report is not None
        self.canvas_note.setVisible(hidden)
        self.show_button.setVisible(hidden)

    @property
    def colouring(self) -> str:
        """"total" or "own": which error the canvas colours and the table sorts by first."""
        return self.colour_by.currentData()

    def _colour_by_changed(self) -> None:
        if self.report is not None:
            self.set_report(self.report, self.kind)        # the status colours and the order follow
        self.colour_by_changed.emit(self.colouring)

    def mark_stale(self) -> None:
        """The model was edited since the comparison shown: its table stays,
        said to be of the model before the edit, and nothing is extracted
        from it (its values and nodes may be gone)."""
        if self.report is None or self.stale:
            return
        self.stale = True
        self.set_report(self.report, self.kind)

    def mark_inputs_changed(self) -> None:
        """The Run dock's inputs changed since the comparison shown: its table
        stays true of the inputs it was made with, and says so (the model is
        the same, so what it found can still be extracted)."""
        self.set_other_inputs(True)

    def set_other_inputs(self, other: bool) -> None:
        """Whether the values the run holds are of other inputs than this
        comparison's (False again once a run found its inputs)."""
        if self.report is None or self.other_inputs == other:
            return
        self.other_inputs = other
        self.set_report(self.report, self.kind)

    def set_report(self, report, kind: str = "onnxruntime") -> None:
        self.stale = self.stale and report is self.report      # a new comparison is of the model as it is
        self.other_inputs = self.other_inputs and report is self.report
        self.report, self.kind = report, kind
        self.extract_button.setEnabled(report is not None and kind == "onnxruntime" and not self.stale
                                       and (report.worst_own is not None or report.first_divergence is not None))
        if report is None:
            self.summary.setText(self.tr("No comparison yet"))
            self.table.setRowCount(0)
            self.first_button.setEnabled(False)
            self.set_on_canvas(self.on_canvas)
            return
        bad = sum(not n.agrees for n in report.nodes)
        first = report.first_divergence
        who = kind if kind == "onnxruntime" else self.tr("the reference run")
        n = len(report.nodes)
        text = (self.tr("Against <b>{who}</b>: {ok} of {n} node agrees.") if n == 1
                else self.tr("Against <b>{who}</b>: {ok} of {n} nodes agree.")).format(who=who, ok=n - bad, n=n)
        if first is not None and unmeasured_note(first):
            text += " " + self.tr("First divergence: <b>{node}</b> ({note}).").format(
                node=first.node.display_name, note=_escape(unmeasured_note(first)))
        elif first is not None:
            text += " " + self.tr("First divergence: <b>{node}</b> (rel. error {rel}).").format(
                node=first.node.display_name, rel=f"{first.rel:.3g}")
            if first.own_agrees and not first.explained:
                text += " " + self.tr("Its own error is within the tolerance: a difference of its inputs, "
                                      "within the tolerance, crossed a step of its output (a rounding, a "
                                      "comparison, an argmax).")
        if report.explained:
            # Said before any culprit: the user would otherwise hunt a fault the model does not have.
            n = len(report.explained)
            text += " " + (self.tr("<b>1 node differs without being wrong</b>:") if n == 1 else self.tr(
                "<b>{n} nodes differ without being wrong</b>:").format(n=n)) + " " + self.tr(
                "onnxruntime computes them otherwise than the operator's definition (its uint8 × int8 sums "
                "saturate on CPUs without VNNI, ...), shown exactly by recomputing its way; ours follow the "
                "definition (each row's tooltip says how).")
        if report.differing_sources:
            text += " " + self.tr("Inputs or initializers that differ: {names}").format(
                names=", ".join(report.differing_sources[:5]))
        if report.skipped:
            skipped = len(report.skipped)
            text += " " + (self.tr("{n} value could not be compared.") if skipped == 1
                           else self.tr("{n} values could not be compared.")).format(n=skipped)
        text += self._own_counts_text(report)
        worst = report.worst_own
        if report.own_cancelled:
            # Partial own errors must not read as the whole: the culprit may be among the nodes not measured.
            measured, total = report.own_cancelled
            text += " " + self.tr("<b>Own errors incomplete</b>: the pass was cancelled after {i} of {n} nodes; "
                                  "the others show –.").format(i=measured, n=total)
        if worst is not None and not all(d.agrees for d in worst.own):
            text += " " + (self.tr("Largest own error so far: <b>{node}</b> (own rel. error {rel}; the node run "
                                   "alone on the reference's values of its inputs).") if report.own_cancelled
                           else self.tr("Largest own error: <b>{node}</b> (own rel. error {rel}; the node run alone "
                                        "on the reference's values of its inputs).")).format(
                node=worst.node.display_name, rel=f"{worst.own_rel:.3g}")
        text += self._bodies_text(report)
        if self.stale:
            text = "<span style='color:#b06000'><b>{}</b></span> ".format(self.tr(
                "Made before your last edit: compare again to see its effect.")) + text
        elif self.other_inputs:
            text = "<span style='color:#b06000'><b>{} {}</b></span> ".format(self.tr(
                "Made with the inputs before your last change: run and compare again to see theirs."),
                self.tr("Its colours are off the canvas until then.")) + text
        self.summary.setText(text)
        self.set_on_canvas(self.on_canvas)
        self.summary.setToolTip(self._bodies_tip(report))
        self.first_button.setEnabled(first is not None)
        inside = [nd for b in report.bodies if b.report is not None for nd in b.report.nodes]
        self.rows = sorted([*report.nodes, *inside], key=lambda n: (n.agrees, -n.rel))
        self.table.setSortingEnabled(False)         # filled row by row, sorted once
        # Emptied first: replacing the items of a filled table one by one
        # took 40 s for 291 rows (each replacement re-laid the table out);
        # filling empty rows takes milliseconds.
        self.table.setRowCount(0)
        self.table.setRowCount(len(self.rows))
        for r, nd in enumerate(self.rows):
            name = _SortItem(nd.node.name or nd.node.op_type)
            name.setToolTip(f"{nd.node.name}\n{nd.node.path}" if nd.node.name else nd.node.path)
            name.setData(ROW, r)
            self.table.setItem(r, 0, name)
            self.table.setItem(r, 1, _SortItem(nd.node.op_type))
            note = unmeasured_note(nd)
            if note:                # no error as a number: what differs, sorted as the largest
                rel = _SortItem(note, math.inf)
                rel.setToolTip(note)
                self.table.setItem(r, 2, _SortItem("–", math.inf))
                self.table.setItem(r, 3, rel)
            else:
                self.table.setItem(r, 2, _SortItem(f"{nd.max_abs:.3g}", nd.max_abs))
                self.table.setItem(r, 3, _SortItem(f"{nd.rel:.3g}", nd.rel))
            own = nd.own is not None
            self.table.setItem(r, 4, _SortItem(f"{nd.own_max_abs:.3g}" if own else "–", nd.own_max_abs if own else ""))
            own_rel = _SortItem(f"{nd.own_rel:.3g}" if own else "–", nd.own_rel if own else "")
            if not own and nd.own_note:
                own_rel.setToolTip(nd.own_note)
            self.table.setItem(r, 5, own_rel)
            flag = _SortItem(self.tr("onnxruntime's") if nd.explained and not nd.agrees
                             else self.tr("first") if nd is first
                             else self.tr("differs") if not nd.agrees else self.tr("ok"), (nd.agrees, nd is not first))
            if nd.explained:
                flag.setToolTip(nd.explained)
            flag.setBackground(error_colour(*shown_error(nd, self.colouring)))
            self.table.setItem(r, 6, flag)
        # Sorted once, as sorting is enabled: by the error coloured, largest first. Enabled and
        # then sorted again, the 8,108 rows of a llama export sorted twice (each comparison a
        # call of _SortItem.__lt__), a second of the window's pause as the comparison arrived.
        self.table.horizontalHeader().setSortIndicator(5 if self.colouring == "own" else 3, Qt.DescendingOrder)
        self.table.setSortingEnabled(True)

    def _own_counts_text(self, report) -> str:
        """' Own errors: …' — which nodes the own-error pass measured (the
        status line counted them while it ran) and which it skipped; '' when
        there was no such pass (a comparison with a reference run)."""
        if not report.own_cancelled and all(nd.own is None for nd in report.nodes):
            return ""
        constants = sum(nd.constant for nd in report.nodes)
        computing = len(report.nodes) - constants
        # One: an extracted failing subgraph's node, with the constants it reads ("1 nodes" was shown).
        text = (self.tr("Own errors: {n} node that computes ({k} constants and shape-only nodes skipped).")
                if computing == 1 else
                self.tr("Own errors: {n} nodes that compute ({k} constants and shape-only nodes skipped)."))
        return " " + text.format(n=computing, k=constants)

    def _bodies_text(self, report) -> str:
        """' Inside bodies: …' — what was compared there (each body run alone
        by onnxruntime on our inputs) and what was not; '' without bodies."""
        if not report.bodies:
            return ""
        compared = [d for b in report.bodies if b.report is not None for d in b.report.values.values()]
        left = sum(len(b.not_compared) for b in report.bodies)
        text = " " + self.tr("Inside bodies (each run alone by onnxruntime on our inputs): {ok} of {n} values "
                             "agree.").format(ok=sum(d.agrees for d in compared), n=len(compared))
        if left:
            text += " " + self.tr("{n} not compared (this line's tooltip says which, and why).").format(n=left)
        return text

    def _bodies_tip(self, report) -> str:
        """The body values not compared, with why (the first 30)."""
        lines = [f"{b.path}: {name} — {why}" for b in report.bodies for name, why in b.not_compared]
        idle = sum(1 for b in report.bodies if not b.runs)
        head = [self.tr("{n} bodies did not run: nothing there to compare").format(n=idle)] if idle else []
        return "\n".join(head + lines[:30] + (["…"] if len(lines) > 30 else []))

    def node_at(self, row: int):
        """The NodeDiff shown in table row `row` (as sorted now), or None."""
        item = self.table.item(row, 0)
        index = item.data(ROW) if item is not None else None
        return self.rows[index] if index is not None and 0 <= index < len(self.rows) else None

    def _jump_row(self, row: int) -> None:
        nd = self.node_at(row)
        if nd is not None:
            self.jump.emit(nd.node)

    def go_to_first(self) -> None:
        if self.report is not None and self.report.first_divergence is not None:
            self.jump.emit(self.report.first_divergence.node)


def _escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
