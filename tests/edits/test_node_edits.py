"""Node fields and attributes of every type: apply, look, undo to the
original bytes, redo; wrong Python values refused before anything changes."""
import base64

import numpy as np
import pytest
from onnx import TensorProto, helper

from onnxstudio import core
from onnxstudio.core.diagnostics import ERROR
from onnxstudio.core.edits import EditError, SetAttribute, SetNodeField
from onnxstudio.core.edits.script import decode
from onnxstudio.core.ir import AttrType, SparseTensor, Tensor, TensorType

from .models import chain, check_roundtrip, onnx_model

FN = (("function", "local", "Twice", ""),)


def _graph(reads="a_out"):
    gp = helper.make_graph([helper.make_node("Neg", [reads], ["t2"], name="fresh")], "fresh", [],
                           [helper.make_tensor_value_info("t2", TensorProto.FLOAT, None)])
    return decode({"$graph": base64.b64encode(gp.SerializeToString()).decode()})


def _sparse():
    return SparseTensor(Tensor.from_numpy(np.array([1.0], np.float32)), Tensor.from_numpy(np.array([2], np.int64)),
                        (4,))


@pytest.mark.parametrize("field,value", [("name", "relu"), ("op_type", "Sigmoid"), ("domain", "ai.onnx"),
                                         ("overload", "v2"), ("doc_string", "why")])
def test_node_fields(field, value):
    m = chain()
    check_roundtrip(m, SetNodeField("a", field, value),
                    look=lambda mm, ch: getattr(onnx_model(mm).graph.node[0], field) == value or None)


VALUES = [
    (AttrType.FLOAT, 0.25), (AttrType.INT, 3), (AttrType.STRING, "same"),
    (AttrType.TENSOR, np.arange(6, dtype=np.int64).reshape(2, 3)),
    (AttrType.FLOATS, [1.5, 2.5]), (AttrType.INTS, [1, 2, 3]), (AttrType.STRINGS, ["a", "b"]),
    (AttrType.TENSORS, [np.ones(2, np.float32), np.zeros(1, np.int32)]),
    (AttrType.SPARSE_TENSOR, None), (AttrType.SPARSE_TENSORS, None),
    (AttrType.TYPE_PROTO, TensorType(TensorProto.FLOAT, (1, "n"))),
    (AttrType.TYPE_PROTOS, [TensorType(TensorProto.INT64, ()), TensorType(TensorProto.BOOL, None)]),
]


@pytest.mark.parametrize("atype,value", VALUES, ids=[t.name for t, _ in VALUES])
def test_attribute_of_every_type_added_replaced_removed(atype, value):
    if atype == AttrType.SPARSE_TENSOR:
        value = _sparse()
    elif atype == AttrType.SPARSE_TENSORS:
        value = [_sparse(), _sparse()]
    m = chain()

    def look(model, ch):
        a = next(a for a in onnx_model(model).graph.node[0].attribute if a.name == "extra")
        assert a.type == atype
        assert ch.nodes_changed == {model.graph.nodes[0]}
    check_roundtrip(m, SetAttribute("a", "extra", atype, value), look=look)
    check_roundtrip(m, SetAttribute("a", "extra", None))       # remove what redo put back


def test_removed_attribute_comes_back_in_its_place():
    m = chain()
    before = [a.name for a in onnx_model(m).graph.node[3].attribute]
    assert before[0] == "else_branch"
    check_roundtrip(m, SetAttribute("if", "else_branch", None))


def test_graph_attributes_attach_and_read_outer_values():
    m = chain()

    def look(model, ch):
        a_out = model.graph.get_value("a_out")
        body = model.graph.find_node("if").attributes["then_branch"].value
        assert body.nodes[0].inputs[0] is a_out          # bound to the real outer value
        assert sorted(n.name for n, _ in a_out.uses) == ["b", "fresh"]
        assert body.parent_node is model.graph.find_node("if")
    check_roundtrip(m, SetAttribute("if", "then_branch", AttrType.GRAPH, _graph()), look=look)
    check_roundtrip(m, SetAttribute("a", "bodies", AttrType.GRAPHS, [_graph("x"), _graph("x")]))


def test_attribute_reference_inside_a_function():
    m = chain()

    def look(model, ch):
        a = onnx_model(model).functions[0].node[0].attribute[0]
        assert a.ref_attr_name == "alpha" and ch.functions == {("local", "Twice", "")}
    check_roundtrip(m, SetAttribute("twice_add", "alpha", AttrType.FLOAT, None, "alpha", FN), look=look)


def test_wrong_python_values_are_refused_untouched():
    m = chain()
    before = core.to_bytes(m)
    for t, v in [(AttrType.INT, 1.5), (AttrType.INT, True), (AttrType.FLOAT, "x"), (AttrType.INTS, "123"),
                 (AttrType.STRINGS, [1]), (AttrType.GRAPH, 3), (AttrType.TYPE_PROTO, "float")]:
        with pytest.raises(EditError, match=r'node\[0\] Relu "a"/attribute "k"'):
            SetAttribute("a", "k", t, v).apply(m)
    with pytest.raises(EditError, match='no attribute "k" to remove'):
        SetAttribute("a", "k", None).apply(m)
    with pytest.raises(EditError, match="no field 'colour'"):
        SetNodeField("a", "colour", "red").apply(m)
    assert core.to_bytes(m) == before


def test_spec_level_problems_are_applied_and_reported():
    # An unknown attribute is legal for the IR: applied, then the checker says so.
    m = chain()
    SetAttribute("a", "bogus", AttrType.INT, 1).apply(m)
    found = [d for d in core.check.check(m) if "bogus" in d.path or "bogus" in d.message]
    assert found and found[0].severity == ERROR
