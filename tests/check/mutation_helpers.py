"""Shared pieces of the mutation modules: paths spelled independently of the
checker, and finders for the thing a mutation breaks."""
from __future__ import annotations

import json

import onnx
import onnx.defs
from onnx import AttributeProto, TensorProto

A = AttributeProto


def q(name: str) -> str:
    return json.dumps(name, ensure_ascii=False)


def npath(i: int, node, gpath: str = "graph") -> str:
    label = f"{gpath}/node[{i}] {node.op_type}" if node.op_type else f"{gpath}/node[{i}]"
    return f"{label} {q(node.name)}" if node.name else label


def schema_of(node, m):
    domain = node.domain or ""
    if domain not in ("", "ai.onnx", "ai.onnx.ml"):
        return None
    version = {o.domain or "": o.version for o in m.opset_import}.get(domain if domain != "ai.onnx" else "")
    try:
        return onnx.defs.get_schema(node.op_type, version, domain)
    except Exception:   # noqa: BLE001 - no schema: not a standard node
        return None


def std_nodes(m):
    return [(i, n) for i, n in enumerate(m.graph.node) if schema_of(n, m) is not None]


def produced_by(m):
    return {o: i for i, n in enumerate(m.graph.node) for o in n.output if o}


def plain_inputs(m):
    inits = {t.name for t in m.graph.initializer}
    return [(k, vi) for k, vi in enumerate(m.graph.input) if vi.name not in inits]


def first_edge(m):
    """(producer index, consumer index, input slot) of the first direct edge."""
    produced = produced_by(m)
    for j, n in enumerate(m.graph.node):
        for k, name in enumerate(n.input):
            if name in produced and produced[name] < j:
                return produced[name], j, k
    return None


def first_attr(m, pred=lambda n, a: True):
    for i, n in std_nodes(m):
        for a in n.attribute:
            if pred(n, a):
                return i, n, a
    return None


def find_initializer(m, pred=lambda t: True):
    for t in m.graph.initializer:
        if t.data_type != TensorProto.STRING and pred(t):
            return t
    return None


def elements(t):
    n = 1
    for d in t.dims:
        n *= d
    return n


def make_external(t, location):
    for f in ("raw_data", "float_data", "int32_data", "int64_data", "double_data", "uint64_data"):
        t.ClearField(f)
    t.data_location = TensorProto.EXTERNAL
    t.external_data.add(key="location", value=location)


def first_subgraph(m):
    for i, n in enumerate(m.graph.node):
        for a in n.attribute:
            if a.type == A.GRAPH and len(a.g.node):
                return f"{npath(i, n)}/attribute {q(a.name)}", a.g
    return None


def first_function(m):
    return m.functions[0] if len(m.functions) else None


def fpath(fn) -> str:
    return f"functions/{q(fn.name)}"


def first_sparse(m):
    return m.graph.sparse_initializer[0] if len(m.graph.sparse_initializer) else None

