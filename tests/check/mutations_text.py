"""Mutations putting invalid UTF-8 into one text field (a damaged file; onnx
and onnxruntime load such files): every field the rules read reports
text.invalid-utf8 at its place (see check_mutations.py for the contract).

protobuf refuses invalid UTF-8 in a str field, so a mutation writes a
marker character into the field and replaces its bytes in the serialized
model with as many bytes that are not UTF-8, then parses that back into
the model: each of the three becomes one U+FFFD in the IR and in paths.
"""
from __future__ import annotations

from onnx import AttributeProto

from mutation_helpers import first_function, first_subgraph, fpath, npath, q, std_nodes

MARK = "\u2603"                     # three bytes in UTF-8, in no base
SHOWN = "\ufffd" * 3                # what the three bytes put in its place read as
_DAMAGED = b"\xff\xfe\xfd"


def _damage(m, expected: tuple) -> tuple:
    """Replace MARK's bytes wherever the model holds it (a name renamed
    everywhere stays one name) and spell `expected` as the checker shows it."""
    data = m.SerializeToString()
    assert MARK.encode() in data
    m.ParseFromString(data.replace(MARK.encode(), _DAMAGED))
    code, path, exact = expected
    return code, path.replace(MARK, SHOWN), exact


def _text(path: str) -> tuple:
    return "text.invalid-utf8", path, True


def damaged_op_type(m):
    for i, n in std_nodes(m):
        n.op_type += MARK
        return _damage(m, _text(npath(i, n)))
    return None


def damaged_node_domain(m):
    for i, n in std_nodes(m):
        n.domain += MARK
        return _damage(m, _text(npath(i, n)))
    return None


def damaged_node_name(m):
    for i, n in std_nodes(m):
        n.name += MARK
        return _damage(m, _text(npath(i, n)))
    return None


def damaged_attribute_name(m):
    for i, n in std_nodes(m):
        if len(n.attribute):
            n.attribute[0].name += MARK
            return _damage(m, _text(npath(i, n)))
    return None


def damaged_undefined_input(m):
    for i, n in std_nodes(m):
        if len(n.input) and n.input[0]:
            n.input[0] = "nowhere" + MARK
            return _damage(m, _text(f"{npath(i, n)}/input[0] {q(n.input[0])}"))
    return None


def damaged_defined_name(m):
    """A graph input renamed everywhere: the graph's names summary says it."""
    inits = {t.name for t in m.graph.initializer}
    for vi in m.graph.input:
        if vi.name not in inits:
            old = vi.name
            for n in m.graph.node:
                n.input[:] = [old + MARK if x == old else x for x in n.input]
            vi.name = old + MARK
            return _damage(m, _text("graph"))
    return None


def damaged_initializer_name(m):
    """An initializer (and the graph input of its name, if any) renamed everywhere."""
    if not len(m.graph.initializer):
        return None
    old = m.graph.initializer[0].name
    m.graph.initializer[0].name = old + MARK
    for vi in m.graph.input:
        if vi.name == old:
            vi.name = old + MARK
    for n in m.graph.node:
        n.input[:] = [old + MARK if x == old else x for x in n.input]
    return _damage(m, _text("graph"))


def damaged_opset_domain(m):
    m.opset_import[0].domain += MARK
    return _damage(m, _text("model"))


def damaged_graph_name(m):
    m.graph.name += MARK
    return _damage(m, _text("graph"))


def damaged_output_name(m):
    m.graph.output[0].name += MARK
    return _damage(m, _text(f"graph/output[0] {q(m.graph.output[0].name)}"))


def damaged_value_info_name(m):
    if not len(m.graph.value_info):
        return None
    vi = m.graph.value_info[0]
    vi.name += MARK
    return _damage(m, _text(f"graph/value_info {q(vi.name)}"))


def damaged_subgraph_op_type(m):
    found = first_subgraph(m)
    if found is None:
        return None
    gpath, g = found
    n = g.node[0]
    n.op_type += MARK
    return _damage(m, _text(npath(0, n, gpath)))


def _damage_function_field(m, field: str):
    fn = first_function(m)
    if fn is None:
        return None
    setattr(fn, field, getattr(fn, field) + MARK)
    return _damage(m, _text(fpath(fn)))


def damaged_function_name(m):
    return _damage_function_field(m, "name")


def damaged_function_domain(m):
    return _damage_function_field(m, "domain")


def damaged_function_node_name(m):
    fn = first_function(m)
    if fn is None or not len(fn.node):
        return None
    n = fn.node[0]
    n.name += MARK
    return _damage(m, _text(npath(0, n, fpath(fn))))


def damaged_ref_attr_name(m):
    fn = first_function(m)
    for i, n in enumerate(fn.node if fn is not None else ()):
        for a in n.attribute:
            if a.ref_attr_name and a.type != AttributeProto.GRAPH:
                a.ref_attr_name += MARK
                return _damage(m, _text(f"{npath(i, n, fpath(fn))}/attribute {q(a.name)}"))
    return None


def damaged_sparse_initializer_name(m):
    if not len(m.graph.sparse_initializer):
        return None
    sp = m.graph.sparse_initializer[0]
    sp.values.name += MARK
    return _damage(m, _text(f"graph/sparse_initializer {q(sp.values.name)}"))


def damaged_binding_value(m):
    """A training binding (kept as read by the IR, so a save keeps it too)."""
    for k, ti in enumerate(m.training_info):
        if len(ti.update_binding):
            b = ti.update_binding[0]
            b.value += MARK
            return _damage(m, _text(f"training_info[{k}]/update_binding {q(b.key)}"))
    return None


def damaged_training_graph_name(m):
    for k, ti in enumerate(m.training_info):
        if ti.HasField("algorithm"):
            ti.algorithm.name += MARK
            return _damage(m, _text(f"training_info[{k}]/algorithm"))
    return None


MUTATIONS = [damaged_op_type, damaged_node_domain, damaged_node_name, damaged_attribute_name,
             damaged_undefined_input, damaged_defined_name, damaged_initializer_name, damaged_opset_domain,
             damaged_graph_name, damaged_output_name, damaged_value_info_name, damaged_subgraph_op_type,
             damaged_function_name, damaged_function_domain, damaged_function_node_name, damaged_ref_attr_name,
             damaged_sparse_initializer_name, damaged_binding_value, damaged_training_graph_name]
