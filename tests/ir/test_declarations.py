"""A graph's inputs, outputs, value_info and initializers: read like lists
and dicts, changed only through the Graph, with O(1) membership and the
verbatim declarations kept beside their entries."""
import pytest
from onnx import TensorProto, helper

from onnxstudio import core
from onnxstudio.core.ir import Graph, IRError, Node, Tensor, Value
from onnxstudio.core.serde.convert import model_to_proto


def _model():
    # y is re-declared in value_info with another shape: kept verbatim.
    g = helper.make_graph([helper.make_node("Relu", ["x"], ["y"]), helper.make_node("Neg", ["y"], ["z"])], "g",
                          [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2]),
                           helper.make_tensor_value_info("w", TensorProto.FLOAT, [2])],
                          [helper.make_tensor_value_info("z", TensorProto.FLOAT, [2]),
                           helper.make_tensor_value_info("y", TensorProto.FLOAT, [2])],
                          initializer=[helper.make_tensor("w", TensorProto.FLOAT, [2], [1.0, 2.0]),
                                       helper.make_tensor("c", TensorProto.FLOAT, [1], [3.0])],
                          value_info=[helper.make_tensor_value_info("q", TensorProto.FLOAT, [9]),
                                      helper.make_tensor_value_info("y", TensorProto.FLOAT, [7])])
    return core.load_bytes(helper.make_model(g).SerializeToString())


def test_read_access_is_list_and_dict_like():
    g = _model().graph
    x, y, z = (g.get_value(n) for n in "xyz")
    assert len(g.inputs) == 2 and g.inputs[0] is x and [v.name for v in g.inputs] == ["x", "w"]
    assert g.outputs[-1] is y and [v.name for v in g.outputs[0:1]] == ["z"]
    assert x in g.inputs and y not in g.inputs and y in g.outputs and y in g.value_info
    assert g.outputs.index(y) == 1 and g.inputs.find("w") == 1 and g.inputs.find("nope") == -1
    assert g.outputs == [z, y] and list(g.outputs) == [z, y]
    assert "w" in g.initializers and g.initializers["w"].const is not None and len(g.initializers) == 2
    assert list(g.initializers) == ["w", "c"] and list(g.initializers.keys()) == ["w", "c"]
    assert g.initializers.get("nope") is None and [k for k, _ in g.initializers.items()] == ["w", "c"]
    assert dict(g.initializers) == {"w": g.get_value("w"), "c": g.get_value("c")}
    assert x.is_graph_input and y.is_graph_output and not z.is_graph_input


def test_no_mutation_outside_the_graph():
    g = _model().graph
    for attempt in (lambda: g.inputs.append(Value("a")), lambda: g.outputs.pop(),
                    lambda: g.value_info.insert(0, Value("a")), lambda: g.inputs.__setitem__(0, Value("a"))):
        with pytest.raises((AttributeError, TypeError)):
            attempt()
    with pytest.raises(TypeError):
        g.initializers["new"] = Value("new")
    with pytest.raises(AttributeError):
        g.inputs = []


def test_membership_is_by_identity_and_counts_repeats():
    g = Graph("g")
    a = Value("a")
    g.insert_declaration("output", 0, a)
    g.insert_declaration("output", 1, a)
    assert a in g.outputs and g.outputs.count(a) == 2 and Value("a") not in g.outputs
    g.remove_declaration("output", 0)
    assert a in g.outputs
    g.remove_declaration("output", 0)
    assert a not in g.outputs and not a.is_graph_output


def test_verbatim_declarations_move_with_their_entries():
    m = _model()
    g = m.graph
    y = g.get_value("y")
    assert list(g.declaration_overrides_of(y)) == [("value_info", 1)]
    g.remove_declaration("value_info", 0)                      # q, before y
    assert g.value_info.override(0).name == "y" and list(g.declaration_overrides_of(y)) == [("value_info", 0)]
    g.insert_declaration("value_info", 0, g.get_value("z"))
    assert g.value_info.override(1) is not None and g.value_info.override(0) is None
    g.move_declaration("value_info", 1, 0)
    assert g.value_info[0] is y and g.value_info.override(0).name == "y"
    saved = model_to_proto(m).graph.value_info
    assert [v.name for v in saved] == ["y", "z"]
    assert saved[0].type.tensor_type.shape.dim[0].dim_value == 7      # written verbatim
    g.rename_value(y, "y2")
    assert g.value_info.override(0).name == "y2"


def test_the_graph_keeps_the_value_table_with_the_containers():
    g = Graph("g")
    x = g.add_input(Value("x"))
    assert g.get_value("x") is x and x.graph is g
    with pytest.raises(IRError, match="already exists"):
        g.insert_declaration("input", 0, Value("x"))
    w = Value("w")
    w.const = Tensor.from_numpy([1.0, 2.0], "w")
    g.add_initializer(w)
    n = Node("Add", [x, w], [Value("y")])
    g.append(n)
    with pytest.raises(IRError, match="still used"):
        g.remove_declaration("input", 0)
    g.move_declaration("input", 0, 0)                         # a used input may move
    with pytest.raises(IRError, match="still used"):
        g.remove_initializer("w")
    g.rename_value(w, "w2")
    assert list(g.initializers) == ["w2"] and w.const.name == "w2"
