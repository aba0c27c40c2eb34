"""Mutations breaking rules of particular operators that their signatures do
not say (core/check/operator_rules.py; in node_rules, the groups of
attributes of which exactly one is given):
each reproduces a class of models tools/check_differential.py found that
onnx.checker (full_check) rejects and the checker called clean. See
check_mutations.py for the contract; test_check_onnx_gaps.py holds that onnx
rejects every mutant of these kinds."""
from __future__ import annotations

from onnx import TensorProto, helper

from mutation_helpers import A, q, npath, schema_of, std_nodes


def _apath(i, n, name):
    return f"{npath(i, n)}/attribute {q(name)}"


def _nodes_of(m, *ops):
    return [(i, n) for i, n in std_nodes(m) if n.op_type in ops and n.domain in ("", "ai.onnx")]


def _attr(n, name):
    return next((a for a in n.attribute if a.name == name), None)


def constant_without_value(m):
    for i, n in _nodes_of(m, "Constant"):
        if "sparse_value" in schema_of(n, m).attributes:     # opset 11 on: no single required attribute
            del n.attribute[:]
            return "attr.one-of", npath(i, n), True
    return None


def constant_two_values(m):
    for i, n in _nodes_of(m, "Constant"):
        if "value_int" in schema_of(n, m).attributes and _attr(n, "value_int") is None:
            n.attribute.append(helper.make_attribute("value_int", 1))
            return "attr.one-of", npath(i, n), True
    return None


def label_encoder_two_key_kinds(m):
    for i, n in std_nodes(m):
        if n.op_type == "LabelEncoder" and _attr(n, "keys_strings") is not None and _attr(n, "keys_int64s") is None:
            n.attribute.append(helper.make_attribute("keys_int64s", [1] * len(_attr(n, "keys_strings").strings)))
            return "attr.one-of", npath(i, n), True
    return None


def cast_to_no_type(m):
    for i, n in _nodes_of(m, "Cast"):
        _attr(n, "to").i = 99
        return "attr.dtype-invalid", _apath(i, n, "to"), True
    return None


def window_stride_zero(m):
    for i, n in _nodes_of(m, "Conv", "ConvTranspose", "MaxPool", "AveragePool", "LpPool"):
        for name in ("strides", "kernel_shape", "dilations"):
            a = _attr(n, name)
            if a is not None and len(a.ints):
                a.ints[0] = 0
                return "attr.value-out-of-range", _apath(i, n, name), True
    return None


def negative_pad(m):
    for i, n in _nodes_of(m, "Conv", "ConvTranspose", "MaxPool", "AveragePool", "LpPool"):
        a = _attr(n, "pads")
        if a is not None and len(a.ints):
            a.ints[0] = -1
            return "attr.value-out-of-range", _apath(i, n, "pads"), True
    return None


def constant_of_shape_value_not_1d(m):
    for i, n in _nodes_of(m, "ConstantOfShape"):
        a = _attr(n, "value")
        if a is not None and a.HasField("t"):
            a.t.dims[:] = [1, 1]
            return "attr.value-out-of-range", _apath(i, n, "value"), True
    return None


def einsum_operand_count(m):
    for i, n in _nodes_of(m, "Einsum"):
        n.input.append(n.input[0])
        return "node.input-count", npath(i, n), True
    return None


def batchnorm_two_outputs(m):
    for i, n in _nodes_of(m, "BatchNormalization"):
        if schema_of(n, m).since_version >= 14 and len(n.output) == 1:
            n.output.append(n.output[0] + "_running_mean")
            return "node.output-count", npath(i, n), True
    return None


def resize_mode_unknown(m):
    for i, n in _nodes_of(m, "Resize"):
        a = _attr(n, "mode")
        if a is not None:
            a.s = b"bilinear"
        else:
            n.attribute.append(helper.make_attribute("mode", "bilinear"))
        return "attr.value-out-of-range", _apath(i, n, "mode"), True
    return None


def label_encoder_values_short(m):
    for i, n in std_nodes(m):
        if n.op_type == "LabelEncoder":
            for a in n.attribute:
                if a.name.startswith("values_") and a.type in (A.INTS, A.FLOATS, A.STRINGS):
                    field = {A.INTS: a.ints, A.FLOATS: a.floats, A.STRINGS: a.strings}[a.type]
                    if len(field):
                        del field[-1]
                        return "attr.lengths-differ", npath(i, n), True
    return None


def if_branches_differ(m):
    for i, n in _nodes_of(m, "If"):
        else_g = _attr(n, "else_branch").g
        if len(else_g.output):
            else_g.output.append(else_g.output[0])
            return "node.subgraph-arity", _apath(i, n, "else_branch"), True
    return None


def loop_body_input_extra(m):
    for i, n in _nodes_of(m, "Loop"):
        _attr(n, "body").g.input.append(helper.make_tensor_value_info("extra_in", TensorProto.FLOAT, [1]))
        return "node.subgraph-arity", _apath(i, n, "body"), True
    return None


def scan_inputs_too_many(m):
    for i, n in _nodes_of(m, "Scan"):
        a = _attr(n, "num_scan_inputs")
        if schema_of(n, m).since_version >= 9 and a is not None:
            a.i = len(n.input) + 1
            return "attr.value-out-of-range", _apath(i, n, "num_scan_inputs"), True
    return None


def scan_body_output_extra(m):
    for i, n in _nodes_of(m, "Scan"):
        body = _attr(n, "body").g
        if len(body.output):
            body.output.append(body.output[-1])
            return "node.subgraph-arity", _apath(i, n, "body"), True
    return None


MUTATIONS = [
    constant_without_value,
    constant_two_values,
    label_encoder_two_key_kinds,
    cast_to_no_type,
    window_stride_zero,
    negative_pad,
    constant_of_shape_value_not_1d,
    einsum_operand_count,
    batchnorm_two_outputs,
    resize_mode_unknown,
    label_encoder_values_short,
    if_branches_differ,
    loop_body_input_extra,
    scan_inputs_too_many,
    scan_body_output_extra,
]
