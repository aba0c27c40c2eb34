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

from typing import Union

from .base import EditError

NodeRef = Union[str, dict]
GraphPath = tuple


def node_ref(node) -> NodeRef:
    g = node.graph
    if node.name and g is not None and sum(1 for n in g.nodes if n.name == node.name) == 1:
        return node.name
    for v in node.outputs:
        if v is not None and v.name:
            return {"output": v.name}
    return {"index": node.index}


def find_node(graph, ref: NodeRef):
    """The node `ref` names in `graph`; EditError naming the graph if none."""
    if isinstance(ref, str):
        hits = [n for n in graph.nodes if n.name == ref]
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


def describe_ref(ref: NodeRef) -> str:
    if isinstance(ref, str):
        return f'named "{ref}"'
    if "output" in ref:
        return f"producing {ref['output']!r}"
    return f"at index {ref.get('index')}"


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
