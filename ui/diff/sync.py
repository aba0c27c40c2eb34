"""Navigation that follows from one canvas to the other: selecting a node
selects its partner, entering a body enters the partner's body, opening a
group opens the groups holding the partners of its nodes.

Each side asks the other only when the other does not already show what
it would be asked to, so following never echoes back and forth."""
from __future__ import annotations

from ...core.ir import Node, Value


def selected_object(panel):
    items = panel.scene.selectedItems()
    ref = getattr(items[0], "ref", None) if items else None
    if ref is None:
        return None
    return getattr(ref, "node", None) or getattr(ref, "value", None)


class NavigationSync:
    def __init__(self, left, right, diff):
        self.left, self.right, self.diff = left, right, diff
        m = diff.matching
        self._sides = {left: (right, m.nodes, m.values), right: (left, m.nodes_back, m.values_back)}
        for panel in (left, right):
            panel.selection_changed.connect(lambda ref, p=panel: self._selected(p, ref))
            panel.laid_out.connect(lambda p=panel: self._laid_out(p))

    def partner(self, panel, obj):
        _, nodes, values = self._sides[panel]
        if isinstance(obj, Node):
            return nodes.get(obj)
        if isinstance(obj, Value):
            return values.get(obj)
        return None

    def partner_graph(self, panel, graph):
        """The graph of the other side that `graph` (shown on `panel`) corresponds to."""
        other, nodes, _ = self._sides[panel]
        if graph.parent_node is None:
            if graph is panel.model.graph:
                return other.model.graph
            owner = graph.owner           # a function body: the function with the same key
            fn = other.model.functions.get(getattr(owner, "key", None))
            return fn.graph if fn is not None else None
        parent = nodes.get(graph.parent_node)
        if parent is None:
            return None
        return dict(parent.subgraphs()).get(graph.attr_name)

    def _selected(self, panel, ref) -> None:
        obj = selected_object(panel)
        if obj is None:
            return
        other = self._sides[panel][0]
        target = self.partner(panel, obj)
        if target is None or selected_object(other) is target:
            return
        if target.graph is not None:
            other.reveal(target, target.graph)

    def _laid_out(self, panel) -> None:
        other = self._sides[panel][0]
        if not panel.levels or not other.levels:
            return
        graph = self.partner_graph(panel, panel.level.graph)
        if graph is None:
            return
        if other.level.graph is not graph:
            if not other.layout_running:
                other.show_graph(graph)
            return
        self._follow_groups(panel, other)

    def _follow_groups(self, panel, other) -> None:
        """Open on `other` the groups holding the partners of nodes inside the
        groups open on `panel`, to the same depth."""
        mine, theirs = panel.scene.view_model, other.scene.view_model
        if mine is None or theirs is None or other.layout_running:
            return
        open_here = set(mine.expanded or ()) | {p for p, g in mine.groups.items() if g.expanded}
        if not open_here:
            return
        wanted = set()
        for node in panel.level.graph.nodes:
            path = mine.path_of_node.get(id(node))
            if not path:
                continue
            depth = max((len(p) for p in open_here if tuple(path[:len(p)]) == tuple(p)), default=0)
            partner = self.partner(panel, node)
            their_path = theirs.path_of_node.get(id(partner)) if partner is not None else None
            if depth and their_path:
                wanted.update(tuple(their_path[:i]) for i in range(1, min(depth, len(their_path)) + 1))
        known = set(theirs.groups)
        expanded = set(other.level.expanded or ())
        missing = {p for p in wanted if p in known} - expanded
        if missing:
            other.level.expanded = expanded | missing
            other.start_layout()

