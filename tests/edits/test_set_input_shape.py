"""set_input_shape you can trust: a rank change is refused unless asked
for, and the declarations it rewrites are re-derived from inference so that
a valid model stays valid (onnx.checker with full_check is the oracle)."""
import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

from onnxstudio import core
from onnxstudio.core.edits import EditError, RankChangeRefused, set_input_shape

from shared_models import shared_models_root

from .models import chain, check_roundtrip, onnx_model


def _valid(model):
    onnx.checker.check_model(onnx_model(model), full_check=True)


def _if_of_two_ranks() -> core.Model:
    """y = If(cond): then x itself, else x reshaped to [-1, 4]; y declared
    [N, 4]. While x has rank 2 both branches agree on rank 2; give x rank 3
    and inference can no longer tell y's rank."""
    then = helper.make_graph([helper.make_node("Identity", ["x"], ["t"])], "then", [],
                             [helper.make_tensor_value_info("t", TensorProto.FLOAT, None)])
    other = helper.make_graph([helper.make_node("Reshape", ["x", "flat"], ["e"])], "else", [],
                              [helper.make_tensor_value_info("e", TensorProto.FLOAT, None)])
    g = helper.make_graph(
        [helper.make_node("If", ["cond"], ["y"], then_branch=then, else_branch=other, name="if")], "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 4]),
         helper.make_tensor_value_info("cond", TensorProto.BOOL, [])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["N", 4])],
        initializer=[numpy_helper.from_array(np.array([-1, 4], np.int64), "flat")])
    proto = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])
    onnx.checker.check_model(proto, full_check=True)
    return core.load_bytes(proto.SerializeToString())


def test_a_rank_change_is_refused_unless_allowed():
    m = chain()
    before = core.to_bytes(m)
    with pytest.raises(RankChangeRefused) as e:
        set_input_shape(m, "x", [1, 2, 4])
    message = str(e.value)
    assert 'input "x"' in message and "rank 3" in message and "rank 2 [N,4]" in message, message
    assert "--allow-rank-change" in message
    assert (e.value.input_name, e.value.old_rank, e.value.new_rank) == ("x", 2, 3)
    assert isinstance(e.value, EditError) and core.to_bytes(m) == before

    def look(model, ch):
        assert model.graph.inputs[0].type.shape == (1, 2, 4)
    check_roundtrip(m, set_input_shape(m, "x", [1, 2, 4], allow_rank_change=True), look=look)


def test_an_output_inference_loses_the_rank_of_keeps_a_valid_declaration():
    m = _if_of_two_ranks()
    macro = set_input_shape(m, "x", [2, 3, 4], allow_rank_change=True)

    def look(model, ch):
        # Inference cannot tell y's rank (the branches differ): the declared
        # rank stays, and its dims, which inference had followed from x, are unknown.
        assert model.graph.outputs[0].type.shape == (None, None)
        _valid(model)
    check_roundtrip(m, macro, look=look)


def test_a_dim_inference_followed_from_the_input_is_not_left_stale():
    # y = Relu(x) declared [1, 8]; x becomes [1, ?]: the 8 came from x, so it goes.
    g = helper.make_graph([helper.make_node("Relu", ["x"], ["y"], name="r")], "g",
                          [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 8])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 8])])
    m = core.load_bytes(helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)]).SerializeToString())
    set_input_shape(m, "x", [1, None]).apply(m)
    # Unknown, or named after the input's axis (`x.1`: "whatever size x has
    # there") where inference names input dims without a size.
    assert m.graph.outputs[0].type.shape in ((1, None), (1, "x.1"))
    _valid(m)


def test_declarations_the_change_does_not_reach_are_left_alone():
    # Only x's batch changes; the If's branch outputs follow it, the model-local
    # function is untouched, and nothing is rewritten twice.
    m = chain()
    macro = set_input_shape(m, "x", ["B", 4])
    written = [(e.graph, e.value) for e in macro.edits[1:]]
    assert len(written) == len(set(written))
    assert ((), "a_out") in written and ((), "y") in written
    m2 = _if_of_two_ranks()
    assert len(set_input_shape(m2, "x", ["N", 4]).edits) == 1    # the same shape: only the input's own edit


def test_silero_vad_keeps_its_output_shapes():
    # Inference cannot tell the rank of silero_vad's outputs (If branches of
    # different ranks); set-shape used to write them without a shape.
    for name, dims in (("input", [1, 576]), ("state", [2, 1, 128])):
        m = core.load(shared_models_root() / "silero_vad" / "model.onnx")
        declared = [o.type.shape for o in m.graph.outputs]
        set_input_shape(m, name, dims).apply(m)
        assert [o.type.shape for o in m.graph.outputs] == declared
        _valid(m)


def test_an_input_listed_in_value_info_too_still_feeds_inference():
    # Some exporters list graph inputs in value_info as well: setting the
    # declarations aside must not set the input's own type aside.
    g = helper.make_graph([helper.make_node("Relu", ["x"], ["y"], name="r")], "g",
                          [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 4])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["N", 4])],
                          value_info=[helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 4])])
    m = core.load_bytes(helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)]).SerializeToString())
    set_input_shape(m, "x", [2, 4]).apply(m)
    assert m.graph.outputs[0].type.shape == (2, 4)
    _valid(m)
