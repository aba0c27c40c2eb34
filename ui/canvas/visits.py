"""Back and Forward over the places one canvas has shown (Alt+Left /
Alt+Right, the mouse's back and forward buttons): each place comes back
with its open groups, view and selection. A place an edit has taken out
(a body deleted, an undo that removed it) is passed over and dropped, and
the status bar says so. The history itself is ui/navigation.py's
VisitHistory; this is how a GraphPanel keeps it.

Talks to its GraphPanel through the panel's public members only. The text
keeps the context of the panel it was first written in ("GraphPanel"), so
it keeps its translation.
"""
from __future__ import annotations

from PySide6.QtCore import QCoreApplication

from ..navigation import Place, VisitHistory, in_model, levels_for


class Visits:
    def __init__(self, panel):
        self.panel = panel
        self.history = VisitHistory()
        self._selection_to_restore = None   # what Back/Forward reselects once the level is shown

    def start(self, levels) -> None:
        """A model is shown: its main graph is the one place visited."""
        self.history.reset(Place(levels))
        self.panel.history_changed.emit()

    def record(self, levels) -> None:
        """`levels` are shown: a new place, unless it shows the same graph."""
        current = self.history.current
        if current is None:
            return
        if current.graph is not levels[-1].graph:
            self.history.visit(Place(levels))
            self.panel.history_changed.emit()
        else:
            current.levels = levels     # the same graph, reached another way

    def can_go(self, step: int) -> bool:
        return self.history.can_go(step)

    def go(self, step: int) -> None:
        """Show the place visited before (step -1) or after (+1) this one."""
        panel = self.panel
        if panel.model is None or not self.history.can_go(step):
            return
        self.leave()
        place, dropped = self.history.go(step, lambda p: in_model(panel.model, p.graph))
        for gone in dropped:
            panel.warning.emit(QCoreApplication.translate(
                "GraphPanel", "Skipped {title}: an edit has removed it since you were there.").format(
                title=gone.levels[-1].title))
        if place is not None:
            place.levels = levels_for(panel.model, place.graph, place.levels)
            self._selection_to_restore = place.selected
            panel.show_levels(place.levels, record=False)
        panel.history_changed.emit()

    def leave(self) -> None:
        """Keep the view and selection of the place shown, for coming back."""
        place = self.history.current
        panel = self.panel
        if place is None or not panel.shows_level or place.graph is not panel.level.graph:
            return      # the shown level's layout is pending: what was kept stays
        panel.remember_view()
        place.selected = tuple(panel.selection.refs())

    def select_when_shown(self, refs) -> None:
        """Select `refs` once the level about to be shown is laid out."""
        self._selection_to_restore = tuple(refs)

    def take_selection(self):
        """What to select once the place Back or Forward went to is shown (None: nothing asked)."""
        selection, self._selection_to_restore = self._selection_to_restore, None
        return selection

    def forget_selection(self) -> None:
        """The place's layout failed or was cancelled: nothing waits to be reselected."""
        self._selection_to_restore = None
