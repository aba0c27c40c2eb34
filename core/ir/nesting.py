"""How graphs nest: which top-level node holds a node, and which values a
subgraph reads from the scopes around it.

One copy of each question, because the copies that grew in the checker,
inference, edits, layout and the executor answered the edge cases
differently (a name shadowed inside a body, a node inside a function body,
a value no longer attached to a graph).
"""
from __future__ import annotations

from typing import Optional

# outer_uses lives in graph.py, which keeps use lists right with it when a
# body is attached or detached; ir.nesting is where the rest of core asks.
from .graph import Graph, Node, Value, outer_uses


def top_level_node(node: Node, graph: Graph) -> Optional[Node]:
    """The node of `graph` that is `node` or holds it in a subgraph at any
    depth; None when `node` is not inside `graph` (a node of a function body
    or of another graph, or one no longer attached)."""
    while node is not None and node.graph is not None and node.graph is not graph:
        node = node.graph.parent_node
    return node if node is not None and node.graph is graph else None


def holder_in(body: Graph, graph: Graph) -> Optional[Node]:
    """The node of `graph` that holds `body` (a subgraph at any depth); None
    when `body` is not below `graph`, including when it is `graph` itself."""
    holder = body.parent_node
    return None if holder is None else top_level_node(holder, graph)


def outer_values(body: Graph) -> list[Value]:
    """The distinct values `body` reads from outside (see `outer_uses`), in
    the order they are first read."""
    found: dict[int, Value] = {}
    for _, _, v in outer_uses(body):
        found.setdefault(id(v), v)
    return list(found.values())


def subgraph_reads(node: Node) -> list[Value]:
    """The distinct values the subgraphs of `node` read from outside them,
    in first-read order (a value read by two branches is listed once)."""
    found: dict[int, Value] = {}
    for _, body in node.subgraphs():
        for _, _, v in outer_uses(body):
            found.setdefault(id(v), v)
    return list(found.values())


def node_reads(node: Node) -> list[Value]:
    """Everything `node` reads: its inputs (repeats kept, in order), then what
    its subgraphs read from outside them (each once)."""
    return [v for v in node.inputs if v is not None] + subgraph_reads(node)
