"""The Run dock's "auto" size of a dim written as a sum of others (optimum's
decoder masks: "past_sequence_length + 1") says the size the made value
gets, the sum, where it said 1 (input_gen.made_sizes is the one table)."""
from __future__ import annotations

import onnx
from onnx import TensorProto, helper

from viewer_helpers import open_model

TOTAL = "past_sequence_length + 1"


def _decoder_step(path) -> None:
    inputs = [helper.make_tensor_value_info("past_key", TensorProto.FLOAT, ["batch", 2, "past_sequence_length", 4]),
              helper.make_tensor_value_info("attention_mask", TensorProto.INT64, ["batch", TOTAL])]
    nodes = [helper.make_node("Shape", ["past_key"], ["s"]), helper.make_node("Shape", ["attention_mask"], ["m"])]
    outputs = [helper.make_tensor_value_info("s", TensorProto.INT64, [4]),
               helper.make_tensor_value_info("m", TensorProto.INT64, [2])]
    graph = helper.make_graph(nodes, "step", inputs, outputs)
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)]), path)


def test_the_auto_size_of_a_sum_is_the_sum(qtbot, window, tmp_path):
    path = tmp_path / "step.onnx"
    _decoder_step(path)
    open_model(qtbot, window, path)
    panel = window.run_ui.inputs
    assert panel.dim_spins[TOTAL].text() == "auto: 2"
    panel.set_dim("past_sequence_length", 5)
    assert panel.dim_spins[TOTAL].text() == "auto: 6"
    assert panel.make_feeds()["attention_mask"].shape == (1, 6)
