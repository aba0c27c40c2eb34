"""An edit that arrives while a run or a step is computing (the app's UI
thread invalidates while the worker finishes the node it is in, after a
cancel that waited too long) leaves no value of the model before the edit
among the run's values: the session the edit ended keeps its results."""
import numpy as np
import pytest
from onnx import TensorProto, helper, numpy_helper

from onnxstudio import core
from onnxstudio.core.document import Document
from onnxstudio.core.edits import SetInitializer
from onnxstudio.core.exec import Cancelled
from onnxstudio.core.exec.debug import DebugRun


def _chain(path):
    """x * w -> Neg -> Abs -> Neg -> y (w an initializer)."""
    graph = helper.make_graph(
        [helper.make_node("Mul", ["x", "w"], ["scaled"], name="scale"),
         helper.make_node("Neg", ["scaled"], ["n1"], name="neg"),
         helper.make_node("Abs", ["n1"], ["a1"], name="abs"),
         helper.make_node("Neg", ["a1"], ["y"], name="neg_again")],
        "chain", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2])],
        initializer=[numpy_helper.from_array(np.array([2.0, 3.0], np.float32), "w")])
    path.write_bytes(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)],
                                       ir_version=8).SerializeToString())
    return Document(core.load(path))


FEEDS = {"x": np.array([1.0, -1.0], np.float32)}


def _edit_when(doc, d, at: str):
    """Before the node named `at` runs: cancel, edit w and invalidate, as the
    app's UI thread does when an edit comes during a job."""
    events = []
    doc.subscribe(events.append)

    def progress(i, n, node):
        if node.name == at and not events:
            d.cancel()
            doc.apply(SetInitializer("w", np.array([5.0, 5.0], np.float32)))
            d.invalidate(events[-1].changes)
    d.progress = progress


def test_a_run_an_edit_interrupts_keeps_nothing_it_computed_after(tmp_path):
    doc = _chain(tmp_path / "chain.onnx")
    d = DebugRun(doc.model)
    _edit_when(doc, d, "abs")
    with pytest.raises(Cancelled):
        d.run(FEEDS)
    assert not {"scaled", "n1", "a1", "y"} & set(d.values)      # all of them read the old w
    assert "w" not in d.values or d.values["w"].tolist() == [5.0, 5.0]
    d.progress = None
    assert d.run(FEEDS)["y"].tolist() == [-5.0, -5.0]


def test_a_step_an_edit_interrupts_keeps_nothing_of_its_node(tmp_path):
    doc = _chain(tmp_path / "chain.onnx")
    d = DebugRun(doc.model)
    d.start(FEEDS)
    d.step()
    d.step()
    _edit_when(doc, d, "abs")
    with pytest.raises(Cancelled):
        d.step()                                                 # abs ran on the old model's n1
    assert not {"scaled", "n1", "a1"} & set(d.values) and not d.started
    d.progress = None
    d.start(FEEDS)
    while not d.done:
        d.step()
    assert d.values["y"].tolist() == [-5.0, -5.0]
