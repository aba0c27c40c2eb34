"""An edit of an initializer that belongs to a Loop body (not the main
graph) makes the Loop's results stale: DebugRun.invalidate drops them and
the values kept inside the body, so the next run computes them again
instead of showing the model before the edit's. A fresh run of the edited
model is the oracle."""
import numpy as np
from onnx import TensorProto, helper, numpy_helper

from onnxstudio import core
from onnxstudio.core.document import Document
from onnxstudio.core.edits import SetInitializer
from onnxstudio.core.edits.refs import graph_path
from onnxstudio.core.exec.debug import DebugRun


def _tensor(name, dims, elem=TensorProto.FLOAT):
    return helper.make_tensor_value_info(name, elem, dims)


def _loop_with_own_weight(path):
    """x -> Loop (trips): acc * inner_w (the body's initializer) + outer_w -> Neg -> y."""
    body = helper.make_graph(
        [helper.make_node("Mul", ["acc_in", "inner_w"], ["scaled"], name="mul_inner"),
         helper.make_node("Add", ["scaled", "outer_w"], ["acc_out"], name="add_outer"),
         helper.make_node("Identity", ["cond_in"], ["cond_out"], name="keep_going")],
        "body", [_tensor("i", [], TensorProto.INT64), _tensor("cond_in", [], TensorProto.BOOL), _tensor("acc_in", [2])],
        [_tensor("cond_out", [], TensorProto.BOOL), _tensor("acc_out", [2])],
        initializer=[numpy_helper.from_array(np.array([2.0, 3.0], np.float32), "inner_w")])
    graph = helper.make_graph(
        [helper.make_node("Loop", ["trips", "", "x"], ["loop_out"], name="loop", body=body),
         helper.make_node("Neg", ["loop_out"], ["y"], name="post")],
        "main", [_tensor("x", [2]), _tensor("trips", [], TensorProto.INT64)], [_tensor("y", [2])],
        initializer=[numpy_helper.from_array(np.array([1.0, 1.0], np.float32), "outer_w")])
    path.write_bytes(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)],
                                       ir_version=8).SerializeToString())
    return Document(core.load(path))


FEEDS = {"x": np.array([1.0, 2.0], np.float32), "trips": np.array(2, np.int64)}


def _edit_inner_weight(doc):
    body = doc.model.graph.nodes[0].attributes["body"].value
    events = []
    doc.subscribe(events.append)
    doc.apply(SetInitializer("inner_w", np.array([10.0, 10.0], np.float32), graph=graph_path(body)))
    return events[-1].changes, body


def test_a_run_after_editing_a_body_initializer_computes_the_loop_again(tmp_path):
    doc = _loop_with_own_weight(tmp_path / "loop.onnx")
    d = DebugRun(doc.model)
    d.keep_body_values = True
    assert d.run(FEEDS)["y"].tolist() == [-7.0, -22.0]          # (1*2+1)*2+1, (2*3+1)*3+1
    changes, body = _edit_inner_weight(doc)
    dropped = d.invalidate(changes)
    assert {"loop_out", "y"} <= dropped
    assert d.value_of("scaled", body) is None                  # the kept body values went too
    oracle = DebugRun(doc.model).run(FEEDS)["y"]
    assert oracle.tolist() == [-111.0, -211.0]
    np.testing.assert_array_equal(d.run(FEEDS)["y"], oracle)
    np.testing.assert_array_equal(d.value_of("scaled", body), [110.0, 210.0])   # the last iteration's


def test_stepping_after_editing_a_body_initializer_starts_again_on_the_edited_model(tmp_path):
    doc = _loop_with_own_weight(tmp_path / "loop.onnx")
    d = DebugRun(doc.model)
    d.start(FEEDS)
    d.step_into()                                              # into the Loop: its outputs are known
    assert d.values["loop_out"].tolist() == [7.0, 22.0]
    changes, _body = _edit_inner_weight(doc)
    d.invalidate(changes)
    assert "loop_out" not in d.values and not d.started
    d.start(FEEDS)
    while not d.done:
        d.step_over()
    assert d.values["y"].tolist() == [-111.0, -211.0]
