"""The central widget: breadcrumbs over the canvas, with the minimap in a
corner. Owns the level stack and puts together what the canvas modules do:
layouts in the background (canvas/layout_runner.py), following edits
(canvas/edit_following.py with canvas/edit_tracking.py and
canvas/pinning.py), Back and Forward (canvas/visits.py), what is selected
(canvas/selection.py), revealing a target (canvas/reveal.py), double-click
and menus (canvas/actions.py), loose nodes (canvas/loose.py) and problem
badges (canvas/badges.py).
"""
from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QVBoxLayout, QWidget

from .canvas import actions
from .canvas.badges import show_badges
from .canvas.edit_following import EditFollower
from .canvas.layout_runner import LayoutRunner
from .canvas.loose import LoosePlacements
from .canvas.minimap import Minimap
from .canvas.reveal import Revealer
from .canvas.scene import GraphScene, measure_label
from .canvas.selection import CanvasSelection
from .canvas.view import CanvasView
from .canvas.visits import Visits
from .navigation import Breadcrumbs, Level, level_title, levels_for, node_holding
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
        self.visits = Visits(self)          # the places visited, for Back and Forward
        self.badges: dict = {}              # {ir.Node: worst severity} from the Problems dock
        self.scene = GraphScene(theme, self)
        self.view = CanvasView(self.scene, self)
        self.selection = CanvasSelection(self.scene, self.view)
        self.breadcrumbs = Breadcrumbs(self)
        self.minimap = Minimap(self.view, self.view)
        self.layouts = LayoutRunner(measure_label, self)
        self.layouts.done.connect(self._layout_done)
        self.layouts.failed.connect(self._layout_failed)
        self.layouts.cancelled.connect(self._layout_cancelled)
        self.reveals = Revealer(self)
        self.following = EditFollower(self)
        self.loose = LoosePlacements()
        self.edge_menu_hook = None         # callable(menu, EdgeItem): editing entries
        self.menu_extenders: list = []      # f(item, menu) adding actions to the context menu
        self._selection_shown = True        # the last selection_changed may have named an item
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
        self.view.history_step_requested.connect(self.visits.go)
        self.scene.selectionChanged.connect(self._selection)
        self.view.viewport_changed.connect(self._place_minimap)

    # -- state others wait on ----------------------------------------------------------

    @property
    def layout_running(self) -> bool:
        return self.layouts.running

    @property
    def settled(self) -> bool:
        """No layout runs and no target waits for one: the canvas shows what was asked."""
        return not self.layouts.running and not self.reveals.waiting

    @property
    def relabel_pending(self) -> bool:
        """Edge labels will be redrawn with newer types at the next turn of the event loop."""
        return self.following.relabel_pending

    # -- model and levels --------------------------------------------------------------

    def set_document(self, qdoc, expanded=None, view_state=None) -> None:
        """Show the document's model and follow its changes. `expanded` (group
        paths) and `view_state` restore the main graph as it was left in an
        earlier session (see main_graph_state)."""
        if self.qdoc is not None:
            for signal, slot in ((self.qdoc.analysed, self._types_ready),
                                 (self.qdoc.changed, self.following.document_changed)):
                try:
                    signal.disconnect(slot)
                except (RuntimeError, TypeError):
                    pass
        self.qdoc = qdoc
        qdoc.analysed.connect(self._types_ready)
        qdoc.changed.connect(self.following.document_changed)
        self.set_model(qdoc.document.model, expanded, view_state)
        self.inferred = qdoc.types
        # The panels show the new model already: the first scene clears no selection.
        self._selection_shown = False

    def _types_ready(self) -> None:
        self.set_inferred(self.qdoc.types)

    def set_model(self, model, expanded=None, view_state=None) -> None:
        self.model = model
        self.inferred = {}
        self.show_levels([Level(model.graph, level_title(model.graph), expanded, view_state)], record=False)
        self.visits.start(self.levels)

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
        show_badges(self.scene, self.badges)

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
        self.visits.leave()
        self.levels = levels
        if record:
            self.visits.record(levels)
        self.following.unpin()
        self.breadcrumbs.set_levels(self.levels)
        self.start_layout()

    def show_graph(self, graph) -> None:
        """Enter `graph` (a body or function graph of the model, or the main graph)."""
        self.show_levels(levels_for(self.model, graph, self.levels))

    def enter_graph(self, graph) -> None:
        self.remember_view()
        if self.shows_level:
            self.level.selected = tuple(self.selection.refs())
        self.show_levels(self.levels + [Level(graph, level_title(graph))])

    def go_back(self) -> None:
        if len(self.levels) > 1:
            self.go_to_level(len(self.levels) - 2)

    def go_to_level(self, index: int) -> None:
        """Go up to an enclosing level (Esc, a breadcrumb): the node holding
        the body left is selected there, as a file manager selects the folder
        one came out of; the user came back to a canvas with nothing selected
        and had to find the If or Loop again. Out of a function's body,
        whose callers are many, what was selected when it was entered (the
        call double-clicked) is selected again."""
        if 0 <= index < len(self.levels) - 1:
            up = self.levels[index]
            holder = node_holding(self.level.graph, up.graph)
            self.visits.select_when_shown((holder,) if holder is not None else up.selected)
            self.show_levels(self.levels[:index + 1])

    # -- Back and Forward over the places visited (canvas/visits.py) ----------------------

    def can_go_in_history(self, step: int) -> bool:
        return self.visits.can_go(step)

    def history_back(self) -> None:
        self.visits.go(-1)

    def history_forward(self) -> None:
        self.visits.go(1)

    # -- layout -------------------------------------------------------------------

    def start_layout(self) -> None:
        level = self.level
        pin_to, previous, stale = self.following.pinning(level.graph)
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
        return self.layouts.wait(lambda: self.reveals.waiting, timeout_ms)

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
        if self.reveals.opens_group(view_model):
            self.start_layout()
            return
        self.following.layout_shown(done)
        from onnxstudio.core import gc_policy
        with gc_policy.paused():
            # After an edit laid out whole (not pinned), the view and selection stay too.
            self._populate(view_model, done.result, keep_view=done.pinned or done.after_edit, same=done.same)
        self.idle.emit()
        self.laid_out.emit()
        self.reveals.select_waiting()

    def _layout_failed(self, message: str) -> None:
        self._layout_ended()
        self.failed.emit(message)

    def _layout_cancelled(self) -> None:
        self._layout_ended()

    def _layout_ended(self) -> None:
        """No picture comes of the layout asked for: nothing waits to be selected."""
        self.reveals.drop()
        self.visits.forget_selection()
        self.following.layout_ended()
        self.idle.emit()

    def _populate(self, view_model, result, keep_view: bool, same=None) -> None:
        state = self.view.view_state() if keep_view else self.level.view_state
        # What was selected stays selected after an edit relays the level
        # out, and so does the Properties form showing it; Back and Forward
        # select again what was selected when the user left the place.
        # Opening or closing a group lays the same graph out again: the
        # selection stays too (a node now hidden in a closed group selects
        # the group's box).
        restore = self.visits.take_selection()
        shown_before = self.scene.view_model.graph if self.scene.view_model is not None else None
        if keep_view or (restore is None and shown_before is self.level.graph):
            selected = self.selection.refs()
        else:
            selected = list(restore or ())
        self.view.reset_first_paint()
        # After an edit (same: box ids matched) unmoved items are kept, not rebuilt.
        self.scene.populate(view_model, result, self.inferred, same)
        self.following.laid_out(self.level.graph)
        show_badges(self.scene, self.badges)
        if not self.selection.restore(selected) and self._selection_shown:
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
        self.remember_view()
        expanded = set(self.level.expanded or ())
        expanded.update(tuple(path[:i]) for i in range(1, len(path) + 1))
        self.level.expanded = expanded
        self.start_layout()

    def collapse_group(self, path) -> None:
        self.remember_view()
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
        self.selection.light_value_edges()
        self._selection_shown = True
        self.selection_changed.emit(items[0].ref if items else None)

    def reveal(self, obj, graph) -> None:
        """Show `obj` (ir.Node or ir.Value) of `graph`: enter the graph, open the
        groups hiding it, select and centre it (canvas/reveal.py)."""
        self.reveals.reveal(obj, graph)

    def select_new_node(self, node, others=()) -> None:
        """Select a node an edit just made, left or brought back (with `others`),
        once the canvas shows it (canvas/reveal.py)."""
        self.reveals.select_new_node(node, others)

    def select_object(self, obj) -> bool:
        """Select `obj` (ir.Node or ir.Value) and centre the view on it (canvas/selection.py)."""
        return self.selection.select(obj)

    # -- view state ----------------------------------------------------------------------

    def view_state(self):
        """(scale, centre x, centre y) of the canvas now."""
        return self.view.view_state()

    def remember_view(self) -> None:
        """Keep the view of the shown level, for coming back to it."""
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

