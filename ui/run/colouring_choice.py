"""The canvas colours its boxes one way at a time: by the comparison's
error (the Compare dock's colours) or by the profile's time (the heat).
Both at once left thick "agrees" outlines under the heat frames, and no way
to tell which colour meant what. The latest asked for wins: a profile made
(or the heat turned on) hides the comparison's colours, and the Compare
dock says so with a button to show them again; a comparison made, its
colouring changed or that button hides the heat (its checkbox clears)."""
from __future__ import annotations

from PySide6.QtCore import QObject


class ColouringChoice(QObject):
    """`run_ui`: install.RunUI; `profile_ui`: profile_work.ProfileUI."""

    def __init__(self, run_ui, profile_ui):
        super().__init__(profile_ui)
        self.run_ui = run_ui
        self.profile_ui = profile_ui
        self.shown = "comparison"          # or "heat": what colours the boxes now
        compare = run_ui.compare
        compare.show_on_canvas.connect(self.show_comparison)
        compare.colour_by_changed.connect(lambda _how: self.show_comparison())
        run_ui.controller.report_ready.connect(lambda _report: self.show_comparison())
        profile_ui.view.heat_toggled.connect(self._heat_toggled)

    def show_comparison(self) -> None:
        self.shown = "comparison"
        self.profile_ui.view.heat_box.setChecked(False)      # its toggled signal hides the heat
        self.run_ui.compare_actions.set_colouring(self.run_ui.compare.colouring)
        self.run_ui.compare.set_on_canvas(True)

    def show_heat(self) -> None:
        self.shown = "heat"
        self.profile_ui.view.heat_box.setChecked(True)
        self.run_ui.compare_actions.set_colouring("")        # the overlay's "no comparison colours"
        self.run_ui.compare.set_on_canvas(False)

    def _heat_toggled(self, on: bool) -> None:
        if on and self.shown != "heat":
            self.show_heat()
        elif not on and self.shown != "comparison":
            self.show_comparison()
