"""Extract part of a model as a new model (like onnx.utils.extract_model):
the nodes needed to compute `outputs` from `inputs`, the initializers they
read, and typed declarations on the new boundary (types from inference, so
a cut through the middle of a graph still has shapes)."""
from __future__ import annotations

from typing import Sequence

from ..ir import SparseTensor
from ..ir.types import type_to_proto
from ..proto import onnx_pb2 as pb
from .base import EditError
from .reads import subgraph_reads


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
    graph). Weights are shared with `model` (external data stays readable
    and is written beside the new file when it is saved)."""
    from ..infer import Inference
    from ..serde.convert import ProtoWriter, model_from_proto, node_to_proto, value_info_to_proto
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

    mp = pb.ModelProto()
    mp.ir_version = model.ir_version
    for domain, version in model.opset_imports.items():
        o = mp.opset_import.add()
        o.domain, o.version = domain, version
    for field in ("producer_name", "producer_version", "domain", "doc_string"):
        if getattr(model, field):
            setattr(mp, field, getattr(model, field))
    if model.model_version:
        mp.model_version = model.model_version
    mp.graph.name = g.name or "extracted"
    for n in nodes:
        mp.graph.node.append(node_to_proto(n))

    def declare(field, v):
        vi = field.add()
        vi.name = v.name
        t = inf.type_of(v) or v.type
        if t is not None:
            type_to_proto(t, vi.type)

    for v in ins:
        declare(mp.graph.input, v)
    for v in outs:
        declare(mp.graph.output, v)
    # Initializers go in as placeholders and get the original tensors back
    # below: no weight is copied or read here.
    for v in inits:
        c = v.const
        if isinstance(c, SparseTensor):
            sp = mp.graph.sparse_initializer.add()
            sp.values.name = v.name
            sp.dims.extend(c.dims)
        else:
            tp = mp.graph.initializer.add()
            tp.name = v.name
            tp.data_type = int(c.dtype)
            tp.dims.extend(c.shape)
    boundary = {id(v) for v in ins} | {id(v) for v in outs}
    kept = {id(x) for n in nodes for x in n.outputs if x is not None}
    for v in g.value_info:
        if id(v) in kept and id(v) not in boundary:
            mp.graph.value_info.append(value_info_to_proto(v))
    writer = ProtoWriter(lambda t: t.to_proto(), False)
    for f in _functions_used(model, nodes):
        writer.function(f, mp.functions.add())
    new = model_from_proto(mp)
    for v in inits:
        table = new.graph.sparse_initializers if isinstance(v.const, SparseTensor) else new.graph.initializers
        table[v.name].const = v.const
    return new
