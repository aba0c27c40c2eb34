"""The Run dock's sizes of symbolic dims: the "auto" size of a dim written
as a sum of others (optimum's decoder masks: "past_sequence_length + 1")
says the size the made value gets, the sum, where it said 1
(input_gen.made_sizes is the one table); a run that fails on made inputs
names the sizes made 1 (torch's dynamo names every dim apart: a mask made
1 long fits no past); and a low dock scrolls instead of squeezing the size
boxes to slivers."""
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


def _independent_mask(path) -> None:
    """A mask whose length the file does not relate to the past: made 1, it
    cannot be stacked under the past and new joined (2)."""
    inputs = [helper.make_tensor_value_info("past", TensorProto.FLOAT, ["b", "p"]),
              helper.make_tensor_value_info("new", TensorProto.FLOAT, ["b", "n"]),
              helper.make_tensor_value_info("mask", TensorProto.FLOAT, ["b", "m"])]
    nodes = [helper.make_node("Concat", ["past", "new"], ["all"], axis=1),
             helper.make_node("Concat", ["all", "mask"], ["y"], axis=0)]
    graph = helper.make_graph(nodes, "g", inputs, [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)])
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)]), path)


def test_a_failed_run_names_the_sizes_made_one(qtbot, window, tmp_path):
    path = tmp_path / "mask.onnx"
    _independent_mask(path)
    open_model(qtbot, window, path)
    r = window.run_ui
    said = []
    r.controller.message.connect(lambda kind, text: said.append((kind, text)))
    r.run_all()
    assert r.controller.wait(60_000)
    qtbot.waitUntil(lambda: any(kind == "error" for kind, _ in said), timeout=60_000)
    error = next(text for kind, text in said if kind == "error")
    assert "Concat" in error and "sizes made 1 for want of one: b, p, n, m" in error

    r.inputs.set_dim("m", 2)                  # the sizes the model needs: the error is gone
    said.clear()
    r.run_all()
    assert r.controller.wait(60_000)
    qtbot.waitUntil(lambda: bool(said), timeout=60_000)
    assert not any(kind == "error" for kind, _ in said)


def test_a_low_dock_scrolls_instead_of_squeezing_the_size_boxes(qtbot, window, tmp_path):
    from PySide6.QtWidgets import QScrollArea
    path = tmp_path / "mask.onnx"
    _independent_mask(path)
    open_model(qtbot, window, path)
    r = window.run_ui
    r.show_dock(r.run_dock)
    window.resize(1000, 420)
    qtbot.waitUntil(lambda: r.run_dock.height() < 400, timeout=10_000)
    assert isinstance(r.run_dock.widget(), QScrollArea)
    for spin in r.inputs.dim_spins.values():
        assert spin.height() >= spin.minimumSizeHint().height()
    assert r.run_dock.widget().verticalScrollBar().maximum() > 0
