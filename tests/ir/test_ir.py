"""The IR keeps use lists, topological order and names consistent."""
import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper

from onnxstudio import core
from onnxstudio.core.ir import Attr, AttrType, IRError, Node, Value
from onnxstudio.core.serde.convert import model_to_proto
from onnxstudio.resources import sample_path


def _chain():
    """x -> Relu(a) -> Neg(b) -> Abs(c) -> y, plus an If whose body reads `a_out`."""
    then_g = helper.make_graph([helper.make_node("Identity", ["a_out"], ["t"], name="inner")], "then", [],
                               [helper.make_tensor_value_info("t", TensorProto.FLOAT, None)])
    else_g = helper.make_graph([helper.make_node("Neg", ["x"], ["e"], name="inner_neg")], "else", [],
                               [helper.make_tensor_value_info("e", TensorProto.FLOAT, None)])
    nodes = [helper.make_node("Relu", ["x"], ["a_out"], name="a"),
             helper.make_node("Neg", ["a_out"], ["b_out"], name="b"),
             helper.make_node("Abs", ["b_out"], ["y"], name="c"),
             helper.make_node("If", ["cond"], ["z"], name="if", then_branch=then_g, else_branch=else_g)]
    g = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 4]),
                                       helper.make_tensor_value_info("cond", TensorProto.BOOL, [])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["N", 4]),
                           helper.make_tensor_value_info("z", TensorProto.FLOAT, None)])
    return core.load_bytes(helper.make_model(g, opset_imports=[helper.make_opsetid("", 18)]).SerializeToString())


def test_producers_uses_and_outer_scope_captures():
    m = _chain()
    g = m.graph
    a = g.nodes[0]
    a_out = g.get_value("a_out")
    assert a_out.producer is a
    users = [n.name for n, _ in a_out.uses]
    assert users == ["b", "inner"]           # the If body captures it
    assert g.get_value("x").is_graph_input and g.get_value("y").is_graph_output
    then_g = g.nodes[3].attributes["then_branch"].value
    assert then_g.parent_node is g.nodes[3] and then_g.lookup("a_out") is a_out
    walked = [sg.name for sg in g.walk()]
    assert walked[0] == "g" and sorted(walked[1:]) == ["else", "then"]   # attribute order of the file
    assert g.nodes[1].path == 'graph/node[1] Neg "b"'
    assert then_g.nodes[0].path == 'graph/node[3] If "if"/attribute "then_branch"/node[0] Identity "inner"'


def test_remove_refuses_while_used_and_names_the_users():
    g = _chain().graph
    with pytest.raises(IRError, match=r"'a_out' \(used by Neg \"b\", Identity \"inner\"\)"):
        g.remove(g.nodes[0])
    with pytest.raises(IRError, match="graph outputs"):
        g.remove(g.nodes[2])


def test_replace_all_uses_then_remove():
    m = _chain()
    g = m.graph
    b = g.nodes[1]
    b.outputs[0].replace_all_uses_with(b.inputs[0])   # bypass Neg
    g.remove(b)
    assert [n.name for n in g.nodes] == ["a", "c", "if"]
    assert g.nodes[1].inputs[0].name == "a_out"
    assert {n.name for n, _ in g.get_value("a_out").uses} == {"c", "inner"}
    p = model_to_proto(m)
    assert [n.name for n in p.graph.node] == ["a", "c", "if"] and p.graph.node[1].input[0] == "a_out"


def test_insertions_keep_topological_order():
    g = _chain().graph
    a, b, c = g.nodes[0], g.nodes[1], g.nodes[2]
    mid = Value(g.unique_name("a_out"))
    assert mid.name == "a_out_1"
    sq = Node("Sqrt", [a.outputs[0]], [mid], name="sq")
    g.insert_after(a, sq)
    b.replace_input(0, mid)
    assert [n.name for n in g.nodes][:3] == ["a", "sq", "b"]
    assert sq.index == 1 and b.index == 2
    late = Node("Exp", [c.outputs[0]], [Value("late")], name="late")
    with pytest.raises(IRError, match="would come later"):
        g.insert_before(b, late)        # reads y, which c produces after b
    with pytest.raises(IRError, match="topological"):
        a.replace_input(0, c.outputs[0])   # a would read a value produced after it
    g.append(late)
    assert g.nodes[-1] is late and g.get_value("late").producer is late


def test_unique_name_avoids_names_in_subgraphs():
    g = _chain().graph
    assert g.unique_name("t") == "t_1"        # "t" is defined in the then-branch
    assert g.unique_name("fresh") == "fresh"


def test_lookups_are_by_name_and_nodes_iterate_in_order():
    m = core.load(sample_path())
    g = m.graph
    names = [n.name for n in g.nodes]
    assert names[0] == "/backbone/stage1/conv/Conv"
    assert g.get_value("logits").producer.name == "/head/fc/Gemm"
    assert g.initializers["head.fc.weight"].const.shape == (10, 16)
    fn = m.function("onnxstudio.demo", "Swish")
    assert fn.inputs == ["X"] and fn.outputs == ["Y"] and [n.op_type for n in fn.graph.nodes] == ["Sigmoid", "Mul"]
    all_graphs = list(m.graphs())
    assert len(all_graphs) == 4   # main, If then/else, function body


def test_invalid_models_still_load_and_save_unchanged():
    """Undefined inputs, duplicate outputs and wrong order are kept for the checker."""
    nodes = [helper.make_node("Neg", ["later"], ["y"], name="uses_before_def"),
             helper.make_node("Relu", ["x"], ["later"], name="def"),
             helper.make_node("Relu", ["x"], ["later"], name="redef"),
             helper.make_node("Abs", ["nowhere"], ["z"], name="undefined")]
    g = helper.make_graph(nodes, "bad", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1])])
    mp = helper.make_model(g)
    m = core.load_bytes(mp.SerializeToString())
    later = [n.outputs[0] for n in m.graph.nodes if n.name in ("def", "redef")]
    assert later[0] is not later[1]
    assert m.graph.get_value("nowhere").producer is None
    again = onnx.ModelProto()
    again.ParseFromString(core.to_bytes(m))
    assert again == mp


def test_attribute_values_decode_lazily_and_edits_are_saved():
    m = core.load(sample_path())
    conv = m.graph.nodes[0]
    pads = conv.attributes["pads"]
    assert pads.is_unedited() and pads.value == [1, 1, 1, 1]
    pads.value = [0, 0, 0, 0]
    conv.attributes["group"] = Attr("group", AttrType.INT, 1)
    p = model_to_proto(m)
    attrs = {a.name: a for a in p.graph.node[0].attribute}
    assert list(attrs["pads"].ints) == [0, 0, 0, 0] and attrs["group"].i == 1


def test_edited_initializer_is_saved():
    m = core.load(sample_path())
    v = m.graph.initializers["head.fc.bias"]
    v.const = core.Tensor.from_numpy(np.full(10, 0.5, np.float32), "head.fc.bias")
    again = core.load_bytes(core.to_bytes(m))
    assert np.array_equal(again.graph.initializers["head.fc.bias"].const.numpy(), np.full(10, 0.5, np.float32))


def test_unknown_fields_survive_a_round_trip():
    m = helper.make_model(helper.make_graph([helper.make_node("Relu", ["x"], ["y"], name="r")], "g",
                                            [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1])],
                                            [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1])]))
    # fields 99 (varint) and 98 (bytes) are unknown to every ONNX version so far
    extra = bytes([0x98, 0x06, 0x2A]) + bytes([0x92, 0x06, 0x03]) + b"abc"
    node = m.graph.node[0]
    node.ParseFromString(node.SerializeToString() + extra)
    m.ParseFromString(m.SerializeToString() + extra)
    data = m.SerializeToString()
    ours = core.load_bytes(data)
    ours.graph.nodes[0].name = "renamed"       # an edit elsewhere in the same node
    out = onnx.ModelProto()
    out.ParseFromString(core.to_bytes(ours))
    out.graph.node[0].name = "r"
    assert out.SerializeToString() == data
