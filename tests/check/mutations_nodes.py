"""Mutations breaking node rules: binding, arity, element types, attributes
(see check_mutations.py for the contract)."""
from __future__ import annotations

import onnx
import onnx.defs
from onnx import TensorProto, helper

from mutation_helpers import A, q, npath, schema_of, std_nodes, plain_inputs, first_attr


def unknown_op(m):
    for i, n in std_nodes(m):
        if n.domain in ("", "ai.onnx"):
            n.op_type += "Zz"
            return "node.unknown-op", npath(i, n), True
    return None


def domain_not_imported(m):
    for i, n in std_nodes(m):
        n.domain = "com.nowhere"
        return "node.domain-not-imported", npath(i, n), True
    return None


def op_too_new(m):
    for i, n in std_nodes(m):
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
    for i, n in std_nodes(m):
        s = schema_of(n, m)
        if s.max_input < 2**31 - 1 and len(n.input) and n.input[0]:
            while len(n.input) <= s.max_input:
                n.input.append(n.input[0])
            return "node.input-count", npath(i, n), True
    return None


def too_few_inputs(m):
    for i, n in std_nodes(m):
        s = schema_of(n, m)
        if s.min_input >= 1 and len(n.output):
            del n.input[:]
            return "node.input-count", npath(i, n), True
    return None


def too_many_outputs(m):
    for i, n in std_nodes(m):
        s = schema_of(n, m)
        if s.max_output < 2**31 - 1:
            while len(n.output) <= s.max_output:
                n.output.append(f"extra_out_{len(n.output)}")
            return "node.output-count", npath(i, n), True
    return None


def required_input_empty(m):
    for i, n in std_nodes(m):
        s = schema_of(n, m)
        for k, name in enumerate(n.input):
            formal = s.inputs[k] if k < len(s.inputs) else None
            if name and formal is not None and formal.option == formal.option.Single:
                n.input[k] = ""
                return "node.required-input-empty", f"{npath(i, n)}/input[{k}] \"\"", True
    return None


def variadic_input_empty(m):
    """One value of a variadic input (Concat's, Sum's, Max's...) given as empty."""
    for i, n in std_nodes(m):
        s = schema_of(n, m)
        if not s.inputs or s.inputs[-1].option != s.inputs[-1].option.Variadic:
            continue
        first = len(s.inputs) - 1
        for k in range(first, len(n.input)):
            if n.input[k]:
                n.input[k] = ""
                return "node.required-input-empty", f"{npath(i, n)}/input[{k}] \"\"", True
    return None


def no_io_node(m):
    m.graph.node.append(helper.make_node("Relu", [], [], name="lonely"))
    i = len(m.graph.node) - 1
    return "node.no-io", npath(i, m.graph.node[i]), True


def input_type_violation(m):
    """A graph input re-typed to string, feeding a node that cannot take strings."""
    plain = {vi.name: vi for _, vi in plain_inputs(m) if vi.type.HasField("tensor_type")}
    for i, n in std_nodes(m):
        s = schema_of(n, m)
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
    plain = {vi.name: vi for _, vi in plain_inputs(m) if vi.type.HasField("tensor_type")}
    for i, n in std_nodes(m):
        s = schema_of(n, m)
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


def output_type_contradicts_attribute(m):
    """A Cast's or Constant's output declared (value_info or graph output)
    with another element type than its attribute gives it."""
    for i, n in std_nodes(m):
        if n.op_type == "Cast":
            given = next((a.i for a in n.attribute if a.name == "to"), None)
        elif n.op_type == "Constant":
            given = next((a.t.data_type for a in n.attribute if a.name == "value" and a.HasField("t")), None)
        else:
            continue
        if not given or not n.output or not n.output[0]:
            continue
        other = TensorProto.FLOAT16 if given != TensorProto.FLOAT16 else TensorProto.FLOAT
        name = n.output[0]
        declared = [vi for vi in (*m.graph.value_info, *m.graph.output) if vi.name == name]
        if declared:
            for vi in declared:
                vi.type.tensor_type.elem_type = other
        else:
            m.graph.value_info.append(helper.make_tensor_value_info(name, other, None))
        return "node.output-type-conflict", f"{npath(i, n)}/output[0] {q(name)}", True
    return None


def unknown_attribute(m):
    for i, n in std_nodes(m):
        n.attribute.append(helper.make_attribute("bogus_attr", 3))
        return "attr.unknown", f"{npath(i, n)}/attribute \"bogus_attr\"", True
    return None


def attribute_wrong_type(m):
    found = first_attr(m, lambda n, a: a.type not in (A.GRAPH, A.GRAPHS))
    if found is None:
        return None
    i, n, a = found
    replacement = helper.make_attribute(a.name, 1.5 if a.type != A.FLOAT else 2)
    a.CopyFrom(replacement)
    return "attr.wrong-type", f"{npath(i, n)}/attribute {q(a.name)}", True


def attribute_type_field_mismatch(m):
    found = first_attr(m)
    if found is None:
        return None
    i, n, a = found
    a.type = A.STRING if a.type != A.STRING else A.INT
    return "attr.type-field-mismatch", f"{npath(i, n)}/attribute {q(a.name)}", True


def attribute_two_values(m):
    found = first_attr(m, lambda n, a: a.type not in (A.INT, A.FLOAT))
    if found is None:
        return None
    i, n, a = found
    a.i = 7
    a.f = 0.5
    return "attr.multiple-values", f"{npath(i, n)}/attribute {q(a.name)}", True


def attribute_duplicate(m):
    found = first_attr(m)
    if found is None:
        return None
    i, n, a = found
    n.attribute.append(a)
    return "attr.duplicate", f"{npath(i, n)}/attribute {q(a.name)}", True


def attribute_nameless(m):
    found = first_attr(m)
    if found is None:
        return None
    i, n, a = found
    a.name = ""
    return "attr.name-missing", f"{npath(i, n)}/attribute \"\"", True


def required_attribute_missing(m):
    for i, n in std_nodes(m):
        s = schema_of(n, m)
        required = {name for name, spec in s.attributes.items() if spec.required}
        for k, a in enumerate(n.attribute):
            if a.name in required:
                del n.attribute[k]
                return "attr.required-missing", npath(i, n), True
    return None


def ref_outside_function(m):
    found = first_attr(m, lambda n, a: a.type not in (A.GRAPH, A.GRAPHS))
    if found is None:
        return None
    i, n, a = found
    a.ref_attr_name = "outer_attr"
    return "attr.ref-outside-function", f"{npath(i, n)}/attribute {q(a.name)}", True


def node_overload_needs_ir10(m):
    for i, n in std_nodes(m):
        n.overload = "v2"
        m.ir_version = 9
        return "model.feature-too-new", npath(i, n), True
    return None


def op_type_missing(m):
    for i, n in std_nodes(m):
        n.op_type = ""
        return "node.op-type-missing", npath(i, n), True
    return None


def attribute_type_missing(m):
    found = first_attr(m)
    if found is None:
        return None
    i, n, a = found
    a.type = 0
    return "attr.type-missing", f"{npath(i, n)}/attribute {q(a.name)}", True


def tensor_attribute_without_value(m):
    found = first_attr(m, lambda n, a: a.type == A.TENSOR)
    if found is None:
        return None
    i, n, a = found
    a.ClearField("t")
    return "attr.no-value", f"{npath(i, n)}/attribute {q(a.name)}", True



def attribute_type_says_body(m):
    """The type field names a kind that holds a body or tensors while the
    value is elsewhere: the reader makes an empty body or list of it, which
    must not reach the file form."""
    found = first_attr(m, lambda n, a: a.type in (A.INT, A.INTS, A.FLOAT, A.TENSOR))
    if found is None:
        return None
    i, n, a = found
    a.type = A.GRAPH if a.type != A.TENSOR else A.SPARSE_TENSORS
    return "attr.type-field-mismatch", f"{npath(i, n)}/attribute {q(a.name)}", True


def tensor_attribute_external_without_location(m):
    """A Constant's tensor declared external with no location: the reader
    cannot decode it, and the app's check must still name it."""
    found = first_attr(m, lambda n, a: a.type == A.TENSOR and a.t.data_type != TensorProto.STRING)
    if found is None:
        return None
    i, n, a = found
    a.t.data_location = TensorProto.EXTERNAL
    del a.t.external_data[:]
    return "tensor.external-location", f"{npath(i, n)}/attribute {q(a.name)}", True


MUTATIONS = [
    unknown_op,
    domain_not_imported,
    op_too_new,
    too_many_inputs,
    too_few_inputs,
    too_many_outputs,
    required_input_empty,
    variadic_input_empty,
    no_io_node,
    input_type_violation,
    type_parameter_conflict,
    output_type_contradicts_attribute,
    unknown_attribute,
    attribute_wrong_type,
    attribute_type_field_mismatch,
    attribute_two_values,
    attribute_duplicate,
    attribute_nameless,
    required_attribute_missing,
    ref_outside_function,
    node_overload_needs_ir10,
    op_type_missing,
    attribute_type_missing,
    tensor_attribute_without_value,
    attribute_type_says_body,
    tensor_attribute_external_without_location,
]
