"""Mutations breaking subgraph scoping, model-local functions and training info
(see check_mutations.py for the contract)."""
from __future__ import annotations

from onnx import helper

from mutation_helpers import q, npath, plain_inputs, first_subgraph, first_function, fpath


def subgraph_undefined_input(m):
    found = first_subgraph(m)
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
    found = first_subgraph(m)
    plain = plain_inputs(m)
    if found is None or not plain:
        return None
    gpath, g = found
    g.output[0].name = plain[0][1].name
    return "graph.output-undefined", f"{gpath}/output[0] {q(plain[0][1].name)}", True


def subgraph_redefines_outer(m):
    found = first_subgraph(m)
    plain = plain_inputs(m)
    if found is None or not plain:
        return None
    gpath, g = found
    n = g.node[0]
    n.output[0] = plain[0][1].name
    return "graph.redefinition", f"{npath(0, n, gpath)}/output[0] {q(plain[0][1].name)}", True


def function_ref_unknown(m):
    fn = first_function(m)
    if fn is None:
        return None
    for i, n in enumerate(fn.node):
        for a in n.attribute:
            if a.ref_attr_name:
                a.ref_attr_name = "no_such_attr"
                return "attr.ref-unknown", f"{npath(i, n, fpath(fn))}/attribute {q(a.name)}", True
    return None


def function_output_undefined(m):
    fn = first_function(m)
    if fn is None:
        return None
    fn.output[0] = "never_made"
    return "function.output-undefined", fpath(fn), True


def function_recursive(m):
    fn = first_function(m)
    if fn is None:
        return None
    fn.node.append(helper.make_node(fn.name, [fn.input[0]], ["again"], domain=fn.domain))
    return "function.recursive", fpath(fn), True


def function_duplicate(m):
    fn = first_function(m)
    if fn is None:
        return None
    m.functions.append(fn)
    return "function.duplicate", fpath(fn), True


def function_duplicate_input(m):
    fn = first_function(m)
    if fn is None:
        return None
    fn.input.append(fn.input[0])
    return "function.input-duplicate", fpath(fn), True


def function_domain_not_imported(m):
    fn = first_function(m)
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


def function_call_too_many_inputs(m):
    fn = first_function(m)
    if fn is None:
        return None
    for i, n in enumerate(m.graph.node):
        if n.op_type == fn.name and n.domain == fn.domain:
            while len(n.input) <= len(fn.input):
                n.input.append(n.input[0])
            return "node.function-arity", npath(i, n), True
    return None


def function_ref_with_value(m):
    fn = first_function(m)
    if fn is None:
        return None
    for i, n in enumerate(fn.node):
        for a in n.attribute:
            if a.ref_attr_name:
                a.f = 0.5
                return "attr.ref-with-value", f"{npath(i, n, fpath(fn))}/attribute {q(a.name)}", True
    return None


def function_nameless(m):
    fn = first_function(m)
    if fn is None:
        return None
    fn.name = ""
    return "function.name-missing", 'functions/""', True


def function_without_domain(m):
    fn = first_function(m)
    if fn is None:
        return None
    fn.ClearField("domain")
    return "function.domain-missing", fpath(fn), True


def function_output_twice(m):
    fn = first_function(m)
    if fn is None:
        return None
    fn.output.append(fn.output[0])
    return "function.output-duplicate", fpath(fn), True


def function_attribute_twice(m):
    fn = first_function(m)
    if fn is None or not len(fn.attribute):
        return None
    fn.attribute.append(fn.attribute[0])
    return "function.attribute-duplicate", fpath(fn), True


def function_opset_disagrees(m):
    fn = first_function(m)
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



MUTATIONS = [
    subgraph_undefined_input,
    subgraph_output_from_outer_scope,
    subgraph_redefines_outer,
    function_ref_unknown,
    function_output_undefined,
    function_recursive,
    function_duplicate,
    function_duplicate_input,
    function_domain_not_imported,
    training_binding_key,
    training_binding_value,
    function_call_too_many_inputs,
    function_ref_with_value,
    function_nameless,
    function_without_domain,
    function_output_twice,
    function_attribute_twice,
    function_opset_disagrees,
    training_key_bound_twice,
]
