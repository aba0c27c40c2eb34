"""Node-order edits that an edit script can carry to another file.

`SetNodeOrder` (wiring.py) lists every node by its position, which only
means something on the very file it was recorded on: a re-export that
moves its Constants first, or has another node count, refuses it. The
edits here name what they move by the nodes and values involved and work
out the positions when applied, so a script replays on a re-export.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar

from .base import Changes, Edit, EditError, Macro, register
from .compound import toposort
from .graph_edit import GraphEdit
from .refs import GraphPath, NodeRef, find_node
from .wiring import SetNodeOrder, name_list, visible_value


@register
@dataclass
class MoveProducersBefore(GraphEdit):
    """Let `node` read `values`: the nodes producing them, with the nodes
    they need that come after `node`, move (keeping their order) to just
    before `node`. Nothing moves when they already come first. This is what
    connecting a later node's output to an earlier node needs."""
    kind: ClassVar[str] = "move_producers_before"
    node: NodeRef
    values: list = field(default_factory=list)
    graph: GraphPath = ()

    def edit_graph(self, model, g, changes: Changes) -> Edit:
        node = find_node(g, self.node)
        order = order_reading(node, [visible_value(g, name, f"{g.path}, {node.display_name}")
                                     for name in name_list(self.values, node.path, "values") if name])
        if order is None:
            return Macro([], self.describe())
        # SetNodeOrder checks the new order and returns the inverse that puts the old one back.
        return SetNodeOrder(order, self.graph).edit_graph(model, g, changes)

    def describe(self) -> str:
        return "Reorder nodes"


@register
@dataclass
class SortNodes(GraphEdit):
    """Sort the graph's nodes topologically, moving as little as it can (of
    the nodes ready to go, the one that came first goes first)."""
    kind: ClassVar[str] = "sort_nodes"
    graph: GraphPath = ()

    def edit_graph(self, model, g, changes: Changes) -> Edit:
        return toposort(model, self.graph).apply(model, changes)

    def describe(self) -> str:
        return "Sort nodes"


def order_reading(node, values) -> list | None:
    """A node order (as SetNodeOrder takes it) in which the producers of
    `values` and what they need that comes after `node` move, in their
    order, to just before `node`; None when nothing has to move. EditError
    when `node` itself is among them (reading them would make a cycle)."""
    g = node.graph
    roots = [v.producer for v in values
             if v.producer is not None and v.producer.graph is g and v.producer.index >= node.index]
    if not roots:
        return None
    needed, stack = {id(p) for p in roots}, list(roots)
    while stack:
        n = stack.pop()
        if n is node:
            raise EditError(f"{g.path}: {node.display_name} cannot read what it produces itself, "
                            f"or what is made from it (a cycle)")
        for v in n.inputs:
            p = v.producer if v is not None else None
            if p is not None and p.graph is g and p.index >= node.index and id(p) not in needed:
                needed.add(id(p))
                stack.append(p)
    nodes = list(g.nodes)
    moved = [i for i, n in enumerate(nodes) if id(n) in needed]
    order = []
    for i, n in enumerate(nodes):
        if i == node.index:
            order.extend(moved)
        if id(n) not in needed:
            order.append(i)
    return order
