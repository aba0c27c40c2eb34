"""What a node reads from its own graph through the subgraphs it holds
(a Loop body or If branch may use any value of the enclosing scopes)."""
from __future__ import annotations


def captured(body):
    """The values read inside `body` (nested bodies included) that are defined outside it."""
    inside = {id(g) for g in body.walk()}
    for g in body.walk():
        for n in g.nodes:
            for v in n.inputs:
                if v is not None and id(v.graph) not in inside:
                    yield v


def subgraph_reads(node):
    """The outside values the subgraphs of `node` read (repeats included)."""
    for _, body in node.subgraphs():
        yield from captured(body)
