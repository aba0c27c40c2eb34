"""A pair of nodes means "the same node, changed": nodes of different ops
pair only on evidence (the same name, or a node replaced in place between
paired neighbours), and graph inputs and outputs pair by position only
where their element types agree. Unrelated models come out as removed and
added, not as a list of bogus changes."""
import pytest
from onnx import TensorProto, helper

from onnxstudio.core import load, load_bytes
from onnxstudio.core.diff import diff_models
from onnxstudio.core.diff.report import to_json
from shared_models import SHARED_MODELS

UNRELATED = [("skl_logreg_pipeline", "silero_vad"), ("skl_gbr", "skl_logreg_pipeline"),
             ("bert_small", "ppocr_v4_det"), ("silero_vad", "ppocr_v4_det")]


def _load(name):
    return load(SHARED_MODELS / name / "model.onnx")


@pytest.mark.parametrize("a_name,b_name", UNRELATED, ids=[f"{a}-{b}" for a, b in UNRELATED])
def test_unrelated_models_pair_no_nodes_of_different_ops(a_name, b_name):
    a, b = _load(a_name), _load(b_name)
    d = diff_models(a, b)
    assert [(x.op_type, y.op_type) for x, y in d.matching.nodes.items() if x.op_type != y.op_type] == []
    assert not [c for c in d.changed if c.op]
    # What is not paired is removed from A or added in B (a removed If's
    # body goes with it): nothing is lost.
    assert len(d.removed) + d.matched == len(a.graph.nodes) and len(d.added) + d.matched == len(b.graph.nodes)


def test_unrelated_pipelines_show_their_outputs_removed_and_added():
    """skl_logreg_pipeline's int64 label and sequence of maps against
    silero_vad's float outputs: two outputs each, but none is the other's
    renamed (they were paired by position and shown as renamed)."""
    j = to_json(diff_models(_load("skl_logreg_pipeline"), _load("silero_vad")))
    assert j["io"]["outputs"]["changed"] == []
    assert j["renamed"] == []
    assert sorted(j["io"]["outputs"]["removed"]) == ["output_label", "output_probability"]
    assert {"ZipMap", "Cast"} <= {name for name in j["nodes"]["removed"]}


def _f(name, shape=(1, 4)):
    return helper.make_tensor_value_info(name, TensorProto.FLOAT, list(shape))


def _chain(ops, names, inputs=("x",), outputs=("y",), opset=20):
    """x -> ops[0] -> ops[1] -> ... -> y, each node named from `names`."""
    nodes, prev = [], inputs[0]
    for i, (op, name) in enumerate(zip(ops, names)):
        out = outputs[0] if i == len(ops) - 1 else f"{name}_out"
        nodes.append(helper.make_node(op, [prev], [out], name=name))
        prev = out
    g = helper.make_graph(nodes, "g", [_f(n) for n in inputs], [_f(n) for n in outputs])
    return load_bytes(helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)]).SerializeToString())


def test_a_node_replaced_in_place_is_one_changed_node():
    """Relu -> Gelu between paired neighbours, under another name: one change."""
    a = _chain(["Abs", "Relu", "Neg"], ["abs", "act", "neg"])
    b = _chain(["Abs", "Gelu", "Neg"], ["abs", "gelu", "neg"])
    j = to_json(diff_models(a, b))
    assert j["nodes"]["added"] == j["nodes"]["removed"] == []
    [c] = j["nodes"]["changed"]
    assert (c["a"], c["b"], c["op"]) == ("act", "gelu", ["Relu", "Gelu"])


def test_a_last_node_replaced_in_place_is_one_changed_node():
    """The node writing the graph output (paired by name) is replaced."""
    a = _chain(["Abs", "Relu"], ["abs", "act"])
    b = _chain(["Abs", "Gelu"], ["abs", "gelu"])
    [c] = to_json(diff_models(a, b))["nodes"]["changed"]
    assert c["op"] == ["Relu", "Gelu"]


def test_nodes_of_different_ops_with_the_same_name_pair():
    """An op changed in the editor keeps the node's name: that alone is the
    evidence, even where the wiring changed too."""
    a = _chain(["Abs", "Relu", "Neg"], ["abs", "act", "neg"])
    b = _chain(["Abs", "Neg", "Gelu"], ["abs", "neg", "act"])
    d = diff_models(a, b)
    assert {(x.name, y.name) for x, y in d.matching.nodes.items() if x.op_type != y.op_type} == {("act", "act")}


def test_no_pair_without_evidence_on_both_sides():
    """Two unrelated chains whose input and output pair by position: the
    first nodes read partners but their readers are not paired; the last
    nodes write partners but read nothing paired. Neither is one node."""
    a = _chain(["Abs", "Neg"], ["a1", "a2"], inputs=("x",), outputs=("y",))
    b = _chain(["Sigmoid", "Tanh"], ["b1", "b2"], inputs=("p",), outputs=("q",))
    j = to_json(diff_models(a, b))
    assert j["nodes"]["changed"] == []
    assert sorted(j["nodes"]["removed"]) == ["a1", "a2"] and sorted(j["nodes"]["added"]) == ["b1", "b2"]
    # The graph input and output still pair by position: both float.
    assert j["renamed"] == [["x", "p"], ["y", "q"]]


def test_outputs_of_other_element_types_do_not_pair_by_position():
    """One output each, a float and an int64, written by unrelated nodes:
    not one output renamed (the float inputs still pair by position)."""
    a = _chain(["Abs"], ["a1"], inputs=("x",), outputs=("y",))
    g = helper.make_graph([helper.make_node("Cast", ["p"], ["z"], name="b1", to=TensorProto.INT64)], "g", [_f("p")],
                          [helper.make_tensor_value_info("z", TensorProto.INT64, [1, 4])])
    b = load_bytes(helper.make_model(g, opset_imports=[helper.make_opsetid("", 20)]).SerializeToString())
    j = to_json(diff_models(a, b))
    assert j["io"]["outputs"]["removed"] == ["y"] and j["io"]["outputs"]["added"] == ["z"]
    assert j["renamed"] == [["x", "p"]]
