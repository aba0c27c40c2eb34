"""The run's docks appear on the first Ctrl+R (Run), the first inspected value
(Tensor Inspector) and the first comparison (Compare). The canvas keeps its
centre when it is resized, so a dock appearing beside it cut off what was at
its edge: on ppocr_v4_det's first Ctrl+R the Run dock, opening on the left,
cut the graph's first boxes in half (seen under Xvfb). What the user was
looking at the top left of must stay in view."""
from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication

from viewer_helpers import open_model, wait_idle

BRANCHES = 14


def _write_wide_model(path) -> str:
    """x -> BRANCHES unary nodes side by side -> one output each: wider than the canvas."""
    import onnx
    from onnx import TensorProto, helper
    ops = ["Relu", "Neg", "Abs", "Sigmoid", "Tanh", "Exp", "Softsign"]
    nodes = [helper.make_node(ops[i % len(ops)], ["x"], [f"y{i}"], name=f"branch_{i}") for i in range(BRANCHES)]
    graph = helper.make_graph(nodes, "wide", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 4])],
                              [helper.make_tensor_value_info(f"y{i}", TensorProto.FLOAT, [1, 4])
                               for i in range(BRANCHES)])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    onnx.save(model, str(path))
    return str(path)


def test_the_run_dock_appearing_leaves_the_boxes_at_the_canvas_edge_in_view(qtbot, window, tmp_path):
    open_model(qtbot, window, _write_wide_model(tmp_path / "wide.onnx"))
    r = window.run_ui
    assert not r.run_dock.isVisible()
    view = window.graph.view
    view.reset_zoom()                   # 100 %: wider than the canvas (it opened fitted)
    view.horizontalScrollBar().setValue(view.horizontalScrollBar().minimum())     # looking at the left end
    boxes = [window.graph.scene.item_for_node(n).scene_rect() for n in window.model.graph.nodes]
    seen = [b for b in boxes if view.visible_scene_rect().contains(b)]
    leftmost = min(seen, key=lambda b: b.left())
    assert view.horizontalScrollBar().maximum() > 0, "the graph must be wider than the canvas"

    window.activateWindow()
    qtbot.waitUntil(lambda: QApplication.activeWindow() is window, timeout=10_000)
    view.setFocus()
    qtbot.keyClick(view, Qt.Key_R, Qt.ControlModifier)                            # the first run
    assert r.controller.wait(300_000)
    wait_idle(qtbot, window)
    assert r.run_dock.isVisible() and r.controller.debug.nodes_run
    assert view.visible_scene_rect().contains(leftmost), "the box at the canvas's left edge went out of view"

    # The inspector appearing at the bottom leaves them in view too.
    assert r.inspect(window.model.graph.nodes[0].outputs[0])
    wait_idle(qtbot, window)
    assert r.inspector_dock.isVisible()
    assert view.visible_scene_rect().contains(leftmost)
