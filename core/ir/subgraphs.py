"""Keeping outer values' use lists right when a subgraph body (an If/Loop/Scan
attribute) is attached to or detached from a node."""
from __future__ import annotations

from .graph import AttrType


def _bodies(attr):
    if attr.ref_attr_name:
        return []
    if attr.type == AttrType.GRAPH and attr.value is not None:
        return [attr.value]
    if attr.type == AttrType.GRAPHS:
        return list(attr.value or ())
    return []


def _outer_uses(body):
    """(node, index, value) for every input inside `body` that reads a value
    defined outside it."""
    inside = {id(g) for g in body.walk()}
    for g in body.walk():
        for n in g.nodes:
            for i, v in enumerate(n.inputs):
                if v is not None and id(v.graph) not in inside:
                    yield n, i, v


def detach_bodies(node, attr) -> None:
    for body in _bodies(attr):
        for n, i, v in _outer_uses(body):
            if (n, i) in v._uses:
                v._uses.remove((n, i))


def _defined(v) -> bool:
    return v.producer is not None or v.const is not None or v.is_graph_input


def _bind_outer_names(node, body) -> None:
    """A body built on its own (from an edit script) reads outer values
    through placeholder Values of its own; make it read the real ones."""
    outer = node.graph
    if outer is None:
        return
    for g in body.walk():
        for name, v in list(g._values.items()):
            if _defined(v):
                continue
            h, shadowed = g.parent_graph, False
            while h is not None and h is not outer and not shadowed:
                shadowed = name in h._values and _defined(h._values[name])
                h = h.parent_graph
            real = None if shadowed else outer.lookup(name)
            if real is None or real is v:
                continue
            for n, i in list(v._uses):
                n._inputs[i] = real
            v._uses.clear()
            g.outputs[:] = [real if o is v else o for o in g.outputs]
            del g._values[name]


def attach_bodies(node, attr) -> None:
    for body in _bodies(attr):
        body.parent_node = node
        body.attr_name = attr.name
        _bind_outer_names(node, body)
        for n, i, v in _outer_uses(body):
            if (n, i) not in v._uses:
                v._uses.append((n, i))
