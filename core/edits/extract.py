"""Extract part of a model as a new model (like onnx.utils.extract_model):
the nodes needed to compute `outputs` from `inputs`, the initializers they
read, and typed declarations on the new boundary (types from inference, so
a cut through the middle of a graph still has shapes)."""
from __future__ import annotations

from typing import Sequence

from ..ir import SparseTensor
from ..ir.nesting import subgraph_reads
from .base import EditError


def _needed(graph, inputs, outputs):
    """Nodes (in graph order) and initializer values needed for `outputs`
    when `inputs` are given; EditError naming a value that cannot be had."""
    stop = {id(v) for v in inputs}
    nodes, inits, seen = set(), [], set()
    stack = [(v, None) for v in outputs]
    while stack:
        v, reader = stack.pop()
        if id(v) in stop or id(v) in seen:
            continue
        seen.add(id(v))
        p = v.producer
        if p is not None and p.graph is graph:
            if id(p) not in nodes:
                nodes.add(id(p))
                stack.extend((x, p) for x in p.inputs if x is not None)
                stack.extend((x, p) for x in subgraph_reads(p))
        elif v.const is not None:
            inits.append(v)
        else:
            who = f" (read by {reader.display_name})" if reader is not None else ""
            raise EditError(f"value {v.name!r}{who} is needed to compute the outputs but is not among the "
                            f"inputs; add it to the inputs")
    return [n for n in graph.nodes if id(n) in nodes], inits


def _functions_used(model, nodes) -> list:
    keys, order, stack = set(), [], list(nodes)
    while stack:
        n = stack.pop()
        for _, body in n.subgraphs():
            stack.extend(body.all_nodes())
        f = model.functions.get((n.domain, n.op_type, n.overload))
        if f is not None and f.key not in keys:
            keys.add(f.key)
            order.append(f)
            stack.extend(f.graph.all_nodes())
    return [f for f in model.functions.values() if f.key in keys]


def extract_model(model, inputs: Sequence[str], outputs: Sequence[str]):
    """A new Model computing `outputs` from `inputs` (value names of the main
    graph), built with the IR's copier (the machinery of Model.clone): the
    needed nodes, bodies and functions are copies, weights are shared with
    `model` (external data stays readable and is written beside the new
    file when it is saved). The boundary is declared with inferred types."""
    from ..infer import Inference
    from ..ir.clone import Cloner
    g = model.graph
    if not outputs:
        raise EditError("give at least one output to extract")

    def value(name, role):
        v = g.get_value(name)
        if v is None or not (v.producer is not None or v.const is not None or v.is_graph_input):
            raise EditError(f"{role} {name!r}: the main graph has no value of that name")
        return v

    ins = [value(n, "input") for n in inputs]
    outs = [value(n, "output") for n in outputs]
    nodes, inits = _needed(g, ins, outs)
    inf = Inference(model)
    inf.run()

    cl = Cloner()
    new = cl.model_shell(model)
    # The new model says only what it is: no metadata, training info or
    # unknown fields of the model it was cut from.
    new.metadata_props, new.training_info, new.configuration = {}, [], []
    new.remember_source(None, frozenset())
    new.remember_opsets(None)
    new.path = None
    ng = cl.graph(g, owner=new, nodes=nodes, name=g.name or "extracted")
    new.graph = ng

    def declare(kind, v):
        c = cl.value(v)
        c.type = inf.type_of(v) or v.type     # the copy is not shared with anyone yet
        declarations = ng.declarations(kind)
        ng.insert_declaration(kind, len(declarations), c)

    for v in ins:
        declare("input", v)
        cl.value(v).const = None     # an initializer cut at: the new model is fed it
    for v in inits:
        ng.add_initializer(cl.value(v), sparse=isinstance(v.const, SparseTensor))
    for v in outs:
        declare("output", v)
    boundary = {id(v) for v in ins} | {id(v) for v in outs}
    kept = {id(x) for n in nodes for x in n.outputs if x is not None}
    for v in g.value_info:
        if id(v) in kept and id(v) not in boundary:
            ng.insert_declaration("value_info", len(ng.value_info), cl.value(v))
    for f in _functions_used(model, nodes):
        new.add_function(cl.function(f))
    cl.finish()
    return new
