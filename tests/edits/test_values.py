"""Initializers, renames, declared types and graph inputs/outputs: each edit
applied, looked at, undone to the original bytes and redone."""
import numpy as np
import pytest
from onnx import TensorProto, helper

from onnxstudio import core
from onnxstudio.core.edits import (AddNode, RemoveNode, cleanup, promote_initializer, AddGraphInput, AddGraphOutput,
                                   AddInitializer, AddValueInfo, EditError,
                                   MoveGraphInput, MoveGraphOutput, RemoveGraphInput, RemoveGraphOutput,
                                   RemoveInitializer, RemoveValueInfo, RenameValue, SetInitializer, SetValueType)
from onnxstudio.core.ir import DataType, TensorType

from .models import chain, check_roundtrip, onnx_model, run_ort

IF_THEN = (("node", "if", "then_branch"),)


def _init(model, name):
    return onnx_model(model).graph.initializer


def test_add_initializer_dense_and_sparse():
    m = chain()

    def look(model, ch):
        v = model.graph.initializers["K"]
        assert np.array_equal(v.const.numpy(), [[1, 2], [3, 4]]) and ch.initializers == {v}
        assert [t.name for t in onnx_model(model).graph.initializer] == ["W", "K"]
    check_roundtrip(m, AddInitializer("K", np.array([[1, 2], [3, 4]], np.int64)), look=look)

    def look_sparse(model, ch):
        v = model.graph.sparse_initializers["T"]
        assert np.array_equal(v.const.to_dense(), [0, 5, 0, 7])
    check_roundtrip(m, AddInitializer("T", np.array([0, 5, 0, 7], np.float32), sparse=True), look=look_sparse)
    with pytest.raises(EditError, match='initializer "W".*already used'):
        AddInitializer("W", np.zeros(2)).apply(m)


def test_add_initializer_gives_a_graph_input_a_default():
    m = chain()

    def look(model, ch):
        x = model.graph.get_value("x")
        assert x.is_graph_input and x.const is not None
    check_roundtrip(m, AddInitializer("x", np.zeros((2, 4), np.float32)), look=look)


def test_remove_initializer_keeps_the_table_order_on_undo():
    m = chain()
    AddInitializer("K", np.ones(3, np.float32)).apply(m)
    AddInitializer("L", np.ones(3, np.float32)).apply(m)

    def look(model, ch):
        assert list(model.graph.initializers) == ["W", "L"]
    check_roundtrip(m, RemoveInitializer("K"), look=look)
    check_roundtrip(m, RemoveInitializer("S"), look=lambda mm, ch: not mm.graph.sparse_initializers or None)
    with pytest.raises(EditError, match="'W' is still used by Add \"b\""):
        RemoveInitializer("W").apply(m)
    with pytest.raises(EditError, match='no initializer named "Q"'):
        RemoveInitializer("Q").apply(m)


def test_set_initializer_replace_cast_reshape():
    m = chain()

    def look_values(model, ch):
        x = np.ones((2, 4), np.float32)
        out = run_ort(core.to_bytes(model), {"x": x, "cond": np.array(True)})
        assert np.allclose(out[0], 1 + np.array([10, 20, 30, 40], np.float32))
    check_roundtrip(m, SetInitializer("W", np.array([10, 20, 30, 40], np.float32)), look=look_values)

    def look_cast(model, ch):
        t = model.graph.initializers["W"].const
        # redone: the replaced values
        assert t.dtype == DataType.FLOAT16 and np.array_equal(t.numpy(), [10, 20, 30, 40])
    check_roundtrip(m, SetInitializer("W", dtype=DataType.FLOAT16), look=look_cast)

    def look_shape(model, ch):
        assert model.graph.initializers["W"].const.shape == (2, 2)
    check_roundtrip(m, SetInitializer("W", shape=[2, "2"]), look=look_shape)

    def look_sparse(model, ch):
        assert np.array_equal(model.graph.sparse_initializers["S"].const.to_dense(), [9, 0, 0, 0])
    check_roundtrip(m, SetInitializer("S", np.array([9, 0, 0, 0], np.float32)), look=look_sparse)
    before = core.to_bytes(m)
    with pytest.raises(EditError, match=r'initializer "W": cannot reshape \[2, 2\] \(4 elements\) to \[3\]'):
        SetInitializer("W", shape=[3]).apply(m)
    with pytest.raises(EditError, match="needs known sizes"):
        SetInitializer("W", shape=["N"]).apply(m)
    assert core.to_bytes(m) == before


def test_rename_value_follows_into_captures_and_declarations():
    m = chain()

    def look(model, ch):
        g = model.graph
        assert g.get_value("relu_out") is not None and g.get_value("a_out") is None
        body = g.find_node("if").attributes["then_branch"].value
        assert body.nodes[0].inputs[0].name == "relu_out"
        p = onnx_model(model).graph
        assert p.value_info[0].name == "relu_out" and p.node[1].input[0] == "relu_out"
        assert ch.values_renamed == [(g, "a_out", "relu_out")]
        assert {n.name for n in ch.nodes_changed} == {"a", "b", "inner"}
    check_roundtrip(m, RenameValue("a_out", "relu_out"), look=look)

    def look_init(model, ch):
        assert onnx_model(model).graph.initializer[0].name == "weights"
    check_roundtrip(m, RenameValue("W", "weights"), look=look_init)
    check_roundtrip(m, RenameValue("S", "sp"),
                    look=lambda mm, ch: onnx_model(mm).graph.sparse_initializer[0].values.name == "sp" or None)
    check_roundtrip(m, RenameValue("x", "input"),
                    look=lambda mm, ch: [i.name for i in onnx_model(mm).graph.input][0] == "input" or None)
    with pytest.raises(EditError, match="'t' is already used"):
        RenameValue("relu_out", "t").apply(m)      # t lives inside the then branch
    with pytest.raises(EditError, match="defines no value named 'nope'"):
        RenameValue("nope", "x2").apply(m)


def test_set_value_type_on_inputs_outputs_and_value_info():
    m = chain()

    def look(model, ch):
        x = model.graph.get_value("x")
        assert x.type == TensorType(DataType.FLOAT, (1, "seq"))
        dims = onnx_model(model).graph.input[0].type.tensor_type.shape.dim
        assert dims[0].HasField("dim_value") and dims[0].dim_value == 1 and dims[1].dim_param == "seq"
        assert ch.values_retyped == {x} and model.graph in ch.graph_io
    check_roundtrip(m, SetValueType("x", None, ["1", "seq"]), look=look)
    check_roundtrip(m, SetValueType("y", DataType.FLOAT16, [None, 4]))
    check_roundtrip(m, SetValueType("a_out", None, None),
                    look=lambda mm, ch: mm.graph.get_value("a_out").type.shape is None or None)
    with pytest.raises(EditError, match="has no declaration"):
        SetValueType("b_out", DataType.FLOAT, [1]).apply(m)
    with pytest.raises(EditError, match="dim 0 is 1.5"):
        SetValueType("x", None, [1.5]).apply(m)
    with pytest.raises(EditError, match="DataType number"):
        SetValueType("x", "float", [1]).apply(m)


def test_set_value_type_replaces_an_output_override():
    # An output re-declared with a type that disagrees with value_info is kept
    # verbatim by the loader; retyping it replaces that, and undo puts it back.
    g = helper.make_graph([helper.make_node("Relu", ["x"], ["y"])], "g",
                          [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, [3])],
                          value_info=[helper.make_tensor_value_info("y", TensorProto.FLOAT, [2])])
    m = core.load_bytes(helper.make_model(g).SerializeToString())
    assert m.graph.declaration_overrides_of(m.graph.get_value("y"))

    def look(model, ch):
        assert onnx_model(model).graph.output[0].type.tensor_type.shape.dim[0].dim_value == 5
    check_roundtrip(m, SetValueType("y", None, [5]), look=look)


def test_value_info_add_and_remove():
    m = chain()

    def look(model, ch):
        vi = onnx_model(model).graph.value_info
        assert [v.name for v in vi] == ["a_out", "b_out"] and ch.value_info == {model.graph}
    check_roundtrip(m, AddValueInfo("b_out", DataType.FLOAT, ["N", 4]), look=look)

    def look_rm(model, ch):
        assert [v.name for v in onnx_model(model).graph.value_info] == ["b_out"]
        assert model.graph.get_value("a_out").type is None     # nothing declares it any more
    check_roundtrip(m, RemoveValueInfo("a_out"), look=look_rm)
    with pytest.raises(EditError, match="already has a value_info entry"):
        AddValueInfo("b_out").apply(m)
    with pytest.raises(EditError, match="no value_info entry named 'a_out'"):
        RemoveValueInfo("a_out").apply(m)


def test_graph_inputs_add_remove_move():
    m = chain()

    def look(model, ch):
        p = onnx_model(model).graph
        assert [i.name for i in p.input] == ["x", "mask", "cond"]
        assert p.input[1].type.tensor_type.elem_type == DataType.BOOL
    check_roundtrip(m, AddGraphInput("mask", DataType.BOOL, ["N"], index=1), look=look)
    check_roundtrip(m, MoveGraphInput("cond", 0),
                    look=lambda mm, ch: [v.name for v in mm.graph.inputs] == ["cond", "x"] or None)
    with pytest.raises(EditError, match="input 'x' is still used by Relu \"a\""):
        RemoveGraphInput("x").apply(m)
    AddGraphInput("unused", DataType.FLOAT, [1]).apply(m)
    check_roundtrip(m, RemoveGraphInput("unused"))
    with pytest.raises(EditError, match="'x' is already used"):
        AddGraphInput("x", DataType.FLOAT, [1]).apply(m)


def test_graph_outputs_add_remove_move():
    m = chain()

    def look(model, ch):
        assert [o.name for o in onnx_model(model).graph.output] == ["y", "b_out", "z", "w"]
        outs = run_ort(core.to_bytes(model), {"x": np.ones((1, 4), np.float32), "cond": np.array(True)})
        assert np.allclose(outs[1], 1 + np.arange(4))
    AddValueInfo("b_out", DataType.FLOAT, ["N", 4]).apply(m)
    check_roundtrip(m, AddGraphOutput("b_out", 1), look=look)

    def look_rm(model, ch):
        assert [o.name for o in onnx_model(model).graph.output] == ["y", "b_out", "w"]
    check_roundtrip(m, RemoveGraphOutput("z"), look=look_rm)
    check_roundtrip(m, MoveGraphOutput("w", 0))
    with pytest.raises(EditError, match="already a graph output"):
        AddGraphOutput("y").apply(m)


def test_initializer_promoted_to_input_by_adding_it():
    m = chain()

    def look(model, ch):
        w = model.graph.get_value("W")
        assert w.is_graph_input and w.const is not None
        assert w.type == TensorType(DataType.FLOAT, (4,))
    check_roundtrip(m, AddGraphInput("W"), look=look)


def test_edits_inside_a_branch_body():
    m = chain()
    check_roundtrip(m, AddValueInfo("t", DataType.FLOAT, ["N", 4], graph=IF_THEN))
    check_roundtrip(m, RenameValue("t", "then_out", IF_THEN))
    check_roundtrip(m, AddInitializer("k", np.ones(1, np.float32), graph=IF_THEN))


def test_external_data_survives_edit_and_undo(tmp_path):
    m = chain()
    big = np.arange(4096, dtype=np.float32)
    AddInitializer("big", big).apply(m)
    core.save(m, tmp_path / "m.onnx", external_data="m.data", size_threshold=1024)
    m2 = core.load(tmp_path / "m.onnx")
    assert m2.graph.initializers["big"].const.is_external
    check_roundtrip(m2, RenameValue("big", "huge"))
    check_roundtrip(m2, SetInitializer("huge", shape=[64, 64]))
    AddNode("ReduceSum", ["huge"], ["total"], name="sum").apply(m2)
    check_roundtrip(m2, promote_initializer(m2, "huge"), end_original=True)
    check_roundtrip(m2, cleanup(m2), end_original=True)     # the unread ReduceSum goes, the weight with it
    RemoveNode("sum").apply(m2)
    check_roundtrip(m2, RemoveInitializer("huge"))
