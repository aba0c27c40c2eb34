"""Compound edits: one undo step each, undone to the original bytes, and the
edited models still run (onnxruntime) with the values they should give."""
import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper

from onnxstudio import core
from onnxstudio.core.edits import (AddInitializer, AddNode, AddValueInfo, EditError, Macro,
                                   SetOpsetImport, bypass_node, cleanup, demote_input, insert_on_edge,
                                   promote_initializer, rename_everywhere, replace_with_node, set_input_shape,
                                   toposort)
from onnxstudio.core.ir import DataType

from .models import chain, check_roundtrip, onnx_model, run_ort

X = np.array([[-2.0, -1.0, 0.5, 3.0]], np.float32)
W = np.arange(4, dtype=np.float32)


def _run(model, **extra):
    feeds = {"x": X, "cond": np.array(True)}
    feeds.update(extra)
    return run_ort(core.to_bytes(model), feeds)


def _valid(model):
    onnx.checker.check_model(onnx_model(model), full_check=True)


def test_insert_on_edge_feeds_every_reader_including_a_branch():
    m = chain()
    macro = insert_on_edge(m, "a_out", "Neg")
    assert isinstance(macro, Macro)

    def look(model, ch):
        g = model.graph
        neg = g.nodes[1]
        assert neg.op_type == "Neg" and neg.inputs[0].name == "a_out"
        new = neg.outputs[0]
        assert g.find_node("b").inputs[0] is new
        body = g.find_node("if").attributes["then_branch"].value
        assert body.nodes[0].inputs[0] is new
        y, z, w = _run(model)
        assert np.allclose(y, np.abs(-np.maximum(X, 0) + W)) and np.allclose(z, -np.maximum(X, 0))
        _valid(model)
    check_roundtrip(m, macro, look=look)


def test_insert_on_edge_for_chosen_readers_only():
    m = chain()

    def look(model, ch):
        g = model.graph
        assert g.find_node("b").inputs[0].name != "a_out"
        body = g.find_node("if").attributes["then_branch"].value
        assert body.nodes[0].inputs[0].name == "a_out"
    check_roundtrip(m, insert_on_edge(m, "a_out", "Neg", consumers=["b"]), look=look)


def test_bypass_node_reconnects_its_readers():
    m = chain()

    def look(model, ch):
        assert [n.name for n in model.graph.nodes] == ["a", "c", "if", "call"]
        assert np.allclose(_run(model)[0], np.abs(np.maximum(X, 0)))
        _valid(model)
    check_roundtrip(m, bypass_node(m, "b"), look=look)


def test_bypass_node_whose_output_is_a_graph_output():
    m = chain()

    def look(model, ch):
        p = onnx_model(model).graph
        assert [o.name for o in p.output] == ["b_out", "z", "w"]
        assert p.output[0].type.tensor_type.shape.dim[1].dim_value == 4
        assert np.allclose(_run(model)[0], np.maximum(X, 0) + W)
        _valid(model)
    check_roundtrip(m, bypass_node(m, "c"), look=look)


def test_rename_everywhere():
    m = chain()

    def look(model, ch):
        p = onnx_model(model).graph
        then_branch = next(a for a in p.node[3].attribute if a.name == "then_branch").g
        assert p.node[1].input[0] == "hidden" and then_branch.node[0].input[0] == "hidden"
        _valid(model)
    check_roundtrip(m, rename_everywhere(m, "a_out", "hidden"), look=look)
    with pytest.raises(EditError, match="no value named 'ghost'"):
        rename_everywhere(m, "ghost", "g2")


def test_set_input_shape_repropagates_and_rewrites_value_info():
    m = chain()

    def look(model, ch):
        p = onnx_model(model).graph
        for vi in list(p.value_info) + [p.output[0], p.output[2]]:
            dims = vi.type.tensor_type.shape.dim
            assert [d.WhichOneof("value") for d in dims] == ["dim_value", "dim_value"], vi
            assert [d.dim_value for d in dims] == [1, 4]
        assert np.allclose(_run(model)[0], np.abs(np.maximum(X, 0) + W))
        _valid(model)
    check_roundtrip(m, set_input_shape(m, "x", ["1", 4]), look=look)

    def look_sym(model, ch):
        dims = onnx_model(model).graph.value_info[0].type.tensor_type.shape.dim
        assert dims[0].dim_param == "batch" and dims[1].dim_value == 4
    check_roundtrip(m, set_input_shape(m, "x", ["batch", 4]), look=look_sym)
    with pytest.raises(EditError, match="no graph input named 'nope'; its inputs are x, cond$"):
        set_input_shape(m, "nope", [1])


def test_promote_and_demote():
    m = chain()

    def look(model, ch):
        w = model.graph.get_value("W")
        assert w.is_graph_input and w.const is None
        assert np.allclose(_run(model, W=W * 2)[0], np.abs(np.maximum(X, 0) + 2 * W))
    check_roundtrip(m, promote_initializer(m, "W"), look=look)

    def look_demote(model, ch):
        assert "W" in model.graph.initializers and not model.graph.get_value("W").is_graph_input
        assert np.allclose(_run(model)[0], np.abs(np.maximum(X, 0) + W))
    check_roundtrip(m, demote_input(m, "W", W), look=look_demote)
    with pytest.raises(EditError, match="no default value"):
        demote_input(chain(), "x")


def test_cleanup_removes_dead_nodes_initializers_value_info_and_opsets():
    m = chain()
    for e in [AddNode("Neg", ["x"], ["dead1"], name="d1"), AddNode("Exp", ["dead1"], ["dead2"], name="d2"),
              AddInitializer("unused", np.ones(3, np.float32)), AddValueInfo("dead2", DataType.FLOAT, ["N", 4]),
              SetOpsetImport("com.microsoft", 1),
              AddNode("Sqrt", ["t"], ["dead_inner"], graph=(("node", "if", "then_branch"),))]:
        e.apply(m)
    before = [n.name for n in m.graph.nodes]
    assert "d1" in before

    def look(model, ch):
        g = model.graph
        assert [n.name for n in g.nodes] == ["a", "b", "c", "if", "call"]
        assert list(g.initializers) == ["W"] and [v.name for v in g.value_info] == ["a_out"]
        assert set(model.opset_imports) == {"", "local"}
        assert len(g.find_node("if").attributes["then_branch"].value.nodes) == 1
        _valid(model)
    check_roundtrip(m, cleanup(m), look=look)


def test_toposort_orders_a_file_written_out_of_order():
    nodes = [helper.make_node("Abs", ["b"], ["y"], name="c"), helper.make_node("Neg", ["a"], ["b"], name="b"),
             helper.make_node("Relu", ["x"], ["a"], name="a")]
    g = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [4])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, [4])])
    m = core.load_bytes(helper.make_model(g, opset_imports=[helper.make_opsetid("", 18)],
                                          ir_version=10).SerializeToString())

    def look(model, ch):
        assert [n.name for n in model.graph.nodes] == ["a", "b", "c"]
        onnx.checker.check_model(onnx_model(model))
    check_roundtrip(m, toposort(m), look=look)
    assert toposort(m).edits == []       # sorted already: nothing to do


def test_replace_with_node():
    m = chain()

    def look(model, ch):
        g = model.graph
        assert [n.op_type for n in g.nodes] == ["Relu", "Sum", "If", "Twice"]
        s = g.nodes[1]
        assert [v.name for v in s.inputs] == ["a_out", "W"] and s.outputs[0].name == "y"
        assert g.find_node("call").inputs[0] is s.outputs[0]
        p = onnx_model(model).graph
        assert p.output[0].name == "y" and p.output[0].type.tensor_type.elem_type == TensorProto.FLOAT
        assert np.allclose(_run(model)[0], np.maximum(X, 0) + W)
        _valid(model)
    check_roundtrip(m, replace_with_node(m, ["b", "c"], "Sum"), look=look)


def test_set_input_shape_writes_made_up_sizes_as_unknown_dims():
    # NonZero's count depends on the data: inference names it `?N`, a name of
    # its own that must not reach the file as if the exporter had written it.
    g = helper.make_graph([helper.make_node("NonZero", ["x"], ["nz"], name="nz")], "g",
                          [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N"])],
                          [helper.make_tensor_value_info("nz", TensorProto.INT64, [1, "count"])])
    m = core.load_bytes(helper.make_model(g, opset_imports=[helper.make_opsetid("", 18)]).SerializeToString())
    set_input_shape(m, "x", [5]).apply(m)
    assert m.graph.inputs[0].type.shape == (5,)
    out = m.graph.outputs[0].type.shape
    assert out[0] == 1 and (out[1] is None or out[1] == "count"), out
    _valid(m)
