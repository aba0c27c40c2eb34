"""What an edit's `Changes` make inference look at again.

Inference re-runs main-graph nodes only: a node inside a subgraph is
inferred when the main-graph node holding it runs, and a function body
when a call of the function does. So every touched thing is mapped to the
main-graph node above it, or to the calls of the function it belongs to;
a function called from another function's body counts as changed in its
callers too (main calls F, F calls G: an edit in G re-infers the call of F).
"""
from __future__ import annotations

from ..ir.nesting import holder_in


def affected(model, changes) -> tuple[set, set, list]:
    """(main-graph nodes to infer again, values whose declaration or data
    changed, nodes removed from the model) for `changes`."""
    main = model.graph
    nodes, values = set(), set()
    calls = set(changes.functions)

    def reach(graph):
        top, key = holder_in_main(graph, main)
        if top is not None:
            nodes.add(top)
        elif key is not None:
            calls.add(key)
    for n in changes.nodes_changed | changes.nodes_added:
        if n.graph is main:
            nodes.add(n)
        elif n.graph is not None:
            reach(n.graph)
    for g in changes.graphs | changes.graph_io | changes.value_info:
        if g is not main:
            reach(g)
    for v in changes.values_retyped | changes.initializers:
        if v.graph is None or v.graph is main:
            values.add(v)
        else:
            reach(v.graph)
    if main in changes.graph_io:
        values.update(main.inputs)
        nodes.update(v.producer for v in main.outputs if v.producer is not None)
    if calls:
        nodes |= _calls_of(_with_callers(calls, model), main)
    removed = [n for n in changes.nodes_removed if n.graph is None]
    return nodes, values, removed


def _calls_of(keys: set, main) -> set:
    """The main-graph nodes that call, or hold a subgraph calling, one of
    the functions `keys` ((domain, name, overload))."""
    found = set()
    for g in main.walk():
        for n in g.nodes:
            if (n.domain, n.op_type, n.overload) in keys:
                found.add(n if g is main else holder_in_main(g, main)[0])
    found.discard(None)
    return found


def _with_callers(keys: set, model) -> set:
    """`keys` and every function whose body (subgraphs included) calls one
    of them, directly or through other functions. A recursive model is
    invalid (the checker says so) but must not loop here: each function is
    added once."""
    callers: dict = {}          # function key -> keys of the functions calling it
    for key, function in model.functions.snapshot().items():
        for g in function.graph.walk():
            for n in g.nodes:
                callers.setdefault((n.domain, n.op_type, n.overload), set()).add(key)
    found = set(keys)
    todo = list(keys)
    while todo:
        for caller in callers.get(todo.pop(), ()):
            if caller not in found:
                found.add(caller)
                todo.append(caller)
    return found


def holder_in_main(graph, main):
    """(the main-graph node holding `graph`, None), or (None, function key)
    for a function body, or (None, None) for the main graph itself or a
    graph no longer attached."""
    holder = holder_in(graph, main)
    if holder is not None:
        return holder, None
    owner = graph.root().owner
    return None, (owner.key if getattr(owner, "is_function", False) else None)
