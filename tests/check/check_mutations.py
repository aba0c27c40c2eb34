"""Mutations that each break one rule of a valid model.

A mutation takes an `onnx.ModelProto`, changes it in place and returns
(expected code, expected path, exact) — exact=False means the diagnostic path
must start with the given prefix — or None when the model has nothing the
mutation can break. Paths are spelled here independently of the checker's
own path helpers so a wrong path in the checker fails the suite.
"""
from __future__ import annotations

import json

import onnx
import onnx.defs
from onnx import AttributeProto, TensorProto, helper

A = AttributeProto


def q(name: str) -> str:
    return json.dumps(name, ensure_ascii=False)


def npath(i: int, node, gpath: str = "graph") -> str:
    label = f"{gpath}/node[{i}] {node.op_type}" if node.op_type else f"{gpath}/node[{i}]"
    return f"{label} {q(node.name)}" if node.name else label


def _schema(node, m):
    domain = node.domain or ""
    if domain not in ("", "ai.onnx", "ai.onnx.ml"):
        return None
    version = {o.domain or "": o.version for o in m.opset_import}.get(domain if domain != "ai.onnx" else "")
    try:
        return onnx.defs.get_schema(node.op_type, version, domain)
    except Exception:   # noqa: BLE001 - no schema: not a standard node
        return None


def _std_nodes(m):
    return [(i, n) for i, n in enumerate(m.graph.node) if _schema(n, m) is not None]


def _produced(m):
    return {o: i for i, n in enumerate(m.graph.node) for o in n.output if o}


def _plain_inputs(m):
    inits = {t.name for t in m.graph.initializer}
    return [(k, vi) for k, vi in enumerate(m.graph.input) if vi.name not in inits]


# --- model ---------------------------------------------------------------------

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


# --- graph ---------------------------------------------------------------------

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
    plain = _plain_inputs(m)
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


def _edge(m):
    """(producer index, consumer index, input slot) of the first direct edge."""
    produced = _produced(m)
    for j, n in enumerate(m.graph.node):
        for k, name in enumerate(n.input):
            if name in produced and produced[name] < j:
                return produced[name], j, k
    return None


def not_topological(m):
    edge = _edge(m)
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
    edge = _edge(m)
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
    produced = list(_produced(m))
    if not produced:
        return None
    name = produced[0]
    for _ in range(2):
        m.graph.value_info.append(helper.make_empty_tensor_value_info(name))
    return "graph.value-info-duplicate", f"graph/value_info {q(name)}", True


def input_type_missing(m):
    plain = _plain_inputs(m)
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


# --- nodes -----------------------------------------------------------------------

def unknown_op(m):
    for i, n in _std_nodes(m):
        if n.domain in ("", "ai.onnx"):
            n.op_type += "Zz"
            return "node.unknown-op", npath(i, n), True
    return None


def domain_not_imported(m):
    for i, n in _std_nodes(m):
        n.domain = "com.nowhere"
        return "node.domain-not-imported", npath(i, n), True
    return None


def op_too_new(m):
    for i, n in _std_nodes(m):
        if n.domain not in ("", "ai.onnx"):
            continue
        first = min(s.since_version for s in onnx.defs.get_all_schemas_with_history()
                    if s.name == n.op_type and s.domain == "")
        if first > 1:
            for o in m.opset_import:
                if o.domain in ("", "ai.onnx"):
                    o.version = first - 1
            return "node.op-too-new", npath(i, n), True
    return None


def too_many_inputs(m):
    for i, n in _std_nodes(m):
        s = _schema(n, m)
        if s.max_input < 2**31 - 1 and len(n.input) and n.input[0]:
            while len(n.input) <= s.max_input:
                n.input.append(n.input[0])
            return "node.input-count", npath(i, n), True
    return None


def too_few_inputs(m):
    for i, n in _std_nodes(m):
        s = _schema(n, m)
        if s.min_input >= 1 and len(n.output):
            del n.input[:]
            return "node.input-count", npath(i, n), True
    return None


def too_many_outputs(m):
    for i, n in _std_nodes(m):
        s = _schema(n, m)
        if s.max_output < 2**31 - 1:
            while len(n.output) <= s.max_output:
                n.output.append(f"extra_out_{len(n.output)}")
            return "node.output-count", npath(i, n), True
    return None


def required_input_empty(m):
    for i, n in _std_nodes(m):
        s = _schema(n, m)
        for k, name in enumerate(n.input):
            formal = s.inputs[k] if k < len(s.inputs) else None
            if name and formal is not None and formal.option == formal.option.Single:
                n.input[k] = ""
                return "node.required-input-empty", f"{npath(i, n)}/input[{k}] \"\"", True
    return None


def no_io_node(m):
    m.graph.node.append(helper.make_node("Relu", [], [], name="lonely"))
    i = len(m.graph.node) - 1
    return "node.no-io", npath(i, m.graph.node[i]), True


def input_type_violation(m):
    """A graph input re-typed to string, feeding a node that cannot take strings."""
    plain = {vi.name: vi for _, vi in _plain_inputs(m) if vi.type.HasField("tensor_type")}
    for i, n in _std_nodes(m):
        s = _schema(n, m)
        constraints = {c.type_param_str: c.allowed_type_strs for c in s.type_constraints}
        for k, name in enumerate(n.input):
            if name in plain and k < len(s.inputs):
                allowed = constraints.get(s.inputs[k].type_str, [s.inputs[k].type_str])
                if "tensor(string)" not in allowed:
                    plain[name].type.tensor_type.elem_type = TensorProto.STRING
                    return "node.input-type", f"{npath(i, n)}/input[{k}] {q(name)}", True
    return None


def type_parameter_conflict(m):
    """Two actuals of one type parameter given different declared types."""
    plain = {vi.name: vi for _, vi in _plain_inputs(m) if vi.type.HasField("tensor_type")}
    for i, n in _std_nodes(m):
        s = _schema(n, m)
        constraints = {c.type_param_str: c.allowed_type_strs for c in s.type_constraints}
        for k, name in enumerate(n.input):
            if name not in plain or k >= len(s.inputs):
                continue
            param = s.inputs[k].type_str
            # The other actual must have a type of its own (declared input or
            # initializer), not one derived from the input being re-typed.
            fixed = set(plain) | {t.name for t in m.graph.initializer}
            others = [x for kk, x in enumerate(n.input) if x and x != name and kk < len(s.inputs)
                      and s.inputs[kk].type_str == param and x in fixed]
            if not others or param not in constraints:
                continue
            current = helper.tensor_dtype_to_string(plain[name].type.tensor_type.elem_type).split(".")[-1].lower()
            for cand in sorted(constraints[param]):
                if cand.startswith("tensor(") and cand != f"tensor({current})":
                    elem = cand[len("tensor("):-1].upper()
                    if hasattr(TensorProto, elem):
                        plain[name].type.tensor_type.elem_type = getattr(TensorProto, elem)
                        return "node.type-mismatch", npath(i, n), False
    return None


# --- attributes ---------------------------------------------------------------------

def _first_attr(m, pred=lambda n, a: True):
    for i, n in _std_nodes(m):
        for a in n.attribute:
            if pred(n, a):
                return i, n, a
    return None


def unknown_attribute(m):
    for i, n in _std_nodes(m):
        n.attribute.append(helper.make_attribute("bogus_attr", 3))
        return "attr.unknown", f"{npath(i, n)}/attribute \"bogus_attr\"", True
    return None


def attribute_wrong_type(m):
    found = _first_attr(m, lambda n, a: a.type not in (A.GRAPH, A.GRAPHS))
    if found is None:
        return None
    i, n, a = found
    replacement = helper.make_attribute(a.name, 1.5 if a.type != A.FLOAT else 2)
    a.CopyFrom(replacement)
    return "attr.wrong-type", f"{npath(i, n)}/attribute {q(a.name)}", True


def attribute_type_field_mismatch(m):
    found = _first_attr(m)
    if found is None:
        return None
    i, n, a = found
    a.type = A.STRING if a.type != A.STRING else A.INT
    return "attr.type-field-mismatch", f"{npath(i, n)}/attribute {q(a.name)}", True


def attribute_two_values(m):
    found = _first_attr(m, lambda n, a: a.type not in (A.INT, A.FLOAT))
    if found is None:
        return None
    i, n, a = found
    a.i = 7
    a.f = 0.5
    return "attr.multiple-values", f"{npath(i, n)}/attribute {q(a.name)}", True


def attribute_duplicate(m):
    found = _first_attr(m)
    if found is None:
        return None
    i, n, a = found
    n.attribute.append(a)
    return "attr.duplicate", f"{npath(i, n)}/attribute {q(a.name)}", True


def attribute_nameless(m):
    found = _first_attr(m)
    if found is None:
        return None
    i, n, a = found
    a.name = ""
    return "attr.name-missing", f"{npath(i, n)}/attribute \"\"", True


def required_attribute_missing(m):
    for i, n in _std_nodes(m):
        s = _schema(n, m)
        required = {name for name, spec in s.attributes.items() if spec.required}
        for k, a in enumerate(n.attribute):
            if a.name in required:
                del n.attribute[k]
                return "attr.required-missing", npath(i, n), True
    return None


def ref_outside_function(m):
    found = _first_attr(m, lambda n, a: a.type not in (A.GRAPH, A.GRAPHS))
    if found is None:
        return None
    i, n, a = found
    a.ref_attr_name = "outer_attr"
    return "attr.ref-outside-function", f"{npath(i, n)}/attribute {q(a.name)}", True


# --- tensors ---------------------------------------------------------------------

def _initializer(m, pred=lambda t: True):
    for t in m.graph.initializer:
        if t.data_type != TensorProto.STRING and pred(t):
            return t
    return None


def _elements(t):
    n = 1
    for d in t.dims:
        n *= d
    return n


def tensor_short(m):
    t = _initializer(m, lambda t: _elements(t) > 0)
    if t is None:
        return None
    if t.HasField("raw_data"):
        t.raw_data = t.raw_data[:-1]
    else:
        for f in ("float_data", "int32_data", "int64_data", "double_data", "uint64_data"):
            if len(getattr(t, f)):
                del getattr(t, f)[-1]
                break
    return "tensor.data-length", f"graph/initializer {q(t.name)}", True


def tensor_two_fields(m):
    t = _initializer(m, lambda t: _elements(t) > 0)
    if t is None:
        return None
    if t.HasField("raw_data"):
        t.int64_data.append(1) if t.data_type != TensorProto.INT64 else t.float_data.append(1.0)
    else:
        t.raw_data = b"\0" * 4
    return "tensor.multiple-data-fields", f"graph/initializer {q(t.name)}", True


def tensor_dtype_undefined(m):
    t = _initializer(m)
    if t is None:
        return None
    t.data_type = 0
    return "tensor.dtype-missing", f"graph/initializer {q(t.name)}", True


def tensor_negative_dim(m):
    t = _initializer(m, lambda t: len(t.dims) > 0)
    if t is None:
        return None
    t.dims[0] = -t.dims[0] - 1
    return "tensor.negative-dim", f"graph/initializer {q(t.name)}", True


def _make_external(t, location):
    for f in ("raw_data", "float_data", "int32_data", "int64_data", "double_data", "uint64_data"):
        t.ClearField(f)
    t.data_location = TensorProto.EXTERNAL
    t.external_data.add(key="location", value=location)


def external_missing_file(m):
    t = _initializer(m)
    if t is None:
        return None
    _make_external(t, "weights_that_do_not_exist.bin")
    return "tensor.external-missing-file", f"graph/initializer {q(t.name)}", True


def external_escapes_folder(m):
    t = _initializer(m)
    if t is None:
        return None
    _make_external(t, "../../etc/passwd")
    return "tensor.external-location", f"graph/initializer {q(t.name)}", True


def external_bad_key(m):
    t = _initializer(m)
    if t is None:
        return None
    _make_external(t, "w.bin")
    t.external_data.add(key="colour", value="blue")
    return "tensor.external-key", f"graph/initializer {q(t.name)}", True


def sparse_index_out_of_range(m):
    if not len(m.graph.sparse_initializer):
        return None
    sp = m.graph.sparse_initializer[0]
    sp.indices.ClearField("raw_data")
    sp.indices.ClearField("int64_data")
    n = sp.values.dims[0]
    sp.indices.int64_data.extend([0] * (n - 1) + [10**6])
    return "sparse.index-range", f"graph/sparse_initializer {q(sp.values.name)}", True


def sparse_index_unsorted(m):
    if not len(m.graph.sparse_initializer):
        return None
    sp = m.graph.sparse_initializer[0]
    sp.indices.ClearField("raw_data")
    sp.indices.ClearField("int64_data")
    n = sp.values.dims[0]
    sp.indices.int64_data.extend(list(range(n))[::-1])
    return "sparse.index-order", f"graph/sparse_initializer {q(sp.values.name)}", True


def sparse_needs_ir6(m):
    if not len(m.graph.sparse_initializer):
        return None
    m.ir_version = 5
    return "model.feature-too-new", f"graph/sparse_initializer {q(m.graph.sparse_initializer[0].values.name)}", True


def node_overload_needs_ir10(m):
    for i, n in _std_nodes(m):
        n.overload = "v2"
        m.ir_version = 9
        return "model.feature-too-new", npath(i, n), True
    return None


def input_dtype_needs_newer_ir(m):
    plain = [(k, vi) for k, vi in _plain_inputs(m) if vi.type.HasField("tensor_type")]
    if not plain:
        return None
    k, vi = plain[0]
    vi.type.tensor_type.elem_type = TensorProto.FLOAT8E4M3FN
    m.ir_version = 8
    return "model.feature-too-new", f"graph/input[{k}] {q(vi.name)}", True


# --- subgraphs, functions, training -----------------------------------------------

def _first_subgraph(m):
    for i, n in enumerate(m.graph.node):
        for a in n.attribute:
            if a.type == A.GRAPH and len(a.g.node):
                return f"{npath(i, n)}/attribute {q(a.name)}", a.g
    return None


def subgraph_undefined_input(m):
    found = _first_subgraph(m)
    if found is None:
        return None
    gpath, g = found
    for i, n in enumerate(g.node):
        for k, name in enumerate(n.input):
            if name:
                n.input[k] = "not_in_any_scope"
                return "graph.undefined-input", f"{npath(i, n, gpath)}/input[{k}] \"not_in_any_scope\"", True
    return None


def subgraph_output_from_outer_scope(m):
    found = _first_subgraph(m)
    plain = _plain_inputs(m)
    if found is None or not plain:
        return None
    gpath, g = found
    g.output[0].name = plain[0][1].name
    return "graph.output-undefined", f"{gpath}/output[0] {q(plain[0][1].name)}", True


def subgraph_redefines_outer(m):
    found = _first_subgraph(m)
    plain = _plain_inputs(m)
    if found is None or not plain:
        return None
    gpath, g = found
    n = g.node[0]
    n.output[0] = plain[0][1].name
    return "graph.redefinition", f"{npath(0, n, gpath)}/output[0] {q(plain[0][1].name)}", True


def _function(m):
    return m.functions[0] if len(m.functions) else None


def fpath(fn) -> str:
    return f"functions/{q(fn.name)}"


def function_ref_unknown(m):
    fn = _function(m)
    if fn is None:
        return None
    for i, n in enumerate(fn.node):
        for a in n.attribute:
            if a.ref_attr_name:
                a.ref_attr_name = "no_such_attr"
                return "attr.ref-unknown", f"{npath(i, n, fpath(fn))}/attribute {q(a.name)}", True
    return None


def function_output_undefined(m):
    fn = _function(m)
    if fn is None:
        return None
    fn.output[0] = "never_made"
    return "function.output-undefined", fpath(fn), True


def function_recursive(m):
    fn = _function(m)
    if fn is None:
        return None
    fn.node.append(helper.make_node(fn.name, [fn.input[0]], ["again"], domain=fn.domain))
    return "function.recursive", fpath(fn), True


def function_duplicate(m):
    fn = _function(m)
    if fn is None:
        return None
    m.functions.append(fn)
    return "function.duplicate", fpath(fn), True


def function_duplicate_input(m):
    fn = _function(m)
    if fn is None:
        return None
    fn.input.append(fn.input[0])
    return "function.input-duplicate", fpath(fn), True


def function_domain_not_imported(m):
    fn = _function(m)
    if fn is None:
        return None
    del fn.opset_import[:]
    return "node.domain-not-imported", f"{npath(0, fn.node[0], fpath(fn))}", True


def training_binding_key(m):
    if not len(m.training_info):
        return None
    m.training_info[0].update_binding[0].key = "not_an_initializer"
    return "training.binding-key", 'training_info[0]/update_binding "not_an_initializer"', True


def training_binding_value(m):
    if not len(m.training_info):
        return None
    b = m.training_info[0].update_binding[0]
    b.value = "not_an_output"
    return "training.binding-value", f"training_info[0]/update_binding {q(b.key)}", True


MUTATIONS = [
    ir_missing, ir_unknown, opset_missing, opset_conflict, metadata_duplicate,
    graph_name_missing, input_duplicate, output_redefined, output_twice, undefined_input,
    not_topological, cycle, initializer_duplicate, initializer_nameless, initializer_not_input_ir3,
    value_info_duplicate, input_type_missing, output_shape_missing, output_undefined,
    unknown_op, domain_not_imported, op_too_new, too_many_inputs, too_few_inputs, too_many_outputs,
    required_input_empty, no_io_node, input_type_violation, type_parameter_conflict,
    unknown_attribute, attribute_wrong_type, attribute_type_field_mismatch, attribute_two_values,
    attribute_duplicate, attribute_nameless, required_attribute_missing, ref_outside_function,
    tensor_short, tensor_two_fields, tensor_dtype_undefined, tensor_negative_dim,
    external_missing_file, external_escapes_folder, external_bad_key,
    sparse_index_out_of_range, sparse_index_unsorted, sparse_needs_ir6,
    node_overload_needs_ir10, input_dtype_needs_newer_ir,
    subgraph_undefined_input, subgraph_output_from_outer_scope, subgraph_redefines_outer,
    function_ref_unknown, function_output_undefined, function_recursive, function_duplicate,
    function_duplicate_input, function_domain_not_imported,
    training_binding_key, training_binding_value,
]


# --- more of the spec, one mutation per rule -----------------------------------------

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


def op_type_missing(m):
    for i, n in _std_nodes(m):
        n.op_type = ""
        return "node.op-type-missing", npath(i, n), True
    return None


def attribute_type_missing(m):
    found = _first_attr(m)
    if found is None:
        return None
    i, n, a = found
    a.type = 0
    return "attr.type-missing", f"{npath(i, n)}/attribute {q(a.name)}", True


def tensor_attribute_without_value(m):
    found = _first_attr(m, lambda n, a: a.type == A.TENSOR)
    if found is None:
        return None
    i, n, a = found
    a.ClearField("t")
    return "attr.no-value", f"{npath(i, n)}/attribute {q(a.name)}", True


def tensor_without_data(m):
    t = _initializer(m, lambda t: _elements(t) > 0 and not t.data_location)
    if t is None:
        return None
    for f in ("raw_data", "float_data", "int32_data", "int64_data", "double_data", "uint64_data"):
        t.ClearField(f)
    return "tensor.no-data", f"graph/initializer {q(t.name)}", True


def data_for_empty_tensor(m):
    t = _initializer(m, lambda t: _elements(t) > 0 and len(t.dims) > 0)
    if t is None:
        return None
    t.dims[0] = 0
    return "tensor.data-for-empty", f"graph/initializer {q(t.name)}", True


def tensor_in_wrong_field(m):
    t = _initializer(m, lambda t: _elements(t) > 0)
    if t is None:
        return None
    n = _elements(t)
    for f in ("raw_data", "float_data", "int32_data", "int64_data", "double_data", "uint64_data"):
        t.ClearField(f)
    if t.data_type == TensorProto.DOUBLE:
        t.float_data.extend([0.0] * n)
    else:
        t.double_data.extend([0.0] * n)
    return "tensor.wrong-data-field", f"graph/initializer {q(t.name)}", True


def string_tensor_in_raw_data(m):
    t = _initializer(m, lambda t: t.HasField("raw_data") and _elements(t) > 0)
    if t is None:
        return None
    t.data_type = TensorProto.STRING
    return "tensor.string-raw", f"graph/initializer {q(t.name)}", True


def external_tensor_keeps_data(m):
    t = _initializer(m, lambda t: _elements(t) > 0)
    if t is None:
        return None
    t.data_location = TensorProto.EXTERNAL
    t.external_data.add(key="location", value="w.bin")
    return "tensor.external-with-data", f"graph/initializer {q(t.name)}", True


def _sparse(m):
    return m.graph.sparse_initializer[0] if len(m.graph.sparse_initializer) else None


def sparse_values_not_1d(m):
    sp = _sparse(m)
    if sp is None:
        return None
    sp.values.dims.append(1)
    return "sparse.values-rank", f"graph/sparse_initializer {q(sp.values.name)}", True


def sparse_zero_dim(m):
    sp = _sparse(m)
    if sp is None:
        return None
    sp.dims[0] = 0
    return "sparse.dims", f"graph/sparse_initializer {q(sp.values.name)}", True


def sparse_int32_indices(m):
    sp = _sparse(m)
    if sp is None:
        return None
    values = list(sp.indices.int64_data) or [1] * sp.values.dims[0]
    sp.indices.ClearField("raw_data")
    sp.indices.ClearField("int64_data")
    sp.indices.data_type = TensorProto.INT32
    sp.indices.int32_data.extend(values)
    return "sparse.indices-type", f"graph/sparse_initializer {q(sp.values.name)}", True


def sparse_indices_wrong_shape(m):
    sp = _sparse(m)
    if sp is None:
        return None
    n = sp.values.dims[0]
    del sp.indices.dims[:]
    sp.indices.dims.extend([1, n])
    return "sparse.indices-shape", f"graph/sparse_initializer {q(sp.values.name)}", True


def sparse_nameless(m):
    sp = _sparse(m)
    if sp is None:
        return None
    sp.values.name = ""
    return "sparse.name-missing", 'graph/sparse_initializer ""', True


def function_call_too_many_inputs(m):
    fn = _function(m)
    if fn is None:
        return None
    for i, n in enumerate(m.graph.node):
        if n.op_type == fn.name and n.domain == fn.domain:
            while len(n.input) <= len(fn.input):
                n.input.append(n.input[0])
            return "node.function-arity", npath(i, n), True
    return None


def function_ref_with_value(m):
    fn = _function(m)
    if fn is None:
        return None
    for i, n in enumerate(fn.node):
        for a in n.attribute:
            if a.ref_attr_name:
                a.f = 0.5
                return "attr.ref-with-value", f"{npath(i, n, fpath(fn))}/attribute {q(a.name)}", True
    return None


def function_nameless(m):
    fn = _function(m)
    if fn is None:
        return None
    fn.name = ""
    return "function.name-missing", 'functions/""', True


def function_without_domain(m):
    fn = _function(m)
    if fn is None:
        return None
    fn.ClearField("domain")
    return "function.domain-missing", fpath(fn), True


def function_output_twice(m):
    fn = _function(m)
    if fn is None:
        return None
    fn.output.append(fn.output[0])
    return "function.output-duplicate", fpath(fn), True


def function_attribute_twice(m):
    fn = _function(m)
    if fn is None or not len(fn.attribute):
        return None
    fn.attribute.append(fn.attribute[0])
    return "function.attribute-duplicate", fpath(fn), True


def function_opset_disagrees(m):
    fn = _function(m)
    if fn is None:
        return None
    for o in fn.opset_import:
        if o.domain in ("", "ai.onnx"):
            o.version = 6          # Mul-6 in the body vs Mul-14 for the model
    i = next(k for k, n in enumerate(fn.node) if n.op_type == "Mul")
    return "function.opset-mismatch", npath(i, fn.node[i], fpath(fn)), True


def training_key_bound_twice(m):
    if not len(m.training_info):
        return None
    b = m.training_info[0].update_binding[0]
    m.training_info[0].update_binding.add(key=b.key, value=b.value)
    return "training.binding-duplicate", f"training_info[0]/update_binding {q(b.key)}", True


MUTATIONS += [
    opset_with_ir2, opset_version_zero, input_nameless, output_elem_type_missing,
    value_info_conflicts_with_output, op_type_missing, attribute_type_missing,
    tensor_attribute_without_value, tensor_without_data, data_for_empty_tensor, tensor_in_wrong_field,
    string_tensor_in_raw_data, external_tensor_keeps_data, sparse_values_not_1d, sparse_zero_dim,
    sparse_int32_indices, sparse_indices_wrong_shape, sparse_nameless, function_call_too_many_inputs,
    function_ref_with_value, function_nameless, function_without_domain, function_output_twice,
    function_attribute_twice, function_opset_disagrees, training_key_bound_twice,
]
