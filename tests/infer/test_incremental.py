"""Inference.update re-infers only downstream of a change and ends where a
full run would."""
from __future__ import annotations

import numpy as np

from onnxstudio import core
from onnxstudio.core.infer import Inference
from onnxstudio.core.ir.tensor import Tensor
from onnxstudio.core.ir.types import TensorType

from shared_models import shared_model

from .helpers import F, make_model, node, out


def _all_types(inf, model):
    return {(id(g), name): t for g in model.graph.walk() for name, t in inf.types_in(g).items()}


def test_changing_an_input_dim_repropagates_like_a_full_run():
    nodes = [node("Relu", ["x"], ["a"]), node("Neg", ["y"], ["b"]), node("Concat", ["a", "a"], ["c"], axis=0)]
    m = make_model(nodes, [("x", F, ["N", 4]), ("y", F, [3])], [out("b"), out("c")])
    inf = Inference(m)
    inf.run()
    assert inf.type_of(m.graph.get_value("c")).shape == ("2*N", 4)
    x = m.graph.get_value("x")
    x.type = TensorType(F, (5, 4))
    before = inf.nodes_inferred
    changed = inf.update(values=[x])
    # Relu and Concat ran again; Neg (not downstream) did not.
    assert inf.nodes_inferred - before == 2
    assert {v.name for v in changed} == {"x", "a", "c"}
    assert inf.type_of(m.graph.get_value("c")).shape == (10, 4)


def test_propagation_stops_where_outputs_do_not_change():
    nodes = [node("Transpose", ["x"], ["a"], perm=[1, 0]), node("Relu", ["a"], ["b"]), node("Neg", ["b"], ["c"])]
    m = make_model(nodes, [("x", F, [2, 2])], [out("c")])
    inf = Inference(m)
    inf.run()
    t = m.graph.nodes[0]
    t.attributes["perm"].value = [0, 1]       # same shape for a square input
    before = inf.nodes_inferred
    assert inf.update(nodes=[t]) == set()
    assert inf.nodes_inferred - before == 1


def test_initializer_data_change_refolds_reshape_target():
    m = make_model([node("Reshape", ["x", "t"], ["y"]), node("Relu", ["y"], ["z"])],
                   [("x", F, [2, 6])], [out("z")], initializers=[("t", np.array([3, 4], np.int64))])
    inf = Inference(m)
    inf.run()
    assert inf.type_of(m.graph.get_value("z")).shape == (3, 4)
    t = m.graph.get_value("t")
    t.const = Tensor.from_numpy(np.array([4, 3], np.int64), "t")
    inf.update(values=[t])
    assert inf.type_of(m.graph.get_value("z")).shape == (4, 3)


def test_update_on_bert_matches_full_run_and_does_less_work():
    m = core.load(shared_model("bert_12layer_narrow") / "model.onnx")
    inf = Inference(m)
    inf.run()
    full_cost = inf.nodes_inferred
    inp = m.graph.inputs[0]
    shape = inp.type.shape
    inp.type = TensorType(inp.type.elem_type, (2,) + tuple(shape[1:]))
    inf.nodes_inferred = 0
    inf.update(values=[inp])
    incremental = _all_types(inf, m)
    assert inf.nodes_inferred <= full_cost
    fresh = Inference(m)
    fresh.run()
    assert incremental == _all_types(fresh, m)
    # The batch dim became concrete downstream.
    assert any(isinstance(t, TensorType) and t.shape and t.shape[0] == 2
               for t in fresh.types_in(m.graph).values())


def test_change_seen_through_a_subgraph_capture():
    from .helpers import B, helper
    then_g = helper.make_graph([node("Relu", ["x"], ["t"])], "then", [], [helper.make_tensor_value_info("t", F, None)])
    else_g = helper.make_graph([node("Neg", ["x"], ["e"])], "else", [], [helper.make_tensor_value_info("e", F, None)])
    m = make_model([node("If", ["c"], ["y"], then_branch=then_g, else_branch=else_g), node("Relu", ["y"], ["z"])],
                   [("c", B, []), ("x", F, [2, 3])], [out("z")])
    inf = Inference(m)
    inf.run()
    x = m.graph.get_value("x")
    x.type = TensorType(F, (7, 3))
    changed = inf.update(values=[x])
    assert inf.type_of(m.graph.get_value("z")).shape == (7, 3)
    assert {v.name for v in changed} >= {"x", "y", "z"}
    body = m.graph.nodes[0].attributes["then_branch"].value
    assert inf.types_in(body)["t"].shape == (7, 3)


def test_update_on_a_cyclic_graph_terminates():
    # a = Concat(x, b); b = Relu(a): invalid, but an edit must not hang.
    from onnx import helper as h
    g = h.make_graph([h.make_node("Concat", ["x", "b"], ["a"], axis=0), h.make_node("Relu", ["a"], ["b"])], "g",
                     [h.make_tensor_value_info("x", F, ["N"])], [h.make_tensor_value_info("b", F, None)])
    model = h.make_model(g, opset_imports=[h.make_opsetid("", 21)])
    m = core.load_bytes(model.SerializeToString())
    inf = Inference(m)
    inf.run()
    x = m.graph.get_value("x")
    x.type = TensorType(F, (3,))
    inf.update(values=[x])
    assert inf.type_of(m.graph.get_value("a")).elem_type == F


def test_a_new_constant_value_of_the_same_type_propagates():
    # Add's output keeps its type (int64[2]) but its folded value changes:
    # update must follow the value to the Reshape reading it.
    m = make_model([node("Add", ["t", "z"], ["target"]), node("Reshape", ["x", "target"], ["y"])],
                   [("x", F, [2, 6])], [out("y")],
                   initializers=[("t", np.array([3, 4], np.int64)), ("z", np.array([0, 0], np.int64))])
    inf = Inference(m)
    inf.run()
    target, y = m.graph.get_value("target"), m.graph.get_value("y")
    before = inf.type_of(target)
    assert inf.type_of(y).shape == (3, 4)
    t = m.graph.get_value("t")
    t.const = Tensor.from_numpy(np.array([4, 3], np.int64), "t")
    changed = inf.update(values=[t])
    assert inf.type_of(target) == before
    assert inf.type_of(y).shape == (4, 3)
    assert {v.name for v in changed} == {"t", "target", "y"}
    assert inf.previous[y].shape == (3, 4)


def test_a_new_symbolic_value_of_the_same_type_propagates():
    # Shape's output stays int64[2]; its entries move from (N, 4) to (M, 4).
    m = make_model([node("Shape", ["x"], ["s"]), node("Reshape", ["z", "s"], ["y"])],
                   [("x", F, ["N", 4]), ("z", F, [None])], [out("y")])
    inf = Inference(m)
    inf.run()
    s, y = m.graph.get_value("s"), m.graph.get_value("y")
    assert inf.type_of(y).shape == ("N", 4)
    x = m.graph.get_value("x")
    x.type = TensorType(F, ("M", 4))
    changed = inf.update(values=[x])
    assert {v.name for v in changed} == {"x", "s", "y"}
    assert inf.type_of(s) == inf.previous[s]          # the same type, new entries
    assert inf.type_of(y).shape == ("M", 4)


def test_update_returns_what_moved_and_only_that():
    # A change that dies out half-way: Relu's output moves, the Reshape to a
    # fixed shape after it does not, so nothing past it runs again.
    nodes = [node("Relu", ["x"], ["a"]), node("Reshape", ["a", "shape"], ["b"]), node("Neg", ["b"], ["c"])]
    m = make_model(nodes, [("x", F, ["N", 6])], [out("c")], initializers=[("shape", np.array([3, 4], np.int64))])
    inf = Inference(m)
    inf.run()
    x = m.graph.get_value("x")
    x.type = TensorType(F, (2, 6))
    before = inf.nodes_inferred
    changed = inf.update(values=[x])
    assert {v.name for v in changed} == {"x", "a"}
    assert set(inf.previous) == changed
    assert inf.nodes_inferred - before == 2
    fresh = Inference(m)
    fresh.run()
    assert _all_types(inf, m) == _all_types(fresh, m)
