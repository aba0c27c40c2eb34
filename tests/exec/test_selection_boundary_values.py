"""Run Selection with a boundary value no run has given (a whisper export
stopped by Ctrl+F10 before its attention Softmax, the nodes after it
selected): a Constant node's output was given random values, though the
model says what it holds; and a second Run Selection took the random values
the first made as known ones, saying nothing of them."""
from __future__ import annotations

import numpy as np
from onnx import TensorProto as TP, helper as h, numpy_helper as nh

from onnxstudio.core import load_bytes
from onnxstudio.core.exec.debug import DebugRun


def _model():
    nodes = [h.make_node("Relu", ["x"], ["a"], name="relu"),
             h.make_node("Constant", [], ["scale"], name="scale_const",
                         value=nh.from_array(np.array([2.0, 3.0, 4.0], np.float32))),
             h.make_node("Cast", ["w"], ["w_copy"], to=TP.FLOAT, name="weight_copy"),
             h.make_node("Mul", ["a", "scale"], ["b"], name="scaled"),
             h.make_node("Add", ["b", "w_copy"], ["y"], name="shifted")]
    graph = h.make_graph(nodes, "g", [h.make_tensor_value_info("x", TP.FLOAT, [3])],
                         [h.make_tensor_value_info("y", TP.FLOAT, [3])],
                         [nh.from_array(np.array([10.0, 20.0, 30.0], np.float32), "w")])
    return load_bytes(h.make_model(graph, opset_imports=[h.make_opsetid("", 17)]).SerializeToString())


def _nodes(model, *names):
    return [n for n in model.graph.nodes if n.name in names]


def test_constants_at_a_selections_boundary_are_the_models_not_random():
    model = _model()
    d = DebugRun(model)
    d.run({"x": np.array([1.0, -1.0, 2.0], np.float32)}, nodes=_nodes(model, "shifted"))
    # b has no value of any run: made up, and said so. w_copy is the weight, cast.
    assert d.randomised == ["b"]
    np.testing.assert_array_equal(d.values["y"], d.values["b"] + np.array([10.0, 20.0, 30.0], np.float32))
    d.run({}, nodes=_nodes(model, "scaled"))
    assert "scale" not in d.randomised
    np.testing.assert_array_equal(d.values["b"], d.values["a"] * np.array([2.0, 3.0, 4.0], np.float32))


def test_values_made_up_for_one_selection_are_made_up_again_and_said_so():
    model = _model()
    d = DebugRun(model)
    d.run({"x": np.array([1.0, -1.0, 2.0], np.float32)}, nodes=_nodes(model, "shifted"))
    assert d.randomised == ["b"]
    d.run({}, nodes=_nodes(model, "shifted"))
    assert d.randomised == ["b"]          # not taken as a value some run gave
    d.run({"x": np.array([1.0, -1.0, 2.0], np.float32)})          # a whole run: b is real now
    d.run({}, nodes=_nodes(model, "shifted"))
    assert d.randomised == []
    np.testing.assert_array_equal(d.values["y"], [12.0, 20.0, 38.0])
