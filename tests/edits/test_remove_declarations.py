"""Deleting a node takes the value_info entries of its outputs with it:
once the node is gone nothing defines those values, and the checker warned
of each entry left (graph.value-info-unused). Seen on a torch dynamo GPT-2,
whose exporter declares every intermediate value: Delete and Reconnect on
an attention MatMul left 'value_info describes val_132, which nothing
defines' in the Problems dock. One undo step gives the file back."""
import onnx
import pytest
from onnx import TensorProto, helper

from onnxstudio import core
from onnxstudio.core.edits import EditError, bypass_node, remove_nodes

from .models import chain, check_roundtrip, onnx_model


def _declared(model) -> list:
    return [v.name for v in onnx_model(model).graph.value_info]


def test_bypass_takes_the_declaration_of_the_output_it_removes():
    m = chain()
    assert "a_out" in _declared(m)

    def look(model, ch):
        assert "a_out" not in _declared(model)
        onnx.checker.check_model(onnx_model(model), full_check=True)
    check_roundtrip(m, bypass_node(m, "a"), look=look)


def _side_chain() -> core.Model:
    nodes = [helper.make_node("Relu", ["x"], ["y"], name="main"),
             helper.make_node("Neg", ["x"], ["s"], name="side1"),
             helper.make_node("Exp", ["s"], ["t"], name="side2")]
    vi = [helper.make_tensor_value_info(n, TensorProto.FLOAT, [2]) for n in ("s", "t")]
    g = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2])], value_info=vi)
    return core.load_bytes(helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)],
                                             ir_version=8).SerializeToString())


def test_remove_nodes_takes_a_chain_and_its_declarations_in_one_step():
    m = _side_chain()

    def look(model, ch):
        assert [n.name for n in model.graph.nodes] == ["main"]
        assert _declared(model) == []
        onnx.checker.check_model(onnx_model(model), full_check=True)
    check_roundtrip(m, remove_nodes(m, ["side1", "side2"], name="Delete 2 nodes"), look=look)


def test_remove_nodes_still_refuses_a_node_whose_output_is_read():
    m = _side_chain()
    before = core.to_bytes(m)
    with pytest.raises(EditError, match="still used"):
        remove_nodes(m, ["side1"]).apply(m, core.edits.Changes())
    assert core.to_bytes(m) == before
