"""How the canvas follows the document's edits: only what an edit touched
changes on screen. A node whose box keeps its size is relabelled in place
(canvas/edit_tracking.py); otherwise the level is laid out again, unchanged
pieces coming from the cache, and every piece is pinned back where it was
(canvas/pinning.py). Edge labels follow the new types once the canvas has
been repainted.

Talks to its GraphPanel through the panel's public members only.
"""
from __future__ import annotations

from .after_paint import AfterPaint
from .edit_tracking import EditTracker


class EditFollower:
    def __init__(self, panel):
        self.panel = panel
        self.tracker = EditTracker()
        self._pin_old = None            # layout to pin the next one to (after an edit)
        # Edge labels follow an edit once the canvas has been repainted.
        self._relabel = AfterPaint(panel, lambda: panel.scene.relabel_edges(panel.inferred))

    @property
    def relabel_pending(self) -> bool:
        return self._relabel.pending

    def document_changed(self, event) -> None:
        panel = self.panel
        if event.kind == "saved" or not panel.levels:
            return
        changes = event.changes
        self.tracker.note(changes)
        shown = panel.level.graph
        touched = shown in changes.graphs or bool(changes.model_fields)
        if touched and (panel.layout_running
                        or not self.tracker.relabel_in_place(changes, panel.scene, shown)):
            self.relayout_pinned()
        # Types may have moved downstream: edge labels follow once the canvas
        # is repainted; after the re-layout when one runs (relabelling 12k
        # edges meanwhile only held the layout worker up: one interpreter lock).
        if not panel.layout_running:
            self._relabel.start()
        if event.kind in ("undo", "redo"):
            self._select_brought_back(changes, shown)

    def _select_brought_back(self, changes, shown) -> None:
        """The nodes an undo (or redo) brings back are selected, as the user
        left them: undoing a delete gave the node back with nothing selected."""
        back = sorted((n for n in changes.nodes_added if n.graph is shown), key=lambda n: n.index)
        if back:
            self.panel.select_new_node(back[0], back[1:])

    def relayout_pinned(self) -> None:
        """Lay the shown level out again, keeping every unchanged piece in place."""
        scene = self.panel.scene
        if scene.layout_result is not None and self._pin_old is None:
            self._pin_old = scene.layout_result
        self.panel.start_layout()

    def pinning(self, graph) -> tuple:
        """(pin_to, previous, stale) for the next layout of `graph` (see
        LayoutRunner.start): all None unless an edit asked for it pinned."""
        if self._pin_old is None:
            return None, None, None
        shown = self.panel.scene.view_model
        if shown is not None and shown.graph is graph:     # not a level still being left
            return (self._pin_old, shown), shown, self.tracker.stale_ids()
        return (self._pin_old, shown), None, None

    def unpin(self) -> None:
        """Another level is shown: its first layout is not pinned to this one's."""
        self._pin_old = None

    def laid_out(self, graph) -> None:
        """The scene now shows a layout of `graph`: the edits noted so far are on it."""
        self.tracker.laid_out(graph)

    def layout_shown(self, done) -> None:
        """The layout `done` (a LaidOut) is about to be shown."""
        if done.pinned:
            self._relabel.start()     # the edges kept from before may carry types that moved
        self._pin_old = None

    def layout_ended(self) -> None:
        """A layout failed or was cancelled: an edit's relabelling waited for it."""
        self._relabel.start()
