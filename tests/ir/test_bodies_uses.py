"""Removing or inserting a node with bodies (If/Loop/Scan) keeps the use
lists of the outer values its bodies read true, in the IR itself."""
from onnx import TensorProto, helper

from onnxstudio import core
from onnxstudio.core.ir import Node, Value


def _model():
    """x -> Relu(a) -> a_out; an If whose then-branch reads a_out and whose
    else-branch holds a nested If reading x; the If's output is unused."""
    inner_else = helper.make_graph([helper.make_node("Neg", ["x"], ["ie"], name="deep")], "ie", [],
                                   [helper.make_tensor_value_info("ie", TensorProto.FLOAT, None)])
    inner_then = helper.make_graph([helper.make_node("Abs", ["x"], ["it"], name="deep_abs")], "it", [],
                                   [helper.make_tensor_value_info("it", TensorProto.FLOAT, None)])
    then_g = helper.make_graph([helper.make_node("Identity", ["a_out"], ["t"], name="inner")], "then", [],
                               [helper.make_tensor_value_info("t", TensorProto.FLOAT, None)])
    else_g = helper.make_graph([helper.make_node("If", ["cond"], ["e"], name="nested",
                                                 then_branch=inner_then, else_branch=inner_else)],
                               "else", [], [helper.make_tensor_value_info("e", TensorProto.FLOAT, None)])
    nodes = [helper.make_node("Relu", ["x"], ["a_out"], name="a"),
             helper.make_node("If", ["cond"], ["z"], name="if", then_branch=then_g, else_branch=else_g)]
    g = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [4]),
                                       helper.make_tensor_value_info("cond", TensorProto.BOOL, [])],
                          [helper.make_tensor_value_info("a_out", TensorProto.FLOAT, [4])])
    return core.load_bytes(helper.make_model(g, opset_imports=[helper.make_opsetid("", 18)]).SerializeToString())


def _users(value):
    return sorted(n.name for n, _ in value.uses)


def test_removing_a_node_with_bodies_drops_its_bodies_outer_uses():
    m = _model()
    g = m.graph
    x, a_out, cond = g.get_value("x"), g.get_value("a_out"), g.get_value("cond")
    assert _users(x) == ["a", "deep", "deep_abs"] and _users(a_out) == ["inner"]
    assert _users(cond) == ["if", "nested"]
    the_if = g.find_node("if")
    g.remove(the_if)
    assert _users(x) == ["a"] and _users(a_out) == [] and _users(cond) == []


def test_inserting_it_again_restores_them():
    """The node's own input uses too: insert_at is the one way back in."""
    m = _model()
    g = m.graph
    the_if = g.find_node("if")
    pos = the_if.index
    g.remove(the_if)
    g.insert_at(pos, the_if)
    assert _users(g.get_value("x")) == ["a", "deep", "deep_abs"]
    assert _users(g.get_value("a_out")) == ["inner"]
    assert _users(g.get_value("cond")) == ["if", "nested"]
    # the values' use lists name each reader once
    assert len(g.get_value("x").uses) == 3


def test_a_detached_node_with_a_body_joins_the_use_lists_when_appended():
    m = _model()
    g = m.graph
    the_if = g.find_node("if")
    g.remove(the_if)
    # a fresh If holding the removed node's bodies, appended through the IR
    body = the_if.attributes["then_branch"]
    new_if = Node("If", [g.get_value("cond")], [Value("z2")], [body.copy(),
                                                              the_if.attributes["else_branch"].copy()],
                  name="again")
    g.append(new_if)
    # its own input is recorded once (by the constructor), its bodies' reads on appending
    assert _users(g.get_value("cond")) == ["again", "nested"]
    assert _users(g.get_value("a_out")) == ["inner"]
    assert _users(g.get_value("x")) == ["a", "deep", "deep_abs"]
    assert body.value.parent_node is new_if
    g.remove(new_if)
    assert _users(g.get_value("a_out")) == [] and _users(g.get_value("x")) == ["a"]
