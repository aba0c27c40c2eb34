"""value_name_in_use and unique_name keep the list of a top-level graph's
bodies between calls (a long edit script checks names at every step); a
body attached, detached or moved since is seen at once."""
from __future__ import annotations

from onnx import TensorProto, helper

from onnxstudio import core
from onnxstudio.core.ir import Attr, AttrType, Graph, Node, Value


def _model():
    then_g = helper.make_graph([helper.make_node("Identity", ["x"], ["in_then"], name="inner")], "then", [],
                               [helper.make_tensor_value_info("in_then", TensorProto.FLOAT, None)])
    else_g = helper.make_graph([helper.make_node("Neg", ["x"], ["in_else"], name="inner_neg")], "else", [],
                               [helper.make_tensor_value_info("in_else", TensorProto.FLOAT, None)])
    g = helper.make_graph([helper.make_node("Relu", ["x"], ["r"], name="relu"),
                           helper.make_node("If", ["cond"], ["z"], name="if", then_branch=then_g,
                                            else_branch=else_g)], "g",
                          [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2]),
                           helper.make_tensor_value_info("cond", TensorProto.BOOL, [])],
                          [helper.make_tensor_value_info("z", TensorProto.FLOAT, None)])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 18)], ir_version=10)
    return core.load_bytes(m.SerializeToString())


def _body_producing(name: str) -> Graph:
    body = Graph("loop_body")
    given = body.add_input(Value("given"))
    body.append(Node("Identity", [given], [Value(name)], name="deep"))
    return body


def test_a_body_removed_and_put_back():
    m = _model()
    g = m.graph
    assert g.value_name_in_use("in_then") and g.value_name_in_use("r")
    assert g.unique_name("in_else") == "in_else_1"
    node = g.find_node("if")
    at = node.index
    g.remove(node, force=True)
    assert not g.value_name_in_use("in_then")
    assert g.unique_name("in_else") == "in_else"
    g.insert_at(at, node)
    assert g.value_name_in_use("in_then")


def test_a_body_given_to_a_node_later():
    m = _model()
    g = m.graph
    relu = g.find_node("relu")
    assert not g.value_name_in_use("deep_value")
    relu.set_attribute(Attr("body", AttrType.GRAPH, _body_producing("deep_value")))
    assert g.value_name_in_use("deep_value")
    assert g.unique_name("deep_value") == "deep_value_1"
    relu.remove_attribute("body")
    assert not g.value_name_in_use("deep_value")


def test_a_body_inside_a_body():
    """A body attached deep down: the top-level graph's kept list and the
    body's own (asked for while it stood alone) both see it."""
    m = _model()
    g = m.graph
    then_g = g.find_node("if").attributes["then_branch"].value
    inner = then_g.find_node("inner")
    assert not g.value_name_in_use("deep_value")
    inner.set_attribute(Attr("body", AttrType.GRAPH, _body_producing("deep_value")))
    assert g.value_name_in_use("deep_value")
    assert then_g.value_name_in_use("deep_value")
