"""A comparison with onnxruntime can be stopped in each of its phases, and
its exact comparisons (masks, text) go through numpy, not Python objects.

Found in the app on a legacy llama export of 8,108 nodes at 1,024 tokens:
Cancel pressed while onnxruntime ran took 89 s to answer (its 8 s run was
waited out, then 26 s of value comparisons, which asked nobody), and each
4x1024x1024 causal mask was compared as Python objects, 0.3 s holding the
interpreter lock while the window waited."""
from __future__ import annotations

import numpy as np
import pytest
from onnx import TensorProto, helper

from onnxstudio.core import load_bytes
from onnxstudio.core.exec import Cancelled
from onnxstudio.core.exec import compare
from onnxstudio.core.exec.compare import Stop, compare_run_with_onnxruntime, compare_value, compare_values
from onnxstudio.core.exec.session import Session

ort = pytest.importorskip("onnxruntime")


def _model():
    nodes = [helper.make_node("Relu", ["x"], ["r"], name="relu"),
             helper.make_node("Greater", ["r", "x"], ["g"], name="greater"),
             helper.make_node("Cast", ["g"], ["y"], to=TensorProto.FLOAT, name="cast")]
    graph = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 3])])
    return load_bytes(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]).SerializeToString())


def _run(model, feeds):
    s = Session(model, keep=True)
    outputs = s.run(feeds)
    return {**s.values, **outputs}


def test_masks_and_text_say_how_many_elements_differ_and_the_first():
    ours = np.zeros((2, 3, 4), bool)
    theirs = ours.copy()
    theirs[1, 2, 0] = theirs[1, 2, 3] = True
    d = compare_value("mask", ours, theirs)
    assert not d.agrees and d.note == "[1,2,0]: 2 of 24 elements differ"
    assert compare_value("mask", theirs, theirs.copy()).agrees
    d = compare_value("words", np.array(["a", "bb", "c"]), np.array(["a", "b", "c"]))
    assert not d.agrees and d.note == "[1]: 1 of 3 elements differ"
    assert not compare_value("flag", np.array(True), np.array(False)).agrees
    # A mask against numbers is compared by value, as before (True == 1.0).
    assert compare_value("mixed", np.array([True, False]), np.array([1.0, 0.0])).agrees


def test_the_values_pass_says_its_progress_and_stops_when_cancelled():
    a = {name: np.full(3, i, np.float32) for i, name in enumerate("pqrs")}
    seen = []
    assert set(compare_values(a, dict(a), progress=lambda i, n, name: seen.append((i, n, name)))) == set(a)
    assert seen == [(0, 4, "p"), (1, 4, "q"), (2, 4, "r"), (3, 4, "s")]
    asked = []

    def cancelled():
        asked.append(1)
        return len(asked) > 2            # two values compared, then Cancel
    with pytest.raises(Cancelled):
        compare_values(a, dict(a), cancelled=cancelled)


def test_stop_ends_onnxruntimes_run_in_progress(monkeypatch):
    """onnxruntime asks nobody while it runs: Stop raises its terminate flag.
    Its run here is held until the Stop is set (whatever the machine's
    speed), then goes on with the flag onnxruntime was given."""
    model = _model()
    feeds = {"x": np.array([[1, -2, 3], [-4, 5, -6]], np.float32)}
    ours = _run(model, feeds)
    stop = Stop()
    real = ort.InferenceSession.run
    flags = []

    def run_then_stopped(self, names, feed, run_options=None):
        stop.set()                       # Cancel pressed while onnxruntime works
        flags.append(run_options is not None and run_options.terminate)
        return real(self, names, feed, run_options)
    monkeypatch.setattr(ort.InferenceSession, "run", run_then_stopped)
    with pytest.raises(Cancelled):
        compare_run_with_onnxruntime(model, ours, feeds, stop=stop)
    # Once: a terminated run is a cancel, not a refusal to retry with fewer outputs exposed.
    assert flags == [True]


def test_stop_set_before_onnxruntime_starts_runs_nothing(monkeypatch):
    model = _model()
    feeds = {"x": np.ones((2, 3), np.float32)}
    ours = _run(model, feeds)
    stop = Stop()
    stop.set()
    monkeypatch.setattr(ort.InferenceSession, "run", lambda *a, **k: pytest.fail("onnxruntime ran after Cancel"))
    with pytest.raises(Cancelled):
        compare_run_with_onnxruntime(model, ours, feeds, stop=stop)


def test_an_unset_stop_compares_as_without_one():
    model = _model()
    feeds = {"x": np.array([[1, -2, 3], [-4, 5, -6]], np.float32)}
    ours = _run(model, feeds)
    told = []
    report, theirs = compare_run_with_onnxruntime(model, ours, feeds, stop=Stop(),
                                                  values_progress=lambda i, n, node: told.append(node.name))
    assert report.agrees and set(theirs) >= {"r", "g", "y"}
    assert told == ["relu", "greater", "cast"]
    plain, _ = compare_run_with_onnxruntime(model, ours, feeds)
    assert [nd.agrees for nd in plain.nodes] == [nd.agrees for nd in report.nodes]


def test_a_stop_unused_by_onnxruntime_leaves_other_failures_reported(monkeypatch):
    """A refusal of onnxruntime's with the Stop never set is still a
    CompareError naming it, not a cancel."""
    model = _model()
    feeds = {"x": np.ones((2, 3), np.float32)}
    ours = _run(model, feeds)

    def refuses(self, names, feed, run_options=None):
        raise RuntimeError("planted refusal")
    monkeypatch.setattr(ort.InferenceSession, "run", refuses)
    with pytest.raises(compare.CompareError, match="planted refusal"):
        compare_run_with_onnxruntime(model, ours, feeds, stop=Stop())
