"""Random inputs for decoders with past key/values, as optimum exports them:
the attention mask's length is declared as a sum of other dims
("past_sequence_length + 1"), and made 1 it fits no past, so the run failed
before the user typed every size (found on a transformers Llama exported
with optimum's dim names)."""
import numpy as np
import onnx
from onnx import TensorProto, helper

from onnxstudio import core
from onnxstudio.core.exec.input_gen import default_input_set, derived_sizes, make_feeds, unsized_dims
from onnxstudio.core.exec.session import Session
from onnxstudio.core.ir import Value
from onnxstudio.core.ir.dtypes import DataType
from onnxstudio.core.ir.types import TensorType


def decoder_step(tmp_path, new=1, total="past_sequence_length + 1"):
    """The pattern of one decoding step: the new keys join the past ones, and
    the mask, one entry per past and new position, weighs them (MatMul needs
    the lengths to agree, as attention does)."""
    inputs = [
        helper.make_tensor_value_info("key", TensorProto.FLOAT, ["batch_size", 2, new, 4]),
        helper.make_tensor_value_info("past_key", TensorProto.FLOAT, ["batch_size", 2, "past_sequence_length", 4]),
        helper.make_tensor_value_info("attention_mask", TensorProto.INT64, ["batch_size", total]),
    ]
    nodes = [
        helper.make_node("Concat", ["past_key", "key"], ["present"], axis=2),
        helper.make_node("ReduceSum", ["present", "axes"], ["scores"], keepdims=0),
        helper.make_node("Unsqueeze", ["scores", "one"], ["scores_row"]),
        helper.make_node("Cast", ["attention_mask"], ["mask_f"], to=TensorProto.FLOAT),
        helper.make_node("Unsqueeze", ["mask_f", "two"], ["mask_col"]),
        helper.make_node("MatMul", ["scores_row", "mask_col"], ["weighed"]),
    ]
    inits = [helper.make_tensor("axes", TensorProto.INT64, [2], [1, 3]),
             helper.make_tensor("one", TensorProto.INT64, [1], [1]),
             helper.make_tensor("two", TensorProto.INT64, [1], [2])]
    outputs = [helper.make_tensor_value_info("weighed", TensorProto.FLOAT, ["batch_size", 1, 1]),
               helper.make_tensor_value_info("present", TensorProto.FLOAT, ["batch_size", 2, total, 4])]
    graph = helper.make_graph(nodes, "step", inputs, outputs, inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])
    onnx.checker.check_model(model, full_check=True)
    path = tmp_path / "step.onnx"
    onnx.save(model, path)
    return core.load(path)


def expected(feeds):
    present = np.concatenate([feeds["past_key"], feeds["key"]], axis=2)
    return present.sum(axis=(1, 3))[:, None, :] @ feeds["attention_mask"].astype(np.float32)[:, :, None]


def test_a_mask_declared_as_past_plus_one_fits_the_past_it_is_made_with(tmp_path):
    model = decoder_step(tmp_path)
    inputs = list(model.graph.inputs)
    for dims, past in (({}, 1), ({"past_sequence_length": 5, "batch_size": 2}, 5)):
        input_set = default_input_set(inputs, seed=1, dims=dims)
        feeds = make_feeds(inputs, input_set)
        assert feeds["attention_mask"].shape[1] == past + 1
        assert feeds["past_key"].shape[2] == past
        got = Session(model).run(feeds)["weighed"]
        np.testing.assert_allclose(got, expected(feeds), rtol=1e-5)
        # The sum is no size left at 1: what was left at 1 is named by its parts.
        assert "past_sequence_length + 1" not in unsized_dims(inputs, input_set)
    input_set = default_input_set(inputs, dims={})
    assert unsized_dims(inputs, input_set) == ["batch_size", "past_sequence_length"]


def test_onnxruntime_genai_total_sequence_length_is_past_plus_new(tmp_path):
    """onnxruntime-genai's decoders name the mask's length total_sequence_length,
    the past past_sequence_length and the new tokens sequence_length."""
    model = decoder_step(tmp_path, new="sequence_length", total="total_sequence_length")
    inputs = list(model.graph.inputs)
    for dims, total in (({}, 2), ({"past_sequence_length": 5, "sequence_length": 3}, 8),
                        ({"total_sequence_length": 4, "past_sequence_length": 3}, 4)):
        feeds = make_feeds(inputs, default_input_set(inputs, seed=2, dims=dims))
        assert feeds["attention_mask"].shape[1] == total
        got = Session(model).run(feeds)["weighed"]
        np.testing.assert_allclose(got, expected(feeds), rtol=1e-5)
    # Without the names of the convention beside it, the name is a name like any other.
    alone = [val("mask", ["batch", "total_sequence_length"]), val("past", ["batch", "past_sequence_length"])]
    assert derived_sizes(alone, {}) == {}


def val(name, shape):
    return Value(name, TensorType(DataType.FLOAT, tuple(shape)))


def test_which_dims_read_as_sums():
    inputs = [val("a", ["past", "seq", "n"]), val("b", ["past + seq", "past+1", "n - 1", "2 + past - seq"]),
              val("c", ["batch-size", "past + other", "past * 2", "n -", "+", "seq 1", "-seq"])]
    sizes = derived_sizes(inputs, {"past": 4, "seq": 3})
    # Parts other dims size (or 1 when none does) and whole numbers, joined by + and -.
    assert sizes == {"past + seq": 7, "past+1": 5, "2 + past - seq": 3}     # n - 1 is 0: no size, left at 1
    assert derived_sizes(inputs, {"n": 3}) == {"past + seq": 2, "past+1": 2, "n - 1": 2, "2 + past - seq": 2}
    # A size the user gave the sum itself wins over its parts.
    assert "past + seq" not in derived_sizes(inputs, {"past": 4, "past + seq": 9})
