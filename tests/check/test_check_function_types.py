"""Element types inside model-local function bodies: function inputs are
untyped, so only types derived in the body (Constant, Cast, single-type
constraints) are checked against the operators' constraints, and attributes
the caller supplies (ref_attr_name) claim no type."""
from __future__ import annotations

import numpy as np
from onnx import AttributeProto, TensorProto, helper, numpy_helper

from onnxstudio.core.check import check


def _model(body, fn_inputs, fn_outputs, fn_attributes=(), call_attrs=None, y_elem=TensorProto.FLOAT):
    fn = helper.make_function("local", "F", fn_inputs, fn_outputs, body,
                              [helper.make_opsetid("", 17)], attributes=list(fn_attributes))
    call = helper.make_node("F", ["x"][:len(fn_inputs)], ["y"], name="call", domain="local", **(call_attrs or {}))
    g = helper.make_graph([call], "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2])],
                          [helper.make_tensor_value_info("y", y_elem, [2])])
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid("local", 1)],
                             functions=[fn])


def _int_constant(name, out):
    return helper.make_node("Constant", [], [out], name=name,
                            value=numpy_helper.from_array(np.array([4, 9], np.int64)))


def _type_findings(model):
    return [(d.code, d.path) for d in check(model) if d.code in ("node.input-type", "node.type-mismatch")]


def test_derived_type_outside_the_constraint_is_reported():
    body = [_int_constant("k", "c"), helper.make_node("Sqrt", ["c"], ["o"], name="root")]
    assert _type_findings(_model(body, [], ["o"])) == [
        ("node.input-type", 'functions/"F"/node[1] Sqrt "root"/input[0] "c"')]


def test_cast_output_feeds_a_type_parameter_mismatch():
    body = [helper.make_node("Cast", ["a"], ["i"], name="to_int", to=TensorProto.INT64),
            _int_constant("k", "c"),
            helper.make_node("Cast", ["a"], ["f"], name="to_float", to=TensorProto.FLOAT),
            helper.make_node("Add", ["i", "c"], ["s"], name="fine"),
            helper.make_node("Add", ["s", "f"], ["o"], name="mixed")]
    assert _type_findings(_model(body, ["a"], ["o"])) == [
        ("node.type-mismatch", 'functions/"F"/node[4] Add "mixed"/input[1] "f"')]


def test_untyped_function_inputs_are_not_judged():
    body = [helper.make_node("Add", ["a", "a"], ["s"], name="add"), helper.make_node("Sqrt", ["s"], ["o"], name="root")]
    assert _type_findings(_model(body, ["a"], ["o"])) == []


def test_a_value_the_caller_supplies_claims_no_type():
    # ConstantOfShape without "value" makes floats; with the caller's value
    # (ref_attr_name) its element type is unknown inside the body, so the
    # BitShift (unsigned integers only) below it is not judged.
    value = helper.make_attribute_ref("value", AttributeProto.TENSOR)
    fill = helper.make_node("ConstantOfShape", ["shape"], ["z"], name="fill")
    fill.attribute.append(value)
    body = [_int_constant("k", "shape"), fill, helper.make_node("BitShift", ["z", "z"], ["o"], name="shift",
                                                                direction="LEFT")]
    call_value = {"value": numpy_helper.from_array(np.array([1], np.uint32))}
    # y is BitShift's output: declared float, the call would be refused
    # (node_rules holds a call's outputs to the body's operators).
    model = _model(body, [], ["o"], fn_attributes=["value"], call_attrs=call_value, y_elem=TensorProto.UINT32)
    assert _type_findings(model) == []
    # Without the reference the float output is outside BitShift's constraint.
    del fill.attribute[:]
    model = _model(body, [], ["o"], fn_attributes=["value"], call_attrs=call_value, y_elem=TensorProto.UINT32)
    assert _type_findings(model) == [("node.input-type", 'functions/"F"/node[2] BitShift "shift"/input[0] "z"'),
                                     ("node.input-type", 'functions/"F"/node[2] BitShift "shift"/input[1] "z"')]


def test_subgraph_in_a_function_body_sees_the_body_types():
    branch = helper.make_graph([helper.make_node("Sqrt", ["c"], ["r"], name="root")], "then", [],
                               [helper.make_tensor_value_info("r", TensorProto.INT64, None)])
    other = helper.make_graph([helper.make_node("Identity", ["c"], ["r2"], name="same")], "else", [],
                              [helper.make_tensor_value_info("r2", TensorProto.INT64, None)])
    body = [_int_constant("k", "c"),
            helper.make_node("Cast", ["a"], ["b"], name="flag", to=TensorProto.BOOL),
            helper.make_node("If", ["b"], ["o"], name="branch", then_branch=branch, else_branch=other)]
    found = _type_findings(_model(body, ["a"], ["o"]))
    assert ("node.input-type",
            'functions/"F"/node[2] If "branch"/attribute "then_branch"/node[0] Sqrt "root"/input[0] "c"') in found
