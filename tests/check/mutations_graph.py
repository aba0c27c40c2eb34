"""Mutations breaking model and graph rules: versions, opsets, names, SSA, order, initializers, IO types
(see check_mutations.py for the contract)."""
from __future__ import annotations

import onnx
import onnx.defs
from onnx import TensorProto, helper

from mutation_helpers import q, npath, produced_by, plain_inputs, first_edge, first_subgraph


def ir_missing(m):
    m.ir_version = 0
    return "model.ir-version-missing", "model", True


def ir_unknown(m):
    m.ir_version = 999
    return "model.ir-version-unknown", "model", True


def opset_missing(m):
    del m.opset_import[:]
    return "model.opset-missing", "model", True


def opset_conflict(m):
    first = m.opset_import[0]
    m.opset_import.add(domain=first.domain, version=first.version + 1)
    return "model.opset-duplicate", f"model/opset_import {q(first.domain or 'ai.onnx')}", True


def metadata_duplicate(m):
    m.metadata_props.add(key="dup", value="1")
    m.metadata_props.add(key="dup", value="2")
    return "model.metadata-duplicate", 'model/metadata_props "dup"', True


def graph_name_missing(m):
    m.graph.name = ""
    return "graph.name-missing", "graph", True


def input_duplicate(m):
    if not len(m.graph.input):
        return None
    m.graph.input.append(m.graph.input[0])
    k = len(m.graph.input) - 1
    return "graph.input-duplicate", f"graph/input[{k}] {q(m.graph.input[0].name)}", True


def output_redefined(m):
    plain = plain_inputs(m)
    for i, n in enumerate(m.graph.node):
        if len(n.output) and n.output[0] and plain:
            name = plain[0][1].name
            n.output[0] = name
            return "graph.redefinition", f"{npath(i, n)}/output[0] {q(name)}", True
    return None


def output_twice(m):
    nodes = m.graph.node
    for i in range(1, len(nodes)):
        if len(nodes[i].output) and nodes[i].output[0] and len(nodes[0].output) and nodes[0].output[0]:
            name = nodes[0].output[0]
            nodes[i].output[0] = name
            return "graph.redefinition", f"{npath(i, nodes[i])}/output[0] {q(name)}", True
    return None


def undefined_input(m):
    for i, n in enumerate(m.graph.node):
        for k, name in enumerate(n.input):
            if name:
                n.input[k] = "no_such_value"
                return "graph.undefined-input", f"{npath(i, n)}/input[{k}] \"no_such_value\"", True
    return None


def not_topological(m):
    edge = first_edge(m)
    if edge is None:
        return None
    i, j, k = edge
    nodes = m.graph.node
    moved = onnx.NodeProto()
    moved.CopyFrom(nodes[i])
    del nodes[i]
    nodes.insert(j, moved)      # the producer now sits right after its consumer
    consumer = nodes[j - 1]
    return "graph.not-topological", f"{npath(j - 1, consumer)}/input[{k}] {q(consumer.input[k])}", True


def cycle(m):
    edge = first_edge(m)
    if edge is None:
        return None
    i, j, _ = edge
    producer, consumer = m.graph.node[i], m.graph.node[j]
    if not len(consumer.output) or not consumer.output[0]:
        return None
    for k, name in enumerate(producer.input):
        if name:
            producer.input[k] = consumer.output[0]
            return "graph.cycle", f"{npath(i, producer)}/input[{k}] {q(consumer.output[0])}", True
    return None


def initializer_duplicate(m):
    if not len(m.graph.initializer):
        return None
    m.graph.initializer.append(m.graph.initializer[0])
    return "graph.initializer-duplicate", f"graph/initializer {q(m.graph.initializer[0].name)}", True


def initializer_nameless(m):
    if not len(m.graph.initializer):
        return None
    m.graph.initializer[0].name = ""
    return "graph.initializer-name-missing", 'graph/initializer ""', True


def initializer_not_input_ir3(m):
    inputs = {vi.name for vi in m.graph.input}
    for t in m.graph.initializer:
        if t.name not in inputs:
            m.ir_version = 3
            return "graph.initializer-not-input", f"graph/initializer {q(t.name)}", True
    return None


def value_info_duplicate(m):
    produced = list(produced_by(m))
    if not produced:
        return None
    name = produced[0]
    for _ in range(2):
        m.graph.value_info.append(helper.make_empty_tensor_value_info(name))
    return "graph.value-info-duplicate", f"graph/value_info {q(name)}", True


def input_type_missing(m):
    plain = plain_inputs(m)
    if not plain:
        return None
    k, vi = plain[0]
    vi.ClearField("type")
    return "graph.io-type-missing", f"graph/input[{k}] {q(vi.name)}", True


def output_shape_missing(m):
    for k, vi in enumerate(m.graph.output):
        if vi.type.HasField("tensor_type"):
            vi.type.tensor_type.ClearField("shape")
            return "graph.io-shape-missing", f"graph/output[{k}] {q(vi.name)}", True
    return None


def output_undefined(m):
    if not len(m.graph.output):
        return None
    m.graph.output[0].name = "ghost_output"
    return "graph.output-undefined", 'graph/output[0] "ghost_output"', True


def opset_with_ir2(m):
    m.ir_version = 2
    return "model.opset-not-allowed", "model", True


def opset_version_zero(m):
    o = m.opset_import[0]
    o.version = 0
    return "model.opset-version-invalid", f"model/opset_import {q(o.domain or 'ai.onnx')}", True


def input_nameless(m):
    if not len(m.graph.input):
        return None
    m.graph.input[0].name = ""
    return "graph.input-name-missing", 'graph/input[0] ""', True


def output_elem_type_missing(m):
    for k, vi in enumerate(m.graph.output):
        if vi.type.HasField("tensor_type"):
            vi.type.tensor_type.elem_type = 0
            return "graph.io-elem-type-missing", f"graph/output[{k}] {q(vi.name)}", True
    return None


def value_info_conflicts_with_output(m):
    for k, vi in enumerate(m.graph.output):
        if vi.type.HasField("tensor_type") and vi.type.tensor_type.elem_type:
            other = helper.make_tensor_value_info(
                vi.name, TensorProto.INT8 if vi.type.tensor_type.elem_type != TensorProto.INT8 else TensorProto.INT16,
                None)
            m.graph.value_info.append(other)
            return "graph.value-info-conflict", f"graph/value_info {q(vi.name)}", True
    return None


def output_conflicts_with_input(m):
    """A pass-through output: a graph input listed as an output, with another element type."""
    plain = [(k, vi) for k, vi in plain_inputs(m)
             if vi.type.HasField("tensor_type") and vi.type.tensor_type.elem_type]
    if not plain:
        return None
    _, vi = plain[0]
    out = m.graph.output.add()
    out.CopyFrom(vi)        # the input's shape too: only the element type differs
    out.type.tensor_type.elem_type = \
        TensorProto.INT8 if vi.type.tensor_type.elem_type != TensorProto.INT8 else TensorProto.INT16
    return "graph.output-conflict", f"graph/output[{len(m.graph.output) - 1}] {q(vi.name)}", True


def output_shape_conflicts_with_input(m):
    """A pass-through output: a graph input listed as an output, its first
    dim declared one larger (a known size) or, with a symbolic first dim,
    one more dim."""
    plain = [(k, vi) for k, vi in plain_inputs(m)
             if vi.type.HasField("tensor_type") and vi.type.tensor_type.elem_type
             and vi.type.tensor_type.HasField("shape")]
    if not plain:
        return None
    _, vi = plain[0]
    out = m.graph.output.add()
    out.CopyFrom(vi)        # the element type too: only the shape differs
    dims = out.type.tensor_type.shape.dim
    if len(dims) and dims[0].HasField("dim_value") and dims[0].dim_value >= 0:
        dims[0].dim_value += 1
    else:
        dims.add().dim_value = 1
    return "graph.declared-type-contradicts", f"graph/output[{len(m.graph.output) - 1}] {q(vi.name)}", True


def input_dtype_needs_newer_ir(m):
    plain = [(k, vi) for k, vi in plain_inputs(m) if vi.type.HasField("tensor_type")]
    if not plain:
        return None
    k, vi = plain[0]
    vi.type.tensor_type.elem_type = TensorProto.FLOAT8E4M3FN
    m.ir_version = 8
    return "model.feature-too-new", f"graph/input[{k}] {q(vi.name)}", True



def opset_too_new(m):
    # A version past every opset we hold signatures for (IR spec: support
    # every operator of an imported set or reject the model).
    o = m.opset_import[0]
    o.version = 99
    return "model.opset-too-new", f"model/opset_import {q(o.domain or 'ai.onnx')}", True


def value_info_elem_type_missing(m):
    # A tensor type without its element type: incomplete, not "no type".
    names = [o for n in m.graph.node for o in n.output if o]
    if not names:
        return None
    m.graph.value_info.append(helper.make_tensor_value_info(names[0], TensorProto.UNDEFINED, None))
    return "graph.elem-type-missing", f"graph/value_info {q(names[0])}", True


def subgraph_output_elem_type_missing(m):
    found = first_subgraph(m)
    if found is None:
        return None
    gpath, g = found
    for k, vi in enumerate(g.output):
        vi.type.tensor_type.elem_type = 0
        return "graph.elem-type-missing", f"{gpath}/output[{k}] {q(vi.name)}", True
    return None


MUTATIONS = [
    ir_missing,
    ir_unknown,
    opset_missing,
    opset_conflict,
    metadata_duplicate,
    graph_name_missing,
    input_duplicate,
    output_redefined,
    output_twice,
    undefined_input,
    not_topological,
    cycle,
    initializer_duplicate,
    initializer_nameless,
    initializer_not_input_ir3,
    value_info_duplicate,
    input_type_missing,
    output_shape_missing,
    output_undefined,
    opset_with_ir2,
    opset_version_zero,
    input_nameless,
    output_elem_type_missing,
    value_info_conflicts_with_output,
    output_conflicts_with_input,
    output_shape_conflicts_with_input,
    input_dtype_needs_newer_ir,
    opset_too_new,
    value_info_elem_type_missing,
    subgraph_output_elem_type_missing,
]
