"""Which run of a loop body the canvas shows: after a whole run that kept
the values inside bodies, a Loop or Scan body ran once per iteration; the
tags show the last iteration's values unless the user picks another here.
Earlier iterations are kept only with "every iteration" (and within the
memory budget): for one that was not, the row says so and the tags of the
values it would show are left off.
"""
from __future__ import annotations

from typing import Optional

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QHBoxLayout, QLabel, QSpinBox, QWidget

LAST = -1          # the spin box's special value: the last iteration


class IterationChoice(QWidget):
    chosen = Signal(object)          # the iteration to show (int), or None for the last

    def __init__(self, parent=None):
        super().__init__(parent)
        self.label = QLabel(self.tr("Loop iteration shown:"))
        self.spin = QSpinBox()
        self.spin.setRange(LAST, LAST)
        self.spin.setSpecialValueText(self.tr("last"))
        self.spin.setToolTip(self.tr("Which iteration of the loop body shown on the canvas its value tags "
                                     "come from (earlier ones are kept with \"every iteration\")"))
        self.note = QLabel("")
        self.note.setWordWrap(True)
        self.note.setStyleSheet("color: #8a5300;")
        row = QHBoxLayout(self)
        row.setContentsMargins(0, 0, 0, 0)
        row.addWidget(self.label)
        row.addWidget(self.spin)
        row.addWidget(self.note, 1)
        self.spin.valueChanged.connect(self._changed)
        self.runs = 0
        self.set_body(None, None)

    @property
    def iteration(self) -> Optional[int]:
        value = self.spin.value()
        return None if value == LAST or not self.isEnabled() else value

    def set_body(self, kept, graph) -> None:
        """The body the canvas shows (graph) and what the run kept (core.exec.kept.BodyValues)."""
        self.kept = kept
        self.path = graph.path if graph is not None else None
        runs = kept.runs.get(self.path, 0) if kept is not None and self.path is not None else 0   # bodies only
        self.runs = runs
        self.setEnabled(runs > 1)
        self.spin.setRange(LAST, max(runs - 1, LAST))
        self._say()

    def _changed(self, _value) -> None:
        self._say()
        self.chosen.emit(self.iteration)

    def _say(self) -> None:
        i = self.iteration
        if i is None or self.kept is None or self.runs < 2:
            self.note.setText("")
            return
        kept_any = any(self.kept.value_in_run(self.path, name, i) is not None
                       for (path, name) in list(self.kept.values) if path == self.path)
        self.note.setText("" if kept_any else self.tr(
            "iteration {i} of {n} was not kept: turn on \"every iteration\" and run again").format(i=i, n=self.runs))
