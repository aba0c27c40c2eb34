"""core.gc_policy owns when the cyclic collector runs: a pause (building a
model's graph) and a worker job overlapping in any order leave it off until
both end, then on again, as it was before; it stays off for a caller that
turned it off itself."""
import gc

from onnx import TensorProto, helper

from onnxstudio import core
from onnxstudio.core import gc_policy


def _lazy_model():
    g = helper.make_graph([helper.make_node("Relu", ["x"], ["y"])], "g",
                          [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1])])
    return core.load_bytes(helper.make_model(g).SerializeToString())


def test_a_pause_ending_inside_a_job_leaves_collection_off_until_the_job_ends():
    assert gc.isenabled()
    with gc_policy.paused():
        gc_policy.job_started()
    assert not gc.isenabled()          # the job still holds it off
    gc_policy.job_ended()
    assert gc.isenabled()


def test_building_a_graph_inside_a_job_does_not_turn_collection_back_on():
    model = _lazy_model()
    gc_policy.job_started()
    try:
        assert len(model.graph.nodes) == 1       # built here, under a pause of its own
        assert not gc.isenabled()
    finally:
        gc_policy.job_ended()
    assert gc.isenabled()


def test_a_caller_that_turned_collection_off_keeps_it_off():
    gc.disable()
    try:
        with gc_policy.paused():
            pass
        assert not gc.isenabled()
    finally:
        gc.enable()



def test_a_job_starting_during_inference_keeps_collection_off(monkeypatch):
    """Inference pauses the collector for its walk; a worker job that starts
    meanwhile (the run's, while the analysis job infers) must find it still
    off when the walk ends: inference turned it back on by itself."""
    from onnxstudio.core.infer import infer
    from onnxstudio.core.infer.engine import Inference
    walk = Inference._infer_graph

    def walk_while_a_job_starts(self, *args):
        gc_policy.job_started()
        return walk(self, *args)
    monkeypatch.setattr(Inference, "_infer_graph", walk_while_a_job_starts)
    try:
        infer(_lazy_model())
        assert not gc.isenabled()
    finally:
        gc_policy.job_ended()
    assert gc.isenabled()
