"""The IR's public readers and the model's function table: what the rest of
core uses instead of the IR's private state (tests/test_layering.py holds
that no code outside core/ir touches it)."""
import pytest
from onnx import TensorProto, helper

from onnxstudio import core
from onnxstudio.core.ir import IRError, Node, Value
from onnxstudio.core.ir.dtypes import DataType, is_known
from onnxstudio.core.serde.convert import model_to_proto


def _model_with_function():
    body = [helper.make_node("Add", ["u", "u"], ["v"])]
    twice = helper.make_function("local", "Twice", ["u"], ["v"], body, [helper.make_opsetid("", 17)])
    then = helper.make_graph([helper.make_node("Neg", ["y"], ["t"])], "then", [],
                             [helper.make_tensor_value_info("t", TensorProto.FLOAT, [2])])
    other = helper.make_graph([helper.make_node("Abs", ["y"], ["e"])], "else", [],
                              [helper.make_tensor_value_info("e", TensorProto.FLOAT, [2])])
    nodes = [helper.make_node("Twice", ["x"], ["y"], domain="local"),
             helper.make_node("If", ["c"], ["z"], then_branch=then, else_branch=other)]
    nodes[0].name = ""      # set, though empty: the file says so (proto2 presence)
    g = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2]),
                                       helper.make_tensor_value_info("c", TensorProto.BOOL, [])],
                          [helper.make_tensor_value_info("z", TensorProto.FLOAT, [2])])
    m = helper.make_model(g, functions=[twice],
                          opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid("local", 1)])
    return m


def test_functions_read_like_a_dict_and_change_only_through_the_model():
    model = core.load_bytes(_model_with_function().SerializeToString())
    key = ("local", "Twice", "")
    f = model.functions[key]
    assert key in model.functions and len(model.functions) == 1 and list(model.functions) == [key]
    assert model.functions.get(("local", "Nope", "")) is None and dict(model.functions.items()) == {key: f}
    assert model.functions.snapshot() == {key: f} and model.function("local", "Twice") is f
    with pytest.raises(TypeError):
        model.functions[key] = f            # no item assignment: the Model's methods change it
    with pytest.raises(AttributeError):
        model.functions.pop(key)
    with pytest.raises(IRError, match="already has a function"):
        model.add_function(f)
    assert model.remove_function(key) is f and key not in model.functions
    with pytest.raises(IRError, match="has no function"):
        model.remove_function(key)
    model.add_function(f)
    assert model.functions[key] is f
    # A clone's table is its own: removing there leaves the original alone.
    copy = model.clone()
    assert type(copy.functions) is type(model.functions) and copy.functions[key] is not f
    copy.remove_function(key)
    assert key in model.functions


def test_uses_readers_agree_with_uses():
    model = core.load_bytes(_model_with_function().SerializeToString())
    g = model.graph
    y = g.get_value("y")
    # y is read by both If branches (from outside them), not by the If itself.
    assert y.has_uses and list(y.iter_uses()) == y.uses and len(y.uses) == 2
    z = g.get_value("z")
    assert not z.has_uses and list(z.iter_uses()) == []
    body = g.nodes[1].subgraphs()[0][1]
    assert body.root() is g and g.root() is g


def test_node_index_follows_inserts_and_removals():
    g = core.load_bytes(_model_with_function().SerializeToString()).graph
    a, b = g.nodes
    c = Node("Relu", [g.get_value("x")], [Value("r")])
    g.insert_at(0, c)
    assert (c.index, a.index, b.index) == (0, 1, 2)
    g.remove(c)
    assert (c.index, a.index, b.index) == (-1, 0, 1)


def test_what_a_loaded_model_remembers_of_its_file():
    proto = _model_with_function()
    model = core.load_bytes(proto.SerializeToString())
    node = model.graph.nodes[0]
    # The node's name was set to "" explicitly: presence is kept for the save.
    assert node.source is not None and node.source.op_type == "Twice" and "name" in node.present_fields
    assert model.graph.source is not None and model.source is not None
    assert "ir_version" in model.present_fields and model.opsets_as_read == [("", 17), ("local", 1)]
    assert len(model.opset_presence) == 2
    f = model.functions[("local", "Twice", "")]
    assert f.opsets_as_read == [("", 17)] and f.source is not None
    if_node = model.graph.nodes[1]
    attr = if_node.attributes["then_branch"]
    assert attr.source is not None and attr.source.name == "then_branch"
    written = model_to_proto(model)
    assert written.graph.node[0].HasField("name") and written.graph.node[0].name == ""
    # Built in memory: nothing remembered.
    fresh = Node("Relu")
    assert fresh.source is None and fresh.present_fields == frozenset()
    assert core.Model().external_files is None


def test_known_element_types():
    assert is_known(DataType.FLOAT) and is_known(0) and not is_known(999)
