"""Journey: running and stepping the demo with the keys a user presses
(Ctrl+R, Ctrl+Shift+F5, F10, F9, F5), inspecting a value, editing after a
run and running again; and the Tensor Inspector before anything is shown."""
from __future__ import annotations

import shutil

import numpy as np
from PySide6.QtCore import Qt

from viewer_helpers import open_model, wait_idle
from onnxstudio.core import edits as E
from onnxstudio.core.ir import AttrType
from onnxstudio.resources import sample_path


def _finish(qtbot, win):
    assert win.run_ui.controller.wait(300_000)
    wait_idle(qtbot, win)


def _press(qtbot, win, key, modifiers=Qt.NoModifier):
    win.activateWindow()
    win.graph.view.setFocus()
    qtbot.keyClick(win.graph.view, key, modifiers)
    _finish(qtbot, win)


def test_keys_run_step_break_continue_and_rerun_after_an_edit(qtbot, window, tmp_path):
    path = shutil.copy(sample_path("demo.onnx"), tmp_path / "demo.onnx")
    open_model(qtbot, window, path)
    qtbot.waitUntil(lambda: window.qdoc.ready, timeout=60_000)
    r = window.run_ui
    nodes = list(window.model.graph.nodes)
    _press(qtbot, window, Qt.Key_R, Qt.ControlModifier)
    assert r.controller.debug.nodes_run == nodes and not r.controller.last_error
    _press(qtbot, window, Qt.Key_F5, Qt.ControlModifier | Qt.ShiftModifier)
    for _ in range(5):
        _press(qtbot, window, Qt.Key_F10)
    assert r.controller.debug.nodes_run == nodes[:5] and r.controller.debug.current is nodes[5]
    gemm = next(n for n in nodes if n.op_type == "Gemm")
    window.graph.scene.clearSelection()
    window.graph.scene.item_for_node(gemm).setSelected(True)
    _press(qtbot, window, Qt.Key_F9)
    _press(qtbot, window, Qt.Key_F5)
    assert r.controller.debug.current is gemm
    before = np.array(r.controller.debug.values[gemm.inputs[0].name])
    _press(qtbot, window, Qt.Key_F5)                      # on to the end
    logits = np.array(r.controller.debug.values["logits"])
    assert r.inspect(gemm.inputs[0])
    assert "no finite" not in r.inspector.stats.text()
    np.testing.assert_array_equal(r.inspector.array, before)
    window.qdoc.apply(E.SetAttribute(E.node_ref(gemm), "alpha", AttrType.FLOAT, 2.0))
    _press(qtbot, window, Qt.Key_R, Qt.ControlModifier)
    graph = window.model.graph
    weight, bias = (graph.get_value(n).const.numpy() for n in ("head.fc.weight", "head.fc.bias"))
    np.testing.assert_allclose(logits, before @ weight.T + bias, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(r.controller.debug.values["logits"], 2.0 * (before @ weight.T) + bias,
                               rtol=1e-5, atol=1e-6)


def test_inspector_histogram_is_blank_until_a_value_is_shown(qtbot, window):
    inspector = window.run_ui.inspector
    assert inspector.histogram.counts.size == 0
    assert inspector.histogram.empty_text == ""          # not "no finite values to count"
    assert inspector.diff_histogram.empty_text == ""
    inspector.show_value("x", np.array([np.nan, np.inf], np.float32))
    assert inspector.histogram.empty_text == "no finite values to count"
    assert inspector.diff_histogram.empty_text == ""     # nothing to compare with: said above it
    inspector.show_value("y", np.arange(6, dtype=np.float32))
    assert inspector.histogram.counts.sum() == 6


def test_step_status_names_the_box_a_folded_node_is_drawn_inside(qtbot, window):
    # bert_small starts with Identity nodes copying constants: they have no box
    # of their own, the canvas outlines the box that reads them.
    from shared_models import shared_models_root
    open_model(qtbot, window, shared_models_root() / "bert_small" / "model.onnx")
    qtbot.waitUntil(lambda: window.qdoc.ready, timeout=60_000)
    window.run_ui.constants_action.trigger()       # copies of constants are steps only when asked
    _press(qtbot, window, Qt.Key_F5, Qt.ControlModifier | Qt.ShiftModifier)
    _press(qtbot, window, Qt.Key_F10)
    c = window.run_ui.controller
    current = c.debug.current
    assert current.op_type == "Identity"
    host = window.graph.scene.item_for_node(current).ref.node
    assert host is not current
    text = window.statusBar().currentMessage()
    assert f"next: {current.display_name} (drawn inside {host.display_name})" in text, text
    assert host.display_name in window.run_ui.dock_widget.status.text()
    # A node with its own box is named alone.
    while c.debug.current is not None and window.graph.scene.item_for_node(c.debug.current).ref.node \
            is not c.debug.current:
        _press(qtbot, window, Qt.Key_F10)
    own = c.debug.current
    assert window.statusBar().currentMessage().endswith(f"next: {own.display_name}")
