"""How edits name graphs and nodes: by path and name, never by identity.

A graph path is a tuple of steps from the model:
  ()                                    the main graph
  (("node", REF, "then_branch"),)       the body in attribute then_branch of node REF
  (("node", REF, "branches", 2),)       the third graph of a GRAPHS attribute
  (("function", "domain", "name", ""),) a model-local function's body
Steps chain: a Loop body inside an If branch is two "node" steps.

A node reference (REF) is its name when that is non-empty and unique in its
graph, else {"output": first non-empty output name} (output names are unique
in SSA form), else {"index": position}. In JSON a path is a list of lists and
a REF a string or a one-key object, so edit scripts stay readable.
"""
from __future__ import annotations

import threading
from contextlib import contextmanager
from itertools import chain
from typing import Union

from .base import EditError

NodeRef = Union[str, dict]
GraphPath = tuple


def node_ref(node) -> NodeRef:
    g = node.graph
    if node.name and g is not None and len(_named(g, node.name, node)) == 1:
        return node.name
    for v in node.outputs:
        if v is not None and v.name:
            return {"output": v.name}
    return {"index": node.index}


def find_node(graph, ref: NodeRef):
    """The node `ref` names in `graph`; EditError naming the graph if none."""
    if isinstance(ref, str):
        hits = _named(graph, ref)
        if len(hits) == 1:
            return hits[0]
        if hits:
            raise EditError(f"{graph.path}: {len(hits)} nodes are named {ref!r}; refer to one by its output")
    elif isinstance(ref, dict) and "output" in ref:
        v = graph.get_value(ref["output"])
        if v is not None and v.producer is not None and v.producer.graph is graph:
            return v.producer
    elif isinstance(ref, dict) and "index" in ref:
        i = ref["index"]
        if isinstance(i, int) and 0 <= i < len(graph.nodes):
            return graph.nodes[i]
    raise EditError(f"{graph.path}: no node {describe_ref(ref)}")


def describe_ref(ref) -> str:
    """How a message names the node `ref` refers to. Scripts are JSON from
    anywhere, so a reference of no known form is named as given, with the
    forms there are."""
    if isinstance(ref, str):
        return f'named "{ref}"'
    if isinstance(ref, dict) and "output" in ref:
        return f"producing {ref['output']!r}"
    if isinstance(ref, dict) and "index" in ref:
        return f"at index {ref['index']!r}"
    return f"referred to as {ref!r}: a node is referred to by {REF_FORMS}"


# The forms of a node reference, as messages name them.
REF_FORMS = 'a node name (a string), {"output": a name it produces} or {"index": its position}'


def graph_path(graph) -> GraphPath:
    """The path of `graph` (main graph, subgraph body or function body)."""
    steps = []
    g = graph
    while g.parent_node is not None:
        node = g.parent_node
        attr = node.attributes.get(g.attr_name)
        if attr is not None and isinstance(attr.value, (list, tuple)):
            k = next(i for i, sub in enumerate(attr.value) if sub is g)
            steps.append(("node", node_ref(node), g.attr_name, k))
        else:
            steps.append(("node", node_ref(node), g.attr_name))
        g = node.graph
    owner = g.owner
    if owner is not None and getattr(owner, "is_function", False):
        steps.append(("function",) + tuple(owner.key))
    return tuple(reversed(steps))


def find_graph(model, path: GraphPath):
    """The graph at `path`; EditError naming the first step that does not resolve."""
    g = model.graph
    for step in path or ():
        step = tuple(step)
        if step[0] == "function":
            key = tuple(step[1:]) + ("",) * (4 - len(step))
            fn = model.functions.get(key[:3])
            if fn is None:
                raise EditError(f"no model-local function {key[0]}::{key[1]}")
            g = fn.graph
        elif step[0] == "node":
            node = find_node(g, step[1])
            attr = node.attributes.get(step[2])
            if attr is None:
                raise EditError(f"{node.path}: no attribute {step[2]!r} holding a subgraph")
            sub = attr.value
            if len(step) > 3:
                if not isinstance(sub, (list, tuple)) or not 0 <= step[3] < len(sub):
                    raise EditError(f'{node.path}/attribute "{step[2]}": no graph [{step[3]}]')
                sub = sub[step[3]]
            if sub is None or not hasattr(sub, "nodes"):
                raise EditError(f'{node.path}/attribute "{step[2]}" holds no graph')
            g = sub
        else:
            raise EditError(f"unknown graph path step {step!r}")
    return g


def to_json_path(path: GraphPath) -> list:
    return [list(s) for s in path]


def from_json_path(data) -> GraphPath:
    return tuple(tuple(s) for s in (data or ()))


# -- node names indexed for a run of edits ----------------------------------------------------
# Naming a node costs a pass over its graph (is the name unique there?), and
# every step of a script names nodes two or three times: a third of the time
# deriving a 3,000-node model's diff script went to these passes. Inside
# `node_names_indexed` the names come from an index instead, kept right by
# the Changes of each step (`follow`): every edit records the nodes it
# renames, adds or removes there, and a lookup first files again the nodes
# the current Changes hold (O(touched)). An entry is believed only while the
# node is still in that graph under that name; a lookup the index cannot
# answer (no node, or the node asked about is not filed under its name)
# scans the graph as before and files it again.

_active = threading.local()     # one index per thread: the compare window derives in a job thread


@contextmanager
def node_names_indexed(model):
    """Look node names up in an index while the block runs edits on
    `model`; the block passes each step's Changes to `follow`, before the
    step applies or right after (and calls `forget` after a step that
    failed part way, if the block goes on)."""
    index = _NodeNames(model)
    previous = getattr(_active, "index", None)
    _active.index = index
    try:
        yield index
    finally:
        _active.index = previous


class _NodeNames:
    def __init__(self, model):
        self.model = model
        self._tables: dict = {}     # Graph -> {name: [Node filed under it]}
        self._filed: dict = {}      # Node -> (Graph, name) it is filed under
        self._changes = None

    def follow(self, changes) -> None:
        """The next step records what it touches in `changes`."""
        self._catch_up()
        self._changes = changes

    def forget(self) -> None:
        """Something changed that no Changes told of: index again on demand."""
        self._tables.clear()
        self._filed.clear()
        self._changes = None

    def named(self, graph, name: str):
        """The nodes of `graph` called `name`, or None when `graph` is not
        one of this model's."""
        table = self._tables.get(graph)
        if table is None:
            if not self._serves(graph):
                return None
            table = self._index(graph)
        else:
            self._catch_up()
        return [n for n in table.get(name, ()) if n.graph is graph and n.name == name]

    def rebuild(self, graph) -> None:
        self._tables.pop(graph, None)
        self._index(graph)

    def _serves(self, graph) -> bool:
        owner = graph.root().owner
        model = self.model
        if owner is model:
            return True
        return getattr(owner, "is_function", False) and model.functions.get(owner.key) is owner

    def _index(self, graph) -> dict:
        self._catch_up()
        table = self._tables[graph] = {}
        filed = self._filed
        for n in graph.nodes:
            table.setdefault(n.name, []).append(n)
            filed[n] = (graph, n.name)
        return table

    def _catch_up(self) -> None:
        changes = self._changes
        if changes is not None:
            for n in chain(changes.nodes_changed, changes.nodes_added):
                self.file(n)

    def file(self, node) -> None:
        """File `node` under the name and graph it has now."""
        filed = self._filed
        where = (node.graph, node.name)
        old = filed.get(node)
        if old == where:
            return
        if old is not None:
            bucket = self._tables.get(old[0], {}).get(old[1])
            if bucket is not None and node in bucket:
                bucket.remove(node)
        table = self._tables.get(where[0])
        if table is not None:
            table.setdefault(node.name, []).append(node)
            filed[node] = where
        else:
            filed.pop(node, None)


def _named(graph, name: str, node=None) -> list:
    """The nodes of `graph` called `name` (with `node`: one of which should
    be `node`, else the index is not believed)."""
    index = getattr(_active, "index", None)
    if index is not None:
        if node is not None:
            # Asked about a node (an edit naming the node it just renamed or
            # added, for its inverse): filed as it is now, before its step's
            # Changes are followed.
            index.file(node)
        hits = index.named(graph, name)
        if hits and (node is None or node in hits):
            return hits
        if hits is not None:
            index.rebuild(graph)    # not filed as expected: scan, as without the index
    return [n for n in graph.nodes if n.name == name]
