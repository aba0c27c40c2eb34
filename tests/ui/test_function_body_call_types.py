"""Inside a function called with float[2,3] and float[7], the canvas shows
what holds for both calls (float), not the last call's float[7], and the
tooltip says the calls give different types; a function called twice with
one shape shows that shape and says nothing more."""
from __future__ import annotations

import os

from viewer_helpers import open_model, wait_idle

NOTE = "The calls of this function give it different types"


def write_two_calls(path, shape_b):
    import onnx
    from onnx import TensorProto, helper
    fn = helper.make_function("local", "AddRelu", ["x"], ["y"],
                              [helper.make_node("Add", ["x", "x"], ["s"]), helper.make_node("Relu", ["s"], ["y"])],
                              [helper.make_opsetid("", 18)])
    graph = helper.make_graph(
        [helper.make_node("AddRelu", ["a"], ["c"], domain="local", name="call_a"),
         helper.make_node("AddRelu", ["b"], ["d"], domain="local", name="call_b")], "g",
        [helper.make_tensor_value_info("a", TensorProto.FLOAT, [2, 3]),
         helper.make_tensor_value_info("b", TensorProto.FLOAT, shape_b)],
        [helper.make_tensor_value_info("c", TensorProto.FLOAT, None),
         helper.make_tensor_value_info("d", TensorProto.FLOAT, None)])
    model = helper.make_model(graph, functions=[fn], ir_version=9,
                              opset_imports=[helper.make_opsetid("", 18), helper.make_opsetid("local", 1)])
    onnx.save(model, path)
    return path


def _enter_body(qtbot, window):
    qdoc = window.graph.qdoc
    qtbot.waitUntil(lambda: qdoc.ready, timeout=30_000)
    body = qdoc.document.model.functions.snapshot()[("local", "AddRelu", "")].graph
    window.graph.enter_graph(body)
    qtbot.waitUntil(lambda: window.graph.level.graph is body and bool(window.graph.scene.edge_items), timeout=60_000)
    wait_idle(qtbot, window)
    return {item.ref.value.name: item for item in window.graph.scene.edge_items.values()}


def test_body_edges_show_what_every_call_shares(qtbot, window, tmp_path):
    open_model(qtbot, window, write_two_calls(tmp_path / "two_calls.onnx", [7]))
    edges = _enter_body(qtbot, window)
    assert edges["s"].full_label == "float"                  # not float[7] (the last call's)
    assert NOTE in edges["s"].toolTip()
    shot = os.environ.get("ONNXSTUDIO_SHOT")
    if shot:                                                 # docs screenshot, on request only
        window.grab().save(shot)


def test_body_edges_of_calls_of_one_shape_show_it(qtbot, window, tmp_path):
    open_model(qtbot, window, write_two_calls(tmp_path / "same.onnx", [2, 3]))
    edges = _enter_body(qtbot, window)
    assert edges["s"].full_label == "float[2,3]"
    assert NOTE not in edges["s"].toolTip()
