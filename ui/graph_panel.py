"""The central widget: breadcrumbs over the canvas, with the minimap in a
corner. Owns the level stack, runs layouts in the background and turns
double-clicks into expand / collapse / enter-subgraph.
"""
from __future__ import annotations

from PySide6.QtCore import QPointF, Qt, Signal
from PySide6.QtWidgets import QMenu, QVBoxLayout, QWidget

from ..core.ir import Node, Value
from .canvas.items import EdgeItem, GroupFrame, NodeItem
from .canvas.minimap import Minimap
from .canvas.scene import GraphScene, measure_label
from .canvas.view import CanvasView
from .canvas.words import shown_label
from .navigation import Breadcrumbs, Level, level_title, levels_for
from .theme import LIGHT
from .workers import JobRunner, LayoutJob

READABLE_SCALE = 0.45     # below this the labels are not drawn (items.LOD_TEXT)
START_SCALE = 0.8
MAX_REVEAL_STEPS = 32     # nested groups opened while revealing a search hit


class GraphPanel(QWidget):
    selection_changed = Signal(object)     # ViewNode / ViewEdge / None
    busy = Signal(str)                     # layout running: show progress + cancel
    idle = Signal()
    failed = Signal(str)
    laid_out = Signal()                    # a new scene is shown
    warning = Signal(str)                  # e.g. "dot not found, using built-in layout"

    def __init__(self, parent=None, theme=LIGHT):
        super().__init__(parent)
        self.model = None
        self.qdoc = None                    # QtDocument of the open model
        self.inferred = {}                  # value -> type lookup (the document's, once analysed)
        self.levels: list[Level] = []
        self.scene = GraphScene(theme, self)
        self.view = CanvasView(self.scene, self)
        self.breadcrumbs = Breadcrumbs(self)
        self.minimap = Minimap(self.view, self.view)
        self._job: LayoutJob | None = None
        self.jobs = JobRunner(self)         # keeps replaced layouts alive until they end
        self._pending_target = None
        self._reveal_steps = 0
        self.edge_menu_hook = None         # callable(menu, EdgeItem): editing entries
        self._pin_old = None               # layout to pin the next one to (after an edit)
        self.pinned_changed: set = set()   # box ids the last pinned layout moved or changed
        # ids of nodes/values edited since the shown view was built (None: all of
        # them may be): the next pinned re-layout labels and measures only those.
        self._stale: set | None = set()
        from PySide6.QtCore import QTimer
        self._names_laid_out: dict = {}    # id(node) -> name when the shown level was laid out
        self._inputs_laid_out: dict = {}   # id(node) -> its inputs then
        self._relabel_timer = QTimer(self)
        self._relabel_timer.setSingleShot(True)
        self._relabel_timer.setInterval(0)
        self._relabel_timer.timeout.connect(lambda: self.scene.relabel_edges(self.inferred))
        self.menu_extenders: list = []      # f(item, menu) adding actions to the context menu
        self._placed: dict = {}             # id(node) -> (node, scene point): loose nodes dropped there
        self._selection_shown = True        # the last selection_changed may have named an item
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        layout.addWidget(self.breadcrumbs)
        layout.addWidget(self.view, 1)
        self.breadcrumbs.set_levels([])
        self.breadcrumbs.level_clicked.connect(self.go_to_level)
        self.view.item_activated.connect(self._activate)
        self.view.setContextMenuPolicy(Qt.CustomContextMenu)
        self.view.customContextMenuRequested.connect(self._context_menu)
        self.view.back_requested.connect(self.go_back)
        self.scene.selectionChanged.connect(self._selection)
        self.view.viewport_changed.connect(self._place_minimap)

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
        self._note_stale(changes)
        shown = self.level.graph
        touched = shown in changes.graphs or bool(changes.model_fields)
        if touched and not self._relabel_in_place(changes):
            self.relayout_pinned()
        # Types may have moved downstream: edge labels follow once the canvas is repainted.
        self._relabel_timer.start()

    def _note_stale(self, changes) -> None:
        if self._stale is None:
            return
        if changes.values_renamed or changes.graph_io or changes.functions or changes.model_fields:
            self._stale = None          # names, foldable values or schemas may differ: label everything
            return
        stale = self._stale
        for node in changes.nodes_changed | changes.nodes_added:
            stale.add(id(node))
            stale.update(id(v) for v in node.outputs if v is not None)
        stale.update(id(v) for v in changes.values_retyped | changes.initializers)
        for graph in changes.graphs:    # a body edited: the node holding it may show it
            while graph is not None and graph.parent_node is not None:
                stale.add(id(graph.parent_node))
                graph = graph.parent_node.graph

    def _relabel_in_place(self, changes) -> bool:
        if changes.structural or changes.values_retyped or changes.value_info or self._job is not None:
            return False
        from onnxstudio.core.layout.labels import op_label
        from .canvas.scene import measure_label
        updates = []
        for node in changes.nodes_changed:
            if node.graph is not self.level.graph:
                continue
            item = self.scene.item_for_node(node)
            if item is not None and item.kind == "group" and item.ref is not None and item.ref.node is None \
                    and self._names_laid_out.get(id(node)) == node.name:
                continue        # inside a collapsed group, same name (same scope): its box stays as it is
            if item is None or item.ref is None or item.ref.node is not node \
                    or not _same_objects(self._inputs_laid_out.get(id(node)), node.inputs):
                return False
            old = item.ref.label
            folded = len(item.ref.folded)
            label = op_label(node, [])
            label = type(old)(old.kind, label.title, label.lines + (old.lines[-folded:] if folded else ()))
            width, height = measure_label(label)
            if abs(height - item.rect.height()) > 0.5 or width > item.rect.width() + 0.5:
                return False
            updates.append((item, label))
        for item, label in updates:
            item.ref.label = label
            shown = shown_label(label)
            item.title, item.lines = shown.title, list(shown.lines)
            item.update()
        return True

    def relayout_pinned(self) -> None:
        """Lay the shown level out again, keeping every unchanged piece in place."""
        if self.scene.layout_result is not None and self._pin_old is None:
            self._pin_old = self.scene.layout_result
        self.start_layout()

    def set_model(self, model, expanded=None, view_state=None) -> None:
        self.model = model
        self.inferred = {}
        self.levels = [Level(model.graph, level_title(model.graph), expanded, view_state)]
        self._show_level()

    def main_graph_state(self):
        """(expanded group paths or None, (scale, centre x, centre y) or None)
        of the main graph, for saving between sessions."""
        if not self.levels:
            return None, None
        main = self.levels[0]
        view_state = main.view_state
        if len(self.levels) == 1 and self._job is None and self.scene.view_model is not None:
            view_state = self._view_state()      # the main graph is what is shown
        return main.expanded, view_state

    def set_inferred(self, inferred: dict) -> None:
        """New types from inference: redraw edge labels without a new layout."""
        self.inferred = inferred if inferred is not None else {}
        self.scene.relabel_edges(self.inferred)
        if self.scene.selectedItems():
            self._selection()       # refresh the panel with the new types

    def set_badges(self, severities: dict) -> None:
        """Problem badges: {ir.Node: worst severity} from the Problems dock; a
        collapsed group carries the worst badge of what it hides."""
        self.badges = severities
        self._apply_badges()

    def _apply_badges(self) -> None:
        view_model = self.scene.view_model
        if view_model is None:
            return
        wanted: dict = {}
        for node, severity in getattr(self, "badges", {}).items():
            box_id = view_model.box_for(node) if node.graph is not None else None
            if box_id is not None and wanted.get(box_id, 0) < severity:
                wanted[box_id] = severity
        for box_id, item in self.scene.node_items.items():
            item.set_badge(wanted.get(box_id))

    def set_theme(self, theme) -> None:
        self.scene.set_theme(theme)
        self.view.resetCachedContent()
        self.minimap.rebuild()

    @property
    def level(self) -> Level:
        return self.levels[-1]

    def enter_graph(self, graph) -> None:
        self._remember_view()
        self.levels.append(Level(graph, level_title(graph)))
        self._show_level()

    def go_back(self) -> None:
        if len(self.levels) > 1:
            self.go_to_level(len(self.levels) - 2)

    def go_to_level(self, index: int) -> None:
        if 0 <= index < len(self.levels) - 1:
            del self.levels[index + 1:]
            self._show_level()

    def _show_level(self) -> None:
        self._pin_old = None
        self.breadcrumbs.set_levels(self.levels)
        self.start_layout()

    # -- layout -------------------------------------------------------------------

    def start_layout(self) -> None:
        self.cancel_layout()
        level = self.level
        job = LayoutJob(level.graph, level.expanded, measure_label, parent=self)
        if self._pin_old is not None:
            # Pinning (and cutting the new layout into pieces for it) is pure
            # geometry: done in the worker, it costs the UI thread nothing.
            job.after = _pinner(self._pin_old, self.scene.view_model, job)
            shown = self.scene.view_model
            if shown is not None and shown.graph is level.graph:    # not a level still being left
                job.previous = shown
                job.stale = None if self._stale is None else set(self._stale)
        job.done.connect(lambda view_model, result, j=job: self._layout_done(view_model, result, j))
        job.failed.connect(lambda message, j=job: self._layout_failed(message, j))
        job.cancelled_signal.connect(lambda j=job: self._layout_cancelled(j))
        if not self.jobs.start(job):      # the application is quitting
            return
        self._job = job
        count = len(level.graph.nodes)
        self.busy.emit((self.tr("Laying out {title} ({n} node)…") if count == 1
                        else self.tr("Laying out {title} ({n} nodes)…")).format(title=level.title, n=count))

    def cancel_layout(self) -> None:
        if self._job is not None:
            job, self._job = self._job, None
            job.cancel()

    def wait_for_layout(self, timeout_ms: int = 120000) -> bool:
        """Block until the running layout finished (tests and headless render)."""
        from PySide6.QtCore import QCoreApplication, QDeadlineTimer, QElapsedTimer
        timer = QElapsedTimer()
        timer.start()
        while (self._job is not None or self._pending_target is not None) and timer.elapsed() < timeout_ms:
            if self._job is not None:
                self._job.wait(QDeadlineTimer(50))
            QCoreApplication.processEvents()
        return self._job is None

    def _layout_done(self, view_model, result, job) -> None:
        if job is not self._job:          # cancelled or superseded
            return
        self._job = None
        for note in result.warnings:
            self.warning.emit(note)
        if self.level.expanded is None:
            # Remember the default choice so later expand/collapse build on it.
            self.level.expanded = {p for p, g in view_model.groups.items() if g.expanded}
        elif job.previous is not None:
            # An edit may move group paths; the open groups followed them.
            self.level.expanded = set(view_model.expanded)
        if self._pending_target is not None and self._reveal_needs_expand(view_model):
            return
        pinned = self._pin_old is not None
        same = None
        if pinned:
            pinned_in_worker = getattr(job, "pinned", None)
            if pinned_in_worker is not None:
                same, self.pinned_changed = pinned_in_worker
            else:
                from onnxstudio.core.layout.api import MAX_PIECE
                from onnxstudio.core.layout.pieces import plan_pieces
                from .canvas.pinning import pin
                same = _same_things(self.scene.view_model, view_model)
                result, self.pinned_changed = pin(self._pin_old, result,
                                                  plan_pieces(view_model.request, MAX_PIECE), same)
            self._pin_old = None
        from onnxstudio.core import gc_policy
        with gc_policy.paused():
            self._populate(view_model, result, keep_view=pinned, same=same)
        self.idle.emit()
        self.laid_out.emit()
        if self._pending_target is not None:
            target, self._pending_target = self._pending_target, None
            self.select_object(target)

    def _layout_failed(self, message: str, job) -> None:
        if job is not self._job:
            return
        self._job = None
        self._pending_target = None
        self.idle.emit()
        self.failed.emit(message)

    def _layout_cancelled(self, job) -> None:
        if job is not self._job:
            return
        self._job = None
        self._pending_target = None
        self.idle.emit()

    def _populate(self, view_model, result, keep_view: bool, same=None) -> None:
        state = self._view_state() if keep_view else self.level.view_state
        selected = [item.ref.node or item.ref.value for item in self.scene.selectedItems()
                    if keep_view and isinstance(item, NodeItem) and item.ref is not None]
        self.view.reset_first_paint()
        # After an edit (same: box ids matched) unmoved items are kept, not rebuilt.
        self.scene.populate(view_model, result, self.inferred, same)
        self._stale = set()           # the shown view is up to date
        # Names decide groups: an edit of a hidden node that keeps its name needs no re-layout.
        self._names_laid_out = {id(n): n.name for n in self.level.graph.nodes}
        # Inputs decide edges and folded constants: a node whose inputs changed is laid out again.
        self._inputs_laid_out = {id(n): tuple(n.inputs) for n in self.level.graph.nodes}
        self._apply_badges()
        reselected = [self.scene.item_for_node(obj) for obj in selected
                      if isinstance(obj, Node) and obj.graph is not None]
        for item in reselected:
            if item is not None:
                item.setSelected(True)
        if not any(reselected) and self._selection_shown:
            self.selection_changed.emit(None)
        self._apply_placed()
        self.minimap.rebuild()
        self._place_minimap()
        if state is not None:
            self._restore_view(state)
        else:
            self.initial_view()

    def place_loose(self, node, scene_pos) -> None:
        """Show a node that reads and feeds nothing yet (dropped from the
        palette) where it was dropped, rather than where the layout puts it,
        until it is wired."""
        if node is not None:
            self._placed[id(node)] = (node, QPointF(scene_pos))
            self._apply_placed()

    def _apply_placed(self) -> None:
        from .canvas_edits import CanvasEdits
        for key, (node, pos) in list(self._placed.items()):
            if node.graph is None or not CanvasEdits.is_loose(node):
                del self._placed[key]
                continue
            item = self.scene.item_for_node(node) if node.graph is self.level.graph else None
            if item is not None and item.ref is not None and item.ref.node is node:
                item.setPos(item.pos() + (pos - item.sceneBoundingRect().center()))

    def initial_view(self) -> None:
        """Fit the graph when it stays readable; otherwise start at the top
        (where the inputs are) at reading size, and let the minimap give the
        overview — a 3,000-node graph fitted to the window is a grey smear."""
        self.view.fit_all()
        if self.view.current_scale() >= READABLE_SCALE or not self.scene.node_items:
            return
        self.view.zoom_by(START_SCALE / self.view.current_scale())
        top = min(self.scene.node_items.values(), key=lambda item: item.scene_rect().top())
        visible = self.view.visible_scene_rect()
        anchor = top.scene_rect()
        self.view.centerOn(anchor.center().x(), anchor.top() - 30 + visible.height() / 2)
        self.minimap._follow()

    # -- expand / collapse / enter --------------------------------------------------------

    def _activate(self, item) -> None:
        if isinstance(item, GroupFrame):
            self.collapse_group(item.path)
        elif isinstance(item, NodeItem) and item.ref is not None:
            vnode = item.ref
            if vnode.kind == "group":
                self.expand_group(vnode.group)
            elif vnode.node is not None:
                self._enter_node(vnode)
        elif isinstance(item, EdgeItem):
            self.view.zoom_to_selection()

    def _context_menu(self, pos) -> None:
        """The same actions as double-click, findable by right-click."""
        item = self.view.itemAt(pos)
        menu = QMenu(self)
        if isinstance(item, EdgeItem) and self.edge_menu_hook is not None:
            self.edge_menu_hook(menu, item)
        if isinstance(item, GroupFrame):
            menu.addAction(self.tr("Collapse {name}").format(name=item.path[-1]),
                           lambda: self.collapse_group(item.path))
        elif isinstance(item, NodeItem) and item.ref is not None:
            vnode = item.ref
            if vnode.kind == "group":
                menu.addAction(self.tr("Expand {name}").format(name=vnode.group[-1]),
                               lambda: self.expand_group(vnode.group))
            elif vnode.node is not None:
                for name, graph in vnode.node.subgraphs():
                    menu.addAction(self.tr("Open {name}").format(name=name), lambda g=graph: self.enter_graph(g))
                if vnode.function_key is not None and self.model is not None \
                        and vnode.function_key in self.model.functions:
                    body = self.model.functions[vnode.function_key].graph
                    menu.addAction(self.tr("Open function body"), lambda: self.enter_graph(body))
        for extend in self.menu_extenders:     # other docks' actions (e.g. Run to Node)
            extend(item, menu)
        if not menu.isEmpty():
            menu.addSeparator()
        menu.addAction(self.tr("Fit graph (F)"), self.view.fit_all)
        menu.addAction(self.tr("Expand all groups"), self.expand_all)
        menu.addAction(self.tr("Collapse all groups"), self.collapse_all)
        if len(self.levels) > 1:
            menu.addAction(self.tr("Back to enclosing graph (Esc)"), self.go_back)
        menu.exec(self.view.viewport().mapToGlobal(pos))

    def _enter_node(self, vnode) -> None:
        node = vnode.node
        bodies = list(node.subgraphs())
        if vnode.function_key is not None and self.model is not None:
            function = self.model.functions.get(vnode.function_key)
            if function is not None:
                bodies.append((self.tr("function {name}").format(name=function.name), function.graph))
        if len(bodies) == 1:
            self.enter_graph(bodies[0][1])
        elif bodies:
            menu = QMenu(self)
            for name, graph in bodies:
                menu.addAction(self.tr("Open {name}").format(name=name), lambda g=graph: self.enter_graph(g))
            menu.exec(self.cursor().pos())

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
        target = _target_node(obj)
        self._pending_target = target if target is not None else obj
        self._reveal_steps = 0
        if self.level.graph is graph and self._job is None and self.scene.view_model is not None:
            if not self._reveal_needs_expand(self.scene.view_model):
                target, self._pending_target = self._pending_target, None
                self.select_object(target)
            return
        self._remember_view()
        self.levels = levels_for(self.model, graph)
        self._show_level()

    def select_new_node(self, node) -> None:
        """Select a node an edit just made, once the canvas shows it. Named in
        its neighbour's scope, it can form a new group with that neighbour,
        closed by default: open it, or the user sees their node vanish."""
        if node is None or node.graph is not self.level.graph:
            return
        if self._job is None:           # relabelled in place: nothing is being laid out
            self.reveal(node, node.graph)
            return
        self._pending_target = node     # the running relayout opens groups and selects it
        self._reveal_steps = 0

    def _reveal_needs_expand(self, view_model) -> bool:
        """If the pending target sits in a collapsed group, open it and lay out again."""
        target = self._pending_target
        if not isinstance(target, Node) or self._reveal_steps >= MAX_REVEAL_STEPS:
            return False
        box_id = view_model.box_for(target)
        vnode = view_model.nodes.get(box_id) if box_id else None
        if vnode is None or vnode.kind != "group":
            return False
        self._reveal_steps += 1
        path = tuple(vnode.group)
        expanded = set(self.level.expanded or ())
        expanded.update(path[:i] for i in range(1, len(path) + 1))
        self.level.expanded = expanded
        self.level.view_state = None
        self.start_layout()
        return True

    def select_object(self, obj) -> bool:
        items = []
        if isinstance(obj, Node):
            item = self.scene.item_for_node(obj)
            items = [item] if item is not None else []
        elif isinstance(obj, Value):
            items = self.scene.items_for_value(obj)
        if not items:
            return False
        self.scene.clearSelection()
        for item in items:
            item.setSelected(True)
        self.view.center_on_item(items[0], zoom=1.0)
        return True

    # -- view state ----------------------------------------------------------------------

    def _view_state(self):
        centre = self.view.visible_scene_rect().center()
        return (self.view.current_scale(), centre.x(), centre.y())

    def _remember_view(self) -> None:
        if self.levels and self.scene.view_model is not None:
            self.level.view_state = self._view_state()

    def _restore_view(self, state) -> None:
        scale, x, y = state
        self.view.zoom_by(scale / self.view.current_scale())
        self.view.centerOn(QPointF(x, y))

    def _place_minimap(self) -> None:
        viewport = self.view.viewport().geometry()
        self.minimap.move(viewport.right() - self.minimap.width() - 12,
                          viewport.bottom() - self.minimap.height() - 12)

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        self._place_minimap()
        self.minimap._follow()          # hidden while the canvas is too small for it


def _pinner(old_layout, old_view_model, job):
    """The worker-side step of a pinned re-layout: pin the new layout to
    `old_layout` and leave (box id map, moved boxes) on `job.pinned`."""
    def after(view_model, result):
        from onnxstudio.core.layout.api import MAX_PIECE
        from onnxstudio.core.layout.pieces import plan_pieces
        from .canvas.pinning import pin
        same = _same_things(old_view_model, view_model)
        pieces = result.pieces or plan_pieces(view_model.request, MAX_PIECE)    # planned once
        result, changed = pin(old_layout, result, pieces, same)
        job.pinned = (same, changed)
        return result
    return after


def _same_things(old_vm, new_vm) -> dict:
    """New box id -> old box id of the box showing the same node, value or group."""
    if old_vm is None:
        return {}
    old_values = {id(v.value): k for k, v in old_vm.nodes.items() if v.value is not None}
    out = {}
    for k, v in new_vm.nodes.items():
        if v.node is not None:
            found = old_vm.box_for(v.node)
        elif v.value is not None:
            found = old_values.get(id(v.value))
        else:
            found = k if k in old_vm.nodes else None
        if found is not None:
            out[k] = found
    return out


def _same_objects(before, now) -> bool:
    return before is not None and len(before) == len(now) and all(a is b for a, b in zip(before, now))


def _target_node(obj):
    """Initializers and values are revealed through the node that uses or makes them."""
    if isinstance(obj, Node):
        return obj
    if isinstance(obj, Value) and obj.is_initializer and obj.uses:
        return obj.uses[0][0]
    return None
