"""Revealing an object the user asked for (a search hit, a problem, a node
an edit just made): the target waits until the canvas shows its level, and
each collapsed group hiding it is opened on the way, one layout at a time.

A Revealer does it on one GraphPanel, through the panel's public members.
"""
from __future__ import annotations

from onnxstudio.core.ir import Node, Value

MAX_REVEAL_STEPS = 32     # nested groups opened while revealing one target


def target_node(obj):
    """Initializers and values are revealed through the node that uses or makes them."""
    if isinstance(obj, Node):
        return obj
    if isinstance(obj, Value) and obj.is_initializer and obj.uses:
        return obj.uses[0][0]
    return None


class PendingReveal:
    """The object to select once the next layout is shown (None: nothing)."""

    def __init__(self):
        self.target = None
        self.asked = None       # what was asked for: an initializer, where the target is its reader
        self._steps = 0

    def set(self, obj, asked=None) -> None:
        self.target = obj
        self.asked = asked if asked is not None else obj
        self._steps = 0

    def take(self):
        target, self.target = self.target, None
        return target

    def open_hiding_group(self, view_model, level) -> bool:
        """If the target sits in a collapsed group of `view_model`, mark that
        group (and its parents) open on `level` and return True: the level
        must be laid out again before the target can be shown."""
        anchor = _anchor(self.target)
        if anchor is None or self._steps >= MAX_REVEAL_STEPS:
            return False
        box_id = view_model.box_for(anchor)
        vnode = view_model.nodes.get(box_id) if box_id else None
        if vnode is None or vnode.kind != "group":
            return False
        self._steps += 1
        path = tuple(vnode.group)
        expanded = set(level.expanded or ())
        expanded.update(path[:i] for i in range(1, len(path) + 1))
        level.expanded = expanded
        level.view_state = None
        return True


class Revealer:
    def __init__(self, panel):
        self.panel = panel
        self.pending = PendingReveal()      # what to select once the next layout is shown
        self._others: list = []             # selected with it (an undo brings back several nodes)

    @property
    def waiting(self) -> bool:
        """A target waits for a layout to be shown."""
        return self.pending.target is not None

    def reveal(self, obj, graph) -> None:
        """Show `obj` (ir.Node or ir.Value) of `graph`: enter the graph, open the
        groups hiding it, select and centre it."""
        panel = self.panel
        self._others = []
        target = target_node(obj)
        if isinstance(obj, Value) and obj.is_initializer and len(obj.uses) > 1 and panel.level.graph is graph:
            target = panel.selection.reader_near(obj) or target
        self.pending.set(target if target is not None else obj, asked=obj)
        if panel.level.graph is graph and not panel.layout_running and panel.scene.view_model is not None:
            if not self.pending.open_hiding_group(panel.scene.view_model, panel.level):
                self.select_waiting()
            else:
                panel.start_layout()
            return
        panel.remember_view()
        panel.show_graph(graph)

    def select_new_node(self, node, others=()) -> None:
        """Select a node an edit just made (or what a delete left, or what an
        undo brought back: a node or a graph input), once the canvas shows it;
        `others` of the shown level are selected with it. Named in its
        neighbour's scope, a new node can form a new group with that
        neighbour, closed by default: open it, or the user sees their node vanish."""
        panel = self.panel
        if node is None or node.graph is not panel.level.graph:
            return
        if not panel.layout_running:    # relabelled in place: nothing is being laid out
            self.reveal(node, node.graph)
        else:
            self.pending.set(node)      # the running relayout opens groups and selects it
        self._others = list(others)
        if not self.waiting:            # selected already
            self._select_others()

    def opens_group(self, view_model) -> bool:
        """A layout of the shown level is done: if the waiting target sits in
        a collapsed group of it, open the group on the level and return True
        (the level must be laid out again before the target can be shown)."""
        return self.waiting and self.pending.open_hiding_group(view_model, self.panel.level)

    def select_waiting(self) -> None:
        """Select the waiting target on the canvas shown now, and say what was asked for."""
        if not self.waiting:
            return
        asked = self.pending.asked
        if self.panel.selection.select(self.pending.take()):
            self._select_others()
            self.panel.revealed.emit(asked)

    def _select_others(self) -> None:
        others, self._others = self._others, []
        if others:
            self.panel.selection.restore(others)

    def drop(self) -> None:
        """No picture comes of the layout the target waited for."""
        self.pending.set(None)
        self._others = []


def _anchor(target):
    """The node whose box must show for `target` to show: the node itself;
    for a value its producer, else (a graph input) its first reader, so
    that the value's edge is drawn."""
    if isinstance(target, Node):
        return target
    if isinstance(target, Value):
        if target.producer is not None:
            return target.producer
        if target.uses:
            return target.uses[0][0]
    return None
