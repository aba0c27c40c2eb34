"""Keeping outer values' use lists right when a subgraph body (an If/Loop/Scan
attribute) is attached to or detached from a node."""
from __future__ import annotations

from ..ir import AttrType


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


def attach_bodies(node, attr) -> None:
    for body in _bodies(attr):
        body.parent_node = node
        body.attr_name = attr.name
        for n, i, v in _outer_uses(body):
            if (n, i) not in v._uses:
                v._uses.append((n, i))
