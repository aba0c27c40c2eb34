"""The central widget: breadcrumbs over the canvas, with the minimap in a
corner. Owns the level stack and puts together what the canvas modules do:
layouts in the background (canvas/layout_runner.py), following edits
(canvas/edit_tracking.py, canvas/pinning.py), revealing a target
(canvas/reveal.py), double-click and menus (canvas/actions.py), loose
nodes (canvas/loose.py) and problem badges (canvas/badges.py).
"""
from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QVBoxLayout, QWidget

from ..core.ir import Node, Value
from .canvas import actions
from .canvas.after_paint import AfterPaint
from .canvas.badges import box_badges
from .canvas.edit_tracking import EditTracker
from .canvas.items import EdgeItem, NodeItem
from .canvas.layout_runner import LayoutRunner
from .canvas.loose import LoosePlacements
from .canvas.minimap import Minimap
from .canvas.reveal import PendingReveal, target_node
from .canvas.scene import GraphScene, measure_label
from .canvas.view import CanvasView
from .navigation import Breadcrumbs, Level, Place, VisitHistory, in_model, level_title, levels_for
from .theme import LIGHT


class GraphPanel(QWidget):
    selection_changed = Signal(object)     # ViewNode / ViewEdge / None
    busy = Signal(str)                     # layout running: show progress + cancel
    idle = Signal()
    failed = Signal(str)
    laid_out = Signal()                    # a new scene is shown
    warning = Signal(str)                  # e.g. "dot not found, using built-in layout"
    # What a reveal was asked for, once its box is selected: an initializer
    # selects its reader's box, and the selection alone would name the reader.
    revealed = Signal(object)
    history_changed = Signal()             # Back / Forward may have become (un)available

    def __init__(self, parent=None, theme=LIGHT):
        super().__init__(parent)
        self.model = None
        self.qdoc = None                    # QtDocument of the open model
        self.inferred = {}                  # value -> type lookup (the document's, once analysed)
        self.levels: list[Level] = []
        self.history = VisitHistory()       # the places visited, for Back and Forward
        self._restore_selection = None      # what Back/Forward reselects once the level is shown
        self.badges: dict = {}              # {ir.Node: worst severity} from the Problems dock
        self.scene = GraphScene(theme, self)
        self.view = CanvasView(self.scene, self)
        self.breadcrumbs = Breadcrumbs(self)
        self.minimap = Minimap(self.view, self.view)
        self.layouts = LayoutRunner(measure_label, self)
        self.layouts.done.connect(self._layout_done)
        self.layouts.failed.connect(self._layout_failed)
        self.layouts.cancelled.connect(self._layout_cancelled)
        self.pending = PendingReveal()      # what to select once the next layout is shown
        self.edits = EditTracker()
        self.loose = LoosePlacements()
        self.edge_menu_hook = None         # callable(menu, EdgeItem): editing entries
        self.menu_extenders: list = []      # f(item, menu) adding actions to the context menu
        self._pin_old = None               # layout to pin the next one to (after an edit)
        self.pinned_changed: set = set()   # box ids the last pinned layout moved or changed
        self._selection_shown = True        # the last selection_changed may have named an item
        # Edge labels follow an edit once the canvas has been repainted.
        self._relabel = AfterPaint(self, lambda: self.scene.relabel_edges(self.inferred))
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        layout.addWidget(self.breadcrumbs)
        layout.addWidget(self.view, 1)
        self.breadcrumbs.set_levels([])
        self.breadcrumbs.level_clicked.connect(self.go_to_level)
        self.view.item_activated.connect(self.activate)
        self.view.setContextMenuPolicy(Qt.CustomContextMenu)
        self.view.customContextMenuRequested.connect(self._context_menu)
        self.view.back_requested.connect(self.go_back)
        self.view.history_step_requested.connect(self.go_in_history)
        self.scene.selectionChanged.connect(self._selection)
        self.view.viewport_changed.connect(self._place_minimap)

    # -- state others wait on ----------------------------------------------------------

    @property
    def layout_running(self) -> bool:
        return self.layouts.running

    @property
    def settled(self) -> bool:
        """No layout runs and no target waits for one: the canvas shows what was asked."""
        return not self.layouts.running and self.pending.target is None

    @property
    def relabel_pending(self) -> bool:
        """Edge labels will be redrawn with newer types at the next turn of the event loop."""
        return self._relabel.pending

    # -- model and levels --------------------------------------------------------------

    def set_document(self, qdoc, expanded=None, view_state=None) -> None:
        """Show the document's model and follow its changes. `expanded` (group
        paths) and `view_state` restore the main graph as it was left in an
        earlier session (see main_graph_state)."""
        if self.qdoc is not None:
            for signal, slot in ((self.qdoc.analysed, self._types_ready),
                                 (self.qdoc.changed, self._document_changed)):
                try:
                    signal.disconnect(slot)
                except (RuntimeError, TypeError):
                    pass
        self.qdoc = qdoc
        qdoc.analysed.connect(self._types_ready)
        qdoc.changed.connect(self._document_changed)
        self.set_model(qdoc.document.model, expanded, view_state)
        self.inferred = qdoc.types
        # The panels show the new model already: the first scene clears no selection.
        self._selection_shown = False

    def _types_ready(self) -> None:
        self.set_inferred(self.qdoc.types)

    def _document_changed(self, event) -> None:
        """After an edit only what it touched changes on the canvas: a node
        whose box keeps its size is relabelled in place; otherwise the level
        is laid out again (unchanged pieces come from the cache) and every
        piece is pinned back where it was (canvas/pinning.py)."""
        if event.kind == "saved" or not self.levels:
            return
        changes = event.changes
        self.edits.note(changes)
        shown = self.level.graph
        touched = shown in changes.graphs or bool(changes.model_fields)
        if touched and (self.layouts.running
                        or not self.edits.relabel_in_place(changes, self.scene, shown)):
            self.relayout_pinned()
        # Types may have moved downstream: edge labels follow once the canvas
        # is repainted; after the re-layout when one runs (relabelling 12k
        # edges meanwhile only held the layout worker up: one interpreter lock).
        if not self.layouts.running:
            self._relabel.start()

    def relayout_pinned(self) -> None:
        """Lay the shown level out again, keeping every unchanged piece in place."""
        if self.scene.layout_result is not None and self._pin_old is None:
            self._pin_old = self.scene.layout_result
        self.start_layout()

    def set_model(self, model, expanded=None, view_state=None) -> None:
        self.model = model
        self.inferred = {}
        self.show_levels([Level(model.graph, level_title(model.graph), expanded, view_state)], record=False)
        self.history.reset(Place(self.levels))
        self.history_changed.emit()

    def main_graph_state(self):
        """(expanded group paths or None, (scale, centre x, centre y) or None)
        of the main graph, for saving between sessions."""
        if not self.levels:
            return None, None
        main = self.levels[0]
        view_state = main.view_state
        if len(self.levels) == 1 and not self.layouts.running and self.scene.view_model is not None:
            view_state = self.view.view_state()      # the main graph is what is shown
        return main.expanded, view_state

    def set_inferred(self, inferred: dict) -> None:
        """New types from inference: redraw edge labels without a new layout."""
        self.inferred = inferred if inferred is not None else {}
        self.scene.relabel_edges(self.inferred)
        if self.scene.selectedItems():
            self._selection()       # refresh the panel with the new types

    def set_badges(self, severities: dict) -> None:
        """Problem badges: {ir.Node: worst severity} from the Problems dock."""
        self.badges = severities
        self._apply_badges()

    def _apply_badges(self) -> None:
        view_model = self.scene.view_model
        if view_model is None:
            return
        wanted = box_badges(view_model, self.badges)
        for box_id, item in self.scene.node_items.items():
            badge = wanted.get(box_id)
            if badge != item.badge:         # 10k boxes, nearly all unchanged
                item.set_badge(badge)

    def set_theme(self, theme) -> None:
        self.scene.set_theme(theme)
        self.view.resetCachedContent()
        self.minimap.rebuild()

    @property
    def level(self) -> Level:
        return self.levels[-1]

    def show_levels(self, levels: list[Level], record: bool = True) -> None:
        """Show the last of `levels` (main graph first) and lay it out.
        `record`: a new place in the visit history (not when Back or
        Forward brings an old one back)."""
        self._leave_place()
        self.levels = levels
        if record and self.history.current is not None and self.history.current.graph is not levels[-1].graph:
            self.history.visit(Place(levels))
            self.history_changed.emit()
        elif record and self.history.current is not None:
            self.history.current.levels = levels     # the same graph, reached another way
        self._pin_old = None
        self.breadcrumbs.set_levels(self.levels)
        self.start_layout()

    def show_graph(self, graph) -> None:
        """Enter `graph` (a body or function graph of the model, or the main graph)."""
        self.show_levels(levels_for(self.model, graph, self.levels))

    def enter_graph(self, graph) -> None:
        self._remember_view()
        self.show_levels(self.levels + [Level(graph, level_title(graph))])

    def go_back(self) -> None:
        if len(self.levels) > 1:
            self.go_to_level(len(self.levels) - 2)

    def go_to_level(self, index: int) -> None:
        if 0 <= index < len(self.levels) - 1:
            self.show_levels(self.levels[:index + 1])

    # -- Back and Forward over the places visited -----------------------------------------

    def can_go_in_history(self, step: int) -> bool:
        return self.history.can_go(step)

    def history_back(self) -> None:
        self.go_in_history(-1)

    def history_forward(self) -> None:
        self.go_in_history(1)

    def go_in_history(self, step: int) -> None:
        """Show the place visited before (step -1) or after (+1) this one,
        with its open groups, view and selection. A place an edit has taken
        out (a body deleted, an undo that removed it) is passed over and
        dropped, and the status bar says so."""
        if self.model is None or not self.history.can_go(step):
            return
        self._leave_place()
        place, dropped = self.history.go(step, lambda p: in_model(self.model, p.graph))
        for gone in dropped:
            self.warning.emit(self.tr("Skipped {title}: an edit has removed it since you were there.").format(
                title=gone.levels[-1].title))
        if place is not None:
            place.levels = levels_for(self.model, place.graph, place.levels)
            self._restore_selection = place.selected
            self.show_levels(place.levels, record=False)
        self.history_changed.emit()

    def _leave_place(self) -> None:
        """Keep the view and selection of the place shown, for coming back."""
        place = self.history.current
        if place is None or not self.shows_level or place.graph is not self.level.graph:
            return      # the shown level's layout is pending: what was kept stays
        self._remember_view()
        place.selected = tuple(self._selected_refs())

    # -- layout -------------------------------------------------------------------

    def start_layout(self) -> None:
        level = self.level
        pin_to = previous = stale = None
        if self._pin_old is not None:
            pin_to = (self._pin_old, self.scene.view_model)
            shown = self.scene.view_model
            if shown is not None and shown.graph is level.graph:    # not a level still being left
                previous, stale = shown, self.edits.stale_ids()
        if not self.layouts.start(level.graph, level.expanded, pin_to, previous, stale):
            return      # the application is quitting
        count = len(level.graph.nodes)
        self.busy.emit((self.tr("Laying out {title} ({n} node)…") if count == 1
                        else self.tr("Laying out {title} ({n} nodes)…")).format(title=level.title, n=count))

    def cancel_layout(self) -> None:
        running = self.layouts.running
        self.layouts.cancel()
        if running and self.shows_level:
            # The picture stays, so do its open groups: the level holds those
            # of the cancelled layout (Expand All: every group), which the
            # next expand or collapse would build on.
            shown = self.scene.view_model
            self.level.expanded = {p for p, g in shown.groups.items() if g.expanded}

    @property
    def shows_level(self) -> bool:
        """Whether the canvas holds a picture of the level shown (False while
        the first layout of a level, or of a newly opened model, is pending)."""
        shown = self.scene.view_model
        return bool(self.levels) and shown is not None and shown.graph is self.level.graph

    def wait_for_layout(self, timeout_ms: int = 120000) -> bool:
        """Block until the running layout (and any reveal it leads to) is shown."""
        return self.layouts.wait(lambda: self.pending.target is not None, timeout_ms)

    def _layout_done(self, done) -> None:
        for note in done.warnings:
            self.warning.emit(note)
        view_model = done.view_model
        if self.level.expanded is None:
            # Remember the default choice so later expand/collapse build on it.
            self.level.expanded = {p for p, g in view_model.groups.items() if g.expanded}
        elif done.after_edit:
            # An edit may move group paths; the open groups followed them.
            self.level.expanded = set(view_model.expanded)
        if self.pending.target is not None and self.pending.open_hiding_group(view_model, self.level):
            self.start_layout()
            return
        if done.pinned:
            self.pinned_changed = done.changed
            self._relabel.start()     # the edges kept from before may carry types that moved
        self._pin_old = None
        from onnxstudio.core import gc_policy
        with gc_policy.paused():
            # After an edit laid out whole (not pinned), the view and selection stay too.
            self._populate(view_model, done.result, keep_view=done.pinned or done.after_edit, same=done.same)
        self.idle.emit()
        self.laid_out.emit()
        if self.pending.target is not None:
            self._select_pending()

    def _layout_failed(self, message: str) -> None:
        self.pending.set(None)
        self._restore_selection = None
        self._relabel.start()     # an edit's relabelling waited for this layout
        self.idle.emit()
        self.failed.emit(message)

    def _layout_cancelled(self) -> None:
        self.pending.set(None)
        self._restore_selection = None
        self._relabel.start()
        self.idle.emit()

    def _selected_refs(self) -> list:
        """What is selected: a node, or a value (its edge or input/output
        box); a collapsed group's box has neither and is named by its key."""
        return [item.ref.value if isinstance(item, EdgeItem) else item.ref.node or item.ref.value or item.key
                for item in self.scene.selectedItems()
                if isinstance(item, (NodeItem, EdgeItem)) and item.ref is not None]

    def _populate(self, view_model, result, keep_view: bool, same=None) -> None:
        state = self.view.view_state() if keep_view else self.level.view_state
        # What was selected stays selected after an edit relays the level
        # out, and so does the Properties form showing it; Back and Forward
        # select again what was selected when the user left the place.
        restore, self._restore_selection = self._restore_selection, None
        selected = self._selected_refs() if keep_view else list(restore or ())
        self.view.reset_first_paint()
        # After an edit (same: box ids matched) unmoved items are kept, not rebuilt.
        self.scene.populate(view_model, result, self.inferred, same)
        self.edits.laid_out(self.level.graph)
        self._apply_badges()
        reselected = [item for obj in selected if isinstance(obj, str) or obj.graph is not None
                      for item in ([self.scene.node_items.get(obj)] if isinstance(obj, str)
                                   else [self.scene.item_for_node(obj)] if isinstance(obj, Node)
                                   else self.scene.items_for_value(obj))]
        for item in reselected:
            if item is not None:
                item.setSelected(True)
        if not any(reselected) and self._selection_shown:
            self.selection_changed.emit(None)
        self.loose.apply(self.scene, self.level.graph)
        if same is not None:
            self.minimap.rebuild_later()    # after an edit: the canvas is shown first
        else:
            self.minimap.rebuild()
        self._place_minimap()
        if state is not None:
            self.view.restore_view_state(state)
        else:
            self.initial_view()

    def place_loose(self, node, scene_pos) -> None:
        """Show a node that reads and feeds nothing yet (dropped from the
        palette) where it was dropped, until it is wired."""
        if node is not None:
            self.loose.place(node, scene_pos)
            self.loose.apply(self.scene, self.level.graph)

    def initial_view(self) -> None:
        self.view.show_start([item.scene_rect() for item in self.scene.node_items.values()])
        self.minimap.follow()

    # -- expand / collapse / enter --------------------------------------------------------

    def activate(self, item) -> None:
        """What a double-click on `item` does (canvas/actions.py)."""
        actions.activate(self, item)

    def _context_menu(self, pos) -> None:
        """The same actions as double-click, findable by right-click."""
        menu = actions.context_menu(self, self.view.itemAt(pos))
        menu.exec(self.view.viewport().mapToGlobal(pos))

    def expand_group(self, path) -> None:
        self._remember_view()
        expanded = set(self.level.expanded or ())
        expanded.update(tuple(path[:i]) for i in range(1, len(path) + 1))
        self.level.expanded = expanded
        self.start_layout()

    def collapse_group(self, path) -> None:
        self._remember_view()
        path = tuple(path)
        self.level.expanded = {p for p in (self.level.expanded or ()) if p[:len(path)] != path}
        self.start_layout()

    def expand_all(self) -> None:
        view_model = self.scene.view_model
        if view_model is not None:
            self.level.expanded = set(view_model.groups)
            self.start_layout()

    def collapse_all(self) -> None:
        if not self.levels:             # no model open (View menu)
            return
        self.level.expanded = set()
        self.start_layout()

    # -- selection and reveal --------------------------------------------------------------

    def _selection(self) -> None:
        items = self.scene.selectedItems()
        self._selection_shown = True
        self.selection_changed.emit(items[0].ref if items else None)

    def reveal(self, obj, graph) -> None:
        """Show `obj` (ir.Node or ir.Value) of `graph`: enter the graph, open the
        groups hiding it, select and centre it."""
        target = target_node(obj)
        if isinstance(obj, Value) and obj.is_initializer and len(obj.uses) > 1 and self.level.graph is graph:
            target = self.reader_near(obj) or target
        self.pending.set(target if target is not None else obj, asked=obj)
        if self.level.graph is graph and not self.layouts.running and self.scene.view_model is not None:
            if not self.pending.open_hiding_group(self.scene.view_model, self.level):
                self._select_pending()
            else:
                self.start_layout()
            return
        self._remember_view()
        self.show_graph(graph)

    def _select_pending(self) -> None:
        asked = self.pending.asked
        if self.select_object(self.pending.take()):
            self.revealed.emit(asked)

    def reader_near(self, value):
        """Of the nodes reading `value` (a weight shared by many layers), the
        one nearest to the selected item, else to the middle of the view;
        None when none is on the canvas."""
        shown = [(n, self.scene.item_for_node(n)) for n, _slot in value.uses]
        shown = [(n, item) for n, item in shown if item is not None]
        if not shown:
            return None
        selected = self.scene.selectedItems()
        anchor = (selected[0].sceneBoundingRect().center() if selected
                  else self.view.visible_scene_rect().center())
        return min(shown, key=lambda p: _distance(p[1].sceneBoundingRect().center(), anchor))[0]

    def select_new_node(self, node) -> None:
        """Select a node an edit just made, once the canvas shows it. Named in
        its neighbour's scope, it can form a new group with that neighbour,
        closed by default: open it, or the user sees their node vanish."""
        if node is None or node.graph is not self.level.graph:
            return
        if not self.layouts.running:    # relabelled in place: nothing is being laid out
            self.reveal(node, node.graph)
            return
        self.pending.set(node)          # the running relayout opens groups and selects it

    def select_object(self, obj) -> bool:
        items = []
        if isinstance(obj, Node):
            item = self.scene.item_for_node(obj)
            items = [item] if item is not None else []
        elif isinstance(obj, Value):
            items = self.scene.items_for_value(obj)
        if not items:
            return False
        # A value read in many places (a shared weight) has many edges: go to
        # the one nearest to what was selected, else to where the view is,
        # not to whichever the scene listed first (a layer far away).
        selected = self.scene.selectedItems()
        anchor = (selected[0].sceneBoundingRect().center() if selected
                  else self.view.visible_scene_rect().center())
        nearest = min(items, key=lambda i: _distance(i.sceneBoundingRect().center(), anchor))
        self.scene.clearSelection()
        for item in items:
            item.setSelected(True)
        self.view.center_on_item(nearest, zoom=1.0)
        return True

    # -- view state ----------------------------------------------------------------------

    def view_state(self):
        """(scale, centre x, centre y) of the canvas now."""
        return self.view.view_state()

    def _remember_view(self) -> None:
        if self.levels and self.scene.view_model is not None:
            self.level.view_state = self.view.view_state()

    def _place_minimap(self) -> None:
        viewport = self.view.viewport().geometry()
        self.minimap.move(viewport.right() - self.minimap.width() - 12,
                          viewport.bottom() - self.minimap.height() - 12)

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        self._place_minimap()
        self.minimap.follow()          # hidden while the canvas is too small for it


def _distance(a, b) -> float:
    return ((a.x() - b.x()) ** 2 + (a.y() - b.y()) ** 2) ** 0.5
