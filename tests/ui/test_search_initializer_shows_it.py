"""A search hit on an initializer is shown in Properties as the initializer
(its type, readers and values), as a click on its link in Properties shows
it: the canvas selects the box that draws it (a reader), but Properties
showed that reader node, so Enter on "conv.weight" gave the Conv's form.
Both when the reader is on screen and when a closed group hides it (the
reveal then waits for a layout)."""
from __future__ import annotations

import shutil

from viewer_helpers import open_model, wait_idle
from onnxstudio.core.ir import Node
from onnxstudio.resources import sample_path


def _open_demo(qtbot, window, tmp_path):
    path = shutil.copy(sample_path("demo.onnx"), tmp_path / "demo.onnx")
    open_model(qtbot, window, path)
    qtbot.waitUntil(lambda: window.qdoc.ready, timeout=60_000)


def _search_and_enter(qtbot, window, text):
    window.show_search()
    window.search.edit.setText(text)
    window.search.activate_current()
    wait_idle(qtbot, window)


def test_search_hit_on_initializer_shows_the_initializer(qtbot, window, tmp_path):
    _open_demo(qtbot, window, tmp_path)
    weight = window.model.graph.initializers["head.fc.weight"]
    _search_and_enter(qtbot, window, "head.fc.weight")
    gemm = weight.uses[0][0]
    assert window.graph.scene.item_for_node(gemm).isSelected()      # the canvas: the box drawing it
    assert window.properties.current is weight
    assert "head.fc.weight" in window.properties.browser.toPlainText().splitlines()[0]


def test_search_hit_inside_a_closed_group_shows_the_initializer(qtbot, window, tmp_path):
    _open_demo(qtbot, window, tmp_path)
    window.graph.collapse_all()
    wait_idle(qtbot, window)
    weight = window.model.graph.initializers["backbone.stage2.conv.weight"]
    conv = weight.uses[0][0]
    assert window.graph.scene.item_for_node(conv) is None or \
        window.graph.scene.item_for_node(conv).ref.node is not conv       # hidden in its group
    _search_and_enter(qtbot, window, "backbone.stage2.conv.weight")
    assert window.graph.scene.item_for_node(conv).isSelected()
    assert window.properties.current is weight


def test_a_node_hit_still_shows_the_node(qtbot, window, tmp_path):
    _open_demo(qtbot, window, tmp_path)
    _search_and_enter(qtbot, window, "head.fc.weight")
    gemm = window.model.graph.initializers["head.fc.weight"].uses[0][0]
    _search_and_enter(qtbot, window, "Gemm")
    shown = window.properties.current
    assert (shown if isinstance(shown, Node) else shown.node) is gemm
