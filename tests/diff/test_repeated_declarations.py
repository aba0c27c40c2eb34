"""A graph input or output a damaged file declares more than once, against
a model that declares it another number of times: the diff reports each
declaration one side has beyond the other (by position) instead of
pairing the first declaration with the other side's repeat, and the edit
script removes A's repeat by its occurrence (RemoveGraphInput and
RemoveGraphOutput name which declaration), so replayed on A it gives B,
written out as B's file. A repeat only B has is listed as not expressed:
no edit declares a name twice. Before, RemoveGraphInput was written
without its occurrence (the first declaration, refused while the repeat
stays), A's repeat was left in place by a script that called itself
complete, and B's repeat made the script rename A's input aside and add
it again."""
from __future__ import annotations

from onnx import TensorProto, helper

from onnxstudio.core import Document, load_bytes, to_bytes
from onnxstudio.core.diff import diff_models
from onnxstudio.core.diff.report import summary_lines, to_json
from onnxstudio.core.diff.to_script import derive_script
from onnxstudio.core.edits import replay
from onnxstudio.core.proto import onnx_pb2 as pb

X = helper.make_tensor_value_info("X", TensorProto.FLOAT, [2])
X_INT = helper.make_tensor_value_info("X", TensorProto.INT64, [3])
Z = helper.make_tensor_value_info("Z", TensorProto.FLOAT, [2])
Y = helper.make_tensor_value_info("Y", TensorProto.FLOAT, [2])
Y_INT = helper.make_tensor_value_info("Y", TensorProto.INT64, [3, "n"])
W = helper.make_tensor_value_info("W", TensorProto.FLOAT, [2])


def _model(inputs, outputs, x: str = "X"):
    nodes = [helper.make_node("Relu", [x], ["Y"], name="r"), helper.make_node("Neg", [x], ["W"], name="n")]
    g = helper.make_graph(nodes, "g", list(inputs), list(outputs))
    return load_bytes(helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)]).SerializeToString())


def _parsed(model) -> pb.ModelProto:
    m = pb.ModelProto()
    m.ParseFromString(to_bytes(model))
    return m


def _replayed(a, script):
    doc = Document(a.clone())
    replay(doc, script)
    return doc.model


def _round_trip(a, b):
    """The script derived from diff(A, B), complete, and A after it written as B."""
    derived = derive_script(diff_models(a, b))
    assert derived.complete, derived.not_expressed
    done = _replayed(a, derived.script)
    assert diff_models(done, b).equal
    assert _parsed(done) == _parsed(b)
    return derived.script


def test_an_input_declared_twice_in_a_and_once_in_b():
    for repeat in (X, X_INT):
        a, b = _model([X, repeat], [Y, W]), _model([X], [Y, W])
        d = diff_models(a, b)
        assert not d.inputs.removed and not d.inputs.added and not d.changed
        assert [(v.name, i) for v, i in d.inputs.repeats_removed] == [("X", 1)]
        assert d.inputs.repeats_removed[0][0] is a.graph.inputs[1]
        assert "inputs declared again in A only (1):" in summary_lines(d)
        assert "  X (input 1)" in summary_lines(d)
        assert to_json(d)["io"]["inputs"]["repeats_removed"] == [{"name": "X", "position": 1}]
        script = _round_trip(a, b)
        assert script == [{"kind": "remove_graph_input", "name": "X", "graph": [], "occurrence": 1}]


def test_three_declarations_lose_the_last_first():
    a, b = _model([X, X_INT, X], [Y, W]), _model([X], [Y, W])
    assert [i for _, i in diff_models(a, b).inputs.repeats_removed] == [1, 2]
    script = _round_trip(a, b)
    assert [s["occurrence"] for s in script] == [2, 1]


def test_a_repeat_of_an_input_b_renamed():
    a, b = _model([X, X], [Y, W]), _model([Z], [Y, W], x="Z")
    d = diff_models(a, b)
    assert [(x.name, y.name) for x, y in d.inputs.changed] == [("X", "Z")]
    assert [(v.name, i) for v, i in d.inputs.repeats_removed] == [("X", 1)]
    _round_trip(a, b)


def test_the_same_repeats_on_both_sides_are_no_difference():
    a, b = _model([X, X_INT], [Y, W, Y_INT]), _model([X, X_INT], [Y, W, Y_INT])
    d = diff_models(a, b)
    assert d.equal
    assert derive_script(d).script == []


def test_a_repeat_of_another_type_on_each_side():
    a, b = _model([X, X_INT], [Y, W]), _model([X, X], [Y, W])
    d = diff_models(a, b)
    assert [(v.name, i) for v, i in d.inputs.repeats_removed] == [("X", 1)]
    assert [(v.name, i) for v, i in d.inputs.repeats_added] == [("X", 1)]
    assert not d.equal


def test_a_repeat_only_b_has_is_not_expressed_and_nothing_is_renamed():
    a, b = _model([X], [Y, W]), _model([X, X], [Y, W])
    d = diff_models(a, b)
    # The first declarations pair (before, A's X paired with B's repeat and Relu looked rewired).
    assert d.matching.values[a.graph.inputs[0]] is b.graph.inputs[0] and not d.changed
    assert [(v.name, i) for v, i in d.inputs.repeats_added] == [("X", 1)]
    derived = derive_script(d)
    assert derived.script == []
    assert "graph input X declared again in B (input 1): no edit declares a name twice" in derived.not_expressed


def test_an_output_listed_twice_in_a_and_once_in_b():
    for repeat in (Y, Y_INT):
        a, b = _model([X], [Y, W, repeat]), _model([X], [Y, W])
        d = diff_models(a, b)
        assert not d.outputs.removed and not d.outputs.added
        assert [(v.name, i) for v, i in d.outputs.repeats_removed] == [("Y", 2)]
        assert "outputs declared again in A only (1):" in summary_lines(d)
        script = _round_trip(a, b)
        assert script == [{"kind": "remove_graph_output", "name": "Y", "graph": [], "occurrence": 1}]


def test_an_output_listed_twice_only_in_b_is_not_expressed():
    a, b = _model([X], [Y, W]), _model([X], [Y, W, Y_INT])
    d = diff_models(a, b)
    assert [(v.name, i) for v, i in d.outputs.repeats_added] == [("Y", 2)]
    derived = derive_script(d)
    assert derived.script == []
    assert "graph output Y declared again in B (output 2): no edit declares a name twice" in derived.not_expressed
