"""The Tensor Inspector opens as narrow as its content allows; on a loop
body's float[4] (an If inside a Loop, stepped with F11 under Xvfb) that was
4 px short of its tab bar: "Compare" was cut off behind scroll arrows."""
from __future__ import annotations

import numpy as np
from onnx import TensorProto, helper

from viewer_helpers import open_model, wait_idle


def test_every_tab_of_the_inspector_is_shown_for_a_small_value(qtbot, window, tmp_path):
    graph = helper.make_graph([helper.make_node("Relu", ["x"], ["y"], name="relu")], "g",
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, [4])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [4])])
    path = tmp_path / "small.onnx"
    path.write_bytes(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]).SerializeToString())
    open_model(qtbot, window, path)
    r = window.run_ui
    r.run_all()
    assert r.controller.wait(300_000)
    wait_idle(qtbot, window)
    assert r.inspect(window.model.graph.nodes[0].outputs[0])
    qtbot.waitUntil(lambda: r.inspector_dock.isVisible(), timeout=60_000)
    bar = r.inspector.tabs.tabBar()
    qtbot.waitUntil(lambda: bar.width() > 0, timeout=60_000)
    np.testing.assert_array_equal(r.inspector.array.shape, (4,))
    assert bar.width() >= bar.sizeHint().width(), (bar.width(), bar.sizeHint().width())
    assert bar.tabRect(bar.count() - 1).right() < bar.width()
