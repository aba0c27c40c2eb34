"""Weights of one name in two exports are one weight only where they may
be: the dynamo exporter names constants by a counter (val_63), so its
re-export to opset 23 gives val_63 to another tensor. whisper_tiny op20 vs
op23 paired an int64 shape [3] with a float [64, 64] matrix ("dtype int64 ->
float") and a [128, 64] weight with another [64, 64] one, and called 18
nodes changed where 6 were (the 6 Attention nodes). A weight whose name
partner has another dtype or shape now waits until the contents have paired
what they can; a float and an integer tensor of different ranks never pair
by name. A float32 weight made float16 under its name is still one weight."""
import numpy as np
from onnx import TensorProto, helper, numpy_helper

from onnxstudio.core import load_bytes
from onnxstudio.core.diff import diff_models
from onnxstudio.core.diff.report import to_json

RNG = np.random.default_rng(7)
W1 = RNG.standard_normal((4, 8)).astype(np.float32)
W2 = RNG.standard_normal((8, 4)).astype(np.float32)
SHAPE = np.array([2, 8], np.int64)


def _model(names: dict, w_dtype=np.float32):
    """x[4,4] -> MatMul(W1) -> MatMul(W2) -> Reshape(SHAPE) -> y[2,8]; the
    three constants named by `names` (keys "w1", "w2", "shape")."""
    nodes = [helper.make_node("MatMul", ["x", names["w1"]], ["h1"], name="mm1"),
             helper.make_node("MatMul", ["h1", names["w2"]], ["h2"], name="mm2"),
             helper.make_node("Reshape", ["h2", names["shape"]], ["y"], name="view")]
    elem = TensorProto.FLOAT16 if w_dtype == np.float16 else TensorProto.FLOAT
    inits = [numpy_helper.from_array(W1.astype(w_dtype), names["w1"]),
             numpy_helper.from_array(W2.astype(w_dtype), names["w2"]),
             numpy_helper.from_array(SHAPE, names["shape"])]
    graph = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("x", elem, [4, 4])],
                              [helper.make_tensor_value_info("y", elem, [2, 8])], inits)
    return load_bytes(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]).SerializeToString())


def _pairs(d) -> dict:
    return {va.name: vb.name for va, vb in d.matching.values.items() if va.const is not None}


def test_a_counter_name_given_to_a_tensor_of_another_kind_does_not_pair():
    # B's exporter counted differently: the shape vector is val_1, the first weight val_3.
    a = _model({"w1": "val_1", "w2": "val_2", "shape": "val_3"})
    b = _model({"w1": "val_3", "w2": "val_2", "shape": "val_1"})
    d = diff_models(a, b)
    assert _pairs(d) == {"val_1": "val_3", "val_2": "val_2", "val_3": "val_1"}
    j = to_json(d)
    assert j["initializers"] == {"changed": [], "added": [], "removed": []}
    assert j["nodes"] == {"added": [], "removed": [], "changed": []}
    assert sorted(j["renamed"]) == [["val_1", "val_3"], ["val_3", "val_1"]]


def test_same_kind_other_shape_pairs_by_content_first():
    # val_1 [4, 8] and val_2 [8, 4] swap names: float, rank 2 on both sides.
    a = _model({"w1": "val_1", "w2": "val_2", "shape": "s"})
    b = _model({"w1": "val_2", "w2": "val_1", "shape": "s"})
    d = diff_models(a, b)
    assert _pairs(d) == {"val_1": "val_2", "val_2": "val_1", "s": "s"}
    assert not d.weights_changed and not d.changed


def test_a_weight_converted_to_float16_is_still_one_weight():
    names = {"w1": "w1", "w2": "w2", "shape": "s"}
    d = diff_models(_model(names), _model(names, np.float16))
    assert _pairs(d) == {"w1": "w1", "w2": "w2", "s": "s"}
    assert sorted((c.a.name, c.dtype) for c in d.weights_changed) == [
        ("w1", (TensorProto.FLOAT, TensorProto.FLOAT16)), ("w2", (TensorProto.FLOAT, TensorProto.FLOAT16))]


def test_a_renamed_weight_of_another_shape_still_pairs_by_name():
    # A hand edit that reshapes a weight under its name: nothing else claims it.
    a = _model({"w1": "w1", "w2": "w2", "shape": "s"})
    b = _model({"w1": "w1", "w2": "w2", "shape": "s"})
    from onnxstudio.core.edits import SetInitializer
    SetInitializer("w1", np.zeros((4, 6), np.float32)).apply(b)
    d = diff_models(a, b)
    assert _pairs(d)["w1"] == "w1"
    assert [(c.a.name, c.shape) for c in d.weights_changed] == [("w1", ((4, 8), (4, 6)))]


def test_the_compare_list_says_which_dtype_and_shape(qtbot):
    """The window's row said 'dtype or shape' where the CLI says which."""
    from onnxstudio.ui.diff.difference_list import DifferenceList
    names = {"w1": "w1", "w2": "w2", "shape": "s"}
    b = _model(names, np.float16)
    from onnxstudio.core.edits import SetInitializer
    SetInitializer("s", np.array([16], np.int64)).apply(b)
    rows = DifferenceList(diff_models(_model(names), b))
    qtbot.addWidget(rows)
    texts = [rows.list.item(i).text() for i in range(rows.list.count())]
    assert "weight w1: dtype float → float16" in texts and "weight w2: dtype float → float16" in texts
    assert "weight s: shape [2] → [1]" in texts
